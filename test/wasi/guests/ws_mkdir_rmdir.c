#include "guest.h"
int main(void) {
  CHECK(mkdir("/workspace/d", 0755) == 0);
  CHECK_ERRNO(mkdir("/workspace/d", 0755), EEXIST);
  CHECK(mkdir("/workspace/d/e", 0755) == 0);
  struct stat st;
  CHECK(stat("/workspace/d/e", &st) == 0 && S_ISDIR(st.st_mode));
  CHECK_ERRNO(rmdir("/workspace/d"), ENOTEMPTY);
  CHECK_ERRNO(mkdir("/workspace/missing/x", 0755), ENOENT);
  CHECK_ERRNO(mkdir("/workspace/hello.txt/x", 0755), ENOTDIR);
  CHECK_ERRNO(rmdir("/workspace/hello.txt"), ENOTDIR);
  CHECK(rmdir("/workspace/d/e") == 0);
  CHECK(rmdir("/workspace/d") == 0);
  CHECK_ERRNO(stat("/workspace/d", &st), ENOENT);
  return 0;
}
