// path_symlink to a file and to a directory, followed by path_open with LOOKUPFLAGS_SYMLINK_FOLLOW; a link to an
// absolute path is refused (it could only point outside the preopen).
#include "conf.h"
int main(void) {
  __wasi_fd_t dir = make_dir(root_fd(), "symlink_create.d");
  create_file(dir, "target");
  OK(__wasi_path_symlink("target", dir, "link"));
  __wasi_fd_t fd;
  OK(__wasi_path_open(dir, FOLLOW, "link", 0, __WASI_RIGHTS_FD_READ, 0, 0, &fd));
  CHECK(fd > 2);
  OK(__wasi_fd_close(fd));
  OK(__wasi_path_unlink_file(dir, "link"));
  OK(__wasi_path_unlink_file(dir, "target"));

  OK(__wasi_path_create_directory(dir, "tdir"));
  OK(__wasi_path_symlink("tdir", dir, "dlink"));
  OK(__wasi_path_open(dir, FOLLOW, "dlink", __WASI_OFLAGS_DIRECTORY, 0, 0, 0, &fd));
  __wasi_fdstat_t st;
  OK(__wasi_fd_fdstat_get(fd, &st));
  CHECK(st.fs_filetype == __WASI_FILETYPE_DIRECTORY);
  OK(__wasi_fd_close(fd));
  // A symlink is unlinked as a file, never removed as the directory it points to.
  EXPECT(__wasi_path_remove_directory(dir, "dlink"), E(NOTDIR));
  OK(__wasi_path_unlink_file(dir, "dlink"));
  OK(__wasi_path_remove_directory(dir, "tdir"));

  CHECK(__wasi_path_symlink("/", dir, "abs") != 0);
  EXPECT(__wasi_path_filestat_get(dir, 0, "abs", &(__wasi_filestat_t){0}), E(NOENT));
  OK(__wasi_fd_close(dir));
  OK(__wasi_path_remove_directory(root_fd(), "symlink_create.d"));
  return 0;
}
