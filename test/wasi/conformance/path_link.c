// path_link. Our host has no hard links (one parent per node): after checking both descriptors (EBADF first, ENOTDIR
// for a file) it answers EPERM, link(2)'s errno for a file system without them. A deliberate difference: the
// official path_link test expects working hard links.
#include "conf.h"
int main(void) {
  __wasi_fd_t root = root_fd();
  create_file(root, "path_link.f");
  EXPECT(__wasi_path_link(999, 0, "path_link.f", root, "link"), E(BADF));
  EXPECT(__wasi_path_link(root, 0, "path_link.f", 999, "link"), E(BADF));
  __wasi_fd_t f = open_file(root, "path_link.f", 0, __WASI_RIGHTS_FD_READ, 0);
  EXPECT(__wasi_path_link(f, 0, "x", root, "link"), E(NOTDIR));
  EXPECT(__wasi_path_link(root, 0, "path_link.f", root, "link"), E(PERM));
  OK(__wasi_fd_close(f));
  OK(__wasi_path_unlink_file(root, "path_link.f"));
  return 0;
}
