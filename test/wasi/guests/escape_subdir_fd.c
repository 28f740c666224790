#include "guest.h"
int main(void) {
  int32_t sub = -1, fd = -1;
  CHECK_WASI(open_raw(WS_FD, "sub", __WASI_OFLAGS_DIRECTORY, &sub), 0);
  CHECK_WASI(open_raw(sub, "nested.txt", 0, &fd), 0);
  CHECK_WASI(open_raw(sub, "../hello.txt", 0, &fd), 0);        // still inside /workspace
  CHECK_WASI(open_raw(sub, "../../stdlib", 0, &fd), __WASI_ERRNO_NOTCAPABLE);
  CHECK_WASI(open_raw(sub, "deeper/../../..", 0, &fd), __WASI_ERRNO_NOTCAPABLE);
  // A directory descriptor that was removed resolves nothing.
  int32_t deeper = -1;
  CHECK_WASI(open_raw(sub, "deeper", __WASI_OFLAGS_DIRECTORY, &deeper), 0);
  CHECK(rmdir("/workspace/sub/deeper") == 0);
  CHECK_WASI(open_raw(deeper, "new", __WASI_OFLAGS_CREAT, &fd), __WASI_ERRNO_NOENT);
  CHECK_WASI(open_raw(deeper, "..", 0, &fd), __WASI_ERRNO_NOENT);
  return 0;
}
