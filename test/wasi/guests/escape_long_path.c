#include "guest.h"
static char path[8192];
int main(void) {
  int32_t fd = -1;
  memset(path, 'a', 5000);
  CHECK_WASI(raw_path_open(WS_FD, 0, path, 5000, 1, ALL_RIGHTS, ALL_RIGHTS, 0, &fd), __WASI_ERRNO_NAMETOOLONG);
  CHECK_WASI(raw_path_open(WS_FD, 0, path, 256, 1, ALL_RIGHTS, ALL_RIGHTS, 0, &fd), __WASI_ERRNO_NAMETOOLONG);
  CHECK_WASI(raw_path_open(WS_FD, 0, path, 255, 1, ALL_RIGHTS, ALL_RIGHTS, 0, &fd), 0);
  // 4096 bytes of "./" still resolves inside (the cap is on bytes, not on depth).
  for (int i = 0; i < 2046; ++i) memcpy(path + 2 * i, "./", 2);
  memcpy(path + 4092, "x.tx", 4);
  CHECK_WASI(raw_path_open(WS_FD, 0, path, 4096, 1, ALL_RIGHTS, ALL_RIGHTS, 0, &fd), 0);
  CHECK_WASI(raw_path_open(WS_FD, 0, path, 4097, 1, ALL_RIGHTS, ALL_RIGHTS, 0, &fd), __WASI_ERRNO_NAMETOOLONG);
  // A pointer past the end of memory is a fault, not a crash.
  uint32_t end = (uint32_t)__builtin_wasm_memory_size(0) * 65536u;
  CHECK_WASI(raw_path_open(WS_FD, 0, (const char*)(uintptr_t)(end - 2), 16, 0, ALL_RIGHTS, ALL_RIGHTS, 0, &fd),
             __WASI_ERRNO_FAULT);
  return 0;
}
