// pread on a file opened read-only reads at the offset without moving the file position.
#include "conf.h"
int main(void) {
  int fd = open("/data.txt", O_RDONLY);
  CHECK(fd >= 0);
  char buf[8] = {0};
  CHECK(pread(fd, buf, 4, 6) == 4 && memcmp(buf, "wasi", 4) == 0);
  CHECK(lseek(fd, 0, SEEK_CUR) == 0);
  CHECK(pread(fd, buf, 4, 100) == 0);
  CHECK(close(fd) == 0);
  return 0;
}
