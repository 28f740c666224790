// Shared helpers for the WASI guest tests: each guest checks its own expectations and exits non-zero on failure.
// The harness (../guests.test.mjs) runs every guest through scripts/wasi-run.mjs with a fresh copy of this
// workspace fixture at /workspace: hello.txt ("hello\n"), sub/nested.txt ("nested\n"), sub/deeper/ (empty);
// and a stored zip at /stdlib: lib/mod.txt ("stdlib module\n"), lib/pkg/init.txt ("pkg\n"), README ("readme\n").
// Header comments read by the harness:  // RUN: [json array of extra runner args]   // EXIT: n
//   // STDOUT: "json string"   // STDERR-HAS: "json string"   // FILE: "rel/path" "json content"
#pragma once
#include "../check.h"

// A libc call expected to fail (-1 / NULL) with errno `e`.
#define CHECK_ERRNO(expr, e)                                                                        \
  do {                                                                                              \
    errno = 0;                                                                                      \
    long r_ = (long)(expr);                                                                         \
    int err_ = errno;                                                                               \
    if ((r_ != -1 && r_ != 0) || err_ != (e))                                                       \
      FAIL("%s: expected errno %d (%s), got result %ld errno %d (%s)", #expr, (e), strerror(e), r_, \
           err_, strerror(err_));                                                                   \
  } while (0)

// A raw WASI call expected to return errno `e` (0 for success).
#define CHECK_WASI(expr, e)                                                                         \
  do {                                                                                              \
    int r_ = (int)(expr);                                                                           \
    if (r_ != (e)) FAIL("%s: expected WASI errno %d, got %d", #expr, (int)(e), r_);                 \
  } while (0)

#define RAW(name) __attribute__((import_module("wasi_snapshot_preview1"), import_name(#name)))

// Raw imports with explicit path lengths (wasi-libc's wrappers take C strings, which cannot carry a NUL).
RAW(path_open) int32_t raw_path_open(int32_t fd, int32_t dirflags, const char* path, int32_t pathLen, int32_t oflags,
                                     int64_t base, int64_t inheriting, int32_t fdflags, int32_t* out);
RAW(path_create_directory) int32_t raw_path_create_directory(int32_t fd, const char* path, int32_t pathLen);
RAW(path_rename) int32_t raw_path_rename(int32_t fd, const char* oldPath, int32_t oldLen, int32_t newFd,
                                         const char* newPath, int32_t newLen);
RAW(path_symlink) int32_t raw_path_symlink(const char* oldPath, int32_t oldLen, int32_t fd, const char* newPath,
                                           int32_t newLen);
RAW(fd_write) int32_t raw_fd_write(int32_t fd, int32_t iovs, int32_t iovsLen, int32_t nwritten);
RAW(proc_raise) int32_t raw_proc_raise(int32_t sig);

#define ALL_RIGHTS ((int64_t)0x3fffffff)
#define WS_FD 5
#define STDLIB_FD 3
#define DEV_FD 4

static inline int32_t open_raw(int32_t dir, const char* path, int32_t oflags, int32_t* fd) {
  return raw_path_open(dir, 0, path, (int32_t)strlen(path), oflags, ALL_RIGHTS, ALL_RIGHTS, 0, fd);
}

static inline void write_file(const char* path, const char* text) {
  FILE* f = fopen(path, "w");
  if (!f) FAIL("fopen %s: %s", path, strerror(errno));
  if (fputs(text, f) < 0) FAIL("fputs %s: %s", path, strerror(errno));
  if (fclose(f) != 0) FAIL("fclose %s: %s", path, strerror(errno));
}

static inline void expect_file(const char* path, const char* text) {
  FILE* f = fopen(path, "r");
  if (!f) FAIL("fopen %s: %s", path, strerror(errno));
  static char buf[65536];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  fclose(f);
  if (strcmp(buf, text) != 0) FAIL("%s: expected \"%s\", got \"%s\"", path, text, buf);
}
