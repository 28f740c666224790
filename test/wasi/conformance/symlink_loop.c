// A symlink to itself, and a two-link cycle: following them is ELOOP; the links themselves can be stat'ed and removed.
#include "conf.h"
int main(void) {
  __wasi_fd_t dir = make_dir(root_fd(), "symlink_loop.d");
  OK(__wasi_path_symlink("self", dir, "self"));
  __wasi_fd_t fd;
  EXPECT(__wasi_path_open(dir, 0, "self", 0, 0, 0, 0, &fd), E(LOOP));
  EXPECT(__wasi_path_open(dir, FOLLOW, "self", 0, 0, 0, 0, &fd), E(LOOP));
  __wasi_filestat_t st;
  EXPECT(__wasi_path_filestat_get(dir, FOLLOW, "self", &st), E(LOOP));
  st = stat_path(dir, 0, "self");
  CHECK(st.filetype == __WASI_FILETYPE_SYMBOLIC_LINK);
  OK(__wasi_path_symlink("b", dir, "a"));
  OK(__wasi_path_symlink("a", dir, "b"));
  EXPECT(__wasi_path_open(dir, FOLLOW, "a", 0, 0, 0, 0, &fd), E(LOOP));
  // A loop in the middle of a path, too.
  EXPECT(__wasi_path_open(dir, 0, "a/x", 0, 0, 0, 0, &fd), E(LOOP));
  OK(__wasi_path_unlink_file(dir, "self"));
  OK(__wasi_path_unlink_file(dir, "a"));
  OK(__wasi_path_unlink_file(dir, "b"));
  OK(__wasi_fd_close(dir));
  OK(__wasi_path_remove_directory(root_fd(), "symlink_loop.d"));
  return 0;
}
