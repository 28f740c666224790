#include "guest.h"
int main(void) {
  CHECK_ERRNO(mkdir("/dev/x", 0755), EPERM);
  CHECK_ERRNO(open("/dev/zero", O_CREAT | O_WRONLY, 0644), EPERM);
  CHECK_ERRNO(open("/dev/zero", O_RDONLY), ENOENT);
  CHECK_ERRNO(unlink("/dev/null"), EPERM);
  DIR* d = opendir("/dev");
  CHECK(d != NULL);
  int n = 0;
  struct dirent* e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    CHECK(strcmp(e->d_name, "null") == 0);
    ++n;
  }
  closedir(d);
  CHECK(n == 1);
  return 0;
}
