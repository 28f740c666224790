// Shared helpers of our wasm32-wasip1 conformance suite (test/wasi/conformance.mjs runs it). Each program checks
// one behaviour of WASI preview1 as the witx/docs specify it, prints what failed to stderr and exits non-zero; it
// exits 0 when every expectation held. The runner gives each program a fresh scratch directory preopened as `/`
// holding data.txt ("hello wasi\n") and sub/nested.txt ("nested\n"), plus the header lines below:
//   // ARGS: ["a", "b"]     extra arguments (argv[0] is the module's file name)
//   // ENV: ["K=V"]         environment variables (none otherwise)
//   // DIRS: none           no `/` preopen at all
//   // EXIT: n              expected exit code (0 otherwise)
//   // STDOUT: "json"       expected stdout, exactly
#pragma once
#include "../check.h"

// A raw WASI call expected to return exactly `e` (0 for success).
#define EXPECT(expr, e)                                                             \
  do {                                                                              \
    int r_ = (int)(expr);                                                           \
    if (r_ != (int)(e)) FAIL("%s: expected WASI errno %d, got %d", #expr, (int)(e), r_); \
  } while (0)

// A raw WASI call expected to return one of two errnos (the witx leaves the choice to the host).
#define EXPECT2(expr, e1, e2)                                                                            \
  do {                                                                                                   \
    int r_ = (int)(expr);                                                                                \
    if (r_ != (int)(e1) && r_ != (int)(e2))                                                              \
      FAIL("%s: expected WASI errno %d or %d, got %d", #expr, (int)(e1), (int)(e2), r_);                 \
  } while (0)

#define OK(expr) EXPECT(expr, 0)
#define E(name) __WASI_ERRNO_##name

#define RAW(name) __attribute__((import_module("wasi_snapshot_preview1"), import_name(#name)))
// path_open with an explicit length: wasi-libc's wrapper takes a C string, which cannot carry a NUL.
RAW(path_open) int32_t raw_path_open(int32_t fd, int32_t dirflags, const char* path, int32_t pathLen, int32_t oflags,
                                     int64_t base, int64_t inheriting, int32_t fdflags, int32_t* out);

#define FOLLOW __WASI_LOOKUPFLAGS_SYMLINK_FOLLOW
#define RW_RIGHTS (__WASI_RIGHTS_FD_READ | __WASI_RIGHTS_FD_WRITE | __WASI_RIGHTS_FD_SEEK | __WASI_RIGHTS_FD_TELL | \
                   __WASI_RIGHTS_FD_FILESTAT_GET | __WASI_RIGHTS_FD_FILESTAT_SET_SIZE |                          \
                   __WASI_RIGHTS_FD_FILESTAT_SET_TIMES | __WASI_RIGHTS_FD_ALLOCATE | __WASI_RIGHTS_FD_ADVISE |   \
                   __WASI_RIGHTS_FD_FDSTAT_SET_FLAGS | __WASI_RIGHTS_FD_SYNC | __WASI_RIGHTS_FD_DATASYNC |      \
                   __WASI_RIGHTS_POLL_FD_READWRITE)

// The preopen whose name is exactly `name`, or -1.
static inline int find_preopen(const char* name) {
  for (__wasi_fd_t fd = 3; fd < 64; ++fd) {
    __wasi_prestat_t st;
    if (__wasi_fd_prestat_get(fd, &st) != 0) continue;
    char buf[256];
    size_t n = st.u.dir.pr_name_len;
    if (n >= sizeof buf || __wasi_fd_prestat_dir_name(fd, (uint8_t*)buf, n) != 0) continue;
    buf[n] = 0;
    if (strcmp(buf, name) == 0) return (int)fd;
  }
  return -1;
}

// The `/` preopen (the scratch directory).
static inline __wasi_fd_t root_fd(void) {
  int fd = find_preopen("/");
  if (fd < 0) FAIL("no preopen named /");
  return (__wasi_fd_t)fd;
}

// A new descriptor for the scratch directory (`.` of the `/` preopen, with the preopen's rights).
static inline __wasi_fd_t reopen_root(void) {
  __wasi_fdstat_t st;
  OK(__wasi_fd_fdstat_get(root_fd(), &st));
  __wasi_fd_t fd;
  OK(__wasi_path_open(root_fd(), 0, ".", __WASI_OFLAGS_DIRECTORY, st.fs_rights_base, st.fs_rights_inheriting, 0, &fd));
  return fd;
}

// Rights that make no sense on a directory (a host may open it for writing when asked for them).
#define FILE_ONLY_RIGHTS (__WASI_RIGHTS_FD_READ | __WASI_RIGHTS_FD_WRITE | __WASI_RIGHTS_FD_SEEK | __WASI_RIGHTS_FD_TELL | \
                          __WASI_RIGHTS_FD_ALLOCATE | __WASI_RIGHTS_FD_FILESTAT_SET_SIZE | __WASI_RIGHTS_FD_DATASYNC)

// Creates directory `name` under `dir` and opens it with every right `dir` lets it inherit.
static inline __wasi_fd_t make_dir(__wasi_fd_t dir, const char* name) {
  OK(__wasi_path_create_directory(dir, name));
  __wasi_fdstat_t st;
  OK(__wasi_fd_fdstat_get(dir, &st));
  __wasi_fd_t fd;
  __wasi_errno_t e = __wasi_path_open(dir, 0, name, __WASI_OFLAGS_DIRECTORY,
                                      st.fs_rights_inheriting & ~(uint64_t)FILE_ONLY_RIGHTS,
                                      st.fs_rights_inheriting, 0, &fd);
  if (e != 0) FAIL("opening directory %s: WASI errno %d", name, e);
  return fd;
}

static inline __wasi_fd_t open_file(__wasi_fd_t dir, const char* name, __wasi_oflags_t oflags, __wasi_rights_t rights,
                                    __wasi_fdflags_t fdflags) {
  __wasi_fd_t fd;
  __wasi_errno_t e = __wasi_path_open(dir, 0, name, oflags, rights, 0, fdflags, &fd);
  if (e != 0) FAIL("path_open %s: WASI errno %d", name, e);
  return fd;
}

static inline void create_file(__wasi_fd_t dir, const char* name) {
  OK(__wasi_fd_close(open_file(dir, name, __WASI_OFLAGS_CREAT, 0, 0)));
}

static inline size_t write_all(__wasi_fd_t fd, const void* data, size_t len) {
  __wasi_ciovec_t iov = {(const uint8_t*)data, len};
  __wasi_size_t n = 0;
  OK(__wasi_fd_write(fd, &iov, 1, &n));
  return n;
}

static inline size_t read_some(__wasi_fd_t fd, void* buf, size_t len) {
  __wasi_iovec_t iov = {(uint8_t*)buf, len};
  __wasi_size_t n = 0;
  OK(__wasi_fd_read(fd, &iov, 1, &n));
  return n;
}

static inline __wasi_filestat_t stat_path(__wasi_fd_t dir, __wasi_lookupflags_t flags, const char* path) {
  __wasi_filestat_t st;
  __wasi_errno_t e = __wasi_path_filestat_get(dir, flags, path, &st);
  if (e != 0) FAIL("path_filestat_get %s: WASI errno %d", path, e);
  return st;
}
