// proc_exit(0) ends the program with status 0 before main returns.
// EXIT: 0
#include "conf.h"
int main(void) {
  __wasi_proc_exit(0);
  return 3;
}
