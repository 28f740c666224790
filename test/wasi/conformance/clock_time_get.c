// clock_time_get: realtime is after 2020, monotonic never goes back; every clock answers with any precision; an
// unknown clock id is EINVAL.
#include "conf.h"
int main(void) {
  __wasi_timestamp_t t0, t1, rt;
  OK(__wasi_clock_time_get(__WASI_CLOCKID_REALTIME, 1, &rt));
  CHECK(rt > 1577836800ull * 1000000000ull);
  OK(__wasi_clock_time_get(__WASI_CLOCKID_MONOTONIC, 0, &t0));
  for (int i = 0; i < 1000; ++i) {
    OK(__wasi_clock_time_get(__WASI_CLOCKID_MONOTONIC, 1000000, &t1));
    CHECK(t1 >= t0);
    t0 = t1;
  }
  OK(__wasi_clock_time_get(__WASI_CLOCKID_PROCESS_CPUTIME_ID, 0, &t1));
  OK(__wasi_clock_time_get(__WASI_CLOCKID_THREAD_CPUTIME_ID, 0, &t1));
  EXPECT(__wasi_clock_time_get(42, 0, &t1), E(INVAL));
  return 0;
}
