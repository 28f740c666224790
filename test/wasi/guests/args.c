// RUN: ["--arg", "a", "--arg", "b c", "--arg", ""]
#include "guest.h"
int main(int argc, char** argv) {
  CHECK(argc == 4);
  CHECK(strcmp(argv[0], "args.wasm") == 0);
  CHECK(strcmp(argv[1], "a") == 0);
  CHECK(strcmp(argv[2], "b c") == 0);
  CHECK(strcmp(argv[3], "") == 0);
  CHECK(argv[4] == NULL);
  return 0;
}
