#include "guest.h"
int main(void) {
  write_file("/workspace/log.txt", "one\n");
  int fd = open("/workspace/log.txt", O_WRONLY | O_APPEND);
  CHECK(fd >= 0);
  CHECK(lseek(fd, 0, SEEK_SET) == 0);
  CHECK(write(fd, "two\n", 4) == 4);
  close(fd);
  FILE* f = fopen("/workspace/log.txt", "a");
  fputs("three\n", f);
  fclose(f);
  expect_file("/workspace/log.txt", "one\ntwo\nthree\n");
  return 0;
}
