// clock_getres (clock_res_get) of the monotonic clock: succeeds with a resolution above zero.
#include <time.h>
#include "conf.h"
int main(void) {
  struct timespec ts = {0, 0};
  CHECK(clock_getres(CLOCK_MONOTONIC, &ts) == 0);
  CHECK(ts.tv_sec > 0 || ts.tv_nsec > 0);
  __wasi_timestamp_t res = 0;
  OK(__wasi_clock_res_get(__WASI_CLOCKID_MONOTONIC, &res));
  CHECK(res > 0);
  EXPECT(__wasi_clock_res_get(42, &res), E(INVAL));
  return 0;
}
