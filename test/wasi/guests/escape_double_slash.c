#include "guest.h"
int main(void) {
  int32_t fd = -1;
  CHECK_WASI(open_raw(WS_FD, "//etc/passwd", 0, &fd), __WASI_ERRNO_NOTCAPABLE);
  CHECK_WASI(open_raw(WS_FD, "//workspace/hello.txt", 0, &fd), __WASI_ERRNO_NOTCAPABLE);
  // Repeated separators inside a relative path are just separators.
  CHECK_WASI(open_raw(WS_FD, "sub//nested.txt", 0, &fd), 0);
  CHECK_WASI(open_raw(WS_FD, "sub///..//..//x", 0, &fd), __WASI_ERRNO_NOTCAPABLE);
  CHECK(open("//workspace/hello.txt", O_RDONLY) >= 0 || errno != 0);  // libc's business; must not escape
  return 0;
}
