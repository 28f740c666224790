// Descriptors 0, 1 and 2 are open: fd_fdstat_get succeeds on each; writing to 1 and 2 works.
// STDOUT: "out\n"
#include "conf.h"
int main(void) {
  __wasi_fdstat_t st;
  OK(__wasi_fd_fdstat_get(0, &st));
  OK(__wasi_fd_fdstat_get(1, &st));
  OK(__wasi_fd_fdstat_get(2, &st));
  CHECK(write_all(1, "out\n", 4) == 4);
  CHECK(write_all(2, "err\n", 4) == 4);
  return 0;
}
