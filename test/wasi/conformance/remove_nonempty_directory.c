// path_remove_directory of a directory that holds an entry is ENOTEMPTY; emptied, it goes.
#include "conf.h"
int main(void) {
  __wasi_fd_t root = root_fd();
  __wasi_fd_t dir = make_dir(root, "rmdir_nonempty.d");
  OK(__wasi_path_create_directory(dir, "d"));
  OK(__wasi_path_create_directory(dir, "d/nested"));
  EXPECT(__wasi_path_remove_directory(dir, "d"), E(NOTEMPTY));
  OK(__wasi_path_remove_directory(dir, "d/nested"));
  OK(__wasi_path_remove_directory(dir, "d"));
  EXPECT(__wasi_path_remove_directory(dir, "d"), E(NOENT));
  OK(__wasi_fd_close(dir));
  OK(__wasi_path_remove_directory(root, "rmdir_nonempty.d"));
  return 0;
}
