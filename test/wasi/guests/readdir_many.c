#include "guest.h"
int main(void) {
  CHECK(mkdir("/workspace/many", 0755) == 0);
  char path[64];
  for (int i = 0; i < 300; ++i) {
    snprintf(path, sizeof path, "/workspace/many/file-with-a-longish-name-%03d", i);
    int fd = open(path, O_CREAT | O_WRONLY, 0644);
    CHECK(fd >= 0);
    close(fd);
  }
  DIR* d = opendir("/workspace/many");
  int n = 0, last = -1;
  struct dirent* e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    int i = atoi(e->d_name + strlen("file-with-a-longish-name-"));
    CHECK(i == last + 1);  // sorted, no duplicates, none skipped across buffer refills
    last = i;
    ++n;
  }
  closedir(d);
  CHECK(n == 300);
  return 0;
}
