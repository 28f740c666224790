#include "guest.h"
int main(void) {
  __wasi_fdstat_t st;
  CHECK_WASI(__wasi_fd_fdstat_get(1, &st), 0);
  CHECK(st.fs_filetype == __WASI_FILETYPE_CHARACTER_DEVICE);
  CHECK(st.fs_rights_base & __WASI_RIGHTS_FD_WRITE);
  CHECK(!(st.fs_rights_base & __WASI_RIGHTS_FD_READ));
  CHECK_WASI(__wasi_fd_fdstat_get(3, &st), 0);
  CHECK(st.fs_filetype == __WASI_FILETYPE_DIRECTORY);
  CHECK(!(st.fs_rights_base & __WASI_RIGHTS_PATH_CREATE_FILE));  // /stdlib is read-only
  CHECK_WASI(__wasi_fd_fdstat_get(5, &st), 0);
  CHECK(st.fs_rights_base & __WASI_RIGHTS_PATH_CREATE_FILE);
  CHECK_WASI(__wasi_fd_fdstat_get(77, &st), __WASI_ERRNO_BADF);
  return 0;
}
