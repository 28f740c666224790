#include "guest.h"
int main(void) {
  int fd = open("/workspace/x", O_CREAT | O_EXCL | O_WRONLY, 0644);
  CHECK(fd >= 0);
  CHECK(write(fd, "12345", 5) == 5);
  close(fd);
  CHECK_ERRNO(open("/workspace/x", O_CREAT | O_EXCL | O_WRONLY, 0644), EEXIST);
  fd = open("/workspace/x", O_WRONLY | O_TRUNC);
  CHECK(fd >= 0);
  struct stat st;
  CHECK(fstat(fd, &st) == 0 && st.st_size == 0);
  close(fd);
  CHECK_ERRNO(open("/workspace/sub", O_WRONLY), EISDIR);
  CHECK_ERRNO(open("/workspace/hello.txt", O_RDONLY | O_DIRECTORY), ENOTDIR);
  CHECK_ERRNO(open("/workspace/nope", O_RDONLY), ENOENT);
  return 0;
}
