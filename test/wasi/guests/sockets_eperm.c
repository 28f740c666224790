#include "guest.h"
RAW(sock_recv) int32_t raw_sock_recv(int32_t, int32_t, int32_t, int32_t, int32_t, int32_t);
RAW(sock_send) int32_t raw_sock_send(int32_t, int32_t, int32_t, int32_t, int32_t);
RAW(sock_shutdown) int32_t raw_sock_shutdown(int32_t, int32_t);
RAW(sock_accept) int32_t raw_sock_accept(int32_t, int32_t, int32_t);
int main(void) {
  static int32_t out[4];
  CHECK_WASI(raw_sock_recv(0, 0, 0, 0, (int32_t)(uintptr_t)out, (int32_t)(uintptr_t)(out + 1)), __WASI_ERRNO_PERM);
  CHECK_WASI(raw_sock_send(1, 0, 0, 0, (int32_t)(uintptr_t)out), __WASI_ERRNO_PERM);
  CHECK_WASI(raw_sock_shutdown(1, 2), __WASI_ERRNO_PERM);
  CHECK_WASI(raw_sock_accept(3, 0, (int32_t)(uintptr_t)out), __WASI_ERRNO_PERM);
  return 0;
}
