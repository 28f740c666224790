// fopen of a file inside the preopen, by absolute guest path, reads its content.
#include "conf.h"
int main(void) {
  FILE* f = fopen("/data.txt", "r");
  CHECK(f != NULL);
  char buf[32] = {0};
  CHECK(fread(buf, 1, sizeof buf, f) == 11);
  CHECK(strcmp(buf, "hello wasi\n") == 0);
  CHECK(fclose(f) == 0);
  return 0;
}
