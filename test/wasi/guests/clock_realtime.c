#include <time.h>
#include "guest.h"
int main(void) {
  struct timespec ts;
  CHECK(clock_gettime(CLOCK_REALTIME, &ts) == 0);
  CHECK(ts.tv_sec > 1600000000);  // after 2020
  CHECK(time(NULL) > 1600000000);
  __wasi_timestamp_t t = 0;
  CHECK_WASI(__wasi_clock_time_get(__WASI_CLOCKID_REALTIME, 1, &t), 0);
  CHECK(t > 1600000000ull * 1000000000ull);
  CHECK_WASI(__wasi_clock_time_get(99, 1, &t), __WASI_ERRNO_INVAL);
  return 0;
}
