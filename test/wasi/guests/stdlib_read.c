#include "guest.h"
int main(void) {
  expect_file("/stdlib/lib/mod.txt", "stdlib module\n");
  expect_file("/stdlib/lib/pkg/init.txt", "pkg\n");
  expect_file("/stdlib/README", "readme\n");
  DIR* d = opendir("/stdlib/lib");
  CHECK(d != NULL);
  int n = 0;
  struct dirent* e;
  while ((e = readdir(d)) != NULL) n += e->d_name[0] != '.';
  closedir(d);
  CHECK(n == 2);
  struct stat st;
  CHECK(stat("/stdlib/lib/mod.txt", &st) == 0 && st.st_size == 14);
  int fd = open("/stdlib/lib/mod.txt", O_RDONLY);
  char buf[6] = {0};
  CHECK(pread(fd, buf, 5, 7) == 5 && strcmp(buf, "modul") == 0);
  close(fd);
  return 0;
}
