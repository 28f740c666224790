// EXIT: 134
// STDERR-HAS: "Unsupported host capability: env.not_a_host_function"
#include "guest.h"
__attribute__((import_module("env"), import_name("not_a_host_function"))) int not_a_host_function(int);
int main(void) {
  printf("calling\n");
  return not_a_host_function(1);
}
