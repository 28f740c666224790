#include "guest.h"
static unsigned char a[100000], b[256];
int main(void) {
  CHECK_WASI(__wasi_random_get(a, sizeof a), 0);  // more than one 64 KiB piece
  CHECK(getentropy(b, sizeof b) == 0);
  int zeros = 0;
  for (size_t i = 0; i < sizeof a; ++i) zeros += a[i] == 0;
  CHECK(zeros < 1000);  // ~390 expected
  CHECK(memcmp(a, b, sizeof b) != 0);
  CHECK(memcmp(a + 70000, a + 70256, 256) != 0);
  return 0;
}
