// fd_filestat_set_times and path_filestat_set_times refuse ATIM with ATIM_NOW, MTIM with MTIM_NOW (EINVAL).
#include "conf.h"
int main(void) {
  __wasi_fd_t root = root_fd();
  __wasi_fd_t fd = open_file(root, "fstflags.f", __WASI_OFLAGS_CREAT, __WASI_RIGHTS_FD_READ | __WASI_RIGHTS_FD_FILESTAT_SET_TIMES, 0);
  EXPECT(__wasi_fd_filestat_set_times(fd, 100, 200, __WASI_FSTFLAGS_MTIM | __WASI_FSTFLAGS_MTIM_NOW), E(INVAL));
  EXPECT(__wasi_fd_filestat_set_times(fd, 100, 200, __WASI_FSTFLAGS_ATIM | __WASI_FSTFLAGS_ATIM_NOW), E(INVAL));
  EXPECT(__wasi_path_filestat_set_times(root, 0, "fstflags.f", 100, 200, __WASI_FSTFLAGS_MTIM | __WASI_FSTFLAGS_MTIM_NOW), E(INVAL));
  EXPECT(__wasi_path_filestat_set_times(root, 0, "fstflags.f", 100, 200, __WASI_FSTFLAGS_ATIM | __WASI_FSTFLAGS_ATIM_NOW), E(INVAL));
  OK(__wasi_fd_close(fd));
  OK(__wasi_path_unlink_file(root, "fstflags.f"));
  return 0;
}
