// path_unlink_file on a directory is EISDIR (also "dir/"); on "file/" ENOTDIR; "file" goes.
#include "conf.h"
int main(void) {
  __wasi_fd_t root = root_fd();
  __wasi_fd_t dir = make_dir(root, "unlink_slashes.d");
  OK(__wasi_path_create_directory(dir, "dir"));
  EXPECT(__wasi_path_unlink_file(dir, "dir"), E(ISDIR));
  EXPECT(__wasi_path_unlink_file(dir, "dir/"), E(ISDIR));
  OK(__wasi_path_remove_directory(dir, "dir"));
  create_file(dir, "file");
  EXPECT(__wasi_path_unlink_file(dir, "file/"), E(NOTDIR));
  OK(__wasi_path_unlink_file(dir, "file"));
  EXPECT(__wasi_path_unlink_file(dir, "file"), E(NOENT));
  OK(__wasi_fd_close(dir));
  OK(__wasi_path_remove_directory(root, "unlink_slashes.d"));
  return 0;
}
