// lseek: SEEK_SET/CUR/END on a file, past the end, a negative result EINVAL; on stdout ESPIPE.
#include "conf.h"
int main(void) {
  int fd = open("/data.txt", O_RDONLY);
  CHECK(fd >= 0);
  CHECK(lseek(fd, 0, SEEK_CUR) == 0);
  CHECK(lseek(fd, 4, SEEK_SET) == 4);
  char c;
  CHECK(read(fd, &c, 1) == 1 && c == 'o');
  CHECK(lseek(fd, 0, SEEK_CUR) == 5);
  CHECK(lseek(fd, -1, SEEK_END) == 10);
  CHECK(lseek(fd, 100, SEEK_SET) == 100);
  CHECK(read(fd, &c, 1) == 0);
  errno = 0;
  CHECK(lseek(fd, -200, SEEK_CUR) == -1 && errno == EINVAL);
  CHECK(close(fd) == 0);
  errno = 0;
  CHECK(lseek(1, 0, SEEK_CUR) == -1 && errno == ESPIPE);
  return 0;
}
