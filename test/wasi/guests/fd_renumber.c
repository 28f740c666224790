#include "guest.h"
int main(void) {
  int a = open("/workspace/a.txt", O_CREAT | O_WRONLY, 0644);
  int b = open("/workspace/b.txt", O_CREAT | O_WRONLY, 0644);
  CHECK(a >= 6 && b > a);
  CHECK_WASI(__wasi_fd_renumber(a, 1), __WASI_ERRNO_NOTSUP);  // stdio and preopens never move
  CHECK_WASI(__wasi_fd_renumber(3, b), __WASI_ERRNO_NOTSUP);
  CHECK_WASI(__wasi_fd_renumber(a, 200), __WASI_ERRNO_BADF);
  CHECK_WASI(__wasi_fd_renumber(a, b), 0);
  CHECK(write(b, "via b", 5) == 5);
  CHECK_ERRNO(write(a, "x", 1), EBADF);
  close(b);
  expect_file("/workspace/a.txt", "via b");
  return 0;
}
