// Compute-bound WASI guest for bench/wasi.mjs: integer hashing and a float n-body-style loop, no syscalls in the hot
// loops. argv[1] = scale (default 1). Prints one line with the time (ms, measured inside the guest) and a checksum.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

#define N 4096
static uint32_t table[N];
static double px[64], py[64], vx[64], vy[64];

int main(int argc, char** argv) {
  int scale = argc > 1 ? atoi(argv[1]) : 1;
  double t0 = now_ms();
  // Integer: xorshift state mixed through a table (memory loads/stores + multiplies).
  uint32_t x = 2463534242u, acc = 0;
  for (int i = 0; i < N; ++i) table[i] = i * 2654435761u;
  for (long r = 0; r < 40000000L * scale; ++r) {
    x ^= x << 13; x ^= x >> 17; x ^= x << 5;
    uint32_t j = x & (N - 1);
    table[j] = table[j] * 31u + (x >> 7);
    acc += table[(j + 1) & (N - 1)] ^ x;
  }
  // Float: pairwise gravity between 64 bodies.
  for (int i = 0; i < 64; ++i) { px[i] = cos(i); py[i] = sin(i); vx[i] = vy[i] = 0; }
  for (int step = 0; step < 600 * scale; ++step) {
    for (int i = 0; i < 64; ++i) {
      double ax = 0, ay = 0;
      for (int j = 0; j < 64; ++j) {
        if (j == i) continue;
        double dx = px[j] - px[i], dy = py[j] - py[i];
        double d2 = dx * dx + dy * dy + 1e-3;
        double inv = 1.0 / (d2 * sqrt(d2));
        ax += dx * inv; ay += dy * inv;
      }
      vx[i] += ax * 1e-5; vy[i] += ay * 1e-5;
    }
    for (int i = 0; i < 64; ++i) { px[i] += vx[i] * 1e-3; py[i] += vy[i] * 1e-3; }
  }
  double e = 0;
  for (int i = 0; i < 64; ++i) e += vx[i] * vx[i] + vy[i] * vy[i];
  double t1 = now_ms();
  printf("BENCH total=%.3f checksum=%u/%.6e\n", t1 - t0, acc, e);
  return 0;
}
