// Opening a symlink without LOOKUPFLAGS_SYMLINK_FOLLOW fails (ELOOP, or ENOTDIR with O_DIRECTORY) whether it points
// to a directory or a file; following it opens the target, and O_DIRECTORY through a link to a file is ENOTDIR.
#include "conf.h"
int main(void) {
  __wasi_fd_t dir = make_dir(root_fd(), "nofollow_errors.d");
  __wasi_fd_t fd;
  OK(__wasi_path_create_directory(dir, "target"));
  OK(__wasi_path_symlink("target", dir, "link"));
  EXPECT2(__wasi_path_open(dir, 0, "link", __WASI_OFLAGS_DIRECTORY, 0, 0, 0, &fd), E(LOOP), E(NOTDIR));
  EXPECT2(__wasi_path_open(dir, 0, "link", 0, 0, 0, 0, &fd), E(LOOP), E(ACCES));
  OK(__wasi_path_open(dir, FOLLOW, "link", __WASI_OFLAGS_DIRECTORY, 0, 0, 0, &fd));
  OK(__wasi_fd_close(fd));
  OK(__wasi_path_unlink_file(dir, "link"));
  OK(__wasi_path_remove_directory(dir, "target"));

  create_file(dir, "target");
  OK(__wasi_path_symlink("target", dir, "link"));
  EXPECT2(__wasi_path_open(dir, 0, "link", __WASI_OFLAGS_DIRECTORY, 0, 0, 0, &fd), E(LOOP), E(NOTDIR));
  EXPECT(__wasi_path_open(dir, 0, "link", 0, 0, 0, 0, &fd), E(LOOP));
  EXPECT(__wasi_path_open(dir, FOLLOW, "link", __WASI_OFLAGS_DIRECTORY, 0, 0, 0, &fd), E(NOTDIR));
  OK(__wasi_path_unlink_file(dir, "target"));
  OK(__wasi_path_unlink_file(dir, "link"));
  OK(__wasi_fd_close(dir));
  OK(__wasi_path_remove_directory(root_fd(), "nofollow_errors.d"));
  return 0;
}
