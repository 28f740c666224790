// RUN: ["--full-wasi"]
#include "guest.h"
int main(void) {
  int fd = open("/workspace/t.txt", O_RDWR | O_CREAT, 0644);
  CHECK(write(fd, "0123456789", 10) == 10);
  CHECK(ftruncate(fd, 4) == 0);
  struct stat st;
  CHECK(fstat(fd, &st) == 0 && st.st_size == 4);
  CHECK(pwrite(fd, "Z", 1, 1) == 1);
  CHECK(ftruncate(fd, 2 * 1048576) < 0 && errno == EFBIG);
  CHECK_WASI(__wasi_fd_filestat_set_times(fd, 5000000000ull, 7000000000ull,
                                          __WASI_FSTFLAGS_ATIM | __WASI_FSTFLAGS_MTIM), 0);
  CHECK(fstat(fd, &st) == 0 && st.st_mtim.tv_sec == 7 && st.st_atim.tv_sec == 5);
  close(fd);
  expect_file("/workspace/t.txt", "0Z23");
  return 0;
}
