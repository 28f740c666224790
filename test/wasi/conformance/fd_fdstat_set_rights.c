// fd_fdstat_set_rights drops rights (reading and writing then fail) and can never add them back (ENOTCAPABLE).
#include "conf.h"
int main(void) {
  __wasi_fd_t root = root_fd();
  __wasi_fd_t fd = open_file(root, "rights.f", __WASI_OFLAGS_CREAT,
                             __WASI_RIGHTS_FD_READ | __WASI_RIGHTS_FD_WRITE | __WASI_RIGHTS_FD_SEEK | __WASI_RIGHTS_FD_TELL, 0);
  CHECK(write_all(fd, "\x00\x01\x02\x03", 4) == 4);
  __wasi_filesize_t off;
  OK(__wasi_fd_seek(fd, 0, __WASI_WHENCE_SET, &off));
  char buf[4];
  CHECK(read_some(fd, buf, 4) == 4 && memcmp(buf, "\x00\x01\x02\x03", 4) == 0);
  __wasi_fdstat_t st;
  OK(__wasi_fd_fdstat_get(fd, &st));
  OK(__wasi_fd_fdstat_set_rights(fd, st.fs_rights_base & ~(uint64_t)(__WASI_RIGHTS_FD_READ | __WASI_RIGHTS_FD_WRITE),
                                 st.fs_rights_inheriting));
  OK(__wasi_fd_fdstat_get(fd, &st));
  CHECK((st.fs_rights_base & (__WASI_RIGHTS_FD_READ | __WASI_RIGHTS_FD_WRITE)) == 0);
  CHECK(st.fs_rights_base & __WASI_RIGHTS_FD_SEEK);
  __wasi_iovec_t iov = {(uint8_t*)buf, 4};
  __wasi_ciovec_t ciov = {(const uint8_t*)buf, 4};
  __wasi_size_t n;
  EXPECT2(__wasi_fd_read(fd, &iov, 1, &n), E(BADF), E(NOTCAPABLE));
  EXPECT2(__wasi_fd_write(fd, &ciov, 1, &n), E(BADF), E(NOTCAPABLE));
  EXPECT(__wasi_fd_fdstat_set_rights(fd, st.fs_rights_base | __WASI_RIGHTS_FD_READ, st.fs_rights_inheriting), E(NOTCAPABLE));
  OK(__wasi_fd_close(fd));
  OK(__wasi_path_unlink_file(root, "rights.f"));
  return 0;
}
