#include "guest.h"
int main(void) {
  int fd = open("/workspace/hello.txt", O_RDONLY);
  char buf[8] = {0};
  CHECK(pread(fd, buf, 3, 2) == 3 && strcmp(buf, "llo") == 0);
  CHECK(lseek(fd, 0, SEEK_CUR) == 0);  // pread does not move the offset
  CHECK(pread(fd, buf, 8, 100) == 0);
  CHECK(posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL) == 0);
  CHECK(fsync(fd) == 0 || errno == ENOTCAPABLE);
  close(fd);
  int w = open("/workspace/sync.txt", O_CREAT | O_WRONLY, 0644);
  CHECK(write(w, "x", 1) == 1);
  CHECK(fsync(w) == 0);
  CHECK(fdatasync(w) == 0);
  close(w);
  return 0;
}
