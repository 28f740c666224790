#include "guest.h"
int main(void) {
  CHECK_ERRNO(open("/stdlib/new.txt", O_CREAT | O_WRONLY, 0644), EPERM);
  CHECK_ERRNO(open("/stdlib/README", O_CREAT | O_WRONLY, 0644), EPERM);
  CHECK_ERRNO(open("/stdlib/README", O_TRUNC | O_WRONLY), EPERM);
  CHECK_ERRNO(open("/stdlib/README", O_WRONLY), EROFS);
  CHECK_ERRNO(open("/stdlib/README", O_RDWR), EROFS);
  CHECK_ERRNO(fopen("/stdlib/README", "w"), EPERM);
  expect_file("/stdlib/README", "readme\n");
  int fd = open("/stdlib/README", O_RDONLY);
  CHECK_ERRNO(write(fd, "x", 1), EBADF);
  close(fd);
  return 0;
}
