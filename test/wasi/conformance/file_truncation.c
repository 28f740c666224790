// path_open with OFLAGS_TRUNC empties an existing file; without it the content stays.
#include "conf.h"
int main(void) {
  __wasi_fd_t root = root_fd();
  __wasi_fd_t fd = open_file(root, "truncation.f", __WASI_OFLAGS_CREAT, RW_RIGHTS, 0);
  CHECK(write_all(fd, "some data", 9) == 9);
  OK(__wasi_fd_close(fd));
  fd = open_file(root, "truncation.f", 0, RW_RIGHTS, 0);
  __wasi_filestat_t st;
  OK(__wasi_fd_filestat_get(fd, &st));
  CHECK(st.size == 9);
  OK(__wasi_fd_close(fd));
  fd = open_file(root, "truncation.f", __WASI_OFLAGS_TRUNC, RW_RIGHTS, 0);
  OK(__wasi_fd_filestat_get(fd, &st));
  CHECK(st.size == 0);
  char buf[4];
  CHECK(read_some(fd, buf, sizeof buf) == 0);
  OK(__wasi_fd_close(fd));
  OK(__wasi_path_unlink_file(root, "truncation.f"));
  return 0;
}
