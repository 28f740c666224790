// sock_shutdown on an open descriptor that is not a socket (a file, stdout) is ENOTSOCK.
#include "conf.h"
int main(void) {
  __wasi_fd_t f = open_file(root_fd(), "data.txt", 0, __WASI_RIGHTS_FD_READ, 0);
  EXPECT(__wasi_sock_shutdown(f, __WASI_SDFLAGS_RD), E(NOTSOCK));
  EXPECT(__wasi_sock_shutdown(1, __WASI_SDFLAGS_WR), E(NOTSOCK));
  OK(__wasi_fd_close(f));
  return 0;
}
