#include "guest.h"
int main(void) {
  struct stat st;
  CHECK(stat("/workspace/hello.txt", &st) == 0);
  CHECK(S_ISREG(st.st_mode) && st.st_size == 6);
  CHECK(stat("/workspace/sub", &st) == 0 && S_ISDIR(st.st_mode));
  CHECK(stat("/workspace", &st) == 0 && S_ISDIR(st.st_mode));
  int fd = open("/workspace/hello.txt", O_RDONLY);
  struct stat fst;
  CHECK(fstat(fd, &fst) == 0 && fst.st_size == 6);
  CHECK(stat("/workspace/hello.txt", &st) == 0 && st.st_ino == fst.st_ino);
  close(fd);
  CHECK_ERRNO(stat("/workspace/missing", &st), ENOENT);
  CHECK_ERRNO(stat("/workspace/hello.txt/x", &st), ENOTDIR);
  CHECK(access("/workspace/hello.txt", F_OK) == 0);
  return 0;
}
