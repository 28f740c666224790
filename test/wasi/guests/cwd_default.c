#include "guest.h"
int main(void) {
  char cwd[64];
  CHECK(getcwd(cwd, sizeof cwd) != NULL);
  CHECK(strcmp(cwd, "/") == 0);
  // A relative path resolves against "/" and then against the longest matching preopen.
  CHECK(chdir("/workspace") == 0);
  expect_file("hello.txt", "hello\n");
  CHECK(chdir("/workspace/hello.txt") != 0);
  return 0;
}
