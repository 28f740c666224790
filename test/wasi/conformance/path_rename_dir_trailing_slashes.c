// path_rename of a directory accepts a trailing slash on either name or both.
#include "conf.h"
int main(void) {
  __wasi_fd_t root = root_fd();
  __wasi_fd_t dir = make_dir(root, "rename_slashes.d");
  OK(__wasi_path_create_directory(dir, "source"));
  OK(__wasi_path_rename(dir, "source/", dir, "target"));
  OK(__wasi_path_rename(dir, "target", dir, "source/"));
  OK(__wasi_path_rename(dir, "source/", dir, "target/"));
  OK(__wasi_path_rename(dir, "target", dir, "source"));
  OK(__wasi_path_remove_directory(dir, "source"));
  // A file with a trailing slash is not a directory.
  create_file(dir, "file");
  EXPECT2(__wasi_path_rename(dir, "file/", dir, "other"), E(NOTDIR), E(NOENT));
  EXPECT2(__wasi_path_rename(dir, "file", dir, "other/"), E(NOTDIR), E(NOENT));
  OK(__wasi_path_unlink_file(dir, "file"));
  OK(__wasi_fd_close(dir));
  OK(__wasi_path_remove_directory(root, "rename_slashes.d"));
  return 0;
}
