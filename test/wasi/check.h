// The includes and failure macros both WASI C suites use (guests/guest.h, conformance/conf.h): a program prints
// where an expectation failed to stderr and exits 1.
#pragma once
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wasi/api.h>

#define FAIL(...)                                                  \
  do {                                                             \
    fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                \
    fprintf(stderr, __VA_ARGS__);                                  \
    fprintf(stderr, "\n");                                         \
    exit(1);                                                       \
  } while (0)

#define CHECK(cond)                                                                           \
  do {                                                                                        \
    if (!(cond)) FAIL("CHECK failed: %s (errno %d: %s)", #cond, errno, strerror(errno));      \
  } while (0)

