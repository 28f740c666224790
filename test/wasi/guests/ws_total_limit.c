#include "guest.h"
static char mib[1048576];
int main(void) {
  char path[64];
  // The fixture holds 13 bytes; 15 files of 1 MiB plus 1 MiB - 13 bytes fill the 16 MiB exactly.
  for (int i = 0; i < 15; ++i) {
    snprintf(path, sizeof path, "/workspace/f%02d", i);
    int fd = open(path, O_CREAT | O_WRONLY, 0644);
    CHECK(fd >= 0);
    CHECK(write(fd, mib, sizeof mib) == (ssize_t)sizeof mib);
    close(fd);
  }
  int fd = open("/workspace/last", O_CREAT | O_WRONLY, 0644);
  CHECK(write(fd, mib, sizeof mib - 13) == (ssize_t)(sizeof mib - 13));
  CHECK_ERRNO(write(fd, "x", 1), ENOSPC);
  close(fd);
  CHECK(unlink("/workspace/f00") == 0);
  fd = open("/workspace/last", O_WRONLY | O_APPEND);
  CHECK(write(fd, "x", 1) == 1);
  close(fd);
  return 0;
}
