// fd_write to stdout with two iovecs writes both, in order, and reports the byte count.
// STDOUT: "Hello, World!\n"
#include "conf.h"
int main(void) {
  __wasi_ciovec_t iov[2] = {{(const uint8_t*)"Hello, ", 7}, {(const uint8_t*)"World!\n", 7}};
  __wasi_size_t n = 0;
  OK(__wasi_fd_write(1, iov, 2, &n));
  CHECK(n == 14);
  return 0;
}
