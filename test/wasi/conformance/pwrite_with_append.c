// With O_APPEND, write goes to the end whatever the position; pwrite does not move the position and writes at the
// offset (POSIX) or at the end (Linux): either is accepted.
#include "conf.h"
int main(void) {
  int fd = open("/pwrite_append.f", O_CREAT | O_TRUNC | O_WRONLY | O_APPEND, 0644);
  CHECK(fd >= 0);
  CHECK(write(fd, "ab", 2) == 2);
  CHECK(lseek(fd, 0, SEEK_SET) == 0);
  CHECK(write(fd, "cd", 2) == 2);
  CHECK(lseek(fd, 0, SEEK_CUR) == 4);
  CHECK(pwrite(fd, "xyz", 3, 0) == 3);
  CHECK(lseek(fd, 0, SEEK_CUR) == 4);
  off_t end = lseek(fd, 0, SEEK_END);
  CHECK(end == 4 || end == 7);
  CHECK(close(fd) == 0);
  CHECK(unlink("/pwrite_append.f") == 0);
  return 0;
}
