#include "guest.h"
int main(void) {
  int fd = open("/workspace/s.bin", O_RDWR | O_CREAT, 0644);
  CHECK(fd >= 0);
  CHECK(write(fd, "0123456789", 10) == 10);
  CHECK(lseek(fd, 0, SEEK_CUR) == 10);
  CHECK(lseek(fd, -3, SEEK_END) == 7);
  char c;
  CHECK(read(fd, &c, 1) == 1 && c == '7');
  CHECK(lseek(fd, 2, SEEK_SET) == 2);
  CHECK(write(fd, "ab", 2) == 2);
  CHECK(lseek(fd, 20, SEEK_SET) == 20);  // past the end: a hole is filled on write
  CHECK(write(fd, "Z", 1) == 1);
  struct stat st;
  CHECK(fstat(fd, &st) == 0 && st.st_size == 21);
  CHECK_ERRNO(lseek(fd, -100, SEEK_CUR), EINVAL);
  CHECK_ERRNO(lseek(1, 0, SEEK_SET), ESPIPE);
  CHECK(close(fd) == 0);
  FILE* f = fopen("/workspace/s.bin", "r");
  char buf[32] = {0};
  CHECK(fread(buf, 1, 21, f) == 21);
  CHECK(memcmp(buf, "01ab456789", 10) == 0 && buf[10] == 0 && buf[20] == 'Z');
  CHECK(ftell(f) == 21);
  fclose(f);
  return 0;
}
