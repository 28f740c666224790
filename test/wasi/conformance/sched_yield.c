// sched_yield succeeds.
#include <sched.h>
#include "conf.h"
int main(void) {
  OK(__wasi_sched_yield());
  CHECK(sched_yield() == 0);
  return 0;
}
