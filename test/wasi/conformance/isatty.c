// A regular file is not a terminal: isatty() is 0 with ENOTTY.
#include "conf.h"
int main(void) {
  int fd = open("/isatty.f", O_CREAT | O_RDWR, 0644);
  CHECK(fd >= 0);
  errno = 0;
  CHECK(isatty(fd) == 0);
  CHECK(errno == ENOTTY);
  CHECK(close(fd) == 0);
  CHECK(unlink("/isatty.f") == 0);
  return 0;
}
