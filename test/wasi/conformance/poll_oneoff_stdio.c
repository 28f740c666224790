// poll_oneoff: a clock subscription with stdin read yields at least one event, each with its userdata and no error;
// stdout and stderr are reported writable; zero subscriptions is EINVAL; a bad fd's event carries EBADF.
#include "conf.h"
int main(void) {
  __wasi_subscription_t subs[3];
  __wasi_event_t ev[3];
  __wasi_size_t n = 0;
  memset(subs, 0, sizeof subs);
  subs[0].userdata = 0x12345678;
  subs[0].u.tag = __WASI_EVENTTYPE_CLOCK;
  subs[0].u.u.clock.id = __WASI_CLOCKID_MONOTONIC;
  subs[0].u.u.clock.timeout = 20000000;  // 20 ms
  subs[1].userdata = 0x87654321;
  subs[1].u.tag = __WASI_EVENTTYPE_FD_READ;
  subs[1].u.u.fd_read.file_descriptor = 0;
  OK(__wasi_poll_oneoff(subs, ev, 2, &n));
  CHECK(n >= 1 && n <= 2);
  for (__wasi_size_t i = 0; i < n; ++i) {
    CHECK(ev[i].error == 0);
    if (ev[i].type == __WASI_EVENTTYPE_CLOCK) CHECK(ev[i].userdata == 0x12345678);
    else CHECK(ev[i].type == __WASI_EVENTTYPE_FD_READ && ev[i].userdata == 0x87654321);
  }
  memset(subs, 0, sizeof subs);
  subs[0].userdata = 1;
  subs[0].u.tag = __WASI_EVENTTYPE_FD_WRITE;
  subs[0].u.u.fd_write.file_descriptor = 1;
  subs[1].userdata = 2;
  subs[1].u.tag = __WASI_EVENTTYPE_FD_WRITE;
  subs[1].u.u.fd_write.file_descriptor = 2;
  int seen = 0;
  for (int round = 0; round < 10 && seen != 3; ++round) {
    OK(__wasi_poll_oneoff(subs, ev, 2, &n));
    for (__wasi_size_t i = 0; i < n; ++i) {
      CHECK(ev[i].type == __WASI_EVENTTYPE_FD_WRITE && ev[i].error == 0);
      CHECK(ev[i].userdata == 1 || ev[i].userdata == 2);
      seen |= (int)ev[i].userdata;
    }
  }
  CHECK(seen == 3);
  EXPECT(__wasi_poll_oneoff(subs, ev, 0, &n), E(INVAL));
  subs[0].u.u.fd_write.file_descriptor = 999;
  OK(__wasi_poll_oneoff(subs, ev, 1, &n));
  CHECK(n == 1 && ev[0].error == E(BADF));
  return 0;
}
