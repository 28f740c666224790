// A write through one descriptor is visible at once through another descriptor of the same file.
#include "conf.h"
int main(void) {
  __wasi_fd_t root = root_fd();
  __wasi_fd_t w = open_file(root, "unbuffered.f", __WASI_OFLAGS_CREAT, __WASI_RIGHTS_FD_WRITE, 0);
  __wasi_fd_t r = open_file(root, "unbuffered.f", 0, __WASI_RIGHTS_FD_READ, 0);
  CHECK(write_all(w, "x", 1) == 1);
  char buf[4] = {0};
  CHECK(read_some(r, buf, sizeof buf) == 1 && buf[0] == 'x');
  CHECK(write_all(w, "yz", 2) == 2);
  CHECK(read_some(r, buf, sizeof buf) == 2 && memcmp(buf, "yz", 2) == 0);
  OK(__wasi_fd_close(r));
  OK(__wasi_fd_close(w));
  OK(__wasi_path_unlink_file(root, "unbuffered.f"));
  return 0;
}
