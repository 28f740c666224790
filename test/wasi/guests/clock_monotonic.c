#include <time.h>
#include "guest.h"
int main(void) {
  struct timespec a, b, res;
  CHECK(clock_gettime(CLOCK_MONOTONIC, &a) == 0);
  volatile unsigned x = 0;
  for (unsigned i = 0; i < 1000000; ++i) x += i;
  CHECK(clock_gettime(CLOCK_MONOTONIC, &b) == 0);
  CHECK(b.tv_sec > a.tv_sec || (b.tv_sec == a.tv_sec && b.tv_nsec >= a.tv_nsec));
  CHECK(clock_getres(CLOCK_MONOTONIC, &res) == 0);
  CHECK(res.tv_sec == 0 && res.tv_nsec > 0);
  __wasi_timestamp_t r = 0;
  CHECK_WASI(__wasi_clock_res_get(__WASI_CLOCKID_REALTIME, &r), 0);
  CHECK(r > 0);
  return 0;
}
