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

#include "snapshot/snapshot.h"

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

inline uint32_t hashOf(uint32_t sequence) { return (sequence * 2654435761u) >> (32 - kLzTableBits); }

// Length of the common prefix of a and b, at most `limit` bytes.
inline uint32_t commonLength(const uint8_t* a, const uint8_t* b, uint32_t limit) {
  uint32_t n = 0;
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

}  // namespace

uint32_t lzCompress(const uint8_t* src, uint32_t len, uint8_t* dst, uint32_t capacity, uint32_t* table) {
  uint8_t* op = dst;
  uint8_t* const end = dst + capacity;
  uint32_t anchor = 0;
  // Emits literals [anchor, litEnd) and, if matchLen > 0, a match; false when it does not fit.
  auto emit = [&](uint32_t litEnd, uint32_t offset, uint32_t matchLen) {
    uint32_t lit = litEnd - anchor;
    uint32_t m = matchLen ? matchLen - kMinMatch : 0;
    std::size_t need = 1 + extraBytes(lit) + lit + (matchLen ? 2 + extraBytes(m) : 0);
    if (std::size_t(end - op) < need) return false;
    *op++ = uint8_t(((lit < 15 ? lit : 15) << 4) | (m < 15 ? m : 15));
    op = putExtra(op, lit);
    if (lit) std::memcpy(op, src + anchor, lit);
    op += lit;
    if (matchLen) {
      *op++ = uint8_t(offset);
      *op++ = uint8_t(offset >> 8);
      op = putExtra(op, m);
    }
    return true;
  };

  uint32_t ip = 0;
  uint32_t misses = 0;
  while (ip + kMinMatch <= len) {
    uint32_t sequence = load32(src + ip);
    uint32_t h = hashOf(sequence);
    uint32_t candidate = table[h];  // may be stale (another block): only used if it really matches
    table[h] = ip;
    if (candidate < ip && ip - candidate <= kMaxOffset && load32(src + candidate) == sequence) {
      uint32_t start = ip;
      while (start > anchor && candidate > 0 && src[start - 1] == src[candidate - 1]) {
        start--;
        candidate--;
      }
      uint32_t matchLen = kMinMatch + commonLength(src + ip + kMinMatch, src + candidate + (ip - start) + kMinMatch,
                                                   len - ip - kMinMatch) + (ip - start);
      if (!emit(start, start - candidate, matchLen)) return 0;
      ip = start + matchLen;
      anchor = ip;
      misses = 0;
      if (ip >= 2 && ip - 2 + kMinMatch <= len) table[hashOf(load32(src + ip - 2))] = ip - 2;
    } else {
      ip += 1 + (misses++ >> 6);  // skip ahead faster through incompressible data
    }
  }
  if (!emit(len, 0, 0)) return 0;
  return uint32_t(op - dst);
}

bool lzDecompress(const uint8_t* src, uint32_t srcLen, uint8_t* dst, uint32_t len) {
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
    uint8_t token = src[ip++];
    uint32_t lit = token >> 4;
    if (!readLength(lit)) return false;
    if (lit > len - op || lit > srcLen - ip) return false;
    if (lit) std::memcpy(dst + op, src + ip, lit);
    op += lit;
    ip += lit;
    if (op == len) return (token & 15) == 0 && ip == srcLen;  // the last sequence: literals only, then the end
    if (srcLen - ip < 2) return false;
    uint32_t offset = uint32_t(src[ip]) | uint32_t(src[ip + 1]) << 8;
    ip += 2;
    if (offset == 0 || offset > op) return false;
    uint32_t matchLen = token & 15;
    if (!readLength(matchLen)) return false;
    matchLen += kMinMatch;
    if (matchLen > len - op) return false;
    uint8_t* out = dst + op;
    const uint8_t* from = out - offset;
    if (offset >= matchLen) {
      std::memcpy(out, from, matchLen);
    } else if (offset >= 8) {
      uint32_t i = 0;
      for (; i + 8 <= matchLen; i += 8) std::memcpy(out + i, from + i, 8);  // 8 <= offset: no overlap per copy
      for (; i < matchLen; i++) out[i] = from[i];
    } else {
      // A short period (runs of zeros, repeated words): write one stretch of `period` bytes (a multiple of the
      // offset, at least 8), then copy 8 bytes at a time from a whole number of periods back.
      uint32_t period = offset;
      while (period < 8) period += offset;
      uint32_t i = 0;
      for (; i < matchLen && i < period; i++) out[i] = from[i];
      for (; i + 8 <= matchLen; i += 8) std::memcpy(out + i, out + i - period, 8);
      for (; i < matchLen; i++) out[i] = out[i - offset];
    }
    op += matchLen;
  }
}

}  // namespace sw::snapshot
