// RUN: ["--full-wasi"]
#include <time.h>
#include "guest.h"
int main(void) {
  __wasi_subscription_t subs[2];
  memset(subs, 0, sizeof subs);
  subs[0].userdata = 11;
  subs[0].u.tag = __WASI_EVENTTYPE_CLOCK;
  subs[0].u.u.clock.id = __WASI_CLOCKID_MONOTONIC;
  subs[0].u.u.clock.timeout = 1000000;
  subs[1].userdata = 22;
  subs[1].u.tag = __WASI_EVENTTYPE_FD_READ;
  subs[1].u.u.fd_read.file_descriptor = 0;
  __wasi_event_t ev[2];
  size_t n = 0;
  CHECK_WASI(__wasi_poll_oneoff(subs, ev, 2, &n), 0);
  CHECK(n == 2);
  CHECK(ev[0].userdata == 11 && ev[0].error == 0 && ev[0].type == __WASI_EVENTTYPE_CLOCK);
  CHECK(ev[1].userdata == 22 && ev[1].type == __WASI_EVENTTYPE_FD_READ);
  struct timespec ts = {0, 1000000};
  CHECK(nanosleep(&ts, NULL) == 0);
  CHECK(usleep(10) == 0);
  return 0;
}
