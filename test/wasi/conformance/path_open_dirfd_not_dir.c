// path_open relative to a descriptor that is a file is ENOTDIR.
#include "conf.h"
int main(void) {
  __wasi_fd_t root = root_fd();
  __wasi_fd_t f = open_file(root, "data.txt", 0, __WASI_RIGHTS_FD_READ, 0);
  __wasi_fd_t fd;
  EXPECT(__wasi_path_open(f, 0, "foo", __WASI_OFLAGS_DIRECTORY, 0, 0, 0, &fd), E(NOTDIR));
  EXPECT(__wasi_path_open(f, 0, "foo", __WASI_OFLAGS_CREAT, 0, 0, 0, &fd), E(NOTDIR));
  OK(__wasi_fd_close(f));
  return 0;
}
