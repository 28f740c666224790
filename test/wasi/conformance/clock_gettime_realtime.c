// clock_gettime(CLOCK_REALTIME) succeeds with a date after 2020 that agrees with time().
#include <time.h>
#include "conf.h"
int main(void) {
  struct timespec ts;
  CHECK(clock_gettime(CLOCK_REALTIME, &ts) == 0);
  CHECK(ts.tv_sec > 1577836800);
  time_t now = time(NULL);
  CHECK(now >= ts.tv_sec && now - ts.tv_sec < 60);
  return 0;
}
