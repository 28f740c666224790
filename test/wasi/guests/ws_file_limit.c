#include "guest.h"
static char mib[1048576];
int main(void) {
  int fd = open("/workspace/big", O_CREAT | O_WRONLY, 0644);
  CHECK(fd >= 0);
  CHECK(write(fd, mib, sizeof mib) == (ssize_t)sizeof mib);  // exactly 1 MiB is allowed
  CHECK_ERRNO(write(fd, "x", 1), EFBIG);
  struct stat st;
  CHECK(fstat(fd, &st) == 0 && st.st_size == 1048576);
  close(fd);
  return 0;
}
