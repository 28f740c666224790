// Syscall-heavy WASI guest for bench/wasi.mjs: under the preopened directory DIR (argv[1], default /data) it
// creates and writes FILES files of 1 KiB (open O_CREAT|O_TRUNC, write, close), reads every one back and checks it,
// lists the directory and checks the count, then issues WRITES small writes (16 bytes, one fd_write each) to one file.
// Prints one line of phase times (ms, measured inside the guest with CLOCK_MONOTONIC) and exits 0, or non-zero on
// any failure. argv[2] = FILES (default 10000), argv[3] = WRITES (default 100000).
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int fail(const char* what, const char* path) {
  fprintf(stderr, "syscall_heavy: %s %s\n", what, path);
  return 1;
}

int main(int argc, char** argv) {
  const char* dir = argc > 1 ? argv[1] : "/data";
  int files = argc > 2 ? atoi(argv[2]) : 10000;
  int writes = argc > 3 ? atoi(argv[3]) : 100000;
  char path[512], sub[512];
  static char block[1024], back[1024];

  snprintf(sub, sizeof sub, "%s/files", dir);
  if (mkdir(sub, 0755) != 0) return fail("mkdir", sub);

  double t0 = now_ms();
  for (int i = 0; i < files; ++i) {
    snprintf(path, sizeof path, "%s/f%05d.bin", sub, i);
    memset(block, 'a' + i % 26, sizeof block);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return fail("create", path);
    if (write(fd, block, sizeof block) != (ssize_t)sizeof block) return fail("write", path);
    if (close(fd) != 0) return fail("close", path);
  }
  double t1 = now_ms();
  for (int i = 0; i < files; ++i) {
    snprintf(path, sizeof path, "%s/f%05d.bin", sub, i);
    int fd = open(path, O_RDONLY);
    if (fd < 0) return fail("open", path);
    if (read(fd, back, sizeof back) != (ssize_t)sizeof back) return fail("read", path);
    if (back[0] != 'a' + i % 26 || back[sizeof back - 1] != 'a' + i % 26) return fail("content", path);
    close(fd);
  }
  double t2 = now_ms();
  DIR* d = opendir(sub);
  if (!d) return fail("opendir", sub);
  int listed = 0;
  for (struct dirent* e; (e = readdir(d));) listed += e->d_name[0] != '.';
  closedir(d);
  if (listed != files) {
    fprintf(stderr, "syscall_heavy: listed %d entries, expected %d\n", listed, files);
    return 1;
  }
  double t3 = now_ms();
  snprintf(path, sizeof path, "%s/small-writes.log", dir);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return fail("create", path);
  static const char line[16] = "0123456789abcde\n";
  for (int i = 0; i < writes; ++i) {
    if (write(fd, line, sizeof line) != (ssize_t)sizeof line) return fail("small write", path);
  }
  close(fd);
  double t4 = now_ms();
  printf("BENCH total=%.3f create=%.3f read=%.3f list=%.3f writes=%.3f\n", t4 - t0, t1 - t0, t2 - t1, t3 - t2,
         t4 - t3);
  return 0;
}
