// hash64: the change detector and row checksum of cpp/snapshot (docs/snapshots.md, "Hash").
//
// Eight 64-bit lanes consume the input in 64-byte stripes. For the word w that lane l reads from a stripe, with a
// key word k taken from a table that slides by one word per stripe:
//
//     acc[l]     += lo32(w ^ k) * hi32(w ^ k)        (a 32x32 -> 64-bit multiply: nonlinear mixing)
//     acc[l ^ 1] += w                                (the word itself: no information is lost when the product is 0)
//
// Every 16 stripes (1 KiB) each lane is scrambled by a bijection, acc = (acc ^ acc >> 47 ^ key) * odd, so words in
// different kilobytes cannot cancel each other. A tail shorter than a stripe is zero-padded; the length enters the
// final mix. The end folds the lanes pairwise through 64x64 -> 128-bit products and a murmur3-style avalanche.
//
// A change to a single 64-bit word always changes the accumulator state (the `+= w` term differs by a non-zero
// amount and every later step is a bijection of that lane); a change to several words collides only if their
// nonlinear products cancel exactly, about 2^-64 for anything but a deliberate search. The guest could search for
// such a collision only to corrupt its own snapshot.
//
// The lanes are independent between scrambles, so a Wasm SIMD build processes two lanes per v128 and computes the
// very same value as the scalar code (the unit tests pin test vectors in both builds).
#include <bit>
#include <cstring>

#include "snapshot/snapshot.h"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace sw::snapshot {

static_assert(std::endian::native == std::endian::little, "cpp/snapshot assumes a little-endian host");

namespace {

constexpr uint64_t splitmix(uint64_t& state) {
  state += 0x9e3779b97f4a7c15ull;
  uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

constexpr int kLanes = kHashLanes;
constexpr int kStripeBytes = kHashStripeBytes;
constexpr int kStripesPerGroup = kHashStripesPerGroup;
constexpr uint64_t kScrambleMul = kHashScrambleMul;
using Keys = HashKeys;

constexpr Keys makeKeys() {
  Keys k{};
  uint64_t s = 0x243f6a8885a308d3ull;  // the digits of pi: nothing up the sleeve
  for (auto& v : k.init) v = splitmix(s);
  for (auto& v : k.stripe) v = splitmix(s);
  for (auto& v : k.scramble) v = splitmix(s);
  for (auto& v : k.fold) v = splitmix(s);
  return k;
}
constexpr Keys kKeys = makeKeys();

inline uint64_t load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

inline uint64_t fold128(uint64_t a, uint64_t b) {
#if defined(__SIZEOF_INT128__)
  unsigned __int128 p = (unsigned __int128)a * b;
  return uint64_t(p) ^ uint64_t(p >> 64);
#else
  uint64_t a0 = uint32_t(a), a1 = a >> 32, b0 = uint32_t(b), b1 = b >> 32;
  uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  uint64_t mid = (p00 >> 32) + uint32_t(p01) + uint32_t(p10);
  uint64_t lo = (mid << 32) | uint32_t(p00);
  uint64_t hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
  return lo ^ hi;
#endif
}

inline uint64_t avalanche(uint64_t h) {
  h ^= h >> 33;
  h *= kHashAvalancheMul[0];
  h ^= h >> 33;
  h *= kHashAvalancheMul[1];
  h ^= h >> 33;
  return h;
}

uint64_t finish(const uint64_t* acc, std::size_t len, uint64_t seed) {
  uint64_t h = uint64_t(len) * kHashLengthMul ^ seed;
  for (int i = 0; i < kLanes; i += 2) h += fold128(acc[i] ^ kKeys.fold[i], acc[i + 1] ^ kKeys.fold[i + 1]);
  return avalanche(h);
}

#if defined(__wasm_simd128__)

// Two lanes per vector: v[i] holds acc[2i] (low half) and acc[2i + 1] (high half).
struct State {
  v128_t v[kLanes / 2];
};

inline void initState(State& s, uint64_t seed) {
  for (int i = 0; i < kLanes / 2; i++)
    s.v[i] = wasm_i64x2_make(int64_t(kKeys.init[2 * i] ^ seed), int64_t(kKeys.init[2 * i + 1] ^ seed));
}

inline void accumulate(State& s, const uint8_t* p, int stripe) {
  for (int i = 0; i < kLanes / 2; i++) {
    v128_t w = wasm_v128_load(p + 16 * i);
    v128_t k = wasm_v128_load(&kKeys.stripe[stripe + 2 * i]);
    v128_t x = wasm_v128_xor(w, k);
    // [lo0, hi0, lo1, hi1] -> lo0 * hi0, lo1 * hi1
    v128_t lo = wasm_i32x4_shuffle(x, x, 0, 2, 0, 2);
    v128_t hi = wasm_i32x4_shuffle(x, x, 1, 3, 1, 3);
    v128_t product = wasm_u64x2_extmul_low_u32x4(lo, hi);
    v128_t swapped = wasm_i64x2_shuffle(w, w, 1, 0);  // acc[l ^ 1] += w
    s.v[i] = wasm_i64x2_add(s.v[i], wasm_i64x2_add(product, swapped));
  }
}

inline void scramble(State& s) {
  for (int i = 0; i < kLanes / 2; i++) {
    v128_t a = s.v[i];
    a = wasm_v128_xor(a, wasm_u64x2_shr(a, 47));
    a = wasm_v128_xor(a, wasm_v128_load(&kKeys.scramble[2 * i]));
    s.v[i] = wasm_i64x2_mul(a, wasm_i64x2_splat(int64_t(kScrambleMul)));
  }
}

inline void storeState(const State& s, uint64_t* acc) {
  for (int i = 0; i < kLanes / 2; i++) wasm_v128_store(acc + 2 * i, s.v[i]);
}

#else

struct State {
  uint64_t a[kLanes];
};

inline void initState(State& s, uint64_t seed) {
  for (int l = 0; l < kLanes; l++) s.a[l] = kKeys.init[l] ^ seed;
}

inline void accumulate(State& s, const uint8_t* p, int stripe) {
  for (int l = 0; l < kLanes; l++) {
    uint64_t w = load64(p + 8 * l);
    uint64_t x = w ^ kKeys.stripe[stripe + l];
    s.a[l ^ 1] += w;
    s.a[l] += (x & 0xffffffffull) * (x >> 32);
  }
}

inline void scramble(State& s) {
  for (int l = 0; l < kLanes; l++) {
    uint64_t a = s.a[l];
    s.a[l] = (a ^ (a >> 47) ^ kKeys.scramble[l]) * kScrambleMul;
  }
}

inline void storeState(const State& s, uint64_t* acc) { std::memcpy(acc, s.a, sizeof s.a); }

#endif

}  // namespace

const HashKeys& hashKeys() { return kKeys; }

uint64_t hash64(const uint8_t* data, std::size_t len, uint64_t seed) {
  State s;
  initState(s, seed);
  std::size_t stripes = len / kStripeBytes;
  const uint8_t* p = data;
  std::size_t done = 0;
  for (; stripes - done >= kStripesPerGroup; done += kStripesPerGroup) {
    for (int i = 0; i < kStripesPerGroup; i++, p += kStripeBytes) accumulate(s, p, i);
    scramble(s);
  }
  int i = 0;
  for (; done < stripes; done++, i++, p += kStripeBytes) accumulate(s, p, i);
  if (std::size_t tail = len % kStripeBytes) {
    alignas(16) uint8_t last[kStripeBytes] = {};
    std::memcpy(last, p, tail);
    accumulate(s, last, i);  // i < kStripesPerGroup: a partial group
  }
  alignas(16) uint64_t acc[kLanes];
  storeState(s, acc);
  return finish(acc, len, seed);
}

bool isZero(const uint8_t* data, std::size_t len) {
  std::size_t i = 0;
  for (; i + 64 <= len; i += 64) {
    uint64_t x = 0;
    for (int j = 0; j < 64; j += 8) x |= load64(data + i + j);
    if (x) return false;
  }
  for (; i < len; i++)
    if (data[i]) return false;
  return true;
}

bool sameBytes(const uint8_t* a, const uint8_t* b, std::size_t len) {
  std::size_t i = 0;
  for (; i + 64 <= len; i += 64) {
    uint64_t x = 0;
    for (int j = 0; j < 64; j += 8) x |= load64(a + i + j) ^ load64(b + i + j);
    if (x) return false;
  }
  for (; i < len; i++)
    if (a[i] != b[i]) return false;
  return true;
}

uint64_t blockHash(const uint8_t* block) {
  if (isZero(block, kBlockBytes)) return 0;
  uint64_t h = hash64(block, kBlockBytes, 0);
  return h ? h : 1;
}

}  // namespace sw::snapshot
