#include "guest.h"
int main(void) {
  __wasi_subscription_t sub;
  memset(&sub, 0, sizeof sub);
  sub.u.tag = __WASI_EVENTTYPE_CLOCK;
  sub.u.u.clock.id = __WASI_CLOCKID_MONOTONIC;
  sub.u.u.clock.timeout = 1000;
  __wasi_event_t ev;
  size_t n = 0;
  CHECK_WASI(__wasi_poll_oneoff(&sub, &ev, 1, &n), __WASI_ERRNO_PERM);
  return 0;
}
