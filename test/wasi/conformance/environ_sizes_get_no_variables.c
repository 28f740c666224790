// environ_sizes_get with an empty environment: zero and zero.
#include "conf.h"
int main(void) {
  __wasi_size_t count = 99, size = 99;
  OK(__wasi_environ_sizes_get(&count, &size));
  CHECK(count == 0 && size == 0);
  return 0;
}
