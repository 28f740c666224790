// path_filestat_get reports type and size; path_filestat_set_times sets atim/mtim on a path (and *_NOW); a file
// opened with APPEND keeps the flag.
#include "conf.h"
int main(void) {
  __wasi_fd_t root = root_fd();
  __wasi_fdstat_t dst;
  OK(__wasi_fd_fdstat_get(root, &dst));
  CHECK(dst.fs_rights_base & __WASI_RIGHTS_PATH_FILESTAT_GET);
  __wasi_fd_t fd = open_file(root, "path_filestat.f", __WASI_OFLAGS_CREAT, RW_RIGHTS, __WASI_FDFLAGS_APPEND);
  __wasi_fdstat_t fst;
  OK(__wasi_fd_fdstat_get(fd, &fst));
  CHECK(fst.fs_flags & __WASI_FDFLAGS_APPEND);
  __wasi_filestat_t st = stat_path(root, 0, "path_filestat.f");
  CHECK(st.size == 0 && st.filetype == __WASI_FILETYPE_REGULAR_FILE);
  CHECK(write_all(fd, "12345", 5) == 5);
  CHECK(stat_path(root, 0, "path_filestat.f").size == 5);
  OK(__wasi_path_filestat_set_times(root, 0, "path_filestat.f", 0, 99000, __WASI_FSTFLAGS_MTIM));
  st = stat_path(root, 0, "path_filestat.f");
  CHECK(st.mtim == 99000);
  OK(__wasi_path_filestat_set_times(root, 0, "path_filestat.f", 7000, 0, __WASI_FSTFLAGS_ATIM));
  st = stat_path(root, 0, "path_filestat.f");
  CHECK(st.atim == 7000 && st.mtim == 99000);
  OK(__wasi_path_filestat_set_times(root, 0, "path_filestat.f", 0, 0, __WASI_FSTFLAGS_ATIM_NOW));
  CHECK(stat_path(root, 0, "path_filestat.f").atim > 7000);
  EXPECT(__wasi_path_filestat_set_times(root, 0, "missing", 0, 0, __WASI_FSTFLAGS_MTIM_NOW), E(NOENT));
  CHECK(stat_path(root, 0, "sub").filetype == __WASI_FILETYPE_DIRECTORY);
  CHECK(stat_path(root, 0, "data.txt").size == 11);
  OK(__wasi_fd_close(fd));
  OK(__wasi_path_unlink_file(root, "path_filestat.f"));
  return 0;
}
