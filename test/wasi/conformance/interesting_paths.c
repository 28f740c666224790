// Path forms: an absolute path is refused (ENOTCAPABLE or EPERM); `..`, `.` and repeated slashes inside the preopen
// resolve; an embedded NUL is EINVAL (or EILSEQ/ENOENT); a trailing slash on a file is ENOTDIR (or ENOENT), on a
// directory fine; `..` past the preopen is refused.
#include "conf.h"
int main(void) {
  __wasi_fd_t root = root_fd();
  __wasi_fd_t dir = make_dir(root, "interesting_paths.d");
  __wasi_fd_t fd;
  OK(__wasi_path_create_directory(dir, "dir"));
  OK(__wasi_path_create_directory(dir, "dir/nested"));
  create_file(dir, "dir/nested/file");
  EXPECT2(__wasi_path_open(dir, 0, "/dir/nested/file", 0, 0, 0, 0, &fd), E(NOTCAPABLE), E(PERM));
  OK(__wasi_path_open(dir, 0, "dir/.//nested/../../dir/nested/../nested///./file", 0, 0, 0, 0, &fd));
  OK(__wasi_fd_close(fd));
  int r = raw_path_open(dir, 0, "dir/nested/file\0", 16, 0, 0, 0, 0, (int32_t*)&fd);
  CHECK(r == E(INVAL) || r == E(ILSEQ) || r == E(NOENT));
  EXPECT2(__wasi_path_open(dir, 0, "dir/nested/file/", 0, 0, 0, 0, &fd), E(NOTDIR), E(NOENT));
  EXPECT2(__wasi_path_open(dir, 0, "dir/nested/file///", 0, 0, 0, 0, &fd), E(NOTDIR), E(NOENT));
  OK(__wasi_path_open(dir, 0, "dir/nested/", 0, 0, 0, 0, &fd));
  OK(__wasi_fd_close(fd));
  OK(__wasi_path_open(dir, 0, "dir/nested///", 0, 0, 0, 0, &fd));
  OK(__wasi_fd_close(fd));
  EXPECT2(__wasi_path_open(dir, 0, "dir/nested/../../../interesting_paths.d/dir/nested/file", 0, 0, 0, 0, &fd),
          E(NOTCAPABLE), E(PERM));
  EXPECT2(__wasi_path_open(root, 0, "..", 0, 0, 0, 0, &fd), E(NOTCAPABLE), E(PERM));
  OK(__wasi_path_unlink_file(dir, "dir/nested/file"));
  OK(__wasi_path_remove_directory(dir, "dir/nested"));
  OK(__wasi_path_remove_directory(dir, "dir"));
  OK(__wasi_fd_close(dir));
  OK(__wasi_path_remove_directory(root, "interesting_paths.d"));
  return 0;
}
