// RUN: ["--disable-workspace"]
#include "guest.h"
int main(void) {
  CHECK_ERRNO(open("/workspace/hello.txt", O_RDONLY), EACCES);
  CHECK_ERRNO(open("/workspace/new.txt", O_CREAT | O_WRONLY, 0644), EACCES);
  CHECK_ERRNO(mkdir("/workspace/d", 0755), EACCES);
  CHECK_ERRNO(unlink("/workspace/hello.txt"), EACCES);
  CHECK_ERRNO(rmdir("/workspace/sub/deeper"), EACCES);
  CHECK_ERRNO(rename("/workspace/hello.txt", "/workspace/x"), EACCES);
  struct stat st;
  CHECK_ERRNO(stat("/workspace/hello.txt", &st), EACCES);
  CHECK_ERRNO(opendir("/workspace"), EACCES);
  // Everything else keeps working.
  CHECK(access("/stdlib/README", R_OK) == 0);
  printf("ok\n");
  return 0;
}
