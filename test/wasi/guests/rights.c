#include "guest.h"
int main(void) {
  int fd = open("/workspace/hello.txt", O_RDONLY);
  CHECK(fd >= 0);
  CHECK_ERRNO(write(fd, "x", 1), EBADF);
  int wfd = open("/workspace/w.txt", O_WRONLY | O_CREAT, 0644);
  char c;
  CHECK_ERRNO(read(wfd, &c, 1), EBADF);
  __wasi_fdstat_t st;
  CHECK_WASI(__wasi_fd_fdstat_get(fd, &st), 0);
  CHECK(st.fs_rights_base & __WASI_RIGHTS_FD_READ);
  CHECK(!(st.fs_rights_base & __WASI_RIGHTS_FD_WRITE));
  // Rights only shrink.
  CHECK_WASI(__wasi_fd_fdstat_set_rights(fd, st.fs_rights_base | __WASI_RIGHTS_FD_WRITE, 0),
             __WASI_ERRNO_NOTCAPABLE);
  CHECK_WASI(__wasi_fd_fdstat_set_rights(fd, __WASI_RIGHTS_FD_SEEK, 0), 0);
  CHECK_ERRNO(read(fd, &c, 1), EBADF);
  // A directory opened without PATH_OPEN opens nothing below it.
  int32_t dir = -1, f = -1;
  CHECK_WASI(raw_path_open(WS_FD, 0, "sub", 3, __WASI_OFLAGS_DIRECTORY, __WASI_RIGHTS_FD_READDIR, 0, 0, &dir), 0);
  CHECK_WASI(open_raw(dir, "nested.txt", 0, &f), __WASI_ERRNO_NOTCAPABLE);
  // Inheriting rights bound what can be asked for.
  CHECK_WASI(raw_path_open(WS_FD, 0, "sub", 3, __WASI_OFLAGS_DIRECTORY, ALL_RIGHTS, __WASI_RIGHTS_FD_READ, 0, &dir), 0);
  CHECK_WASI(raw_path_open(dir, 0, "nested.txt", 10, 0, __WASI_RIGHTS_FD_WRITE, 0, 0, &f), __WASI_ERRNO_NOTCAPABLE);
  CHECK_WASI(raw_path_open(dir, 0, "nested.txt", 10, 0, __WASI_RIGHTS_FD_READ, 0, 0, &f), 0);
  return 0;
}
