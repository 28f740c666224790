// Every call that takes a descriptor answers EBADF for one that is not open, before any other check (rights, file
// type, arguments, the policy of --full-wasi). This is the order the official tests rely on.
#include "conf.h"
#define BAD 4242
int main(void) {
  uint8_t buf[64];
  __wasi_iovec_t iov = {buf, 8};
  __wasi_ciovec_t ciov = {buf, 8};
  __wasi_size_t n;
  __wasi_filesize_t off;
  __wasi_fdstat_t fst;
  __wasi_filestat_t st;
  __wasi_prestat_t ps;
  __wasi_fd_t fd;
  EXPECT(__wasi_fd_advise(BAD, 0, 0, 99), E(BADF));
  EXPECT(__wasi_fd_allocate(BAD, 0, 0), E(BADF));
  EXPECT(__wasi_fd_close(BAD), E(BADF));
  EXPECT(__wasi_fd_datasync(BAD), E(BADF));
  EXPECT(__wasi_fd_fdstat_get(BAD, &fst), E(BADF));
  EXPECT(__wasi_fd_fdstat_set_flags(BAD, 0xffff), E(BADF));
  EXPECT(__wasi_fd_fdstat_set_rights(BAD, ~0ull, ~0ull), E(BADF));
  EXPECT(__wasi_fd_filestat_get(BAD, &st), E(BADF));
  EXPECT(__wasi_fd_filestat_set_size(BAD, 0), E(BADF));
  EXPECT(__wasi_fd_filestat_set_times(BAD, 0, 0, 0xff), E(BADF));
  EXPECT(__wasi_fd_pread(BAD, &iov, 1, 0, &n), E(BADF));
  EXPECT(__wasi_fd_prestat_get(BAD, &ps), E(BADF));
  EXPECT(__wasi_fd_prestat_dir_name(BAD, buf, 0), E(BADF));
  EXPECT(__wasi_fd_pwrite(BAD, &ciov, 1, 0, &n), E(BADF));
  EXPECT(__wasi_fd_read(BAD, &iov, 1, &n), E(BADF));
  EXPECT(__wasi_fd_readdir(BAD, buf, sizeof buf, 0, &n), E(BADF));
  EXPECT(__wasi_fd_renumber(BAD, 1), E(BADF));
  EXPECT(__wasi_fd_seek(BAD, 0, 99, &off), E(BADF));
  EXPECT(__wasi_fd_sync(BAD), E(BADF));
  EXPECT(__wasi_fd_tell(BAD, &off), E(BADF));
  EXPECT(__wasi_fd_write(BAD, &ciov, 1, &n), E(BADF));
  EXPECT(__wasi_path_create_directory(BAD, "x"), E(BADF));
  EXPECT(__wasi_path_filestat_get(BAD, 0, "x", &st), E(BADF));
  EXPECT(__wasi_path_filestat_set_times(BAD, 0, "x", 0, 0, 0xff), E(BADF));
  EXPECT(__wasi_path_link(BAD, 0, "x", BAD, "y"), E(BADF));
  EXPECT(__wasi_path_open(BAD, 0, "x", 0xff, 0, 0, 0, &fd), E(BADF));
  EXPECT(__wasi_path_readlink(BAD, "x", buf, sizeof buf, &n), E(BADF));
  EXPECT(__wasi_path_remove_directory(BAD, "x"), E(BADF));
  EXPECT(__wasi_path_rename(BAD, "x", BAD, "y"), E(BADF));
  EXPECT(__wasi_path_symlink("x", BAD, "y"), E(BADF));
  EXPECT(__wasi_path_unlink_file(BAD, "x"), E(BADF));
  EXPECT(__wasi_sock_accept(BAD, 0, &fd), E(BADF));
  __wasi_size_t dataLen;
  __wasi_roflags_t roflags;
  EXPECT(__wasi_sock_recv(BAD, &iov, 1, 0, &dataLen, &roflags), E(BADF));
  EXPECT(__wasi_sock_send(BAD, &ciov, 1, 0, &dataLen), E(BADF));
  EXPECT(__wasi_sock_shutdown(BAD, 0), E(BADF));
  return 0;
}
