// path_symlink's new path: a trailing slash on a missing name is ENOENT; an existing directory or file (with or
// without the slash) is EEXIST (ENOTDIR for a file with the slash).
#include "conf.h"
int main(void) {
  __wasi_fd_t dir = make_dir(root_fd(), "path_symlink_trailing_slashes.d");
  EXPECT(__wasi_path_symlink("source", dir, "target/"), E(NOENT));
  OK(__wasi_path_symlink("source", dir, "target"));
  OK(__wasi_path_unlink_file(dir, "target"));
  OK(__wasi_path_create_directory(dir, "target"));
  EXPECT(__wasi_path_symlink("source", dir, "target/"), E(EXIST));
  EXPECT(__wasi_path_symlink("source", dir, "target"), E(EXIST));
  OK(__wasi_path_remove_directory(dir, "target"));
  create_file(dir, "target");
  EXPECT2(__wasi_path_symlink("source", dir, "target/"), E(NOTDIR), E(EXIST));
  EXPECT(__wasi_path_symlink("source", dir, "target"), E(EXIST));
  OK(__wasi_path_unlink_file(dir, "target"));
  OK(__wasi_fd_close(dir));
  OK(__wasi_path_remove_directory(root_fd(), "path_symlink_trailing_slashes.d"));
  return 0;
}
