#include "guest.h"
int main(void) {
  expect_file("/workspace/hello.txt", "hello\n");
  expect_file("/workspace/sub/nested.txt", "nested\n");
  struct stat st;
  CHECK(stat("/workspace/sub/deeper", &st) == 0 && S_ISDIR(st.st_mode));
  CHECK(chdir("/workspace/sub") == 0);
  expect_file("nested.txt", "nested\n");
  expect_file("../hello.txt", "hello\n");
  char cwd[64];
  CHECK(getcwd(cwd, sizeof cwd) && strcmp(cwd, "/workspace/sub") == 0);
  return 0;
}
