#include "guest.h"
int main(void) {
  uint32_t end = (uint32_t)__builtin_wasm_memory_size(0) * 65536u;
  static uint32_t iov[2];
  static __wasi_size_t n;
  iov[0] = end - 4;  // buffer runs past the end of memory
  iov[1] = 16;
  CHECK_WASI(raw_fd_write(1, (int32_t)(uintptr_t)iov, 1, (int32_t)(uintptr_t)&n), __WASI_ERRNO_FAULT);
  CHECK_WASI(raw_fd_write(1, (int32_t)(end - 4), 1, (int32_t)(uintptr_t)&n), __WASI_ERRNO_FAULT);
  CHECK_WASI(raw_fd_write(1, (int32_t)0xfffffff8u, 2, (int32_t)(uintptr_t)&n), __WASI_ERRNO_FAULT);
  iov[0] = (uint32_t)(uintptr_t)"ok\n";
  iov[1] = 3;
  CHECK_WASI(raw_fd_write(1, (int32_t)(uintptr_t)iov, 1, (int32_t)(end - 2)), __WASI_ERRNO_FAULT);
  CHECK_WASI(__wasi_random_get((uint8_t*)(uintptr_t)(end - 8), 9), __WASI_ERRNO_FAULT);
  CHECK_WASI(__wasi_args_sizes_get((size_t*)(uintptr_t)end, &n), __WASI_ERRNO_FAULT);
  CHECK_WASI(raw_fd_write(1, (int32_t)(uintptr_t)iov, 5000, (int32_t)(uintptr_t)&n), __WASI_ERRNO_INVAL);
  return 0;
}
