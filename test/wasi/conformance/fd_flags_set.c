// fd_fdstat_set_flags: APPEND set makes every write go to the end; cleared, writes go to the offset again; the flags
// read back through fd_fdstat_get.
#include "conf.h"
int main(void) {
  __wasi_fd_t root = root_fd();
  __wasi_fd_t fd = open_file(root, "fd_flags_set.f", __WASI_OFLAGS_CREAT, RW_RIGHTS, 0);
  CHECK(write_all(fd, "0123456789", 10) == 10);
  __wasi_filesize_t off;
  OK(__wasi_fd_seek(fd, 0, __WASI_WHENCE_SET, &off));
  OK(__wasi_fd_fdstat_set_flags(fd, __WASI_FDFLAGS_APPEND));
  __wasi_fdstat_t st;
  OK(__wasi_fd_fdstat_get(fd, &st));
  CHECK(st.fs_flags & __WASI_FDFLAGS_APPEND);
  CHECK(write_all(fd, "AB", 2) == 2);
  __wasi_filestat_t fst;
  OK(__wasi_fd_filestat_get(fd, &fst));
  CHECK(fst.size == 12);
  OK(__wasi_fd_fdstat_set_flags(fd, 0));
  OK(__wasi_fd_fdstat_get(fd, &st));
  CHECK(!(st.fs_flags & __WASI_FDFLAGS_APPEND));
  OK(__wasi_fd_seek(fd, 0, __WASI_WHENCE_SET, &off));
  CHECK(write_all(fd, "x", 1) == 1);
  char buf[16] = {0};
  __wasi_iovec_t iov = {(uint8_t*)buf, sizeof buf};
  __wasi_size_t n;
  OK(__wasi_fd_pread(fd, &iov, 1, 0, &n));
  CHECK(n == 12 && memcmp(buf, "x123456789AB", 12) == 0);
  OK(__wasi_fd_close(fd));
  OK(__wasi_path_unlink_file(root, "fd_flags_set.f"));
  return 0;
}
