#include "guest.h"
__attribute__((import_module("env"), import_name("getpid"))) int host_getpid(void);
__attribute__((import_module("env"), import_name("getuid"))) int host_getuid(void);
__attribute__((import_module("env"), import_name("getppid"))) int host_getppid(void);
__attribute__((import_module("env"), import_name("umask"))) int host_umask(int);
int main(void) {
  CHECK(host_getpid() == 1);
  CHECK(host_getuid() == 1000);
  CHECK(host_getppid() == 0);
  CHECK(host_umask(022) == 0);
  return 0;
}
