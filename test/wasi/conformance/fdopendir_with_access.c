// opendir/fdopendir on a directory of the preopen lists its entries through readdir().
#include "conf.h"
int main(void) {
  int fd = open("/sub", O_RDONLY | O_DIRECTORY);
  CHECK(fd >= 0);
  DIR* d = fdopendir(fd);
  CHECK(d != NULL);
  int found = 0, total = 0;
  struct dirent* e;
  while ((e = readdir(d)) != NULL) {
    total++;
    if (strcmp(e->d_name, "nested.txt") == 0) found = 1;
  }
  CHECK(found && total == 3);  // ".", "..", nested.txt
  CHECK(closedir(d) == 0);
  return 0;
}
