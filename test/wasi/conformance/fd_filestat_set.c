// fd_filestat_set_size grows (zero-filled) and shrinks a file; fd_filestat_set_times sets atim and mtim, MTIM_NOW
// moves mtim forward; both show in fd_filestat_get.
#include "conf.h"
int main(void) {
  __wasi_fd_t root = root_fd();
  __wasi_fd_t fd = open_file(root, "fd_filestat_set.f", __WASI_OFLAGS_CREAT, RW_RIGHTS, 0);
  __wasi_filestat_t st;
  OK(__wasi_fd_filestat_get(fd, &st));
  CHECK(st.size == 0);
  OK(__wasi_fd_filestat_set_size(fd, 100));
  OK(__wasi_fd_filestat_get(fd, &st));
  CHECK(st.size == 100);
  char buf[100];
  __wasi_size_t n;
  __wasi_iovec_t iov = {(uint8_t*)buf, sizeof buf};
  OK(__wasi_fd_pread(fd, &iov, 1, 0, &n));
  CHECK(n == 100);
  for (int i = 0; i < 100; ++i) CHECK(buf[i] == 0);
  OK(__wasi_fd_filestat_set_size(fd, 10));
  OK(__wasi_fd_filestat_get(fd, &st));
  CHECK(st.size == 10);
  OK(__wasi_fd_filestat_set_times(fd, 1000000000ull, 2000000000ull, __WASI_FSTFLAGS_ATIM | __WASI_FSTFLAGS_MTIM));
  OK(__wasi_fd_filestat_get(fd, &st));
  CHECK(st.atim == 1000000000ull && st.mtim == 2000000000ull);
  OK(__wasi_fd_filestat_set_times(fd, 0, 0, __WASI_FSTFLAGS_MTIM_NOW));
  OK(__wasi_fd_filestat_get(fd, &st));
  CHECK(st.mtim > 2000000000ull && st.atim == 1000000000ull);
  OK(__wasi_fd_close(fd));
  OK(__wasi_path_unlink_file(root, "fd_filestat_set.f"));
  return 0;
}
