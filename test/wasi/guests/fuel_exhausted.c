// RUN: ["--fuel", "1000"]
// EXIT: 134
// STDERR-HAS: "ExecutionLimitError: Execution fuel exhausted"
#include "guest.h"
__attribute__((import_module("sandbox"), import_name("tick"))) void sandbox_tick(void);
int main(void) {
  for (int i = 0; i < 100000; ++i) sandbox_tick();
  printf("not reached\n");
  return 0;
}
