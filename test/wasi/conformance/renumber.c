// fd_renumber moves a descriptor onto another open one: `to` then refers to `from`'s file with its flags, rights and
// offset, `from` is closed; a bad descriptor on either side is EBADF.
#include "conf.h"
int main(void) {
  __wasi_fd_t root = root_fd();
  __wasi_fd_t a = open_file(root, "renumber_a", __WASI_OFLAGS_CREAT, RW_RIGHTS, 0);
  __wasi_fd_t b = open_file(root, "renumber_b", __WASI_OFLAGS_CREAT, __WASI_RIGHTS_FD_READ, __WASI_FDFLAGS_APPEND);
  CHECK(write_all(a, "xyz", 3) == 3);
  __wasi_fdstat_t sa, sb;
  OK(__wasi_fd_fdstat_get(a, &sa));
  OK(__wasi_fd_renumber(a, b));
  EXPECT(__wasi_fd_fdstat_get(a, &sb), E(BADF));
  OK(__wasi_fd_fdstat_get(b, &sb));
  CHECK(sb.fs_flags == sa.fs_flags && sb.fs_rights_base == sa.fs_rights_base);
  __wasi_filesize_t off;
  OK(__wasi_fd_tell(b, &off));
  CHECK(off == 3);
  EXPECT(__wasi_fd_renumber(a, b), E(BADF));
  EXPECT(__wasi_fd_renumber(b, 4000), E(BADF));
  OK(__wasi_fd_renumber(b, b));
  OK(__wasi_fd_close(b));
  OK(__wasi_path_unlink_file(root, "renumber_a"));
  OK(__wasi_path_unlink_file(root, "renumber_b"));
  return 0;
}
