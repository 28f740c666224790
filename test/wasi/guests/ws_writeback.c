// FILE: "out/result.txt" "computed 42\n"
// FILE: "hello.txt" "rewritten\n"
// FILE: "sub/nested.txt" null
#include "guest.h"
int main(void) {
  CHECK(mkdir("/workspace/out", 0755) == 0);
  write_file("/workspace/out/result.txt", "computed 42\n");
  write_file("/workspace/hello.txt", "rewritten\n");
  CHECK(unlink("/workspace/sub/nested.txt") == 0);
  return 0;
}
