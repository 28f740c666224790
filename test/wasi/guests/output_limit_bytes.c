// RUN: ["--capture"]
// EXIT: 134
// STDERR-HAS: "ExecutionLimitError: Output limit exceeded"
#include "guest.h"
int main(void) {
  static char line[1025];
  memset(line, 'x', 1024);
  line[1024] = '\n';
  for (int i = 0; i < 40; ++i) write(1, line, sizeof line);  // 41,000 bytes > 32,768
  return 0;
}
