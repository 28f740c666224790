// path_open with CREAT|EXCL on an existing file is EEXIST; CREAT alone opens it.
#include "conf.h"
int main(void) {
  __wasi_fd_t root = root_fd();
  create_file(root, "create_existing.f");
  __wasi_fd_t fd;
  EXPECT(__wasi_path_open(root, 0, "create_existing.f", __WASI_OFLAGS_CREAT | __WASI_OFLAGS_EXCL, 0, 0, 0, &fd), E(EXIST));
  EXPECT(__wasi_path_open(root, 0, "sub", __WASI_OFLAGS_CREAT | __WASI_OFLAGS_EXCL, 0, 0, 0, &fd), E(EXIST));
  OK(__wasi_path_open(root, 0, "create_existing.f", __WASI_OFLAGS_CREAT, 0, 0, 0, &fd));
  OK(__wasi_fd_close(fd));
  OK(__wasi_path_unlink_file(root, "create_existing.f"));
  return 0;
}
