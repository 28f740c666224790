// environ_get: every variable as KEY=VALUE, in order, values with '=' and spaces kept; getenv finds them.
// ENV: ["FIRST=1", "SECOND=two words", "THIRD=a=b", "EMPTY="]
#include "conf.h"
extern char** environ;
int main(void) {
  int n = 0;
  while (environ[n]) n++;
  CHECK(n == 4);
  CHECK(strcmp(environ[0], "FIRST=1") == 0 && strcmp(environ[3], "EMPTY=") == 0);
  CHECK(strcmp(getenv("SECOND"), "two words") == 0);
  CHECK(strcmp(getenv("THIRD"), "a=b") == 0);
  CHECK(getenv("EMPTY") != NULL && getenv("EMPTY")[0] == 0);
  CHECK(getenv("MISSING") == NULL);
  return 0;
}
