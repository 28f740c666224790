// The block codec's stored format is fixed (docs/snapshots.md, "Codec"): whatever makes lzCompress / lzDecompress
// faster must leave the compressed bytes and the set of accepted inputs exactly as they were. These tests pin both
// as digests (hash64, the same value in every build) of a deterministic corpus, computed with the codec of format 1
// as first shipped (main at 173dff2); a change of either digest is a change of the format.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "snapshot/snapshot.h"

using namespace sw::snapshot;

namespace {

// Block `index` of the corpus: heap-like mixes, runs of every short period, long literal stretches, near-empty
// blocks, random bytes; each kind at several densities, so every path of both sides of the codec is taken.
std::vector<uint8_t> corpusBlock(uint32_t index) {
  std::vector<uint8_t> b(kBlockBytes, 0);
  std::mt19937 rng(index * 7919u + 1);
  const uint32_t kind = index % 8;
  uint32_t i = 0;
  while (i < kBlockBytes) {
    const uint32_t n = std::min<uint32_t>(kBlockBytes - i, 1 + rng() % (kind == 7 ? 600 : 90));
    const uint32_t what = kind == 6 ? 4 : (rng() % (kind < 3 ? 6 : 8));
    switch (what) {
      case 0:  // zeros
        break;
      case 1: {  // a period of 1..16 bytes
        const uint32_t period = 1 + rng() % 16;
        uint8_t unit[16];
        for (auto& u : unit) u = uint8_t(rng() % (kind == 1 ? 3 : 256));
        for (uint32_t k = 0; k < n; k++) b[i + k] = unit[k % period];
        break;
      }
      case 2:  // 32-bit words: small integers and pointers into one region
        for (uint32_t k = 0; k + 4 <= n; k += 4) {
          const uint32_t w = rng() % 3 ? 0x00200000u + (rng() % 4096) * 8 : rng() % 300;
          std::memcpy(&b[i + k], &w, 4);
        }
        break;
      case 3: {  // a copy of an earlier stretch (a match at any distance)
        if (i >= 4) {
          const uint32_t from = rng() % i;
          for (uint32_t k = 0; k < n; k++) b[i + k] = b[from + (k % (i - from))];
        }
        break;
      }
      case 4:  // random bytes (literals), few possible values in some kinds
        for (uint32_t k = 0; k < n; k++) b[i + k] = uint8_t(kind == 5 ? rng() % 4 : rng());
        break;
      case 5: {  // text
        static const char kText[] = "def method_missing(name, *args) = @table.fetch(name) { super } # ruby-ish\n";
        for (uint32_t k = 0; k < n; k++) b[i + k] = uint8_t(kText[(i + k) % (sizeof kText - 1)]);
        break;
      }
      default:  // one non-zero byte in zeros
        b[i + rng() % n] = uint8_t(1 + rng() % 255);
        break;
    }
    i += n;
  }
  if (index % 97 == 0) std::fill(b.begin(), b.end(), uint8_t(index % 2 ? 0 : 0x5a));  // uniform blocks
  return b;
}

constexpr uint32_t kCorpusBlocks = 400;

std::string hex(uint64_t v) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(v));
  return text;
}

}  // namespace

TEST_CASE("lz: compressed bytes of a corpus are those of the format as shipped", "[snapshot]") {
  // In order with one table, as a take does (the table's stale entries carry over and shape the output), starting
  // from garbage; at the take's capacity (4,095), a generous one, and one just below each block's compressed length.
  std::vector<uint32_t> table(kLzTableEntries, 0xdeadbeef);
  std::vector<uint8_t> digest;
  uint32_t fitted = 0, raw = 0;
  for (uint32_t index = 0; index < kCorpusBlocks; index++) {
    const std::vector<uint8_t> block = corpusBlock(index);
    const std::vector<uint32_t> before = table;
    uint32_t n = 0;
    for (uint32_t capacity : {kBlockBytes - 1, kBlockBytes + 200}) {
      table = before;
      std::vector<uint8_t> out(capacity);
      n = lzCompress(block.data(), kBlockBytes, out.data(), capacity, table.data());
      (n ? fitted : raw)++;
      const uint8_t len[2] = {uint8_t(n), uint8_t(n >> 8)};
      digest.insert(digest.end(), len, len + 2);
      digest.insert(digest.end(), out.begin(), out.begin() + n);
    }
    const std::vector<uint32_t> after = table;
    if (n > 1) {  // one byte less does not fit (nor writes past its capacity: an exact heap buffer)
      table = before;
      std::vector<uint8_t> tight(n - 1);
      CHECK(lzCompress(block.data(), kBlockBytes, tight.data(), n - 1, table.data()) == 0);
    }
    table = after;
  }
  // Shorter inputs and odd lengths, with a fresh zero table.
  std::fill(table.begin(), table.end(), 0u);
  for (uint32_t len : {0u, 1u, 3u, 4u, 5u, 15u, 16u, 17u, 31u, 100u, 1000u, 4095u}) {
    const std::vector<uint8_t> block = corpusBlock(len + 3);
    std::vector<uint8_t> out(len + len / 8 + 16);
    const uint32_t n = lzCompress(block.data(), len, out.data(), uint32_t(out.size()), table.data());
    digest.insert(digest.end(), out.begin(), out.begin() + n);
  }
  CHECK(fitted > 500);
  CHECK(raw > 40);  // random blocks do not fit in 4,095 bytes
  CHECK(hex(hash64(digest.data(), digest.size())) == "78316c7d2e7a68d0");
}

TEST_CASE("lz: the decoder accepts and rejects the inputs of the format as shipped", "[snapshot]") {
  // Valid streams, mutated (bytes changed, truncated, extended), decoded into exactly `len` bytes, from exactly the
  // stream's bytes (heap buffers of those sizes: under ASan any read or write outside them fails the test). The
  // digest covers every outcome and every accepted block's bytes.
  std::vector<uint32_t> table(kLzTableEntries, 0);
  std::mt19937 rng(2026);
  std::vector<uint8_t> digest;
  uint32_t accepted = 0, rejected = 0;
  for (uint32_t index = 0; index < 120; index++) {
    const std::vector<uint8_t> block = corpusBlock(index);
    std::vector<uint8_t> packed(kBlockBytes + 200);
    const uint32_t n = lzCompress(block.data(), kBlockBytes, packed.data(), uint32_t(packed.size()), table.data());
    REQUIRE(n > 0);
    packed.resize(n);
    {
      std::vector<uint8_t> exact(packed), out(kBlockBytes);
      REQUIRE(lzDecompress(exact.data(), n, out.data(), kBlockBytes));
      REQUIRE(out == block);
    }
    for (int trial = 0; trial < 60; trial++) {
      std::vector<uint8_t> m = packed;
      switch (rng() % 6) {
        case 0:
          m[rng() % m.size()] = uint8_t(rng());
          break;
        case 1:
          for (int k = 0; k < 4; k++) m[rng() % m.size()] = uint8_t(rng());
          break;
        case 2:
          m[rng() % m.size()] ^= uint8_t(1u << (rng() % 8));
          break;
        case 3:
          m.resize(rng() % m.size());
          break;
        case 4:
          m.push_back(uint8_t(rng()));
          break;
        default: {  // a token's nibbles
          const std::size_t at = rng() % m.size();
          m[at] = uint8_t((m[at] & 0xf0) | (rng() % 16));
        }
      }
      // Into the block's length and into a shorter one (the fuzzer's second call does the same).
      for (uint32_t len : {kBlockBytes, 1 + uint32_t(rng() % kBlockBytes)}) {
        std::vector<uint8_t> exact(m.begin(), m.end());
        std::vector<uint8_t> out(len);
        const bool ok = lzDecompress(exact.data(), uint32_t(exact.size()), out.data(), len);
        (ok ? accepted : rejected)++;
        digest.push_back(uint8_t(ok));
        if (ok) {
          const uint64_t h = hash64(out.data(), out.size());
          digest.insert(digest.end(), reinterpret_cast<const uint8_t*>(&h), reinterpret_cast<const uint8_t*>(&h) + 8);
        }
      }
    }
  }
  // Random short streams: mostly rejected, some tiny ones decode.
  for (int trial = 0; trial < 20000; trial++) {
    std::vector<uint8_t> m(rng() % 24);
    for (auto& c : m) c = uint8_t(rng() % 4 ? rng() % 48 : rng());
    const uint32_t len = rng() % 64;
    std::vector<uint8_t> out(len);
    const bool ok = lzDecompress(m.data(), uint32_t(m.size()), out.data(), len);
    (ok ? accepted : rejected)++;
    digest.push_back(uint8_t(ok));
    if (ok) digest.insert(digest.end(), out.begin(), out.end());
  }
  INFO("accepted " << accepted << ", rejected " << rejected);
  CHECK(accepted > 300);
  CHECK(rejected > 10000);
  CHECK(hex(hash64(digest.data(), digest.size())) == "87083ea5dc69c2c9");
}
