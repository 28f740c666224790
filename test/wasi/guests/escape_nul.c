#include "guest.h"
int main(void) {
  int32_t fd = -1;
  static const char path[] = "hello.txt\0../../etc/passwd";
  CHECK_WASI(raw_path_open(WS_FD, 0, path, sizeof path - 1, 0, ALL_RIGHTS, ALL_RIGHTS, 0, &fd), __WASI_ERRNO_INVAL);
  static const char dir[] = "d\0x";
  CHECK_WASI(raw_path_create_directory(WS_FD, dir, sizeof dir - 1), __WASI_ERRNO_INVAL);
  struct stat st;
  CHECK_ERRNO(stat("/workspace/d", &st), ENOENT);
  return 0;
}
