// STDERR-HAS: "to stderr 123"
// STDOUT: "to stdout\n"
#include "guest.h"
int main(void) {
  fprintf(stderr, "to stderr %d\n", 123);
  printf("to stdout\n");
  return 0;
}
