// fd_pread/fd_pwrite at explicit offsets, with several iovecs, never move the descriptor's offset.
#include "conf.h"
int main(void) {
  __wasi_fd_t root = root_fd();
  __wasi_fd_t fd = open_file(root, "pread_pwrite.f", __WASI_OFLAGS_CREAT, RW_RIGHTS, 0);
  __wasi_size_t n;
  __wasi_ciovec_t w[2] = {{(const uint8_t*)"abcd", 4}, {(const uint8_t*)"efgh", 4}};
  OK(__wasi_fd_pwrite(fd, w, 2, 0, &n));
  CHECK(n == 8);
  __wasi_filesize_t off;
  OK(__wasi_fd_tell(fd, &off));
  CHECK(off == 0);
  OK(__wasi_fd_pwrite(fd, w, 1, 2, &n));
  char a[3] = {0}, b[5] = {0};
  __wasi_iovec_t r[2] = {{(uint8_t*)a, 3}, {(uint8_t*)b, 5}};
  OK(__wasi_fd_pread(fd, r, 2, 0, &n));
  CHECK(n == 8 && memcmp(a, "aba", 3) == 0 && memcmp(b, "bcdgh", 5) == 0);
  OK(__wasi_fd_pread(fd, r, 2, 6, &n));
  CHECK(n == 2 && memcmp(a, "gh", 2) == 0);
  OK(__wasi_fd_pread(fd, r, 1, 100, &n));
  CHECK(n == 0);
  OK(__wasi_fd_pwrite(fd, w, 1, 12, &n));  // past the end: a zero-filled gap
  __wasi_filestat_t st;
  OK(__wasi_fd_filestat_get(fd, &st));
  CHECK(st.size == 16);
  OK(__wasi_fd_tell(fd, &off));
  CHECK(off == 0);
  OK(__wasi_fd_close(fd));
  OK(__wasi_path_unlink_file(root, "pread_pwrite.f"));
  return 0;
}
