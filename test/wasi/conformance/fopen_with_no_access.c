// Without a preopen for it, a path cannot be opened: fopen fails with ENOTCAPABLE (wasi-libc finds no preopen;
// older ones say ENOENT).
// DIRS: none
#include "conf.h"
int main(void) {
  errno = 0;
  FILE* f = fopen("fs-tests.dir/file", "r");
  CHECK(f == NULL);
  CHECK(errno == ENOTCAPABLE || errno == ENOENT);
  errno = 0;
  CHECK(fopen("/data.txt", "r") == NULL);
  CHECK(errno == ENOTCAPABLE || errno == ENOENT);
  return 0;
}
