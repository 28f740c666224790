// args_get: the program name, then every argument in order, each NUL-terminated in one buffer.
// ARGS: ["first", "arg with spaces", "", "ünïcode"]
#include "conf.h"
int main(int argc, char** argv) {
  CHECK(argc == 5);
  CHECK(strstr(argv[0], "args_get_multiple_arguments") != NULL);
  CHECK(strcmp(argv[1], "first") == 0 && strcmp(argv[2], "arg with spaces") == 0);
  CHECK(strcmp(argv[3], "") == 0 && strcmp(argv[4], "ünïcode") == 0);
  CHECK(argv[5] == NULL);
  return 0;
}
