#include "guest.h"
int main(void) {
  int fds[200];
  for (int i = 0; i < 200; ++i) {
    fds[i] = open("/workspace/hello.txt", O_RDONLY);
    CHECK(fds[i] == 6 + i);  // lowest free descriptor above the fixed ones
  }
  CHECK(close(fds[10]) == 0);
  int again = open("/workspace/hello.txt", O_RDONLY);
  CHECK(again == fds[10]);
  for (int i = 0; i < 200; ++i) CHECK(close(fds[i]) == 0);
  int last = open("/workspace/hello.txt", O_RDONLY);
  CHECK(last == 6);
  // The table is bounded: opening forever ends in EMFILE, not in a crash.
  int n = 0;
  while (open("/workspace/hello.txt", O_RDONLY) >= 0) ++n;
  CHECK(errno == EMFILE);
  CHECK(n > 900 && n < 1100);
  return 0;
}
