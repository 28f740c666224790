// fd_write to a descriptor that is not open is EBADF, and nothing is written.
#include "conf.h"
int main(void) {
  __wasi_ciovec_t iov = {(const uint8_t*)"x", 1};
  __wasi_size_t n = 77;
  EXPECT(__wasi_fd_write(1234, &iov, 1, &n), E(BADF));
  EXPECT(__wasi_fd_write(0xffffffffu, &iov, 1, &n), E(BADF));
  return 0;
}
