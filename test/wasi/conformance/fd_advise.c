// fd_advise accepts every advice value on a file and leaves it unchanged; an unknown advice is EINVAL, a bad fd EBADF.
#include "conf.h"
int main(void) {
  __wasi_fd_t root = root_fd();
  __wasi_fd_t fd = open_file(root, "fd_advise.f", __WASI_OFLAGS_CREAT, RW_RIGHTS, 0);
  OK(__wasi_fd_filestat_set_size(fd, 100));
  for (int a = __WASI_ADVICE_NORMAL; a <= __WASI_ADVICE_NOREUSE; ++a) OK(__wasi_fd_advise(fd, 10, 50, (__wasi_advice_t)a));
  __wasi_filestat_t st;
  OK(__wasi_fd_filestat_get(fd, &st));
  CHECK(st.size == 100);
  EXPECT(__wasi_fd_advise(fd, 0, 10, 6), E(INVAL));
  EXPECT(__wasi_fd_advise(999, 0, 10, __WASI_ADVICE_NORMAL), E(BADF));
  OK(__wasi_fd_close(fd));
  OK(__wasi_path_unlink_file(root, "fd_advise.f"));
  return 0;
}
