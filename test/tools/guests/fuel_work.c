// A C guest for test/tools/wasm-fuel.test.mjs and bench/wasm-fuel.mjs: recursion, loops and calls through function
// pointers (call_indirect), ending in one checksum on stdout.
//   fuel_work work N   -> "checksum=<u32>" after N rounds (deterministic)
//   fuel_work spin     -> loops forever (the meter must stop it)
//   fuel_work copy N   -> N copies of 1 MiB in one memcpy each ("copied=<N>"; built with bulk memory, each is one
//                         memory.copy instruction: a weighted meter must charge its length)
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t fib(uint32_t n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static uint32_t mix(uint32_t a, uint32_t b) { return (a ^ b) * 2654435761u; }
static uint32_t add(uint32_t a, uint32_t b) { return a + b * 31u; }
static uint32_t rot(uint32_t a, uint32_t b) { return (a << (b & 31)) | (a >> ((32 - (b & 31)) & 31)); }
static uint32_t (*const ops[])(uint32_t, uint32_t) = {mix, add, rot};

static int cmp(const void* a, const void* b) {
  uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
  return x < y ? -1 : x > y;
}

static uint32_t round_of_work(uint32_t seed) {
  uint32_t h = fib(18 + seed % 4);
  uint32_t data[512];
  for (int i = 0; i < 512; ++i) {
    seed = seed * 1103515245u + 12345u;
    data[i] = seed >> 7;
  }
  qsort(data, 512, sizeof data[0], cmp);  // libc calls cmp through a pointer
  for (int i = 0; i < 512; ++i) h = ops[data[i] % 3](h, data[i]);
  return h;
}

int main(int argc, char** argv) {
  if (argc >= 2 && strcmp(argv[1], "spin") == 0) {
    volatile uint32_t x = 1;
    for (;;) x = x * 31u + 7u;
  }
  if (argc >= 3 && strcmp(argv[1], "copy") == 0) {
    enum { kSize = 1 << 20 };
    static uint8_t a[kSize], b[kSize];
    int n = atoi(argv[2]);
    for (int i = 0; i < n; ++i) {
      memcpy((i & 1) ? a : b, (i & 1) ? b : a, kSize);
      a[i % kSize] ^= 1;
    }
    printf("copied=%d\n", n);
    return 0;
  }
  int rounds = argc >= 3 ? atoi(argv[2]) : 20;
  uint32_t sum = 0;
  for (int r = 0; r < rounds; ++r) sum = mix(sum, round_of_work((uint32_t)r));
  printf("checksum=%u\n", sum);
  return 0;
}
