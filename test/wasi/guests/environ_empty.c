#include "guest.h"
int main(void) {
  size_t count = 99, size = 99;
  CHECK_WASI(__wasi_environ_sizes_get(&count, &size), 0);
  CHECK(count == 0 && size == 0);
  CHECK(getenv("HOME") == NULL);
  return 0;
}
