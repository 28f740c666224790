// random_get of 32 bytes: two calls give different bytes.
#include "conf.h"
int main(void) {
  uint8_t a[32] = {0}, b[32] = {0};
  OK(__wasi_random_get(a, sizeof a));
  OK(__wasi_random_get(b, sizeof b));
  CHECK(memcmp(a, b, sizeof a) != 0);
  return 0;
}
