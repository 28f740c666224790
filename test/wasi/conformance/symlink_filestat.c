// path_filestat_get and path_filestat_set_times act on the link itself without LOOKUPFLAGS_SYMLINK_FOLLOW and on
// its target with it.
#include "conf.h"
int main(void) {
  __wasi_fd_t dir = make_dir(root_fd(), "symlink_filestat.d");
  __wasi_fd_t fd = open_file(dir, "file", __WASI_OFLAGS_CREAT, __WASI_RIGHTS_FD_WRITE, 0);
  CHECK(write_all(fd, "abc", 3) == 3);
  __wasi_filestat_t file = stat_path(dir, 0, "file");
  CHECK(file.size == 3);
  OK(__wasi_path_symlink("file", dir, "link"));
  __wasi_filestat_t link = stat_path(dir, 0, "link");
  CHECK(link.filetype == __WASI_FILETYPE_SYMBOLIC_LINK);
  CHECK(link.size == 4);  // the target's length
  CHECK(link.ino != file.ino);
  __wasi_filestat_t through = stat_path(dir, FOLLOW, "link");
  CHECK(through.filetype == __WASI_FILETYPE_REGULAR_FILE && through.ino == file.ino && through.size == 3);

  __wasi_timestamp_t t = link.mtim - 200;
  OK(__wasi_path_filestat_set_times(dir, 0, "link", 0, t, __WASI_FSTFLAGS_MTIM));
  CHECK(stat_path(dir, 0, "link").mtim == t);
  CHECK(stat_path(dir, 0, "file").mtim == file.mtim);
  OK(__wasi_path_filestat_set_times(dir, FOLLOW, "link", 0, 12345, __WASI_FSTFLAGS_MTIM));
  CHECK(stat_path(dir, 0, "file").mtim == 12345);
  CHECK(stat_path(dir, 0, "link").mtim == t);

  // lstat and stat through the libc.
  struct stat s;
  CHECK(lstat("/symlink_filestat.d/link", &s) == 0 && S_ISLNK(s.st_mode));
  CHECK(stat("/symlink_filestat.d/link", &s) == 0 && S_ISREG(s.st_mode) && s.st_size == 3);
  OK(__wasi_fd_close(fd));
  OK(__wasi_path_unlink_file(dir, "link"));
  OK(__wasi_path_unlink_file(dir, "file"));
  OK(__wasi_fd_close(dir));
  OK(__wasi_path_remove_directory(root_fd(), "symlink_filestat.d"));
  return 0;
}
