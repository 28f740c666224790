#include "guest.h"
int main(void) {
  write_file("/workspace/a", "A");
  write_file("/workspace/b", "B");
  CHECK(rename("/workspace/a", "/workspace/c") == 0);
  expect_file("/workspace/c", "A");
  CHECK(rename("/workspace/c", "/workspace/b") == 0);  // replaces
  expect_file("/workspace/b", "A");
  CHECK(rename("/workspace/sub", "/workspace/moved") == 0);
  expect_file("/workspace/moved/nested.txt", "nested\n");
  CHECK_ERRNO(rename("/workspace/moved", "/workspace/moved/deeper/x"), EINVAL);
  CHECK_ERRNO(rename("/workspace/b", "/workspace/moved"), EISDIR);
  CHECK_ERRNO(rename("/workspace/moved", "/workspace/b"), ENOTDIR);
  CHECK_ERRNO(rename("/workspace/nope", "/workspace/x"), ENOENT);
  CHECK(mkdir("/workspace/empty", 0755) == 0);
  CHECK(rename("/workspace/moved/deeper", "/workspace/empty") == 0);  // onto an empty directory
  CHECK(mkdir("/workspace/full", 0755) == 0);
  write_file("/workspace/full/f", "f");
  CHECK_ERRNO(rename("/workspace/empty", "/workspace/full"), ENOTEMPTY);
  return 0;
}
