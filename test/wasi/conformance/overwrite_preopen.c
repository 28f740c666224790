// fd_renumber over a preopened descriptor: the preopen's slot now holds the renumbered directory, the old slot is
// closed.
#include "conf.h"
int main(void) {
  // A descriptor of its own for the scratch directory: the preopen overwritten may be `/` itself.
  __wasi_fd_t root = reopen_root();
  __wasi_fd_t dir = make_dir(root, "overwrite_preopen.d");
  __wasi_fd_t pre = 3;
  CHECK(dir > pre);
  __wasi_filestat_t before, after;
  OK(__wasi_fd_filestat_get(dir, &before));
  OK(__wasi_fd_renumber(dir, pre));
  OK(__wasi_fd_filestat_get(pre, &after));
  CHECK(before.dev == after.dev && before.ino == after.ino);
  __wasi_fdstat_t st;
  EXPECT(__wasi_fd_fdstat_get(dir, &st), E(BADF));
  OK(__wasi_fd_close(pre));
  OK(__wasi_path_remove_directory(root, "overwrite_preopen.d"));
  return 0;
}
