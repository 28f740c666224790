// A descriptor opened read-only cannot write (EBADF), write-only cannot read (EBADF), read-write does both.
#include "conf.h"
int main(void) {
  __wasi_fd_t root = root_fd();
  create_file(root, "read_write.f");
  char buf[8];
  __wasi_iovec_t iov = {(uint8_t*)buf, sizeof buf};
  __wasi_ciovec_t ciov = {(const uint8_t*)"data", 4};
  __wasi_size_t n;
  __wasi_fd_t r = open_file(root, "read_write.f", 0, __WASI_RIGHTS_FD_READ, 0);
  EXPECT2(__wasi_fd_write(r, &ciov, 1, &n), E(BADF), E(NOTCAPABLE));
  OK(__wasi_fd_read(r, &iov, 1, &n));
  OK(__wasi_fd_close(r));
  __wasi_fd_t w = open_file(root, "read_write.f", 0, __WASI_RIGHTS_FD_WRITE, 0);
  OK(__wasi_fd_write(w, &ciov, 1, &n));
  CHECK(n == 4);
  EXPECT2(__wasi_fd_read(w, &iov, 1, &n), E(BADF), E(NOTCAPABLE));
  OK(__wasi_fd_close(w));
  __wasi_fd_t rw = open_file(root, "read_write.f", 0, __WASI_RIGHTS_FD_READ | __WASI_RIGHTS_FD_WRITE, 0);
  OK(__wasi_fd_read(rw, &iov, 1, &n));
  CHECK(n == 4 && memcmp(buf, "data", 4) == 0);
  OK(__wasi_fd_write(rw, &ciov, 1, &n));
  OK(__wasi_fd_close(rw));
  CHECK(stat_path(root, 0, "read_write.f").size == 8);
  OK(__wasi_path_unlink_file(root, "read_write.f"));
  return 0;
}
