// A directory opened with the fd_seek right does not get it, and seeking it fails.
#include "conf.h"
int main(void) {
  __wasi_fd_t root = root_fd();
  OK(__wasi_path_create_directory(root, "directory_seek.d"));
  __wasi_fd_t fd;
  OK(__wasi_path_open(root, 0, "directory_seek.d", __WASI_OFLAGS_DIRECTORY, __WASI_RIGHTS_FD_SEEK, 0, 0, &fd));
  __wasi_filesize_t off;
  int r = __wasi_fd_seek(fd, 0, __WASI_WHENCE_CUR, &off);
  CHECK(r == E(ISDIR) || r == E(NOTCAPABLE) || r == E(BADF));
  __wasi_fdstat_t st;
  OK(__wasi_fd_fdstat_get(fd, &st));
  CHECK(st.fs_filetype == __WASI_FILETYPE_DIRECTORY);
  CHECK((st.fs_rights_base & __WASI_RIGHTS_FD_SEEK) == 0);
  OK(__wasi_fd_close(fd));
  OK(__wasi_path_remove_directory(root, "directory_seek.d"));
  return 0;
}
