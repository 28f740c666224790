// fd_allocate extends a file to offset+len and never shrinks it.
#include "conf.h"
int main(void) {
  __wasi_fd_t root = root_fd();
  __wasi_fd_t fd = open_file(root, "file_allocate.f", __WASI_OFLAGS_CREAT, RW_RIGHTS, 0);
  __wasi_filestat_t st;
  OK(__wasi_fd_allocate(fd, 0, 100));
  OK(__wasi_fd_filestat_get(fd, &st));
  CHECK(st.size == 100);
  OK(__wasi_fd_allocate(fd, 10, 10));
  OK(__wasi_fd_filestat_get(fd, &st));
  CHECK(st.size == 100);
  OK(__wasi_fd_allocate(fd, 90, 20));
  OK(__wasi_fd_filestat_get(fd, &st));
  CHECK(st.size == 110);
  OK(__wasi_fd_close(fd));
  OK(__wasi_path_unlink_file(root, "file_allocate.f"));
  return 0;
}
