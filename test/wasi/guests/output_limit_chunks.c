// RUN: ["--capture"]
// EXIT: 134
// STDERR-HAS: "Output limit exceeded"
#include "guest.h"
int main(void) {
  for (int i = 0; i < 250; ++i) write(i % 2 ? 1 : 2, "x\n", 2);  // the 201st chunk fails
  return 0;
}
