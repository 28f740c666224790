// RUN: ["--env", "FOO=bar", "--env", "EMPTY=", "--env", "EQ=a=b"]
#include "guest.h"
extern char** environ;
int main(void) {
  CHECK(getenv("FOO") && strcmp(getenv("FOO"), "bar") == 0);
  CHECK(getenv("EMPTY") && strcmp(getenv("EMPTY"), "") == 0);
  CHECK(getenv("EQ") && strcmp(getenv("EQ"), "a=b") == 0);
  CHECK(getenv("PATH") == NULL);
  int n = 0;
  for (char** e = environ; *e; ++e) ++n;
  CHECK(n == 3);
  return 0;
}
