// path_filestat_get tells what exists: files, directories (also with a trailing slash), symlinks to either (followed
// or not), and ENOENT for a missing name or through a dangling link.
#include "conf.h"
int main(void) {
  __wasi_fd_t root = root_fd();
  __wasi_fd_t dir = make_dir(root, "path_exists.d");
  __wasi_filestat_t st;
  OK(__wasi_path_create_directory(dir, "subdir"));
  CHECK(stat_path(dir, 0, "subdir").filetype == __WASI_FILETYPE_DIRECTORY);
  CHECK(stat_path(dir, 0, "subdir/").filetype == __WASI_FILETYPE_DIRECTORY);
  create_file(dir, "file");
  CHECK(stat_path(dir, 0, "file").filetype == __WASI_FILETYPE_REGULAR_FILE);
  EXPECT2(__wasi_path_filestat_get(dir, 0, "file/", &st), E(NOTDIR), E(NOENT));
  EXPECT(__wasi_path_filestat_get(dir, 0, "missing", &st), E(NOENT));
  OK(__wasi_path_symlink("subdir", dir, "dlink"));
  CHECK(stat_path(dir, 0, "dlink").filetype == __WASI_FILETYPE_SYMBOLIC_LINK);
  CHECK(stat_path(dir, FOLLOW, "dlink").filetype == __WASI_FILETYPE_DIRECTORY);
  CHECK(stat_path(dir, 0, "dlink/").filetype == __WASI_FILETYPE_DIRECTORY);
  OK(__wasi_path_symlink("file", dir, "flink"));
  CHECK(stat_path(dir, FOLLOW, "flink").filetype == __WASI_FILETYPE_REGULAR_FILE);
  OK(__wasi_path_symlink("nothing", dir, "broken"));
  CHECK(stat_path(dir, 0, "broken").filetype == __WASI_FILETYPE_SYMBOLIC_LINK);
  EXPECT(__wasi_path_filestat_get(dir, FOLLOW, "broken", &st), E(NOENT));
  OK(__wasi_path_unlink_file(dir, "dlink"));
  OK(__wasi_path_unlink_file(dir, "flink"));
  OK(__wasi_path_unlink_file(dir, "broken"));
  OK(__wasi_path_unlink_file(dir, "file"));
  OK(__wasi_path_remove_directory(dir, "subdir"));
  OK(__wasi_fd_close(dir));
  OK(__wasi_path_remove_directory(root, "path_exists.d"));
  return 0;
}
