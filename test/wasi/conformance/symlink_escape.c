// No symlink leads out of the directory it is resolved from: `..` in a target stops at the descriptor's directory
// (ENOTCAPABLE), a link whose target is absolute is refused at creation; links that stay inside resolve, `..`
// included.
#include "conf.h"
int main(void) {
  __wasi_fd_t root = root_fd();
  __wasi_fd_t dir = make_dir(root, "symlink_escape.d");
  __wasi_fd_t fd;
  OK(__wasi_path_symlink("../../..", dir, "up"));
  EXPECT(__wasi_path_open(dir, FOLLOW, "up", __WASI_OFLAGS_DIRECTORY, 0, 0, 0, &fd), E(NOTCAPABLE));
  EXPECT(__wasi_path_open(dir, 0, "up/etc/passwd", 0, 0, 0, 0, &fd), E(NOTCAPABLE));
  EXPECT(__wasi_path_open(root, 0, "symlink_escape.d/up/etc/passwd", 0, 0, 0, 0, &fd), E(NOTCAPABLE));
  OK(__wasi_path_symlink("../data.txt", dir, "data"));
  // Relative to the preopen the link stays inside it; relative to the directory holding it, it would climb out.
  OK(__wasi_path_open(root, FOLLOW, "symlink_escape.d/data", 0, __WASI_RIGHTS_FD_READ, 0, 0, &fd));
  char buf[32] = {0};
  CHECK(read_some(fd, buf, sizeof buf) == 11 && memcmp(buf, "hello wasi\n", 11) == 0);
  OK(__wasi_fd_close(fd));
  EXPECT(__wasi_path_open(dir, FOLLOW, "data", 0, __WASI_RIGHTS_FD_READ, 0, 0, &fd), E(NOTCAPABLE));
  // A chain through a directory link and `..` back out of it.
  OK(__wasi_path_symlink("../sub", dir, "sublink"));
  OK(__wasi_path_open(root, FOLLOW, "symlink_escape.d/sublink/../data.txt", 0, __WASI_RIGHTS_FD_READ, 0, 0, &fd));
  OK(__wasi_fd_close(fd));
  OK(__wasi_path_open(root, FOLLOW, "symlink_escape.d/sublink/nested.txt", 0, __WASI_RIGHTS_FD_READ, 0, 0, &fd));
  OK(__wasi_fd_close(fd));
  OK(__wasi_path_symlink("inner/..", dir, "here"));
  OK(__wasi_path_create_directory(dir, "inner"));
  EXPECT(__wasi_path_open(dir, FOLLOW, "here/up", 0, 0, 0, 0, &fd), E(NOTCAPABLE));
  CHECK(__wasi_path_symlink("/data.txt", dir, "abs") != 0);
  CHECK(__wasi_path_symlink("/", dir, "abs") != 0);
  const char* names[] = {"up", "data", "sublink", "here"};
  for (int i = 0; i < 4; ++i) OK(__wasi_path_unlink_file(dir, names[i]));
  OK(__wasi_path_remove_directory(dir, "inner"));
  OK(__wasi_fd_close(dir));
  OK(__wasi_path_remove_directory(root, "symlink_escape.d"));
  return 0;
}
