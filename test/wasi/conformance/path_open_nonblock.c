// path_open with FDFLAGS_NONBLOCK succeeds and the flag reads back through fd_fdstat_get.
#include "conf.h"
int main(void) {
  __wasi_fd_t root = root_fd();
  __wasi_fd_t fd = open_file(root, "data.txt", 0, __WASI_RIGHTS_FD_READ, __WASI_FDFLAGS_NONBLOCK);
  __wasi_fdstat_t st;
  OK(__wasi_fd_fdstat_get(fd, &st));
  CHECK(st.fs_flags & __WASI_FDFLAGS_NONBLOCK);
  char buf[16];
  CHECK(read_some(fd, buf, sizeof buf) == 11);
  OK(__wasi_fd_close(fd));
  return 0;
}
