// path_rename: a file onto a new name and over a file, a directory over an empty directory; a directory over a
// non-empty one is ENOTEMPTY, a file over a directory EISDIR, a directory over a file ENOTDIR, a directory into
// itself EINVAL, a missing source ENOENT; a rename onto itself changes nothing.
#include "conf.h"
int main(void) {
  __wasi_fd_t root = root_fd();
  __wasi_fd_t dir = make_dir(root, "path_rename.d");
  __wasi_fd_t fd = open_file(dir, "a", __WASI_OFLAGS_CREAT, RW_RIGHTS, 0);
  CHECK(write_all(fd, "A", 1) == 1);
  OK(__wasi_fd_close(fd));
  OK(__wasi_path_rename(dir, "a", dir, "b"));
  __wasi_filestat_t st;
  EXPECT(__wasi_path_filestat_get(dir, 0, "a", &st), E(NOENT));
  CHECK(stat_path(dir, 0, "b").size == 1);
  create_file(dir, "c");
  OK(__wasi_path_rename(dir, "b", dir, "c"));
  CHECK(stat_path(dir, 0, "c").size == 1);
  EXPECT(__wasi_path_filestat_get(dir, 0, "b", &st), E(NOENT));
  OK(__wasi_path_rename(dir, "c", dir, "c"));
  CHECK(stat_path(dir, 0, "c").size == 1);
  OK(__wasi_path_create_directory(dir, "d1"));
  OK(__wasi_path_create_directory(dir, "d2"));
  OK(__wasi_path_rename(dir, "d1", dir, "d2"));
  EXPECT(__wasi_path_filestat_get(dir, 0, "d1", &st), E(NOENT));
  OK(__wasi_path_create_directory(dir, "d1"));
  create_file(dir, "d2/inside");
  EXPECT2(__wasi_path_rename(dir, "d1", dir, "d2"), E(NOTEMPTY), E(EXIST));
  EXPECT(__wasi_path_rename(dir, "c", dir, "d1"), E(ISDIR));
  EXPECT(__wasi_path_rename(dir, "d1", dir, "c"), E(NOTDIR));
  EXPECT(__wasi_path_rename(dir, "d2", dir, "d2/deeper"), E(INVAL));
  EXPECT(__wasi_path_rename(dir, "missing", dir, "x"), E(NOENT));
  // Across two descriptors of the same preopen.
  OK(__wasi_path_rename(dir, "c", root, "path_rename_moved"));
  CHECK(stat_path(root, 0, "path_rename_moved").size == 1);
  OK(__wasi_path_unlink_file(root, "path_rename_moved"));
  OK(__wasi_path_unlink_file(dir, "d2/inside"));
  OK(__wasi_path_remove_directory(dir, "d1"));
  OK(__wasi_path_remove_directory(dir, "d2"));
  OK(__wasi_fd_close(dir));
  OK(__wasi_path_remove_directory(root, "path_rename.d"));
  return 0;
}
