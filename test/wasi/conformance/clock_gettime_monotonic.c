// clock_gettime(CLOCK_MONOTONIC) succeeds and does not go back across two readings.
#include <time.h>
#include "conf.h"
int main(void) {
  struct timespec a, b;
  CHECK(clock_gettime(CLOCK_MONOTONIC, &a) == 0);
  CHECK(clock_gettime(CLOCK_MONOTONIC, &b) == 0);
  CHECK(b.tv_sec > a.tv_sec || (b.tv_sec == a.tv_sec && b.tv_nsec >= a.tv_nsec));
  return 0;
}
