// environ_sizes_get counts the variables and their bytes with one NUL each.
// ENV: ["A=1", "BB=22", "CCC=333"]
#include "conf.h"
int main(void) {
  __wasi_size_t count, size;
  OK(__wasi_environ_sizes_get(&count, &size));
  CHECK(count == 3 && size == 4 + 6 + 8);
  return 0;
}
