#include "guest.h"
int main(void) {
  write_file("/workspace/a.txt", "alpha\nbeta\n");
  expect_file("/workspace/a.txt", "alpha\nbeta\n");
  int fd = open("/workspace/a.txt", O_RDONLY);
  CHECK(fd >= 6);
  char buf[4];
  CHECK(read(fd, buf, 4) == 4 && memcmp(buf, "alph", 4) == 0);
  CHECK(close(fd) == 0);
  CHECK_ERRNO(close(fd), EBADF);
  return 0;
}
