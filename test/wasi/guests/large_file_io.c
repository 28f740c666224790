#include <sys/uio.h>
#include "guest.h"
static unsigned char data[600000], back[600000];
int main(void) {
  for (size_t i = 0; i < sizeof data; ++i) data[i] = (unsigned char)(i * 131 + 7);
  FILE* f = fopen("/workspace/large.bin", "wb");
  CHECK(fwrite(data, 1, sizeof data, f) == sizeof data);
  fclose(f);
  f = fopen("/workspace/large.bin", "rb");
  CHECK(fread(back, 1, sizeof back, f) == sizeof back);
  fclose(f);
  CHECK(memcmp(data, back, sizeof data) == 0);
  // Scatter/gather through several iovecs.
  int fd = open("/workspace/large.bin", O_RDONLY);
  struct iovec iov[3] = {{back, 10}, {back + 100, 0}, {back + 200, 20}};
  CHECK(readv(fd, iov, 3) == 30);
  CHECK(memcmp(back + 200, data + 10, 20) == 0);
  close(fd);
  return 0;
}
