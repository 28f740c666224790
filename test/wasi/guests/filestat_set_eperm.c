#include "guest.h"
int main(void) {
  int fd = open("/workspace/hello.txt", O_RDWR);
  CHECK(fd >= 0);
  CHECK_ERRNO(ftruncate(fd, 0), EPERM);
  CHECK_WASI(__wasi_fd_filestat_set_size(fd, 0), __WASI_ERRNO_PERM);
  CHECK_WASI(__wasi_fd_filestat_set_times(fd, 0, 0, __WASI_FSTFLAGS_MTIM_NOW), __WASI_ERRNO_PERM);
  CHECK_WASI(__wasi_path_filestat_set_times(WS_FD, 0, "hello.txt", 0, 0, __WASI_FSTFLAGS_ATIM_NOW),
             __WASI_ERRNO_PERM);
  CHECK_WASI(__wasi_fd_allocate(fd, 0, 100), __WASI_ERRNO_PERM);
  __wasi_ciovec_t iov = {(const uint8_t*)"x", 1};
  __wasi_size_t n;
  CHECK_WASI(__wasi_fd_pwrite(fd, &iov, 1, 0, &n), __WASI_ERRNO_PERM);
  close(fd);
  expect_file("/workspace/hello.txt", "hello\n");
  return 0;
}
