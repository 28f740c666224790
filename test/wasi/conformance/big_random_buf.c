// random_get fills a 1 MiB buffer (in one call) with bytes that are not all the same.
#include "conf.h"
static uint8_t buf[1 << 20];
int main(void) {
  OK(__wasi_random_get(buf, sizeof buf));
  int distinct = 0;
  static int seen[256];
  for (size_t i = 0; i < sizeof buf; ++i) if (!seen[buf[i]]++) distinct++;
  CHECK(distinct > 200);
  // The last bytes are written too.
  int tailNonZero = 0;
  for (size_t i = sizeof buf - 64; i < sizeof buf; ++i) tailNonZero |= buf[i];
  CHECK(tailNonZero);
  return 0;
}
