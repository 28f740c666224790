// path_remove_directory accepts "dir/"; on a file it is ENOTDIR, with or without the slash.
#include "conf.h"
int main(void) {
  __wasi_fd_t root = root_fd();
  __wasi_fd_t dir = make_dir(root, "rmdir_slashes.d");
  OK(__wasi_path_create_directory(dir, "d"));
  OK(__wasi_path_remove_directory(dir, "d"));
  OK(__wasi_path_create_directory(dir, "d"));
  OK(__wasi_path_remove_directory(dir, "d/"));
  create_file(dir, "file");
  EXPECT(__wasi_path_remove_directory(dir, "file"), E(NOTDIR));
  EXPECT(__wasi_path_remove_directory(dir, "file/"), E(NOTDIR));
  OK(__wasi_path_unlink_file(dir, "file"));
  OK(__wasi_fd_close(dir));
  OK(__wasi_path_remove_directory(root, "rmdir_slashes.d"));
  return 0;
}
