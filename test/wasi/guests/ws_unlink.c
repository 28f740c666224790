#include "guest.h"
int main(void) {
  write_file("/workspace/gone.txt", "x");
  CHECK(unlink("/workspace/gone.txt") == 0);
  CHECK_ERRNO(open("/workspace/gone.txt", O_RDONLY), ENOENT);
  CHECK_ERRNO(unlink("/workspace/gone.txt"), ENOENT);
  CHECK_ERRNO(unlink("/workspace/sub"), EISDIR);
  // An open file survives its unlink.
  write_file("/workspace/open.txt", "still here");
  int fd = open("/workspace/open.txt", O_RDONLY);
  CHECK(fd >= 0);
  CHECK(unlink("/workspace/open.txt") == 0);
  char buf[16] = {0};
  CHECK(read(fd, buf, sizeof buf) == 10 && strcmp(buf, "still here") == 0);
  close(fd);
  return 0;
}
