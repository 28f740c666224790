// O_TRUNC through path_open needs the directory's PATH_FILESTAT_SET_SIZE right (not the file's FD_FILESTAT_SET_SIZE):
// without it, ENOTCAPABLE (or EPERM). Directories never hold FD_FILESTAT_SET_SIZE as a base right.
#include "conf.h"
int main(void) {
  __wasi_fd_t root = root_fd();
  __wasi_fd_t dir = make_dir(root, "truncation_rights.d");
  create_file(dir, "file");
  __wasi_fdstat_t st;
  OK(__wasi_fd_fdstat_get(dir, &st));
  CHECK(st.fs_filetype == __WASI_FILETYPE_DIRECTORY && st.fs_flags == 0);
  CHECK((st.fs_rights_base & __WASI_RIGHTS_FD_FILESTAT_SET_SIZE) == 0);
  CHECK(st.fs_rights_base & __WASI_RIGHTS_PATH_FILESTAT_SET_SIZE);
  __wasi_fd_t fd;
  OK(__wasi_path_open(dir, 0, "file", __WASI_OFLAGS_TRUNC, 0, 0, 0, &fd));
  OK(__wasi_fd_close(fd));
  __wasi_rights_t base = st.fs_rights_base, inh = st.fs_rights_inheriting & ~(uint64_t)__WASI_RIGHTS_FD_FILESTAT_SET_SIZE;
  OK(__wasi_fd_fdstat_set_rights(dir, base, inh));
  OK(__wasi_path_open(dir, 0, "file", __WASI_OFLAGS_TRUNC, 0, 0, 0, &fd));
  OK(__wasi_fd_close(fd));
  base &= ~(uint64_t)__WASI_RIGHTS_PATH_FILESTAT_SET_SIZE;
  OK(__wasi_fd_fdstat_set_rights(dir, base, inh));
  OK(__wasi_fd_fdstat_get(dir, &st));
  CHECK((st.fs_rights_base & __WASI_RIGHTS_PATH_FILESTAT_SET_SIZE) == 0);
  EXPECT2(__wasi_path_open(dir, 0, "file", __WASI_OFLAGS_TRUNC, 0, 0, 0, &fd), E(NOTCAPABLE), E(PERM));
  OK(__wasi_path_unlink_file(dir, "file"));
  OK(__wasi_fd_close(dir));
  OK(__wasi_path_remove_directory(root, "truncation_rights.d"));
  return 0;
}
