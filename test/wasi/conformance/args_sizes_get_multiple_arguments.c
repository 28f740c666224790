// args_sizes_get counts the program name and the arguments, and their bytes with one NUL each.
// ARGS: ["a", "bc", "def"]
#include "conf.h"
int main(int argc, char** argv) {
  __wasi_size_t count, size;
  OK(__wasi_args_sizes_get(&count, &size));
  CHECK(count == 4);
  CHECK(size == strlen(argv[0]) + 1 + 2 + 3 + 4);
  return 0;
}
