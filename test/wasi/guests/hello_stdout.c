// STDOUT: "hello from a guest\nsecond line\n"
#include "guest.h"
int main(void) {
  printf("hello from a guest\n");
  printf("second line\n");
  return 0;
}
