// random_get of zero bytes succeeds and touches nothing.
#include "conf.h"
int main(void) {
  uint8_t a[4] = {1, 2, 3, 4};
  OK(__wasi_random_get(a, 0));
  CHECK(a[0] == 1 && a[3] == 4);
  return 0;
}
