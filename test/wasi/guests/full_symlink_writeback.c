// RUN: ["--full-wasi"]
// FILE: "link.txt" "target\n"
// FILE: "sub/up" "hello\n"
// With --full-wasi the runner writes the guest's symlinks back as symlinks (the FILE checks read through them).
#include "guest.h"
int main(void) {
  write_file("/workspace/target.txt", "target\n");
  CHECK(symlink("target.txt", "/workspace/link.txt") == 0);
  CHECK(symlink("../hello.txt", "/workspace/sub/up") == 0);
  char buf[32];
  CHECK(readlink("/workspace/link.txt", buf, sizeof buf) == 10);
  expect_file("/workspace/sub/up", "hello\n");
  struct stat st;
  CHECK(lstat("/workspace/link.txt", &st) == 0 && S_ISLNK(st.st_mode));
  return 0;
}
