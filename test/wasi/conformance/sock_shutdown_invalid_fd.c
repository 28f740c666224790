// sock_shutdown on a descriptor that is not open is EBADF (the descriptor is checked before anything else).
#include "conf.h"
int main(void) {
  EXPECT(__wasi_sock_shutdown(999, __WASI_SDFLAGS_RD | __WASI_SDFLAGS_WR), E(BADF));
  EXPECT(__wasi_sock_shutdown(0xffffffffu, __WASI_SDFLAGS_WR), E(BADF));
  return 0;
}
