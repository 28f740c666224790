// RUN: ["--capture"]
// STDOUT: "line 0\nline 1\nline 2\n"
#include "guest.h"
int main(void) {
  for (int i = 0; i < 3; ++i) {
    char b[16];
    int n = snprintf(b, sizeof b, "line %d\n", i);
    write(1, b, n);
  }
  write(1, "", 0);  // empty chunks are ignored
  return 0;
}
