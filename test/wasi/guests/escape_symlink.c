#include "guest.h"
int main(void) {
  CHECK_ERRNO(symlink("/etc/passwd", "/workspace/link"), EPERM);
  CHECK_ERRNO(symlink("../stdlib", "/workspace/link"), EPERM);
  CHECK_WASI(raw_path_symlink("../../etc", 9, WS_FD, "l", 1), __WASI_ERRNO_PERM);
  struct stat st;
  CHECK_ERRNO(lstat("/workspace/link", &st), ENOENT);
  char buf[64];
  CHECK_ERRNO(readlink("/workspace/hello.txt", buf, sizeof buf), EINVAL);
  CHECK_ERRNO(readlink("/workspace/missing", buf, sizeof buf), ENOENT);
  return 0;
}
