// Timings of cpp/snapshot (docs/snapshots.md, "Chunking and compression: measured"). Hidden: run explicitly with
//
//     build/wasm-snap/sw_unit_tests.cjs "[.snapshot-bench]"      (Emscripten -O2, the core's build; under Node)
//     <a non-sanitized -O2 native build> "[.snapshot-bench]"
//
// Reports throughput in MB/s (10^6 bytes per second) of hash64, isZero, the LZ codec, and take()/restore() over a
// 32 MiB heap-like memory. Checks nothing but that the work ran.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <vector>

#include "snapshot/snapshot.h"

using namespace sw::snapshot;

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Best of `rounds` timings of fn(), in seconds.
template <typename Fn>
double best(int rounds, Fn fn) {
  double b = 1e9;
  for (int i = 0; i < rounds; i++) {
    double t0 = now();
    fn();
    b = std::min(b, now() - t0);
  }
  return b;
}

void heapLike(uint8_t* p, std::size_t len, uint32_t seed) {
  std::mt19937 rng(seed);
  for (std::size_t i = 0; i + 16 <= len; i += 16) {
    uint32_t w[4];
    switch (rng() % 4) {
      case 0:
        w[0] = 0x00010001u, w[1] = uint32_t(0x100000 + (rng() % 65536) * 16), w[2] = uint32_t(rng() % 300), w[3] = 0;
        break;
      case 1:
        w[0] = w[1] = w[2] = w[3] = 0;
        break;
      case 2:
        std::memcpy(w, "item12345_name_x", 16);
        break;
      default:
        for (auto& x : w) x = uint32_t(rng());
    }
    std::memcpy(p + i, w, 16);
  }
}

struct NullWriter final : ChunkWriter {
  std::map<uint32_t, std::vector<uint8_t>> rows;
  bool keep = false;
  bool put(uint32_t chunk, const uint8_t* data, uint32_t len) override {
    if (keep) rows[chunk].assign(data, data + len);
    return true;
  }
  bool remove(uint32_t chunk) override {
    rows.erase(chunk);
    return true;
  }
};

}  // namespace

TEST_CASE("snapshot throughput", "[.snapshot-bench]") {
  // SW_SNAPSHOT_IMAGE=<file>: a real memory image (bench/snapshot-pages.mjs --dump writes one) instead of synthetic data.
  std::size_t kImage = 32u << 20;
  VectorMemory mem(uint32_t(kImage / kPageBytes));
  heapLike(mem.bytes.data(), kImage, 1);
  if (const char* file = std::getenv("SW_SNAPSHOT_IMAGE")) {
    if (FILE* f = std::fopen(file, "rb")) {
      std::fseek(f, 0, SEEK_END);
      long size = std::ftell(f);
      std::fseek(f, 0, SEEK_SET);
      kImage = std::size_t(size) / kPageBytes * kPageBytes;
      mem.bytes.assign(kImage, 0);
      REQUIRE(std::fread(mem.bytes.data(), 1, kImage, f) == kImage);
      std::fclose(f);
      std::printf("image %s: %zu bytes\n", file, kImage);
    }
  }
  const double mb = 1e6;
  volatile uint64_t sink = 0;

  double tHash = best(5, [&] { sink = sink + hash64(mem.bytes.data(), 4u << 20); });
  double tBlocks = best(5, [&] {
    for (std::size_t o = 0; o < (4u << 20); o += kBlockBytes) sink = sink + blockHash(mem.bytes.data() + o);
  });
  std::vector<uint8_t> zeros(4u << 20, 0);
  double tZero = best(5, [&] { sink = sink + isZero(zeros.data(), zeros.size()); });
  std::printf("hash64 over 4 MiB:            %8.3f ms  %7.0f MB/s\n", tHash * 1e3, (4 << 20) / tHash / mb);
  std::printf("blockHash, 1024 blocks:       %8.3f ms  %7.0f MB/s\n", tBlocks * 1e3, (4 << 20) / tBlocks / mb);
  std::printf("isZero over 4 MiB of zeros:   %8.3f ms  %7.0f MB/s\n", tZero * 1e3, (4 << 20) / tZero / mb);

  std::vector<uint32_t> table(kLzTableEntries, 0);
  std::vector<uint8_t> packed(4u << 20);
  std::vector<uint32_t> lens;
  uint64_t compressed = 0;
  double tLz = best(3, [&] {
    lens.clear();
    compressed = 0;
    for (std::size_t o = 0; o < (4u << 20); o += kBlockBytes) {
      uint32_t n = lzCompress(mem.bytes.data() + o, kBlockBytes, packed.data() + o, kBlockBytes - 1, table.data());
      lens.push_back(n);
      compressed += n ? n : kBlockBytes;
    }
  });
  std::vector<uint8_t> out(kBlockBytes);
  double tUnlz = best(3, [&] {
    for (std::size_t i = 0; i < lens.size(); i++)
      if (lens[i]) sink = sink + lzDecompress(packed.data() + i * kBlockBytes, lens[i], out.data(), kBlockBytes);
  });
  std::printf("lzCompress 4 MiB heap-like:   %8.3f ms  %7.0f MB/s  ratio %.2f\n", tLz * 1e3, (4 << 20) / tLz / mb,
              double(4 << 20) / double(compressed));
  std::printf("lzDecompress:                 %8.3f ms  %7.0f MB/s\n", tUnlz * 1e3, (4 << 20) / tUnlz / mb);

  // take() over 32 MiB: first (everything), unchanged, and a few scattered changes; then restore.
  NullWriter w;
  w.keep = true;
  Tracker t;
  Stats st;
  std::string error;
  double tFirst = best(1, [&] { REQUIRE(take(mem, t, t, w, st, error)); });
  std::printf("take, first, 32 MiB:          %8.3f ms  rows %u  bytes %llu\n", tFirst * 1e3, st.chunksWritten,
              (unsigned long long)st.bytesWritten);
  double tSame = best(5, [&] { REQUIRE(take(mem, t, t, w, st, error)); });
  std::printf("take, unchanged, 32 MiB:      %8.3f ms  %7.0f MB/s  rows %u\n", tSame * 1e3, kImage / tSame / mb,
              st.chunksWritten);
  std::mt19937 rng(5);
  double tSmall = best(5, [&] {
    for (int k = 0; k < 12; k++) mem.bytes[rng() % kImage] ^= 0x55;
    REQUIRE(take(mem, t, t, w, st, error));
  });
  std::printf("take, 12 scattered changes:   %8.3f ms  rows %u  bytes %llu\n", tSmall * 1e3, st.chunksWritten,
              (unsigned long long)st.bytesWritten);
  std::vector<StoredChunk> chunks;
  for (const auto& [id, bytes] : w.rows) chunks.push_back({id, bytes.data(), uint32_t(bytes.size())});
  Manifest m = t.manifest();
  double tRestore = 1e9;
  for (int i = 0; i < 3; i++) {
    VectorMemory fresh(uint32_t(kImage / kPageBytes));  // touch the pages first: time restore, not page faults
    fresh.bytes.resize(kPageBytes);
    Tracker r;
    double t0 = now();
    REQUIRE(restore(fresh, m, chunks, r, error));
    tRestore = std::min(tRestore, now() - t0);
  }
  std::printf("restore, 32 MiB:              %8.3f ms  %7.0f MB/s  rows %zu\n", tRestore * 1e3, kImage / tRestore / mb,
              chunks.size());
  CHECK(sink != 12345);
}
