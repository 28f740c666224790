#include "guest.h"
int main(void) {
  const char* names[] = {"/stdlib", "/dev", "/workspace"};
  for (int fd = 3; fd <= 5; ++fd) {
    __wasi_prestat_t p;
    CHECK_WASI(__wasi_fd_prestat_get(fd, &p), 0);
    CHECK(p.tag == __WASI_PREOPENTYPE_DIR);
    char name[32] = {0};
    CHECK(p.u.dir.pr_name_len == strlen(names[fd - 3]));
    CHECK_WASI(__wasi_fd_prestat_dir_name(fd, (uint8_t*)name, p.u.dir.pr_name_len), 0);
    CHECK(strcmp(name, names[fd - 3]) == 0);
  }
  __wasi_prestat_t p;
  CHECK_WASI(__wasi_fd_prestat_get(6, &p), __WASI_ERRNO_BADF);
  CHECK_WASI(__wasi_fd_prestat_get(1, &p), __WASI_ERRNO_BADF);
  char small[2];
  CHECK_WASI(__wasi_fd_prestat_dir_name(3, (uint8_t*)small, 2), __WASI_ERRNO_NAMETOOLONG);
  return 0;
}
