#include "guest.h"
int main(void) {
  CHECK_ERRNO(unlink("/stdlib/README"), EPERM);
  CHECK_ERRNO(mkdir("/stdlib/newdir", 0755), EPERM);
  CHECK_ERRNO(rmdir("/stdlib/lib/pkg"), EPERM);
  CHECK_ERRNO(rename("/stdlib/README", "/stdlib/README2"), EPERM);
  CHECK_ERRNO(rename("/stdlib/README", "/workspace/README"), EPERM);
  CHECK_ERRNO(rename("/workspace/hello.txt", "/stdlib/hello.txt"), EPERM);
  expect_file("/stdlib/README", "readme\n");
  expect_file("/workspace/hello.txt", "hello\n");
  return 0;
}
