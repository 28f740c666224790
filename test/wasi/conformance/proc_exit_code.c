// proc_exit passes a code other than 0 and 1 through unchanged.
// EXIT: 42
#include "conf.h"
int main(void) {
  exit(42);
}
