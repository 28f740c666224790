// A file unlinked while open and a directory removed while open: the descriptors stay usable (the file's bytes
// remain readable) and the names can be reused at once.
#include "conf.h"
int main(void) {
  __wasi_fd_t root = root_fd();
  __wasi_fd_t dir = make_dir(root, "dangling_fd.d");
  __wasi_fd_t f = open_file(dir, "file", __WASI_OFLAGS_CREAT, RW_RIGHTS, 0);
  CHECK(write_all(f, "kept", 4) == 4);
  OK(__wasi_path_unlink_file(dir, "file"));
  __wasi_filesize_t pos;
  OK(__wasi_fd_seek(f, 0, __WASI_WHENCE_SET, &pos));
  char buf[8] = {0};
  CHECK(read_some(f, buf, sizeof buf) == 4 && memcmp(buf, "kept", 4) == 0);
  create_file(dir, "file");
  CHECK(stat_path(dir, 0, "file").size == 0);
  OK(__wasi_fd_close(f));
  OK(__wasi_path_unlink_file(dir, "file"));

  __wasi_fd_t sub = make_dir(dir, "subdir");
  OK(__wasi_path_remove_directory(dir, "subdir"));
  __wasi_fdstat_t st;
  OK(__wasi_fd_fdstat_get(sub, &st));
  OK(__wasi_path_create_directory(dir, "subdir"));
  OK(__wasi_fd_close(sub));
  OK(__wasi_path_remove_directory(dir, "subdir"));
  OK(__wasi_fd_close(dir));
  OK(__wasi_path_remove_directory(root, "dangling_fd.d"));
  return 0;
}
