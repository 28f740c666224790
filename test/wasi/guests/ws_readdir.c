#include "guest.h"
int main(void) {
  DIR* d = opendir("/workspace");
  CHECK(d != NULL);
  const char* expect[] = {".", "..", "hello.txt", "sub"};
  int n = 0;
  struct dirent* e;
  while ((e = readdir(d)) != NULL) {
    CHECK(n < 4);
    if (strcmp(e->d_name, expect[n]) != 0) FAIL("entry %d: %s", n, e->d_name);
    if (n == 3) CHECK(e->d_type == DT_DIR);
    if (n == 2) CHECK(e->d_type == DT_REG);
    ++n;
  }
  CHECK(n == 4);
  closedir(d);
  CHECK_ERRNO(opendir("/workspace/hello.txt"), ENOTDIR);
  CHECK_ERRNO(opendir("/workspace/none"), ENOENT);
  return 0;
}
