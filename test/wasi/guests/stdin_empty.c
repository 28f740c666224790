#include "guest.h"
int main(void) {
  char buf[16];
  CHECK(read(0, buf, sizeof buf) == 0);
  CHECK(getchar() == EOF);
  CHECK_ERRNO(write(0, "x", 1), EBADF);
  return 0;
}
