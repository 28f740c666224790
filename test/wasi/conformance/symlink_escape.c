// No symlink leads out of the preopen: `..` in a target stops at the preopen's root (ENOTCAPABLE), as does a link
// whose target is absolute (refused at creation); links inside the preopen, `..` included, resolve.
#include "conf.h"
int main(void) {
  __wasi_fd_t root = root_fd();
  __wasi_fd_t dir = make_dir(root, "symlink_escape.d");
  __wasi_fd_t fd;
  OK(__wasi_path_symlink("../../..", dir, "up"));
  EXPECT(__wasi_path_open(dir, FOLLOW, "up", __WASI_OFLAGS_DIRECTORY, 0, 0, 0, &fd), E(NOTCAPABLE));
  EXPECT(__wasi_path_open(dir, 0, "up/etc/passwd", 0, 0, 0, 0, &fd), E(NOTCAPABLE));
  OK(__wasi_path_symlink("../data.txt", dir, "data"));
  OK(__wasi_path_open(dir, FOLLOW, "data", 0, __WASI_RIGHTS_FD_READ, 0, 0, &fd));
  char buf[32] = {0};
  CHECK(read_some(fd, buf, sizeof buf) == 11 && memcmp(buf, "hello wasi\n", 11) == 0);
  OK(__wasi_fd_close(fd));
  // A chain through a directory link and `..` back out of it.
  OK(__wasi_path_symlink("../sub", dir, "sublink"));
  OK(__wasi_path_open(dir, FOLLOW, "sublink/../data.txt", 0, __WASI_RIGHTS_FD_READ, 0, 0, &fd));
  OK(__wasi_fd_close(fd));
  OK(__wasi_path_open(dir, FOLLOW, "sublink/nested.txt", 0, __WASI_RIGHTS_FD_READ, 0, 0, &fd));
  OK(__wasi_fd_close(fd));
  // Relative to a descriptor below the root, `..` still stops at the preopen's root.
  OK(__wasi_path_symlink("../..", dir, "twice"));
  EXPECT(__wasi_path_open(dir, FOLLOW, "twice", __WASI_OFLAGS_DIRECTORY, 0, 0, 0, &fd), E(NOTCAPABLE));
  CHECK(__wasi_path_symlink("/data.txt", dir, "abs") != 0);
  CHECK(__wasi_path_symlink("/", dir, "abs") != 0);
  const char* names[] = {"up", "data", "sublink", "twice"};
  for (int i = 0; i < 4; ++i) OK(__wasi_path_unlink_file(dir, names[i]));
  OK(__wasi_fd_close(dir));
  OK(__wasi_path_remove_directory(root, "symlink_escape.d"));
  return 0;
}
