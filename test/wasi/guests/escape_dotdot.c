#include "guest.h"
int main(void) {
  int32_t fd = -1;
  const char* bad[] = {"..", "../stdlib/README", "sub/../../stdlib", "./../workspace", "sub/deeper/../../..", "../.."};
  for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    int32_t r = open_raw(WS_FD, bad[i], 0, &fd);
    if (r != __WASI_ERRNO_NOTCAPABLE) FAIL("%s: expected ENOTCAPABLE, got %d", bad[i], r);
  }
  CHECK_WASI(open_raw(WS_FD, "sub/../hello.txt", 0, &fd), 0);  // `..` inside the preopen is fine
  CHECK_WASI(open_raw(STDLIB_FD, "../workspace/hello.txt", 0, &fd), __WASI_ERRNO_NOTCAPABLE);
  CHECK_WASI(open_raw(DEV_FD, "../stdlib", 0, &fd), __WASI_ERRNO_NOTCAPABLE);
  // Through libc: the path is split at the preopen, the rest still may not climb out.
  CHECK_ERRNO(open("/workspace/../stdlib/README", O_RDONLY), ENOTCAPABLE);
  CHECK_ERRNO(open("/workspace/sub/../../stdlib/README", O_RDONLY), ENOTCAPABLE);
  CHECK_ERRNO(mkdir("/workspace/../escaped", 0755), ENOTCAPABLE);
  return 0;
}
