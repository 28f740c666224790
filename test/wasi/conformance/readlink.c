// path_readlink returns the stored target without a NUL, truncated to a short buffer, and EINVAL for a non-link.
#include "conf.h"
int main(void) {
  __wasi_fd_t dir = make_dir(root_fd(), "readlink.d");
  create_file(dir, "target");
  OK(__wasi_path_symlink("target", dir, "link"));
  uint8_t buf[10] = {0};
  __wasi_size_t used = 0;
  OK(__wasi_path_readlink(dir, "link", buf, sizeof buf, &used));
  CHECK(used == 6 && memcmp(buf, "target", 6) == 0);
  for (int i = 6; i < 10; ++i) CHECK(buf[i] == 0);
  uint8_t small[4];
  OK(__wasi_path_readlink(dir, "link", small, sizeof small, &used));
  CHECK(used == 4 && memcmp(small, "targ", 4) == 0);
  EXPECT(__wasi_path_readlink(dir, "target", buf, sizeof buf, &used), E(INVAL));
  EXPECT(__wasi_path_readlink(dir, "missing", buf, sizeof buf, &used), E(NOENT));
  // The libc wrapper agrees.
  char text[16];
  CHECK(readlink("/readlink.d/link", text, sizeof text) == 6 && memcmp(text, "target", 6) == 0);
  OK(__wasi_path_unlink_file(dir, "target"));
  OK(__wasi_path_unlink_file(dir, "link"));
  OK(__wasi_fd_close(dir));
  OK(__wasi_path_remove_directory(root_fd(), "readlink.d"));
  return 0;
}
