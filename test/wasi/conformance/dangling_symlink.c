// A symlink whose target does not exist: opening it without following is ELOOP (O_NOFOLLOW), with O_DIRECTORY
// ENOTDIR or ELOOP; following it is ENOENT, and O_CREAT through it creates the target.
#include "conf.h"
int main(void) {
  __wasi_fd_t dir = make_dir(root_fd(), "dangling_symlink.d");
  OK(__wasi_path_symlink("target", dir, "link"));
  __wasi_fd_t fd;
  EXPECT2(__wasi_path_open(dir, 0, "link", __WASI_OFLAGS_DIRECTORY, 0, 0, 0, &fd), E(NOTDIR), E(LOOP));
  EXPECT(__wasi_path_open(dir, 0, "link", 0, 0, 0, 0, &fd), E(LOOP));
  EXPECT(__wasi_path_open(dir, FOLLOW, "link", 0, 0, 0, 0, &fd), E(NOENT));
  __wasi_filestat_t st;
  EXPECT(__wasi_path_filestat_get(dir, FOLLOW, "link", &st), E(NOENT));
  OK(__wasi_path_open(dir, FOLLOW, "link", __WASI_OFLAGS_CREAT, __WASI_RIGHTS_FD_WRITE, 0, 0, &fd));
  OK(__wasi_fd_close(fd));
  st = stat_path(dir, 0, "target");
  CHECK(st.filetype == __WASI_FILETYPE_REGULAR_FILE);
  OK(__wasi_path_unlink_file(dir, "link"));
  OK(__wasi_path_unlink_file(dir, "target"));
  OK(__wasi_fd_close(dir));
  OK(__wasi_path_remove_directory(root_fd(), "dangling_symlink.d"));
  return 0;
}
