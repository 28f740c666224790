// RUN: ["--dir", "@tmp::/other"]
#include "guest.h"
int main(void) {
  // fd 6 is the extra preopen /other (after the fixed ones).
  __wasi_prestat_t p;
  CHECK_WASI(__wasi_fd_prestat_get(6, &p), 0);
  write_file("/other/o.txt", "other");
  CHECK_ERRNO(rename("/workspace/hello.txt", "/other/hello.txt"), EXDEV);
  CHECK_WASI(raw_path_rename(WS_FD, "hello.txt", 9, 6, "h", 1), __WASI_ERRNO_XDEV);
  CHECK_WASI(raw_path_rename(WS_FD, "hello.txt", 9, STDLIB_FD, "h", 1), __WASI_ERRNO_PERM);
  CHECK_WASI(raw_path_rename(6, "o.txt", 5, WS_FD, "../o.txt", 8), __WASI_ERRNO_XDEV);
  CHECK_WASI(raw_path_rename(WS_FD, "hello.txt", 9, WS_FD, "../other/h", 10), __WASI_ERRNO_NOTCAPABLE);
  expect_file("/workspace/hello.txt", "hello\n");
  return 0;
}
