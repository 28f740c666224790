#include "guest.h"
int main(void) {
  CHECK_ERRNO(link("/workspace/hello.txt", "/workspace/hard"), EPERM);
  CHECK_ERRNO(link("/stdlib/README", "/workspace/readme"), EPERM);
  CHECK_WASI(__wasi_path_link(WS_FD, 0, "hello.txt", WS_FD, "h2"), __WASI_ERRNO_PERM);
  struct stat st;
  CHECK_ERRNO(stat("/workspace/hard", &st), ENOENT);
  return 0;
}
