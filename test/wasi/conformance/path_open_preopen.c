// The `/` preopen is a directory with the rights userland expects (create, link, open, readdir, readlink, rename,
// symlink, remove, filestat, set times), inheritable along with the file rights; "." reopens it with the same, with
// no rights and with just FD_READ; O_DIRECTORY with FD_WRITE is EISDIR.
#include "conf.h"
int main(void) {
  __wasi_fd_t pre = root_fd();
  __wasi_prestat_t ps;
  OK(__wasi_fd_prestat_get(pre, &ps));
  CHECK(ps.tag == __WASI_PREOPENTYPE_DIR && ps.u.dir.pr_name_len == 1);
  __wasi_fdstat_t st;
  OK(__wasi_fd_fdstat_get(pre, &st));
  CHECK(st.fs_filetype == __WASI_FILETYPE_DIRECTORY);
  const __wasi_rights_t dirRights =
      __WASI_RIGHTS_PATH_CREATE_DIRECTORY | __WASI_RIGHTS_PATH_CREATE_FILE | __WASI_RIGHTS_PATH_LINK_SOURCE |
      __WASI_RIGHTS_PATH_LINK_TARGET | __WASI_RIGHTS_PATH_OPEN | __WASI_RIGHTS_FD_READDIR | __WASI_RIGHTS_PATH_READLINK |
      __WASI_RIGHTS_PATH_RENAME_SOURCE | __WASI_RIGHTS_PATH_RENAME_TARGET | __WASI_RIGHTS_PATH_SYMLINK |
      __WASI_RIGHTS_PATH_REMOVE_DIRECTORY | __WASI_RIGHTS_PATH_UNLINK_FILE | __WASI_RIGHTS_PATH_FILESTAT_GET |
      __WASI_RIGHTS_PATH_FILESTAT_SET_TIMES | __WASI_RIGHTS_FD_FILESTAT_GET | __WASI_RIGHTS_FD_FILESTAT_SET_TIMES;
  const __wasi_rights_t fileRights =
      __WASI_RIGHTS_FD_DATASYNC | __WASI_RIGHTS_FD_READ | __WASI_RIGHTS_FD_SEEK | __WASI_RIGHTS_FD_FDSTAT_SET_FLAGS |
      __WASI_RIGHTS_FD_SYNC | __WASI_RIGHTS_FD_TELL | __WASI_RIGHTS_FD_WRITE | __WASI_RIGHTS_FD_ADVISE |
      __WASI_RIGHTS_FD_ALLOCATE | __WASI_RIGHTS_FD_FILESTAT_GET | __WASI_RIGHTS_FD_FILESTAT_SET_SIZE |
      __WASI_RIGHTS_FD_FILESTAT_SET_TIMES | __WASI_RIGHTS_POLL_FD_READWRITE;
  CHECK((st.fs_rights_base & dirRights) == dirRights);
  CHECK((st.fs_rights_inheriting & (dirRights | fileRights)) == (dirRights | fileRights));
  __wasi_fd_t fd;
  OK(__wasi_path_open(pre, 0, ".", 0, st.fs_rights_base, st.fs_rights_inheriting, 0, &fd));
  OK(__wasi_fd_close(fd));
  OK(__wasi_path_open(pre, 0, ".", 0, 0, 0, 0, &fd));
  OK(__wasi_fd_close(fd));
  OK(__wasi_path_open(pre, 0, ".", __WASI_OFLAGS_DIRECTORY, 0, 0, 0, &fd));
  OK(__wasi_fd_close(fd));
  OK(__wasi_path_open(pre, 0, ".", __WASI_OFLAGS_DIRECTORY, __WASI_RIGHTS_FD_READ, 0, 0, &fd));
  OK(__wasi_fd_close(fd));
  EXPECT(__wasi_path_open(pre, 0, ".", __WASI_OFLAGS_DIRECTORY, __WASI_RIGHTS_FD_READ | __WASI_RIGHTS_FD_WRITE, 0, 0, &fd),
         E(ISDIR));
  return 0;
}
