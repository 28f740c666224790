// File operations on a directory descriptor fail (EISDIR, EBADF or ENOTCAPABLE); fd_prestat_dir_name with a
// zero-length buffer is ENAMETOOLONG or EINVAL, and a larger buffer than needed works.
#include "conf.h"
#define BAD3(expr) \
  do { int r_ = (int)(expr); if (r_ != E(ISDIR) && r_ != E(BADF) && r_ != E(NOTCAPABLE) && r_ != E(INVAL)) FAIL("%s: got %d", #expr, r_); } while (0)
int main(void) {
  __wasi_fd_t pre = root_fd();
  __wasi_fdstat_t fst;
  OK(__wasi_fd_fdstat_get(pre, &fst));
  __wasi_fd_t dir;
  OK(__wasi_path_open(pre, 0, ".", __WASI_OFLAGS_DIRECTORY, fst.fs_rights_base, fst.fs_rights_inheriting, 0, &dir));
  __wasi_filestat_t st;
  OK(__wasi_fd_filestat_get(dir, &st));
  CHECK(st.filetype == __WASI_FILETYPE_DIRECTORY);
  uint8_t name[8];
  EXPECT2(__wasi_fd_prestat_dir_name(pre, name, 0), E(NAMETOOLONG), E(INVAL));
  OK(__wasi_fd_prestat_dir_name(pre, name, 2));
  uint8_t buf[128];
  __wasi_iovec_t iov = {buf, sizeof buf};
  __wasi_ciovec_t ciov = {buf, sizeof buf};
  __wasi_size_t n;
  __wasi_filesize_t off;
  BAD3(__wasi_fd_read(dir, &iov, 1, &n));
  BAD3(__wasi_fd_pread(dir, &iov, 1, 0, &n));
  BAD3(__wasi_fd_write(dir, &ciov, 1, &n));
  BAD3(__wasi_fd_pwrite(dir, &ciov, 1, 0, &n));
  BAD3(__wasi_fd_seek(dir, 0, __WASI_WHENCE_CUR, &off));
  BAD3(__wasi_fd_seek(dir, 0, __WASI_WHENCE_SET, &off));
  BAD3(__wasi_fd_seek(dir, 0, __WASI_WHENCE_END, &off));
  BAD3(__wasi_fd_tell(dir, &off));
  BAD3(__wasi_fd_allocate(dir, 0, 1));
  BAD3(__wasi_fd_filestat_set_size(dir, 0));
  return 0;
}
