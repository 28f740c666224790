// args_sizes_get with no arguments: just the program name.
#include "conf.h"
int main(int argc, char** argv) {
  __wasi_size_t count, size;
  OK(__wasi_args_sizes_get(&count, &size));
  CHECK(count == 1 && argc == 1);
  CHECK(size == strlen(argv[0]) + 1);
  return 0;
}
