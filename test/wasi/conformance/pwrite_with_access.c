// pwrite on a file opened for writing writes at the offset without moving the file position; on a read-only
// descriptor it is EBADF.
#include "conf.h"
int main(void) {
  int fd = open("/pwrite.f", O_CREAT | O_RDWR | O_TRUNC, 0644);
  CHECK(fd >= 0);
  CHECK(write(fd, "0123456789", 10) == 10);
  CHECK(pwrite(fd, "ab", 2, 3) == 2);
  CHECK(lseek(fd, 0, SEEK_CUR) == 10);
  char buf[16] = {0};
  CHECK(pread(fd, buf, 10, 0) == 10 && memcmp(buf, "012ab56789", 10) == 0);
  CHECK(close(fd) == 0);
  int ro = open("/pwrite.f", O_RDONLY);
  errno = 0;
  CHECK(pwrite(ro, "x", 1, 0) == -1 && errno == EBADF);
  CHECK(close(ro) == 0);
  CHECK(unlink("/pwrite.f") == 0);
  return 0;
}
