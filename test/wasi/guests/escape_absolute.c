#include "guest.h"
int main(void) {
  int32_t fd = -1;
  CHECK_WASI(open_raw(WS_FD, "/etc/passwd", 0, &fd), __WASI_ERRNO_NOTCAPABLE);
  CHECK_WASI(open_raw(WS_FD, "/workspace/hello.txt", 0, &fd), __WASI_ERRNO_NOTCAPABLE);
  CHECK_WASI(open_raw(WS_FD, "/", 0, &fd), __WASI_ERRNO_NOTCAPABLE);
  CHECK_WASI(raw_path_create_directory(WS_FD, "/tmp", 4), __WASI_ERRNO_NOTCAPABLE);
  // Host paths do not exist for the guest at all.
  CHECK(open("/etc/passwd", O_RDONLY) < 0);
  CHECK(open("/proc/self/environ", O_RDONLY) < 0);
  CHECK(opendir("/") == NULL);
  return 0;
}
