// stat: two files of one preopen share st_dev and differ in st_ino; a file reached by two paths (and through an open
// descriptor) has one st_ino.
#include "conf.h"
int main(void) {
  struct stat a, b, c, d;
  CHECK(stat("/data.txt", &a) == 0);
  CHECK(stat("/sub/nested.txt", &b) == 0);
  CHECK(stat("/sub/../data.txt", &c) == 0);
  CHECK(a.st_dev == b.st_dev);
  CHECK(a.st_ino != b.st_ino);
  CHECK(a.st_ino == c.st_ino && a.st_dev == c.st_dev);
  int fd = open("/data.txt", O_RDONLY);
  CHECK(fd >= 0 && fstat(fd, &d) == 0);
  CHECK(d.st_ino == a.st_ino && d.st_dev == a.st_dev);
  CHECK(close(fd) == 0);
  return 0;
}
