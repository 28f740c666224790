// fd_close on a preopened directory succeeds; the descriptor is then EBADF and other descriptors stay open.
#include "conf.h"
int main(void) {
  __wasi_fd_t root = root_fd();
  __wasi_fd_t dir;
  OK(__wasi_path_open(root, 0, ".", __WASI_OFLAGS_DIRECTORY, 0, 0, 0, &dir));
  __wasi_fd_t pre = 3;
  CHECK(dir > pre);
  OK(__wasi_fd_close(pre));
  __wasi_fdstat_t st;
  OK(__wasi_fd_fdstat_get(dir, &st));
  CHECK(st.fs_filetype == __WASI_FILETYPE_DIRECTORY);
  EXPECT(__wasi_fd_fdstat_get(pre, &st), E(BADF));
  EXPECT(__wasi_fd_close(pre), E(BADF));
  return 0;
}
