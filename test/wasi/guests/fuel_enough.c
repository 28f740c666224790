// RUN: ["--fuel", "1000"]
// STDOUT: "done\n"
#include "guest.h"
__attribute__((import_module("sandbox"), import_name("tick"))) void sandbox_tick(void);
int main(void) {
  for (int i = 0; i < 1000; ++i) sandbox_tick();
  printf("done\n");
  return 0;
}
