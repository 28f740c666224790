// proc_exit with a non-zero code ends the program with that code; nothing after it runs.
// EXIT: 1
#include "conf.h"
int main(void) {
  __wasi_proc_exit(1);
  FAIL("proc_exit returned");
}
