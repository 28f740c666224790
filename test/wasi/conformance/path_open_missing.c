// path_open of a missing name is ENOENT (with or without O_DIRECTORY), also through a missing directory on the way.
#include "conf.h"
int main(void) {
  __wasi_fd_t root = root_fd();
  __wasi_fd_t fd;
  EXPECT(__wasi_path_open(root, 0, "file", 0, 0, 0, 0, &fd), E(NOENT));
  EXPECT(__wasi_path_open(root, 0, "dir", __WASI_OFLAGS_DIRECTORY, 0, 0, 0, &fd), E(NOENT));
  EXPECT(__wasi_path_open(root, 0, "nodir/file", __WASI_OFLAGS_CREAT, 0, 0, 0, &fd), E(NOENT));
  return 0;
}
