#include "guest.h"
int main(void) {
  // The fixture has 4 entries (hello.txt, sub, sub/nested.txt, sub/deeper).
  char path[64];
  for (int i = 0; i < 4092; ++i) {
    snprintf(path, sizeof path, "/workspace/e%04d", i);
    int fd = open(path, O_CREAT | O_WRONLY, 0644);
    if (fd < 0) FAIL("entry %d: %s", i, strerror(errno));
    close(fd);
  }
  CHECK_ERRNO(open("/workspace/one-too-many", O_CREAT | O_WRONLY, 0644), ENOSPC);
  CHECK_ERRNO(mkdir("/workspace/dir-too-many", 0755), ENOSPC);
  CHECK(unlink("/workspace/e0000") == 0);
  CHECK(mkdir("/workspace/now-fits", 0755) == 0);
  return 0;
}
