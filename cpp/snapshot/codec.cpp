// The block codec of stored format 1 (codec byte 1): byte-oriented LZ77, our own (docs/snapshots.md, "Codec").
//
// A compressed block is a sequence of sequences:
//
//     token          u8: high nibble = literal count (15 = more follows), low nibble = match length - 4 (15 = more)
//     [more]         literal count - 15 as bytes of 255 and a final byte < 255 (only when the nibble is 15)
//     literals       that many bytes
//     offset         u16 little-endian, 1..(bytes produced so far)      } absent in the last sequence, which
//     [more]         match length - 19 in the same 255-run form        } ends exactly at the block's length
//
// The last sequence is literals only (possibly none) and ends exactly at the decoded length; the input must end
// there too. Matches may overlap their output (offset < length), which is how runs of zeros cost a few bytes.
#include <bit>
#include <cstring>

#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

#include "snapshot/snapshot.h"

// A branch hint for clang (Emscripten, the unit tests): lower the condition to selects and one branch.
#if defined(__has_builtin)
#if __has_builtin(__builtin_unpredictable)
#define SW_UNPREDICTABLE(x) __builtin_unpredictable(x)
#endif
#endif
#ifndef SW_UNPREDICTABLE
#define SW_UNPREDICTABLE(x) (x)
#endif

namespace sw::snapshot {

namespace {

constexpr uint32_t kMinMatch = 4;
constexpr uint32_t kMaxOffset = 65535;

inline uint32_t load32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

inline uint64_t load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// --- copies (fixed-size words: one v128 or i64 load and store each in Wasm, never a call) ---------------------------

inline void copy4(uint8_t* d, const uint8_t* s) { std::memcpy(d, s, 4); }
inline void copy8(uint8_t* d, const uint8_t* s) { std::memcpy(d, s, 8); }
inline void copy16(uint8_t* d, const uint8_t* s) {
#ifdef __wasm_simd128__
  wasm_v128_store(d, wasm_v128_load(s));
#else
  std::memcpy(d, s, 16);
#endif
}

// Copies exactly n bytes from s to d, touching nothing outside [d, d + n) and [s, s + n). Either the ranges do not
// overlap, or d - s >= 16 (a match's source lies before its output): each 16-byte word is read only after every
// byte it covers was written, including the last, overlapping word (it rewrites bytes with their own values).
inline void copyExact(uint8_t* d, const uint8_t* s, uint32_t n) {
  if (n >= 16) {
    for (uint32_t i = 0; i + 16 < n; i += 16) copy16(d + i, s + i);
    copy16(d + n - 16, s + n - 16);
  } else if (n >= 8) {
    copy8(d, s);
    copy8(d + n - 8, s + n - 8);
  } else if (n >= 4) {
    copy4(d, s);
    copy4(d + n - 4, s + n - 4);
  } else if (n) {
    d[0] = s[0];
    d[n / 2] = s[n / 2];
    d[n - 1] = s[n - 1];
  }
}

// copyExact for the decoder's literal runs off its fast path (long ones, or near either end). Not inlined, like
// copyMatch: the decoder's loop is smaller without them, and ran 4-8% faster in V8 (bench/snapshot-codec.mjs).
[[gnu::noinline]] void copyLiterals(uint8_t* d, const uint8_t* s, uint32_t n) { copyExact(d, s, n); }

// A match: out[i] = out[i - offset] for i < n (offset >= 1, the source may overlap the output); `room` >= n bytes
// exist at out. The decoder calls it only off its fast path (long matches, short periods, near the end).
[[gnu::noinline]] void copyMatch(uint8_t* out, uint32_t offset, uint32_t n, uint32_t room) {
  const uint8_t* from = out - offset;
  if (offset >= n || offset >= 16) {
    copyExact(out, from, n);
  } else if (offset >= 8) {
    for (uint32_t i = 0; i + 8 < n; i += 8) copy8(out + i, from + i);  // as copyExact with 8-byte words
    copy8(out + n - 8, from + n - 8);
  } else if ((offset & (offset - 1)) == 0) {  // 1, 2, 4 (no division: it costs dozens of cycles)
    // Periods 1, 2 and 4 (runs of zeros, repeated halfwords and words): one 8-byte pattern, stored repeatedly.
    uint64_t pattern;
    if (offset == 1) {
      pattern = from[0] * 0x0101010101010101ull;
    } else if (offset == 2) {
      pattern = (uint32_t(from[0]) | uint32_t(from[1]) << 8) * 0x0001000100010001ull;
    } else {
      pattern = load32(from) * 0x0000000100000001ull;
    }
    uint32_t i = 0;
    if (room - n >= 8) {  // whole words, the last one past the end
      for (; i < n; i += 8) std::memcpy(out + i, &pattern, 8);
    } else {
      for (; i + 8 <= n; i += 8) std::memcpy(out + i, &pattern, 8);
      for (; i < n; i++) out[i] = from[i];
    }
  } else {
    // Periods 3, 5, 6, 7: write one stretch of `period` bytes (a multiple of the offset, at least 8), then copy 8
    // bytes at a time from a whole number of periods back.
    uint32_t period = offset;
    while (period < 8) period += offset;
    uint32_t i = 0;
    for (; i < n && i < period; i++) out[i] = from[i];
    for (; i + 8 <= n; i += 8) copy8(out + i, out + i - period);
    for (; i < n; i++) out[i] = from[i];
  }
}

inline uint32_t hashOf(uint32_t sequence) { return (sequence * 2654435761u) >> (32 - kLzTableBits); }

// Length of the common prefix of a and b, at most `limit` bytes.
inline uint32_t commonLength(const uint8_t* a, const uint8_t* b, uint32_t limit) {
  uint32_t n = 0;
#ifdef __wasm_simd128__
  while (n + 16 <= limit) {
    const uint32_t same = wasm_i8x16_bitmask(wasm_i8x16_eq(wasm_v128_load(a + n), wasm_v128_load(b + n)));
    if (same != 0xffff) return n + uint32_t(std::countr_one(same));
    n += 16;
  }
#endif
  while (n + 8 <= limit) {
    uint64_t x = load64(a + n) ^ load64(b + n);
    if (x) return n + uint32_t(std::countr_zero(x) >> 3);
    n += 8;
  }
  while (n < limit && a[n] == b[n]) n++;
  return n;
}

// Bytes needed for a length nibble's continuation.
inline uint32_t extraBytes(uint32_t value) { return value < 15 ? 0 : 1 + (value - 15) / 255; }

inline uint8_t* putExtra(uint8_t* op, uint32_t value) {
  if (value < 15) return op;
  value -= 15;
  while (value >= 255) {
    *op++ = 255;
    value -= 255;
  }
  *op++ = uint8_t(value);
  return op;
}

// The probe loop of lzCompress, from ip on (a match was just emitted there, or it is the start): the first position
// whose 4 bytes equal those at the position its hash slot held, as (candidate << 32) | position; kNoMatch << 32 if
// none is left. Its own function, so that the engine's register allocator keeps the few values of this hottest loop
// in registers (inlined into lzCompress, V8 reloaded the input and table addresses from the stack on every probe).
constexpr uint64_t kNoMatch = 0xffffffffu;

[[gnu::noinline]] uint64_t findMatch(const uint8_t* src, uint32_t len, uint32_t* table, uint32_t ip) {
  uint32_t misses = 0;
  while (ip + kMinMatch <= len) {
    const uint32_t sequence = load32(src + ip);
    const uint32_t h = hashOf(sequence);
    const uint32_t candidate = table[h];  // may be stale (another block): only used if it really matches
    table[h] = ip;
    // The three conditions combined without branches between them (a stale candidate makes each one unpredictable;
    // one unpredictable branch on the result is 15-20% faster in V8), the load from position 0 when the candidate is
    // not below ip, so that it stays inside the input.
    const uint32_t probe = candidate < ip ? candidate : 0;
    const bool below = candidate < ip, near = ip - candidate <= kMaxOffset, same = load32(src + probe) == sequence;
    if (SW_UNPREDICTABLE(below & near & same)) return uint64_t(candidate) << 32 | ip;
    ip += 1 + (misses++ >> 6);  // skip ahead faster through incompressible data
  }
  return kNoMatch << 32;
}

// Writes one sequence at op: `lit` literals from `lits` and, if matchLen > 0, a match; nullptr when it needs more than
// the end - op bytes left.
[[gnu::always_inline]] inline uint8_t* putSequence(uint8_t* op, uint8_t* end, const uint8_t* lits, uint32_t lit,
                                                   uint32_t offset, uint32_t matchLen) {
  const uint32_t m = matchLen ? matchLen - kMinMatch : 0;
  const std::size_t need = 1 + extraBytes(lit) + lit + (matchLen ? 2 + extraBytes(m) : 0);
  if (std::size_t(end - op) < need) return nullptr;
  *op++ = uint8_t(((lit < 15 ? lit : 15) << 4) | (m < 15 ? m : 15));
  op = putExtra(op, lit);
  copyExact(op, lits, lit);
  op += lit;
  if (matchLen) {
    *op++ = uint8_t(offset);
    *op++ = uint8_t(offset >> 8);
    op = putExtra(op, m);
  }
  return op;
}

}  // namespace

uint32_t lzCompress(const uint8_t* src, uint32_t len, uint8_t* dst, uint32_t capacity, uint32_t* table) {
  uint8_t* op = dst;
  uint8_t* const end = dst + capacity;
  uint32_t anchor = 0;
  uint32_t ip = 0;
  for (;;) {
    const uint64_t found = findMatch(src, len, table, ip);
    if (found >> 32 == kNoMatch) break;
    ip = uint32_t(found);
    uint32_t candidate = uint32_t(found >> 32);
    uint32_t start = ip;
    while (start > anchor && candidate > 0 && src[start - 1] == src[candidate - 1]) {
      start--;
      candidate--;
    }
    uint32_t matchLen = kMinMatch + commonLength(src + ip + kMinMatch, src + candidate + (ip - start) + kMinMatch,
                                                 len - ip - kMinMatch) + (ip - start);
    op = putSequence(op, end, src + anchor, start - anchor, start - candidate, matchLen);
    if (!op) return 0;
    ip = start + matchLen;
    anchor = ip;
    if (ip >= 2 && ip - 2 + kMinMatch <= len) table[hashOf(load32(src + ip - 2))] = ip - 2;
  }
  op = putSequence(op, end, src + anchor, len - anchor, 0, 0);
  return op ? uint32_t(op - dst) : 0;
}

bool lzDecompress(const uint8_t* src, uint32_t srcLen, uint8_t* dst, uint32_t len) {
  // Every input gets the verdict it always had: the checks are the format's, in their original order; where a fast
  // path skips one, it cannot fail there. Only the copies are fast: where both buffers have room (srcLen - ip and
  // len - op; dst is exactly `len` bytes), a short literal run or match is copied as whole 16- or 8-byte words that
  // may write past its end ("wild"). Those bytes lie in dst before `len`, and the following sequences overwrite them
  // before anything reads them (a match reads only bytes below op). Elsewhere copies are exact. test_snapshot_codec
  // pins the verdicts and the output for a corpus.
  uint32_t ip = 0, op = 0;
  auto readLength = [&](uint32_t& value) {
    if (value != 15) return true;
    uint8_t b;
    do {
      if (ip >= srcLen) return false;
      b = src[ip++];
      value += b;
      if (value > len) return false;  // longer than anything that fits: malformed (and no overflow)
    } while (b == 255);
    return true;
  };
  for (;;) {
    if (ip >= srcLen) return false;
    const uint8_t token = src[ip++];
    uint32_t lit = token >> 4;
    if (lit != 15 && srcLen - ip >= 16 && len - op >= 16) {
      copy16(dst + op, src + ip);  // lit <= 14 fits both: the checks below would pass
    } else {
      if (!readLength(lit)) return false;
      if (lit > len - op || lit > srcLen - ip) return false;
      copyLiterals(dst + op, src + ip, lit);
    }
    op += lit;
    ip += lit;
    if (op == len) return (token & 15) == 0 && ip == srcLen;  // the last sequence: literals only, then the end
    if (srcLen - ip < 2) return false;
    const uint32_t offset = uint32_t(src[ip]) | uint32_t(src[ip + 1]) << 8;
    ip += 2;
    if (offset == 0 || offset > op) return false;
    uint32_t matchLen = token & 15;
    uint8_t* out = dst + op;
    const uint8_t* from = out - offset;
    if (matchLen != 15 && len - op >= 24 && offset >= 8) {
      // matchLen + 4 <= 18 fits. Each word reads only bytes below out + (bytes written so far): offset >= its size.
      copy8(out, from);  // 8-byte words for every offset >= 8: no branch on the offset
      copy8(out + 8, from + 8);
      copy8(out + 16, from + 16);
      op += matchLen + kMinMatch;
      continue;
    }
    if (!readLength(matchLen)) return false;
    matchLen += kMinMatch;
    if (matchLen > len - op) return false;
    copyMatch(out, offset, matchLen, len - op);
    op += matchLen;
  }
}

}  // namespace sw::snapshot
