// EXIT: 42
// STDOUT: "before\n"
#include "guest.h"
static void deep(int n) {
  if (n == 0) {
    fflush(stdout);
    __wasi_proc_exit(42);
  }
  deep(n - 1);
}
int main(void) {
  printf("before\n");
  deep(10);
  printf("after\n");
  return 0;
}
