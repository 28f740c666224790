// fd_seek with SET/CUR/END and fd_tell; a negative resulting offset is EINVAL and leaves the offset unchanged;
// seeking past the end is allowed.
#include "conf.h"
int main(void) {
  __wasi_fd_t root = root_fd();
  __wasi_fd_t fd = open_file(root, "seek_tell.f", __WASI_OFLAGS_CREAT, RW_RIGHTS, 0);
  __wasi_filesize_t off;
  OK(__wasi_fd_tell(fd, &off));
  CHECK(off == 0);
  CHECK(write_all(fd, "0123456789", 10) == 10);
  OK(__wasi_fd_tell(fd, &off));
  CHECK(off == 10);
  OK(__wasi_fd_seek(fd, -3, __WASI_WHENCE_CUR, &off));
  CHECK(off == 7);
  OK(__wasi_fd_seek(fd, 2, __WASI_WHENCE_SET, &off));
  CHECK(off == 2);
  OK(__wasi_fd_seek(fd, -1, __WASI_WHENCE_END, &off));
  CHECK(off == 9);
  EXPECT(__wasi_fd_seek(fd, -100, __WASI_WHENCE_CUR, &off), E(INVAL));
  OK(__wasi_fd_tell(fd, &off));
  CHECK(off == 9);
  OK(__wasi_fd_seek(fd, 1000, __WASI_WHENCE_SET, &off));
  CHECK(off == 1000);
  EXPECT(__wasi_fd_seek(fd, 0, 3, &off), E(INVAL));
  OK(__wasi_fd_close(fd));
  OK(__wasi_path_unlink_file(root, "seek_tell.f"));
  return 0;
}
