#include "guest.h"
int main(void) {
  char buf[4];
  CHECK_ERRNO(read(99, buf, 4), EBADF);
  CHECK_ERRNO(write(99, buf, 4), EBADF);
  CHECK_ERRNO(close(99), EBADF);
  CHECK_ERRNO(lseek(1, 0, SEEK_CUR), ESPIPE);
  CHECK_ERRNO(read(5, buf, 4), EBADF);  // a directory descriptor has no FD_READ
  CHECK_ERRNO(fsync(4242), EBADF);
  __wasi_filestat_t st;
  CHECK_WASI(__wasi_fd_filestat_get(1000000, &st), __WASI_ERRNO_BADF);
  return 0;
}
