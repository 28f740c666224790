#include "guest.h"
int main(void) {
  CHECK_WASI(raw_proc_raise(9), __WASI_ERRNO_NOSYS);
  CHECK_WASI(__wasi_sched_yield(), 0);
  return 0;
}
