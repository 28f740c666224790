// cpp/snapshot: hash64, the block codec, take() / restore() against an in-memory "SQLite" (a map of rows), and the
// manifest. Timings are in test_snapshot_bench.cpp (hidden tag [.snapshot-bench]).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <optional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "snapshot/snapshot.h"

using namespace sw::snapshot;

namespace {

// The context's rows, with transactions: take() writes into `pending`, commit() adopts it.
struct Storage final : ChunkWriter {
  std::map<uint32_t, std::vector<uint8_t>> rows;
  std::map<uint32_t, std::vector<uint8_t>> pending;
  int puts = 0, removes = 0;
  int failAfter = -1;  // fail the (n+1)-th writer call
  std::size_t maxRow = 0;

  void begin() {
    pending = rows;
    puts = removes = 0;
  }
  void commit() { rows = pending; }
  bool put(uint32_t chunk, const uint8_t* data, uint32_t len) override {
    if (failAfter == 0) return false;
    if (failAfter > 0) failAfter--;
    puts++;
    maxRow = std::max<std::size_t>(maxRow, len);
    pending[chunk].assign(data, data + len);
    return true;
  }
  bool remove(uint32_t chunk) override {
    if (failAfter == 0) return false;
    if (failAfter > 0) failAfter--;
    removes++;
    REQUIRE(pending.erase(chunk) == 1);  // take() only removes rows it wrote
    return true;
  }
  // Rows read back for compaction (`readable` false: as a writer that cannot, so compaction reads memory).
  bool readable = true;
  int storedReads = 0;
  bool stored(uint32_t chunk, const uint8_t*& data, uint32_t& len) override {
    auto it = pending.find(chunk);
    if (!readable || it == pending.end()) return false;
    storedReads++;
    data = it->second.data();
    len = uint32_t(it->second.size());
    return true;
  }
  std::vector<StoredChunk> chunks() const {
    std::vector<StoredChunk> out;
    for (const auto& [id, bytes] : rows) out.push_back({id, bytes.data(), uint32_t(bytes.size())});
    return out;
  }
};

// A VectorMemory that remembers how much it was asked to read at once.
struct CountingMemory final : Memory {
  VectorMemory inner;
  uint32_t maxRead = 0;
  uint64_t bytesRead = 0;
  int failReadsAfter = -1;
  explicit CountingMemory(uint32_t pages) : inner(pages) {}
  uint32_t pages() override { return inner.pages(); }
  bool read(uint64_t offset, uint8_t* dst, uint32_t len) override {
    if (failReadsAfter == 0) return false;
    if (failReadsAfter > 0) failReadsAfter--;
    maxRead = std::max(maxRead, len);
    bytesRead += len;
    return inner.read(offset, dst, len);
  }
  bool write(uint64_t offset, const uint8_t* src, uint32_t len) override { return inner.write(offset, src, len); }
  bool grow(uint32_t totalPages) override { return inner.grow(totalPages); }
};

// Heap-like content: small integers, pointers into a region, a few strings, zero padding.
void fillHeapLike(uint8_t* p, std::size_t len, uint32_t seed) {
  std::mt19937 rng(seed);
  std::size_t i = 0;
  while (i + 16 <= len) {
    switch (rng() % 5) {
      case 0: {  // object header + pointers
        uint32_t words[4] = {0x00010001u, uint32_t(0x00100000u + (rng() % 65536) * 16),
                             uint32_t(0x00100000u + (rng() % 65536) * 16), uint32_t(rng() % 100)};
        std::memcpy(p + i, words, 16);
        break;
      }
      case 1:
        std::memset(p + i, 0, 16);
        break;
      case 2: {
        const char* s = "propertyName_val";
        std::memcpy(p + i, s, 16);
        break;
      }
      case 3:
        for (int k = 0; k < 16; k++) p[i + k] = uint8_t(rng());
        break;
      default: {
        uint64_t d[2] = {uint64_t(rng() % 1000), 0x3ff0000000000000ull};
        std::memcpy(p + i, d, 16);
      }
    }
    i += 16;
  }
}

uint64_t h(std::string_view s, uint64_t seed = 0) {
  return hash64(reinterpret_cast<const uint8_t*>(s.data()), s.size(), seed);
}

// One snapshot round: take() in a transaction, committed on success.
Stats snap(Memory& m, Tracker& t, Storage& s, const Options& o = {}) {
  s.begin();
  Stats stats;
  std::string error;
  REQUIRE(take(m, t, t, s, stats, error, o));
  s.commit();
  return stats;
}

// Restores the stored snapshot into a fresh memory of `initialPages` and checks it equals `expected`.
void checkRestore(const Tracker& t, Storage& s, const std::vector<uint8_t>& expected, const Options& o = {},
                  uint32_t initialPages = 1) {
  Manifest m;
  std::string error;
  REQUIRE(Manifest::decode(t.manifest().encode(), m, error));
  REQUIRE(m == t.manifest());
  VectorMemory fresh(initialPages);
  Tracker restored;
  auto chunks = s.chunks();
  REQUIRE(restore(fresh, m, chunks, restored, error));
  REQUIRE(fresh.bytes.size() == expected.size());
  REQUIRE(fresh.bytes == expected);
  CHECK(restored.hashes == t.hashes);
  CHECK(restored.owner == t.owner);
  CHECK(restored.entryBytes == t.entryBytes);
  REQUIRE(restored.segments.size() == t.segments.size());
  for (std::size_t i = 0; i < t.segments.size(); i++) {
    CHECK(restored.segments[i].id == t.segments[i].id);
    CHECK(restored.segments[i].liveBlocks == t.segments[i].liveBlocks);
    CHECK(restored.segments[i].liveBytes == t.segments[i].liveBytes);
  }
  // Seeded: an immediate take writes nothing.
  Storage copy = s;
  Stats st = snap(fresh, restored, copy, o);
  CHECK(st.chunksWritten == 0);
  CHECK(st.chunksDeleted == 0);
}

}  // namespace

// --- hash64 ---------------------------------------------------------------------------------------------------------

TEST_CASE("hash64: pinned values (identical in the native and the Wasm SIMD build)", "[snapshot]") {
  std::vector<uint8_t> block(kBlockBytes);
  for (uint32_t i = 0; i < kBlockBytes; i++) block[i] = uint8_t(i * 7 + (i >> 8));
  std::vector<uint8_t> odd(1000);
  for (uint32_t i = 0; i < odd.size(); i++) odd[i] = uint8_t(i ^ 0x5a);
  CHECK(h("") == 0x6193585f25855867ull);
  CHECK(h("abc") == 0xac21bfd2d84bd35full);
  CHECK(h("abc", 1) == 0xb7a000079ae06d14ull);
  CHECK(hash64(block.data(), block.size()) == 0xd9ba4c740d8227e4ull);
  CHECK(hash64(block.data(), block.size(), kChecksumSeed) == 0x986b39f52fa0ae0dull);
  CHECK(hash64(odd.data(), odd.size()) == 0x81a46305092c1c44ull);
  CHECK(blockHash(block.data()) == 0xd9ba4c740d8227e4ull);
}

TEST_CASE("hash64: every single-bit flip of a block changes it, and all differ", "[snapshot]") {
  std::vector<uint8_t> block(kBlockBytes);
  fillHeapLike(block.data(), block.size(), 1);
  std::set<uint64_t> seen{blockHash(block.data())};
  for (uint32_t byte = 0; byte < kBlockBytes; byte++) {
    for (int bit : {0, 7}) {
      block[byte] ^= uint8_t(1 << bit);
      seen.insert(blockHash(block.data()));
      block[byte] ^= uint8_t(1 << bit);
    }
  }
  CHECK(seen.size() == 1 + 2 * kBlockBytes);
}

TEST_CASE("hash64: structured multi-word changes that defeat FNV-style hashes are detected", "[snapshot]") {
  std::vector<uint8_t> block(kBlockBytes, 0);
  block[100] = 1;  // non-zero block
  uint64_t base = blockHash(block.data());
  std::set<uint64_t> seen{base};
  auto flip = [&](uint32_t byte, uint8_t mask) { block[byte] ^= mask; };
  // Top bits of two words in the same lane (8 bytes apart within a stripe, 64 apart across stripes).
  for (uint32_t gap : {8u, 64u, 128u, 1024u, 2048u}) {
    flip(7, 0x80);
    flip(7 + gap, 0x80);
    CHECK(seen.insert(blockHash(block.data())).second);
    flip(7, 0x80);
    flip(7 + gap, 0x80);
  }
  // Swapping two stripes, two kilobytes, or two words.
  std::vector<uint8_t> a(kBlockBytes);
  fillHeapLike(a.data(), a.size(), 2);
  uint64_t ha = blockHash(a.data());
  for (auto [x, y, n] : {std::tuple{0u, 64u, 64u}, {0u, 1024u, 1024u}, {0u, 8u, 8u}, {64u, 3072u, 64u}}) {
    std::vector<uint8_t> b = a;
    if (std::equal(a.begin() + x, a.begin() + x + n, a.begin() + y)) continue;
    std::swap_ranges(b.begin() + x, b.begin() + x + n, b.begin() + y);
    CHECK(blockHash(b.data()) != ha);
  }
  // Length matters even when the extra bytes are zero; the seed matters.
  CHECK(h(std::string_view("a\0", 2)) != h("a"));
  CHECK(h("abc", 0) != h("abc", 1));
}

TEST_CASE("blockHash and isZero", "[snapshot]") {
  std::vector<uint8_t> block(kBlockBytes, 0);
  CHECK(isZero(block.data(), block.size()));
  CHECK(blockHash(block.data()) == 0);
  for (uint32_t at : {0u, 63u, 64u, 4095u}) {
    block[at] = 1;
    CHECK_FALSE(isZero(block.data(), block.size()));
    CHECK(blockHash(block.data()) != 0);
    block[at] = 0;
  }
  CHECK(isZero(block.data(), 0));
  CHECK(isZero(block.data(), 5));
}

// --- codec ----------------------------------------------------------------------------------------------------------

TEST_CASE("lz: round trips and compresses what is compressible", "[snapshot]") {
  std::vector<uint32_t> table(kLzTableEntries, 0xdeadbeef);  // stale garbage is harmless
  std::vector<uint8_t> out(80000);
  std::mt19937 rng(7);
  auto roundTrip = [&](const std::vector<uint8_t>& in, uint32_t capacity) {
    uint32_t n = lzCompress(in.data(), uint32_t(in.size()), out.data(), capacity, table.data());
    if (n) {
      std::vector<uint8_t> dec(in.size() + 1, 0xcc);
      REQUIRE(lzDecompress(out.data(), n, dec.data(), uint32_t(in.size())));
      REQUIRE(std::equal(in.begin(), in.end(), dec.begin()));
      CHECK(dec[in.size()] == 0xcc);  // not a byte more
    }
    return n;
  };
  SECTION("small and odd sizes") {
    for (uint32_t len : {0u, 1u, 3u, 4u, 5u, 12u, 13u, 100u, 4095u, 4096u, 65535u}) {
      std::vector<uint8_t> in(len);
      for (auto& b : in) b = uint8_t(rng() % 4);  // some repeats
      CHECK(roundTrip(in, len + len / 8 + 16) > 0);
    }
  }
  SECTION("a zero block costs a few bytes") {
    std::vector<uint8_t> zeros(kBlockBytes, 0);
    uint32_t n = roundTrip(zeros, kBlockBytes - 1);
    CHECK(n > 0);
    CHECK(n < 32);
  }
  SECTION("heap-like data compresses; random data does not fit below its size") {
    std::vector<uint8_t> heap(kBlockBytes);
    fillHeapLike(heap.data(), heap.size(), 3);
    uint32_t n = roundTrip(heap, kBlockBytes - 1);
    CHECK(n > 0);
    CHECK(n < kBlockBytes * 3 / 4);
    std::vector<uint8_t> random(kBlockBytes);
    for (auto& b : random) b = uint8_t(rng());
    CHECK(lzCompress(random.data(), kBlockBytes, out.data(), kBlockBytes - 1, table.data()) == 0);
    CHECK(roundTrip(random, 8192) > kBlockBytes);
  }
  SECTION("periodic data of every short period (overlapping matches)") {
    for (uint32_t period = 1; period <= 12; period++) {
      for (uint32_t len : {20u, 100u, 4096u}) {
        std::vector<uint8_t> in(len);
        for (uint32_t i = 0; i < len; i++) in[i] = uint8_t(i < 7 ? 200 + i : (i % period) * 37 + 1);
        CHECK(roundTrip(in, len + 64) > 0);
      }
    }
  }
  SECTION("long runs and long literals use the 255-continuations") {
    std::vector<uint8_t> in(4096, 0);
    for (uint32_t i = 0; i < 600; i++) in[i] = uint8_t(rng());  // 600 literals
    for (uint32_t i = 3000; i < 3004; i++) in[i] = 9;
    CHECK(roundTrip(in, 4095) > 0);
  }
  SECTION("every capacity either fits exactly or reports 0") {
    std::vector<uint8_t> heap(kBlockBytes);
    fillHeapLike(heap.data(), heap.size(), 4);
    uint32_t full = roundTrip(heap, 8192);
    for (uint32_t cap = 0; cap < full; cap++)
      CHECK(lzCompress(heap.data(), kBlockBytes, out.data(), cap, table.data()) == 0);
    CHECK(lzCompress(heap.data(), kBlockBytes, out.data(), full, table.data()) == full);
  }
}

TEST_CASE("lz: malformed input is rejected, never read or written out of bounds", "[snapshot]") {
  std::vector<uint8_t> out(kBlockBytes);
  auto dec = [&](std::vector<uint8_t> in, uint32_t len) {
    return lzDecompress(in.data(), uint32_t(in.size()), out.data(), len);
  };
  CHECK(dec({0x00}, 0));
  CHECK_FALSE(dec({}, 0));
  CHECK_FALSE(dec({0x00, 0x00}, 0));                 // trailing bytes
  CHECK(dec({0x10, 'a', 0x01, 0x00, 0x00}, 5));       // 'a' then a 4-byte overlapping match, then the end
  CHECK_FALSE(dec({0x10, 'a', 0x00, 0x00, 0x00}, 5)); // offset 0
  CHECK_FALSE(dec({0x10, 'a', 0x02, 0x00, 0x00}, 5)); // offset before the start
  CHECK_FALSE(dec({0x10, 'a', 0x01, 0x00}, 5));       // no final token
  CHECK_FALSE(dec({0x10, 'a', 0x01, 0x00, 0x01}, 5)); // a final token with a match length
  CHECK_FALSE(dec({0x11, 'a', 0x01, 0x00, 0x00}, 5)); // match past the end
  CHECK_FALSE(dec({0x20, 'a'}, 2));                   // literals past the input
  CHECK_FALSE(dec({0x10, 'a'}, 2));                   // ends early
  CHECK_FALSE(dec({0xf0, 255, 255, 255}, 4096));      // runaway literal length
  CHECK_FALSE(dec({0x1f, 'a', 0x01, 0x00, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
                   255, 255}, 4096));                 // runaway match length

  // Mutations of a valid stream: decode or fail, under ASan never out of bounds.
  std::vector<uint8_t> heap(kBlockBytes);
  fillHeapLike(heap.data(), heap.size(), 5);
  std::vector<uint32_t> table(kLzTableEntries, 0);
  std::vector<uint8_t> packed(kBlockBytes);
  uint32_t n = lzCompress(heap.data(), kBlockBytes, packed.data(), kBlockBytes, table.data());
  REQUIRE(n > 0);
  packed.resize(n);
  std::mt19937 rng(11);
  int decoded = 0;
  for (int i = 0; i < 3000; i++) {
    std::vector<uint8_t> m = packed;
    for (int k = 0; k < 1 + int(rng() % 3); k++) m[rng() % m.size()] = uint8_t(rng());
    if (rng() % 4 == 0) m.resize(rng() % m.size());
    std::vector<uint8_t> exact(m.begin(), m.end());  // heap-allocated to the byte: ASan sees any over-read
    decoded += lzDecompress(exact.data(), uint32_t(exact.size()), out.data(), kBlockBytes);
  }
  CHECK(decoded < 3000);
}

// --- take / restore -------------------------------------------------------------------------------------------------

TEST_CASE("take: the first snapshot stores every non-zero block, once, in one row", "[snapshot]") {
  VectorMemory mem(23);  // like a fresh QuickJS: 23 pages, mostly zero
  fillHeapLike(mem.bytes.data() + 1040384, 8192, 1);         // stack top, in page 15
  fillHeapLike(mem.bytes.data() + 16 * kPageBytes, 6 * kPageBytes, 2);
  Storage s;
  Tracker t;
  Stats st = snap(mem, t, s);
  CHECK(st.fullRewrite);
  CHECK(st.memoryPages == 23);
  CHECK(st.pageCount == 7);
  CHECK(st.bytes == 7u * kPageBytes);
  CHECK(st.blockCount == 2 + 6 * 16);
  CHECK(st.blocksChanged == st.blockCount);
  CHECK(st.chunksWritten == 1);
  CHECK(st.chunksDeleted == 0);
  CHECK(st.chunkCount == 1);
  CHECK(st.storedBytes == st.bytesWritten);
  CHECK(st.bytesWritten < st.rawBytesWritten * 3 / 4);  // compressed
  CHECK(s.rows.size() == 1);
  CHECK(s.rows.begin()->first == 1);
  CHECK(t.manifest().runs == std::vector<Manifest::Run>{{254, 98, 1}});
  checkRestore(t, s, mem.bytes);

  SECTION("nothing changed: nothing written") {
    Stats again = snap(mem, t, s);
    CHECK(again.chunksWritten == 0);
    CHECK(again.chunksDeleted == 0);
    CHECK(again.blocksChanged == 0);
    CHECK(again.chunkCount == 1);
  }
  SECTION("a small change anywhere: one small row") {
    mem.bytes[1040384 + 100] ^= 1;
    mem.bytes[20 * kPageBytes + 5] ^= 1;
    mem.bytes[21 * kPageBytes + 4095] ^= 1;
    Stats d = snap(mem, t, s);
    CHECK(d.blocksChanged == 3);
    CHECK(d.chunksWritten == 1);
    CHECK(d.chunksDeleted == 0);
    CHECK(d.bytesWritten < 3 * (kMaxEntryBytes) + kSegmentHeaderBytes);
    CHECK(d.chunkCount == 2);
    checkRestore(t, s, mem.bytes);
    // The same blocks again: the previous delta row is garbage and goes.
    mem.bytes[1040384 + 100] ^= 2;
    mem.bytes[20 * kPageBytes + 5] ^= 2;
    mem.bytes[21 * kPageBytes + 4095] ^= 2;
    Stats d2 = snap(mem, t, s);
    CHECK(d2.chunksWritten == 1);
    CHECK(d2.chunksDeleted == 1);
    CHECK(s.rows.count(2) == 0);
    CHECK(s.rows.count(3) == 1);
    checkRestore(t, s, mem.bytes);
  }
  SECTION("a block that becomes zero is dropped from storage") {
    std::memset(mem.bytes.data() + 1040384, 0, 8192);
    Stats z = snap(mem, t, s);
    CHECK(z.blocksZeroed == 2);
    CHECK(z.blocksChanged == 0);
    CHECK(z.chunksWritten == 0);
    CHECK(z.pageCount == 6);
    CHECK(t.manifest().runs == std::vector<Manifest::Run>{{256, 96, 1}});
    checkRestore(t, s, mem.bytes);
  }
  SECTION("memory grows") {
    REQUIRE(mem.grow(40));
    mem.bytes[39 * kPageBytes + 7] = 7;
    Stats g = snap(mem, t, s);
    CHECK(g.memoryPages == 40);
    CHECK(g.blocksChanged == 1);
    CHECK(g.chunksWritten == 1);
    checkRestore(t, s, mem.bytes);
  }
  SECTION("everything zero: no rows at all") {
    std::fill(mem.bytes.begin(), mem.bytes.end(), 0);
    Stats z = snap(mem, t, s);
    CHECK(z.chunkCount == 0);
    CHECK(z.chunksDeleted == 1);
    CHECK(s.rows.empty());
    CHECK(t.manifest().encode() == "sw-snap1;pages=23;next=2;seg=;own=");
    checkRestore(t, s, mem.bytes);
  }
  SECTION("fullRewrite replaces every row and restarts ids") {
    mem.bytes[20 * kPageBytes] ^= 1;
    snap(mem, t, s);
    Options o;
    o.fullRewrite = true;
    Stats f = snap(mem, t, s, o);
    CHECK(f.fullRewrite);
    CHECK(f.chunksDeleted == 2);
    CHECK(f.chunksWritten == 1);
    CHECK(s.rows.size() == 1);
    CHECK(s.rows.begin()->first == 1);
    checkRestore(t, s, mem.bytes);
  }
  SECTION("shrinking memory is refused") {
    VectorMemory smaller(10);
    Tracker n;
    Stats x;
    std::string error;
    CHECK_FALSE(take(smaller, t, n, s, x, error));
    CHECK(error == "Snapshot failed: memory shrank");
  }
}

TEST_CASE("take: rows stay under the row cap; reads stream in batches", "[snapshot]") {
  CountingMemory mem(64);  // 4 MiB of incompressible data
  std::mt19937 rng(3);
  for (auto& b : mem.inner.bytes) b = uint8_t(rng());
  Storage s;
  Tracker t;
  Options o;
  o.maxSegmentBytes = 1000000;
  o.batchBytes = 65536;
  Stats st = snap(mem, t, s, o);
  CHECK(st.blockCount == 1024);
  CHECK(s.maxRow <= 1000000);
  CHECK(st.chunksWritten == 5);  // 1024 raw entries of 4,112 bytes, 243 per row
  CHECK(st.bytesWritten == 16 * 5 + 1024 * uint64_t(kMaxEntryBytes));
  CHECK(mem.maxRead == 65536);
  CHECK(mem.bytesRead == mem.inner.bytes.size());
  checkRestore(t, s, mem.inner.bytes, o);

  // Uncompressed storage reads back the same.
  Storage raw;
  Tracker tr;
  fillHeapLike(mem.inner.bytes.data(), 1 << 20, 9);
  o.compress = false;
  Stats r = snap(mem, tr, raw, o);
  CHECK(r.bytesWritten == r.chunksWritten * 16 + uint64_t(r.blockCount) * kMaxEntryBytes);
  checkRestore(tr, raw, mem.inner.bytes, o);
}

TEST_CASE("take: compaction keeps storage near the live data", "[snapshot]") {
  VectorMemory mem(32);
  fillHeapLike(mem.bytes.data(), mem.bytes.size(), 1);
  Storage s;
  Tracker t;
  snap(mem, t, s);
  const uint64_t base = s.rows.at(1).size();

  SECTION("a row mostly rewritten elsewhere is compacted away") {
    // Change 3/4 of the blocks: row 1 is then mostly garbage, its live blocks move to the new rows.
    for (uint32_t b = 0; b < 32 * 16; b++)
      if (b % 4) mem.bytes[std::size_t(b) * kBlockBytes + 9] ^= 0x40;
    Stats st = snap(mem, t, s);
    CHECK(st.blocksCompacted == 128);
    CHECK(s.rows.count(1) == 0);
    CHECK(st.chunksDeleted == 1);
    CHECK(st.storedBytes < base * 11 / 10);
    checkRestore(t, s, mem.bytes);
  }
  SECTION("many small rows are merged") {
    uint32_t most = 0;
    for (int round = 0; round < 40; round++) {
      mem.bytes[std::size_t(round) * 5 * kBlockBytes + 1] ^= 0x10;  // a different block each round
      Stats st = snap(mem, t, s);
      CHECK(st.chunksWritten == 1);
      most = std::max(most, st.chunkCount);
    }
    CHECK(most <= 1 + Options{}.smallSegments + 1);
    CHECK(s.rows.size() <= 1 + Options{}.smallSegments + 1);
    checkRestore(t, s, mem.bytes);
  }
}

TEST_CASE("take: compaction copies a row's live entries as stored, or reads memory when it cannot", "[snapshot]") {
  // 32 pages of heap-like blocks in one row; then 3 blocks in 4 change, so row 1 is mostly garbage and its 128 live
  // blocks move. Copied from the row, the take reads only the changed blocks from memory; without the row (a writer
  // that cannot read back, or a row that is not what the tracker wrote) it reads the moved blocks too. The snapshot
  // restores to the same memory either way.
  auto run = [](bool readable, bool damage) {
    CountingMemory mem(32);
    fillHeapLike(mem.inner.bytes.data(), mem.inner.bytes.size(), 1);
    Storage s;
    Tracker t;
    snap(mem, t, s);
    for (uint32_t b = 0; b < 32 * 16; b++)
      if (b % 4) mem.inner.bytes[std::size_t(b) * kBlockBytes + 9] ^= 0x40;
    if (damage) s.rows.at(1)[kSegmentHeaderBytes + kEntryHeaderBytes + 3] ^= 1;  // inside the first entry's data
    s.readable = readable;
    mem.bytesRead = 0;
    Stats st = snap(mem, t, s);
    const uint64_t read = mem.bytesRead;
    CHECK(st.blocksChanged == 384);
    CHECK(st.blocksCompacted == 128);
    CHECK(st.blocksCopied == (readable && !damage ? 128u : 0u));
    CHECK(s.rows.count(1) == 0);
    checkRestore(t, s, mem.inner.bytes);
    // Another round over the compacted rows: nothing changed, nothing written.
    Stats again = snap(mem, t, s);
    CHECK(again.chunksWritten == 0);
    CHECK(again.blocksChanged == 0);
    return std::pair{read, s.storedReads};
  };
  const auto [copiedRead, copiedRows] = run(true, false);
  const auto [memoryRead, memoryRows] = run(false, false);
  const auto [damagedRead, damagedRows] = run(true, true);
  // In place scanning is off for a CountingMemory: pass 1 reads all 512 blocks once.
  CHECK(copiedRead == 512u * kBlockBytes);
  CHECK(copiedRows == 1);
  CHECK(memoryRead == (512u + 128u) * kBlockBytes);
  CHECK(memoryRows == 0);
  // The damaged row is read, refused by its checksum, and its blocks come from memory: the stored snapshot heals.
  CHECK(damagedRead == (512u + 128u) * kBlockBytes);
  CHECK(damagedRows == 1);
}

// A memory whose caller vouches that some blocks were not written since the last take (Memory::unwritten: the
// core's stack mark), recording which blocks take() reads.
struct QuietMemory final : Memory {
  VectorMemory inner;
  Blocks quiet;
  std::set<uint32_t> blocksRead;
  explicit QuietMemory(uint32_t pages) : inner(pages) {}
  uint32_t pages() override { return inner.pages(); }
  bool read(uint64_t offset, uint8_t* dst, uint32_t len) override {
    for (uint64_t b = offset / kBlockBytes; b < (offset + len + kBlockBytes - 1) / kBlockBytes; b++)
      blocksRead.insert(uint32_t(b));
    return inner.read(offset, dst, len);
  }
  bool write(uint64_t offset, const uint8_t* src, uint32_t len) override { return inner.write(offset, src, len); }
  bool grow(uint32_t totalPages) override { return inner.grow(totalPages); }
  Blocks unwritten() override { return quiet; }
};

TEST_CASE("take: blocks Memory::unwritten names keep their hashes unread, in an incremental take only", "[snapshot]") {
  // 4 pages (64 blocks), heap-like; the first 16 blocks are the "stack" the caller vouches for. A twin memory without
  // the promise takes the same snapshots: the stats a take reports (pages, blocks) and the manifests are the same,
  // and both restore to the memory.
  QuietMemory mem(4);
  VectorMemory twin(4);
  fillHeapLike(mem.inner.bytes.data(), mem.inner.bytes.size(), 7);
  std::memset(mem.inner.bytes.data() + 5 * kBlockBytes, 0, kBlockBytes);  // a zero block inside the quiet range
  twin.bytes = mem.inner.bytes;
  mem.quiet = {0, 16};
  Storage s, st;
  Tracker t, tt;
  // The first take is a full one: it reads everything.
  Stats first = snap(mem, t, s);
  snap(twin, tt, st);
  CHECK(first.blocksUnwritten == 0);
  CHECK(mem.blocksRead.size() == 64);
  // Changes above the quiet blocks only: they are stored, the quiet ones are not read.
  for (uint32_t b : {20u, 33u, 63u}) {
    mem.inner.bytes[std::size_t(b) * kBlockBytes + 100] ^= 0x5a;
    twin.bytes[std::size_t(b) * kBlockBytes + 100] ^= 0x5a;
  }
  mem.blocksRead.clear();
  Stats second = snap(mem, t, s);
  Stats twinSecond = snap(twin, tt, st);
  CHECK(second.blocksUnwritten == 16);
  CHECK(second.blocksChanged == 3);
  CHECK(second.pageCount == twinSecond.pageCount);
  CHECK(second.blockCount == twinSecond.blockCount);
  CHECK(second.blockCount == 63);
  CHECK(*mem.blocksRead.begin() == 16);
  CHECK(t.manifest().encode() == tt.manifest().encode());
  checkRestore(t, s, mem.inner.bytes);
  // A range past the memory is clamped; a full rewrite reads every block whatever the memory says.
  mem.quiet = {8, 1000};
  mem.blocksRead.clear();
  Stats clamped = snap(mem, t, s);
  CHECK(clamped.blocksUnwritten == 56);
  CHECK(mem.blocksRead.size() == 8);
  Options full;
  full.fullRewrite = true;
  mem.blocksRead.clear();
  Stats rewritten = snap(mem, t, s, full);
  CHECK(rewritten.blocksUnwritten == 0);
  CHECK(mem.blocksRead.size() == 64);
  // Memory grown since the last take: the new blocks are read even when the range covers them.
  mem.inner.grow(5);
  mem.inner.bytes[std::size_t(70) * kBlockBytes] = 1;
  mem.quiet = {0, 80};
  mem.blocksRead.clear();
  Stats grown = snap(mem, t, s);
  CHECK(grown.blocksUnwritten == 64);
  CHECK(grown.blocksChanged == 1);
  CHECK(*mem.blocksRead.begin() == 64);
  checkRestore(t, s, mem.inner.bytes);
}

TEST_CASE("take: a fragmented manifest is rewritten in full, once; zero gaps alone never trigger it", "[snapshot]") {
  Options o;
  o.maxRuns = 8;
  SECTION("many small segments owning interleaved blocks") {
    VectorMemory mem(2);  // 32 blocks, all non-zero
    fillHeapLike(mem.bytes.data(), mem.bytes.size(), 1);
    Storage s;
    Tracker t;
    o.smallSegments = 1000;  // no merging: only fragmentation can clean up
    snap(mem, t, s, o);
    for (uint32_t b = 0; b < 32; b += 2) {  // every other block moves to its own row
      mem.bytes[std::size_t(b) * kBlockBytes + 5] ^= 1;
      snap(mem, t, s, o);
    }
    CHECK(t.runCount() <= 8 + 1);  // the take that crossed the limit rewrote everything
    Stats again = snap(mem, t, s, o);
    CHECK_FALSE(again.fullRewrite);
    CHECK(again.chunksWritten == 0);
    checkRestore(t, s, mem.bytes, o);
  }
  SECTION("alternating zero and non-zero blocks") {
    VectorMemory mem(2);
    for (uint32_t b = 0; b < 32; b += 2) mem.bytes[std::size_t(b) * kBlockBytes + 1] = 1;
    Storage s;
    Tracker t;
    snap(mem, t, s, o);
    CHECK(t.runCount() == 16);
    Stats again = snap(mem, t, s, o);
    CHECK_FALSE(again.fullRewrite);
    CHECK(again.chunksWritten == 0);
  }
}

TEST_CASE("take + restore: a random workload always restores exactly", "[snapshot]") {
  std::mt19937 rng(GENERATE(1u, 2u, 3u));
  VectorMemory mem(8);
  Storage s;
  Tracker t;
  Options o;
  o.maxSegmentBytes = 120000;  // small rows: exercise splitting, compaction and removal
  o.batchBytes = 3 * kBlockBytes;
  for (int round = 0; round < 60; round++) {
    switch (rng() % 6) {
      case 0:  // grow
        if (mem.pages() < 24) REQUIRE(mem.grow(mem.pages() + 1 + rng() % 3));
        break;
      case 1: {  // zero a range
        std::size_t at = rng() % mem.bytes.size(), n = std::min<std::size_t>(rng() % 40000, mem.bytes.size() - at);
        std::memset(mem.bytes.data() + at, 0, n);
        break;
      }
      case 2: {  // rewrite a range
        std::size_t at = rng() % mem.bytes.size(), n = std::min<std::size_t>(rng() % 70000, mem.bytes.size() - at);
        fillHeapLike(mem.bytes.data() + at, n, rng());
        break;
      }
      default:  // scattered small writes
        for (int k = 0; k < 1 + int(rng() % 8); k++) mem.bytes[rng() % mem.bytes.size()] = uint8_t(rng());
    }
    Stats st = snap(mem, t, s, o);
    REQUIRE(s.maxRow <= o.maxSegmentBytes);
    REQUIRE(st.chunkCount == s.rows.size());
    uint64_t stored = 0;
    for (const auto& [id, bytes] : s.rows) stored += bytes.size();
    REQUIRE(st.storedBytes == stored);
    if (round % 6 == 5) checkRestore(t, s, mem.bytes, o);
  }
  checkRestore(t, s, mem.bytes, o);
}

TEST_CASE("take: a failing writer or memory fails the take and leaves the tracker as it was", "[snapshot]") {
  VectorMemory mem(4);
  fillHeapLike(mem.bytes.data(), mem.bytes.size(), 1);
  Storage s;
  Tracker t;
  snap(mem, t, s);
  mem.bytes[100] ^= 1;
  const Tracker before = t;
  for (int failAfter : {0, 1}) {  // the put, then the remove of the old delta (after a second change)
    s.begin();
    s.failAfter = failAfter;
    Stats st;
    std::string error;
    bool ok = take(mem, t, t, s, st, error);
    if (failAfter == 1 && ok) {  // nothing to remove this time: the put was the only call
      s.commit();
      mem.bytes[100] ^= 2;
      const Tracker mid = t;
      s.begin();
      s.failAfter = 1;
      REQUIRE_FALSE(take(mem, t, t, s, st, error));
      CHECK(t.owner == mid.owner);
      continue;
    }
    CHECK_FALSE(ok);
    CHECK(error == "Snapshot failed: storage write failed");
    CHECK(t.owner == before.owner);
    CHECK(t.hashes == before.hashes);
  }
  s.failAfter = -1;
  CountingMemory broken(4);
  broken.inner.bytes = mem.bytes;
  broken.failReadsAfter = 0;
  Tracker n;
  Stats st;
  std::string error;
  CHECK_FALSE(take(broken, t, n, s, st, error));
  CHECK(error == "Snapshot failed: guest memory could not be read");
  CHECK_FALSE(n.seeded);
}

TEST_CASE("restore: zeroes blocks the fresh memory had but the snapshot does not", "[snapshot]") {
  VectorMemory mem(20);
  fillHeapLike(mem.bytes.data() + 3 * kPageBytes, kPageBytes, 1);
  Storage s;
  Tracker t;
  snap(mem, t, s);
  Manifest m = t.manifest();
  VectorMemory fresh(4);  // a data segment in page 1 that the snapshot's memory no longer has
  std::fill(fresh.bytes.begin() + kPageBytes, fresh.bytes.begin() + 2 * kPageBytes, 0xab);
  Tracker r;
  std::string error;
  auto chunks = s.chunks();
  REQUIRE(restore(fresh, m, chunks, r, error));
  CHECK(fresh.bytes == mem.bytes);
}

// A memory that says what it holds (a pooled instance just reset to the boot image) and counts the bytes written.
struct KnownMemory final : Memory {
  VectorMemory inner;
  std::vector<uint64_t> known;
  uint64_t bytesWritten = 0;
  explicit KnownMemory(uint32_t pages) : inner(pages) {}
  uint32_t pages() override { return inner.pages(); }
  bool read(uint64_t offset, uint8_t* dst, uint32_t len) override { return inner.read(offset, dst, len); }
  bool write(uint64_t offset, const uint8_t* src, uint32_t len) override {
    bytesWritten += len;
    return inner.write(offset, src, len);
  }
  bool grow(uint32_t totalPages) override { return inner.grow(totalPages); }
  std::span<const uint64_t> knownBlocks() override { return known; }
  void learn() {
    known.assign(inner.bytes.size() / kBlockBytes, 0);
    for (std::size_t b = 0; b < known.size(); b++) {
      const uint8_t* block = inner.bytes.data() + b * kBlockBytes;
      known[b] = isZero(block, kBlockBytes) ? 0 : blockHash(block);
    }
  }
};

TEST_CASE("restore: over a memory known to hold an image, writes only the blocks that differ and zeroes the rest",
          "[snapshot]") {
  // The image: 6 pages of heap-like content. The context: the image with a few blocks changed, one zeroed, two pages
  // more.
  VectorMemory image(6);
  fillHeapLike(image.bytes.data(), image.bytes.size(), 7);
  VectorMemory context(8);
  std::copy(image.bytes.begin(), image.bytes.end(), context.bytes.begin());
  fillHeapLike(context.bytes.data() + 5 * kBlockBytes, 2 * kBlockBytes, 8);        // changed
  std::memset(context.bytes.data() + 40 * kBlockBytes, 0, kBlockBytes);          // zeroed
  fillHeapLike(context.bytes.data() + 6 * kPageBytes + kBlockBytes, kBlockBytes, 9);  // in the grown pages
  Storage s;
  Tracker t;
  snap(context, t, s);
  auto chunks = s.chunks();
  std::string error;

  KnownMemory known(6);
  known.inner.bytes = image.bytes;
  known.learn();
  Tracker viaKnown;
  REQUIRE(restore(known, t.manifest(), chunks, viaKnown, error));
  CHECK(known.inner.bytes == context.bytes);
  CHECK(known.bytesWritten == 4 * kBlockBytes);  // 2 changed + 1 grown + 1 zeroed, not the ~100 stored blocks

  // Without the knowledge the memory may hold another guest's data: it is compared byte for byte, never trusted by
  // hash, and every stored block is written. The same result and tracker.
  KnownMemory unknown(6);
  unknown.inner.bytes = image.bytes;
  Tracker full;
  REQUIRE(restore(unknown, t.manifest(), chunks, full, error));
  CHECK(unknown.inner.bytes == context.bytes);
  CHECK(unknown.bytesWritten > 90 * kBlockBytes);
  CHECK(viaKnown.hashes == full.hashes);
  CHECK(viaKnown.owner == full.owner);

  // Knowledge that does not cover the memory exactly is ignored, never trusted: the memory is compared instead.
  KnownMemory partial(6);
  partial.inner.bytes = image.bytes;
  partial.learn();
  partial.known.pop_back();
  Tracker r;
  REQUIRE(restore(partial, t.manifest(), chunks, r, error));
  CHECK(partial.inner.bytes == context.bytes);
  CHECK(partial.bytesWritten > 90 * kBlockBytes);
}

TEST_CASE("restore: refuses anything that does not match, before writing memory", "[snapshot]") {
  VectorMemory mem(6);
  fillHeapLike(mem.bytes.data(), mem.bytes.size(), 1);
  Storage s;
  Tracker t;
  snap(mem, t, s);
  mem.bytes[kPageBytes + 3] ^= 1;
  snap(mem, t, s);
  REQUIRE(s.rows.size() == 2);
  Manifest m = t.manifest();

  auto attempt = [&](std::map<uint32_t, std::vector<uint8_t>> rows, const Manifest& man, uint32_t freshPages = 2) {
    VectorMemory fresh(freshPages);
    std::fill(fresh.bytes.begin(), fresh.bytes.end(), 0x5c);
    const auto untouched = fresh.bytes;
    std::vector<StoredChunk> chunks;
    for (const auto& [id, bytes] : rows) chunks.push_back({id, bytes.data(), uint32_t(bytes.size())});
    Tracker r;
    std::string error;
    bool ok = restore(fresh, man, chunks, r, error);
    CHECK_FALSE(ok);
    CHECK(fresh.bytes == untouched);  // nothing written, not even grown
    CHECK_FALSE(r.seeded);
    return error;
  };
  auto rows = s.rows;
  SECTION("missing row") {
    rows.erase(2);
    CHECK(attempt(rows, m) == "Snapshot chunk 2 is missing");
  }
  SECTION("unknown row") {
    rows[7] = rows[1];
    CHECK(attempt(rows, m) == "Snapshot chunk 7 is not part of the snapshot");
    rows.erase(7);
    rows[0] = rows[1];
    CHECK(attempt(rows, m) == "Snapshot chunk 0 is not part of the snapshot");
  }
  SECTION("wrong length") {
    rows[1].push_back(0);
    CHECK(attempt(rows, m) == "Snapshot chunk 1 has the wrong length");
  }
  SECTION("damaged byte") {
    rows[1][rows[1].size() / 2] ^= 0x01;
    CHECK(attempt(rows, m) == "Snapshot chunk 1 is damaged: checksum mismatch");
  }
  SECTION("rows swapped") {
    Manifest swapped = m;
    std::swap(rows[1], rows[2]);
    std::swap(swapped.segments[0].bytes, swapped.segments[1].bytes);
    std::swap(swapped.segments[0].checksum, swapped.segments[1].checksum);
    CHECK(attempt(rows, swapped) == "Snapshot chunk 1 is damaged: stored under the wrong id");
  }
  SECTION("a block the manifest places in a row that lacks it") {
    Manifest wrong = m;
    for (auto& run : wrong.runs) run.segment = 2;
    wrong.segments.erase(wrong.segments.begin());
    rows.erase(1);
    CHECK(attempt(rows, wrong).find("block(s) missing from their chunks") != std::string::npos);
  }
  SECTION("fresh memory larger than the snapshot's") {
    CHECK(attempt(rows, m, 7) == "Snapshot does not fit: the fresh memory has 7 pages, the snapshot 6");
  }
  SECTION("an unknown format version") {
    rows[1][4] = 2;
    Manifest fixed = m;
    fixed.segments[0].checksum = hash64(rows[1].data(), rows[1].size(), kChecksumSeed);
    CHECK(attempt(rows, fixed) == "Snapshot chunk 1 is damaged: unknown format version");
  }
  SECTION("content that decodes to other bytes than its hash (a consistent forgery or a codec bug)") {
    Storage raw;
    Tracker tr;
    Options o;
    o.compress = false;
    snap(mem, tr, raw, o);
    auto& row = raw.rows.at(1);
    row[kSegmentHeaderBytes + kEntryHeaderBytes + 10] ^= 0x01;  // a byte of the first block, stored raw
    Manifest forged = tr.manifest();
    forged.segments[0].checksum = hash64(row.data(), row.size(), kChecksumSeed);  // so only the block hash can tell
    VectorMemory fresh(2);
    auto chunks = raw.chunks();
    Tracker r;
    std::string error;
    CHECK_FALSE(restore(fresh, forged, chunks, r, error));  // memory may be partly written: the caller discards it
    CHECK(error == "Snapshot chunk 1 is damaged: block 0 does not match its hash");
  }
}

// --- manifest -------------------------------------------------------------------------------------------------------

TEST_CASE("Manifest: text form round trips; anything malformed is refused", "[snapshot]") {
  Manifest m;
  m.memoryPages = 448;
  m.nextSegment = 9;
  m.segments = {{1, 1899990, 0x0123456789abcdefull}, {8, 20000, 0xfedcba9876543210ull}};
  m.runs = {{0, 12, 1}, {14, 3, 8}, {17, 100, 1}};
  const std::string text = m.encode();
  CHECK(text == "sw-snap1;pages=448;next=9;seg=1:1899990:0123456789abcdef,8:20000:fedcba9876543210;"
                "own=0+12:1,14+3:8,17+100:1");
  Manifest back;
  std::string error;
  REQUIRE(Manifest::decode(text, back, error));
  CHECK(back == m);

  auto refuse = [&](std::string_view t) {
    Manifest x;
    std::string e;
    CHECK_FALSE(Manifest::decode(t, x, e));
    return e;
  };
  CHECK(refuse("sw-snap3;pages=1;next=1;seg=;own=") == "Unknown snapshot manifest version");
  // Format 2: a base (never 0) and the zero runs, after the stored runs.
  CHECK(refuse("sw-snap2;pages=1;next=1;seg=;own=") == "Invalid snapshot manifest");
  CHECK(refuse("sw-snap2;pages=1;next=1;base=0000000000000000;seg=;own=;zero=") == "Invalid snapshot manifest");
  CHECK(refuse("sw-snap1;pages=1;next=1;seg=;own=;zero=") == "Invalid snapshot manifest");
  CHECK(refuse("sw-snap2;pages=1;next=1;base=00000000000000ab;seg=;own=") == "Invalid snapshot manifest");
  CHECK(refuse("sw-snap2;pages=1;next=1;base=00000000000000ab;seg=;own=;zero=0+0") ==
        "Invalid snapshot manifest: empty zero run");
  CHECK(refuse("sw-snap2;pages=1;next=1;base=00000000000000ab;seg=;own=;zero=3+2,4+1") ==
        "Invalid snapshot manifest: zero runs overlap or are not ascending");
  CHECK(refuse("sw-snap2;pages=1;next=1;base=00000000000000ab;seg=;own=;zero=15+2") ==
        "Invalid snapshot manifest: zero run outside memory");
  CHECK(refuse("sw-snap2;pages=1;next=9;base=00000000000000ab;seg=2:100:0000000000000000;own=4+2:2;zero=0+2,5+1") ==
        "Invalid snapshot manifest: a zero run overlaps stored blocks");
  Manifest zeroWithoutBase = m;
  zeroWithoutBase.zeros = {{20, 1}};
  CHECK_FALSE(zeroWithoutBase.validate(error));
  CHECK(error == "Invalid snapshot manifest: zero blocks without a base");

  Manifest relative = m;
  relative.base = 0x00000000000000abull;
  relative.zeros = {{12, 2}, {200, 5}};
  const std::string text2 = relative.encode();
  CHECK(text2 == "sw-snap2;pages=448;next=9;base=00000000000000ab;seg=1:1899990:0123456789abcdef,8:20000:"
                 "fedcba9876543210;own=0+12:1,14+3:8,17+100:1;zero=12+2,200+5");
  CHECK(relative.format() == kManifestFormatRelative);
  CHECK(m.format() == kManifestFormatAbsolute);
  REQUIRE(Manifest::decode(text2, back, error));
  CHECK(back == relative);
  CHECK(refuse("") == "Invalid snapshot manifest");
  CHECK(refuse("sw-snap1;pages=01;next=1;seg=;own=") == "Invalid snapshot manifest");
  CHECK(refuse("sw-snap1;pages=4294967296;next=1;seg=;own=") == "Invalid snapshot manifest");
  CHECK(refuse("sw-snap1;pages=1;next=2;seg=1:100:0123456789ABCDEF;own=0+1:1") == "Invalid snapshot manifest");
  CHECK(refuse("sw-snap1;pages=1;next=1;seg=;own=;") == "Invalid snapshot manifest");
  CHECK(refuse("sw-snap1;pages=65537;next=1;seg=;own=") == "Invalid snapshot manifest: too many pages");
  CHECK(refuse("sw-snap1;pages=1;next=0;seg=;own=") == "Invalid snapshot manifest: next id 0");
  CHECK(refuse("sw-snap1;pages=1;next=2;seg=2:100:0000000000000000;own=0+1:2") ==
        "Invalid snapshot manifest: chunk id out of range");
  CHECK(refuse("sw-snap1;pages=1;next=9;seg=2:100:0000000000000000,2:100:0000000000000000;own=0+1:2") ==
        "Invalid snapshot manifest: chunk ids not ascending");
  CHECK(refuse("sw-snap1;pages=1;next=9;seg=2:10:0000000000000000;own=0+1:2") ==
        "Invalid snapshot manifest: chunk too short");
  CHECK(refuse("sw-snap1;pages=1;next=9;seg=2:100:0000000000000000;own=0+0:2") ==
        "Invalid snapshot manifest: empty run");
  CHECK(refuse("sw-snap1;pages=1;next=9;seg=2:100:0000000000000000;own=0+3:2,2+1:2") ==
        "Invalid snapshot manifest: runs overlap or are not ascending");
  CHECK(refuse("sw-snap1;pages=1;next=9;seg=2:100:0000000000000000;own=0+17:2") ==
        "Invalid snapshot manifest: run outside memory");
  CHECK(refuse("sw-snap1;pages=1;next=9;seg=2:100:0000000000000000;own=0+1:3") ==
        "Invalid snapshot manifest: run in an unknown chunk");
  CHECK(refuse("sw-snap1;pages=1;next=9;seg=2:100:0000000000000000,3:100:0000000000000000;own=0+1:2") ==
        "Invalid snapshot manifest: chunk 3 holds no block");
}

// --- relative to a base (format 2) -----------------------------------------------------------------------------

namespace {

// A base from a memory: its non-zero blocks as runs (joined across single zero blocks, as the core's are not: any
// grouping must do), every block's hash.
std::shared_ptr<const Base> baseOf(const VectorMemory& m, uint64_t id) {
  auto b = std::make_shared<Base>();
  b->id = id;
  b->pages = uint32_t(m.bytes.size() / kPageBytes);
  const uint32_t blocks = b->pages * kBlocksPerPage;
  for (uint32_t i = 0; i < blocks; i++) b->blocks.push_back(blockHash(m.bytes.data() + std::size_t(i) * kBlockBytes));
  for (uint32_t i = 0; i < blocks;) {
    if (!b->blocks[i]) {
      i++;
      continue;
    }
    uint32_t end = i + 1;
    while (end < blocks && (b->blocks[end] || (end + 1 < blocks && b->blocks[end + 1]))) end++;
    b->runs.push_back({uint64_t(i) * kBlockBytes, std::vector<uint8_t>(m.bytes.begin() + std::size_t(i) * kBlockBytes,
                                                                       m.bytes.begin() + std::size_t(end) * kBlockBytes)});
    i = end;
  }
  return b;
}

// An instance's memory started from `base`: what it holds may be known (knownBlocks) or not (hashed by restore).
struct BasedMemory final : Memory {
  VectorMemory inner;
  std::shared_ptr<const Base> from;
  std::vector<uint64_t> known;
  uint64_t bytesWritten = 0;
  BasedMemory(uint32_t pages, std::shared_ptr<const Base> b) : inner(pages), from(std::move(b)) {}
  uint32_t pages() override { return inner.pages(); }
  bool read(uint64_t offset, uint8_t* dst, uint32_t len) override {
    bytesRead += len;
    return inner.read(offset, dst, len);
  }
  bool write(uint64_t offset, const uint8_t* src, uint32_t len) override {
    bytesWritten += len;
    return inner.write(offset, src, len);
  }
  bool grow(uint32_t totalPages) override { return inner.grow(totalPages); }
  std::span<const uint64_t> knownBlocks() override { return known; }
  std::shared_ptr<const Base> base() override { return from; }
  const Held* held() override { return exactly ? &*exactly : nullptr; }
  std::optional<Held> exactly;  // held(): what the caller vouches the memory holds
  uint64_t bytesRead = 0;
};

// The boot image (8 pages: heap-like content in pages 0-4, page 5 zero, 6-7 heap) and a context started from it: a
// few blocks changed, one image block zeroed, one changed and changed back, memory grown by two pages.
struct ImageAndContext {
  VectorMemory image{8};
  std::shared_ptr<const Base> base;
  ImageAndContext() {
    fillHeapLike(image.bytes.data(), 5 * kPageBytes, 21);
    fillHeapLike(image.bytes.data() + 6 * kPageBytes, 2 * kPageBytes, 22);
    base = baseOf(image, 0x1234abcd5678ef90ull);
  }
};

}  // namespace

TEST_CASE("Base: read copies the image's blocks, zero between its runs; nothing beyond its pages", "[snapshot]") {
  ImageAndContext ic;
  std::vector<uint8_t> out(std::size_t(8 * kBlocksPerPage) * kBlockBytes, 0xee);
  REQUIRE(ic.base->read(0, 8 * kBlocksPerPage, out.data()));
  CHECK(out == ic.image.bytes);
  std::vector<uint8_t> one(3 * kBlockBytes, 0xee);
  REQUIRE(ic.base->read(5 * kBlocksPerPage - 1, 3, one.data()));
  CHECK(std::equal(one.begin(), one.end(), ic.image.bytes.begin() + std::size_t(5 * kBlocksPerPage - 1) * kBlockBytes));
  CHECK_FALSE(ic.base->read(8 * kBlocksPerPage - 1, 2, one.data()));
  CHECK(ic.base->blockHashAt(5 * kBlocksPerPage) == 0);
  for (uint32_t block : {0u, 17u, 79u, 96u, 127u}) {  // in runs: the very bytes
    const uint8_t* data = ic.base->blockData(block);
    REQUIRE(data != nullptr);
    CHECK(std::equal(data, data + kBlockBytes, ic.image.bytes.begin() + std::size_t(block) * kBlockBytes));
  }
  CHECK(ic.base->blockData(5 * kBlocksPerPage + 3) == nullptr);  // zero page 5
  CHECK(ic.base->blockData(8 * kBlocksPerPage) == nullptr);      // beyond its pages
  CHECK(ic.base->blockHashAt(100000) == 0);
  // blockDataRange: the same pointers, from anywhere, across runs, gaps and the end.
  for (uint32_t first : {0u, 1u, 79u, 80u, 95u, 96u, 127u, 130u}) {
    std::vector<const uint8_t*> range(40, reinterpret_cast<const uint8_t*>(1));
    ic.base->blockDataRange(first, 40, range.data());
    for (uint32_t i = 0; i < 40; i++) CHECK(range[i] == ic.base->blockData(first + i));
  }
}

TEST_CASE("take relative to a base: stores only what differs from the image; restores exactly over anything",
          "[snapshot]") {
  ImageAndContext ic;
  BasedMemory ctx(8, ic.base);
  ctx.inner.bytes = ic.image.bytes;
  Storage s;
  Tracker t;
  // The first take of a context started from the image (an unseeded tracker): nothing differs, nothing stored.
  Stats first = snap(ctx, t, s);
  CHECK(first.fullRewrite);
  CHECK(first.blocksChanged == 0);
  CHECK(first.chunksWritten == 0);
  CHECK(first.storedBytes == 0);
  CHECK(first.blockCount == 7 * kBlocksPerPage);  // SnapshotInfo still describes the whole memory
  CHECK(t.manifest().encode() == "sw-snap2;pages=8;next=1;base=1234abcd5678ef90;seg=;own=;zero=");

  fillHeapLike(ctx.inner.bytes.data() + 3 * kBlockBytes, 2 * kBlockBytes, 23);     // blocks 3, 4 changed
  std::memset(ctx.inner.bytes.data() + 40 * kBlockBytes, 0, kBlockBytes);         // block 40 zeroed
  fillHeapLike(ctx.inner.bytes.data() + 90 * kBlockBytes, kBlockBytes, 24);        // block 90 (in zero page 5)
  REQUIRE(ctx.grow(10));
  fillHeapLike(ctx.inner.bytes.data() + std::size_t(9 * kBlocksPerPage + 2) * kBlockBytes, kBlockBytes, 25);
  Stats second = snap(ctx, t, s);
  CHECK(second.blocksChanged == 4);
  CHECK(second.blocksZeroed == 1);
  CHECK(second.chunksWritten == 1);
  CHECK(second.storedBytes < 5 * kBlockBytes);
  const Manifest m = t.manifest();
  CHECK(m.base == ic.base->id);
  CHECK(m.memoryPages == 10);
  CHECK(m.zeros == std::vector<Manifest::Range>{{40, 1}});
  CHECK(m.runs.size() == 3);  // 3+2, 90, 146

  // A block changed and changed back to the image's content is dropped from storage; its row goes with it.
  std::vector<uint8_t> saved(ctx.inner.bytes.begin() + 70 * kBlockBytes, ctx.inner.bytes.begin() + 71 * kBlockBytes);
  fillHeapLike(ctx.inner.bytes.data() + 70 * kBlockBytes, kBlockBytes, 26);
  Stats third = snap(ctx, t, s);
  CHECK(third.blocksChanged == 1);
  std::copy(saved.begin(), saved.end(), ctx.inner.bytes.begin() + 70 * kBlockBytes);
  Stats fourth = snap(ctx, t, s);
  CHECK(fourth.blocksChanged == 0);
  CHECK(fourth.blocksAsBase == 1);
  CHECK(fourth.chunksWritten == 0);
  CHECK(fourth.chunksDeleted == 1);
  Manifest after = t.manifest();
  CHECK(after.nextSegment == m.nextSegment + 1);
  after.nextSegment = m.nextSegment;
  CHECK(after == m);  // the same stored state as after the second take (its row is the only one)

  const std::string text = t.manifest().encode();
  Manifest decoded;
  std::string error;
  REQUIRE(Manifest::decode(text, decoded, error));
  auto chunks = s.chunks();
  const uint64_t differing = 5 * kBlockBytes;  // 3, 4, 40, 90 and the grown page's block

  // (a) a fresh instance of a module without data segments: all zero, and known to be.
  BasedMemory fresh(8, ic.base);
  fresh.known.assign(8 * kBlocksPerPage, 0);
  Tracker r1;
  REQUIRE(restore(fresh, decoded, chunks, r1, error));
  CHECK(fresh.inner.bytes == ctx.inner.bytes);
  CHECK(r1.hashes == t.hashes);
  CHECK(r1.owner == t.owner);
  CHECK(r1.base == ic.base);
  // (b) an instance holding the image, known (just applied): only the differing blocks are written.
  BasedMemory imaged(8, ic.base);
  imaged.inner.bytes = ic.image.bytes;
  for (uint32_t b = 0; b < 8 * kBlocksPerPage; b++) imaged.known.push_back(ic.base->blocks[b]);
  Tracker r2;
  REQUIRE(restore(imaged, decoded, chunks, r2, error));
  CHECK(imaged.inner.bytes == ctx.inner.bytes);
  CHECK(imaged.bytesWritten == differing);
  // (c) a pooled instance that ran another context (unknown: hashed): the image where it differs, then the context.
  BasedMemory pooled(8, ic.base);
  pooled.inner.bytes = ic.image.bytes;
  fillHeapLike(pooled.inner.bytes.data() + 3 * kBlockBytes, kBlockBytes, 31);      // 3 another context's
  fillHeapLike(pooled.inner.bytes.data() + 60 * kBlockBytes, 3 * kBlockBytes, 99);  // 60-62 another context's
  std::memset(pooled.inner.bytes.data() + 10 * kBlockBytes, 0, kBlockBytes);      // 10 zeroed by it
  Tracker r3;
  REQUIRE(restore(pooled, decoded, chunks, r3, error));
  CHECK(pooled.inner.bytes == ctx.inner.bytes);
  CHECK(r3.hashes == t.hashes);
  // Its blocks are compared with what they must hold byte for byte: a block that claims the right hash (through
  // knownBlocks that do not cover the memory, i.e. are ignored) but holds other bytes is rewritten.
  BasedMemory lying(8, ic.base);
  lying.inner.bytes = ic.image.bytes;
  lying.inner.bytes[20 * kBlockBytes + 5] ^= 0x40;  // an image block, altered
  for (uint32_t b = 0; b + 1 < 8 * kBlocksPerPage; b++) lying.known.push_back(ic.base->blocks[b]);
  Tracker r4;
  REQUIRE(restore(lying, decoded, chunks, r4, error));
  CHECK(lying.inner.bytes == ctx.inner.bytes);
  // (d) the restored context snapshots again: nothing changed, nothing written.
  Storage copy = s;
  Stats again = snap(pooled, r3, copy);
  CHECK(again.chunksWritten == 0);
  CHECK(again.chunksDeleted == 0);
}

TEST_CASE("restore over a pooled memory known exactly (Held): no read, only the blocks that differ are written",
          "[snapshot]") {
  ImageAndContext ic;
  const uint32_t blocks = 8 * kBlocksPerPage;
  // Context A, the last user of the pooled instance: its take leaves the tracker its memory now holds.
  BasedMemory a(8, ic.base);
  a.inner.bytes = ic.image.bytes;
  Storage sa;
  Tracker ta;
  snap(a, ta, sa);
  fillHeapLike(a.inner.bytes.data() + 7 * kBlockBytes, 2 * kBlockBytes, 41);    // 7, 8: A's own
  std::memset(a.inner.bytes.data() + 30 * kBlockBytes, 0, kBlockBytes);        // 30: zeroed by A
  fillHeapLike(a.inner.bytes.data() + 85 * kBlockBytes, kBlockBytes, 42);       // 85: in the image's zero page
  snap(a, ta, sa);
  const Held heldA = Held::of(ta);
  REQUIRE(heldA.blocks.size() == blocks);
  CHECK(heldA.base == ic.base);
  // Every block it names as zero or the image's is exactly that (the take compared them byte for byte).
  for (uint32_t b = 0; b < blocks; b++) {
    const uint8_t* data = a.inner.bytes.data() + std::size_t(b) * kBlockBytes;
    if (heldA.blocks[b] == kHeldZero) CHECK(isZero(data, kBlockBytes));
    const uint8_t* image = ic.image.bytes.data() + std::size_t(b) * kBlockBytes;
    if (heldA.blocks[b] == kHeldBase) CHECK(std::memcmp(data, image, kBlockBytes) == 0);
  }
  CHECK(heldA.blocks[7] == kHeldUnknown);
  CHECK(heldA.blocks[85] == kHeldUnknown);
  CHECK(heldA.blocks[30] == kHeldZero);
  CHECK(heldA.blocks[31] == kHeldBase);
  CHECK(heldA.zeroAt(5 * kBlocksPerPage + 1));               // the image's zero page: zero and the image's
  CHECK(heldA.baseAt(5 * kBlocksPerPage + 1, *ic.base));
  // verifyHeld finds the same by reading.
  Held read;
  REQUIRE(verifyHeld(a, ic.base, read));
  for (uint32_t b = 0; b < blocks; b++) {
    if (heldA.blocks[b] == kHeldUnknown) CHECK(read.blocks[b] == kHeldUnknown);
    else if (!(read.blocks[b] == heldA.blocks[b] || (read.zeroAt(b) && heldA.zeroAt(b))))
      FAIL("block " << b << " held " << int(heldA.blocks[b]) << " read " << int(read.blocks[b]));
  }

  // Context B: blocks 3, 4 changed, 40 zeroed, 90 written.
  BasedMemory bm(8, ic.base);
  bm.inner.bytes = ic.image.bytes;
  Storage sb;
  Tracker tb;
  snap(bm, tb, sb);
  fillHeapLike(bm.inner.bytes.data() + 3 * kBlockBytes, 2 * kBlockBytes, 23);
  std::memset(bm.inner.bytes.data() + 40 * kBlockBytes, 0, kBlockBytes);
  fillHeapLike(bm.inner.bytes.data() + 90 * kBlockBytes, kBlockBytes, 24);
  snap(bm, tb, sb);
  auto chunks = sb.chunks();
  const Manifest m = tb.manifest();

  // B over the instance A left, known exactly: nothing is read; B's 3 stored blocks, its zero block, and A's 4
  // blocks that B has as the image's (7, 8, 30, 85) are written: 8 blocks.
  BasedMemory pooled(8, ic.base);
  pooled.inner.bytes = a.inner.bytes;
  pooled.exactly = heldA;
  Tracker r;
  std::string error;
  REQUIRE(restore(pooled, m, chunks, r, error));
  CHECK(pooled.inner.bytes == bm.inner.bytes);
  CHECK(pooled.bytesRead == 0);
  CHECK(pooled.bytesWritten == 8 * kBlockBytes);
  CHECK(r.hashes == tb.hashes);

  // The same instance without that knowledge (the guest ran since, or it covers other pages or another base): the
  // memory is read and compared byte for byte, and the result is the same. A block changed behind the knowledge's
  // back (here: an image block A's tracker names as the image's) is only found that way.
  for (int variant = 0; variant < 3; variant++) {
    BasedMemory changed(8, ic.base);
    changed.inner.bytes = a.inner.bytes;
    changed.inner.bytes[50 * kBlockBytes + 9] ^= 0x10;
    if (variant == 1) {
      changed.exactly = heldA;
      changed.exactly->blocks.pop_back();  // does not cover the memory
    } else if (variant == 2) {
      changed.exactly = heldA;
      changed.exactly->base = std::make_shared<Base>(*ic.base);  // relative to another Base object
    }
    Tracker rc;
    REQUIRE(restore(changed, m, chunks, rc, error));
    CHECK(changed.inner.bytes == bm.inner.bytes);
    CHECK(changed.bytesRead == uint64_t(blocks) * kBlockBytes);
  }
}

TEST_CASE("take relative to a base: a block with the base's hash but other bytes is stored", "[snapshot]") {
  // A base whose hash of block 12 is that of other bytes (what a guest aiming at the image's hash would achieve): the
  // take compares with the image byte for byte, so the block is stored and restores as the memory held it.
  ImageAndContext ic;
  auto forged = std::make_shared<Base>(*ic.base);
  std::vector<uint8_t> other(kBlockBytes);
  fillHeapLike(other.data(), kBlockBytes, 77);
  forged->blocks[12] = blockHash(other.data());
  BasedMemory ctx(8, forged);
  ctx.inner.bytes = ic.image.bytes;
  std::copy(other.begin(), other.end(), ctx.inner.bytes.begin() + 12 * kBlockBytes);
  Storage s;
  Tracker t;
  Stats st = snap(ctx, t, s);
  CHECK(st.blocksChanged == 1);
  CHECK(t.owner[12] != 0);
  CHECK(Held::of(t).blocks[12] == kHeldUnknown);
  // Back to the image's bytes (whose hash the forged base no longer lists): not stored any more.
  std::copy(ic.image.bytes.begin() + 12 * kBlockBytes, ic.image.bytes.begin() + 13 * kBlockBytes,
            ctx.inner.bytes.begin() + 12 * kBlockBytes);
  Stats back = snap(ctx, t, s);
  CHECK(back.blocksAsBase == 1);
  CHECK(t.owner[12] == 0);
  CHECK(Held::of(t).blocks[12] == kHeldBase);
  // And to the forged bytes again: stored again, restored exactly over the image.
  std::copy(other.begin(), other.end(), ctx.inner.bytes.begin() + 12 * kBlockBytes);
  snap(ctx, t, s);
  CHECK(t.owner[12] != 0);
  BasedMemory imaged(8, forged);
  imaged.inner.bytes = ic.image.bytes;
  imaged.exactly = Held{forged, std::vector<uint8_t>(8 * kBlocksPerPage, kHeldBase)};
  Tracker r;
  std::string error;
  auto chunks = s.chunks();
  REQUIRE(restore(imaged, t.manifest(), chunks, r, error));
  CHECK(imaged.inner.bytes == ctx.inner.bytes);
}

TEST_CASE("restore relative to a base: another base or none is refused before anything is written", "[snapshot]") {
  ImageAndContext ic;
  BasedMemory ctx(8, ic.base);
  ctx.inner.bytes = ic.image.bytes;
  fillHeapLike(ctx.inner.bytes.data() + 3 * kBlockBytes, kBlockBytes, 23);
  Storage s;
  Tracker t;
  snap(ctx, t, s);
  auto chunks = s.chunks();
  std::string error;

  VectorMemory otherImage = ic.image;
  otherImage.bytes[7] ^= 1;
  BasedMemory other(8, baseOf(otherImage, 0x77));
  other.inner.bytes = otherImage.bytes;
  const auto before = other.inner.bytes;
  Tracker r;
  CHECK_FALSE(restore(other, t.manifest(), chunks, r, error));
  CHECK(error == "Snapshot is relative to boot image 1234abcd5678ef90; the instance starts from boot image "
                 "0000000000000077");
  CHECK(other.inner.bytes == before);
  CHECK(other.bytesWritten == 0);
  VectorMemory none(8);
  CHECK_FALSE(restore(none, t.manifest(), chunks, r, error));
  CHECK(error == "Snapshot is relative to boot image 1234abcd5678ef90; the instance starts from no boot image");
  // A base larger than the snapshot's memory: inconsistent.
  VectorMemory big(12);
  fillHeapLike(big.bytes.data(), kPageBytes, 3);
  BasedMemory small(8, baseOf(big, ic.base->id));
  CHECK_FALSE(restore(small, t.manifest(), chunks, r, error));
  CHECK(error == "Invalid snapshot manifest: fewer pages than its boot image");
}

TEST_CASE("format 1 restores over a memory with a base; the next take moves the context to format 2", "[snapshot]") {
  ImageAndContext ic;
  // A context snapshotted without a base (format 1, as before: every non-zero block stored).
  VectorMemory old(8);
  old.bytes = ic.image.bytes;
  fillHeapLike(old.bytes.data() + 3 * kBlockBytes, kBlockBytes, 23);
  Storage s;
  Tracker t;
  snap(old, t, s);
  const std::string v1 = t.manifest().encode();
  REQUIRE(v1.starts_with("sw-snap1;"));
  CHECK(s.rows.size() >= 1);
  Manifest m;
  std::string error;
  REQUIRE(Manifest::decode(v1, m, error));
  CHECK(m.base == 0);

  // Restored into an instance started from the image: the same bytes.
  BasedMemory ctx(8, ic.base);
  ctx.inner.bytes = ic.image.bytes;
  auto chunks = s.chunks();
  Tracker r;
  REQUIRE(restore(ctx, m, chunks, r, error));
  CHECK(ctx.inner.bytes == old.bytes);
  CHECK(r.base == nullptr);
  // Its next take rewrites it relative to the image: one block stored, the old rows removed.
  Stats st = snap(ctx, r, s);
  CHECK(st.fullRewrite);
  CHECK(st.blocksChanged == 1);
  CHECK(s.rows.size() == 1);
  CHECK(r.manifest().encode().starts_with("sw-snap2;"));
  BasedMemory fresh(8, ic.base);
  fresh.known.assign(8 * kBlocksPerPage, 0);
  Tracker again;
  chunks = s.chunks();
  REQUIRE(restore(fresh, r.manifest(), chunks, again, error));
  CHECK(fresh.inner.bytes == old.bytes);
}

namespace {

// A memory started from a base that scans in place (Memory::scan, as the core's guest memory does through the scanner
// module): asBase by byte comparison with the base's block, else blockHash. Counts what take() still reads.
struct ScanningMemory final : Memory {
  VectorMemory inner;
  std::shared_ptr<const Base> from;
  bool scans = true;
  uint64_t bytesRead = 0;
  uint32_t scanCalls = 0;
  ScanningMemory(uint32_t pages, std::shared_ptr<const Base> b) : inner(pages), from(std::move(b)) {}
  uint32_t pages() override { return inner.pages(); }
  bool read(uint64_t offset, uint8_t* dst, uint32_t len) override {
    bytesRead += len;
    return inner.read(offset, dst, len);
  }
  bool write(uint64_t offset, const uint8_t* src, uint32_t len) override { return inner.write(offset, src, len); }
  bool grow(uint32_t totalPages) override { return inner.grow(totalPages); }
  std::shared_ptr<const Base> base() override { return from; }
  bool scan(uint32_t first, uint32_t count, const Base* b, uint64_t* hashes, uint8_t* asBase) override {
    if (!scans) return false;
    REQUIRE(uint64_t(first) + count <= uint64_t(pages()) * kBlocksPerPage);
    scanCalls++;
    for (uint32_t i = 0; i < count; i++) {
      const uint8_t* data = inner.bytes.data() + std::size_t(first + i) * kBlockBytes;
      const uint8_t* ref = b ? b->blockData(first + i) : nullptr;
      asBase[i] = ref && std::memcmp(data, ref, kBlockBytes) == 0;
      hashes[i] = asBase[i] ? 0x5555 : blockHash(data);  // not read when asBase
    }
    return true;
  }
};

}  // namespace

TEST_CASE("take and verifyHeld scanning in place: the same rows, manifests and knowledge as reading", "[snapshot]") {
  std::mt19937 rng(GENERATE(4u, 5u));
  ImageAndContext ic;
  ScanningMemory scanned(8, ic.base), copied(8, ic.base);
  scanned.inner.bytes = copied.inner.bytes = ic.image.bytes;
  copied.scans = false;
  Storage s1, s2;
  Tracker t1, t2;
  Options o;
  o.maxSegmentBytes = 120000;
  o.scanBlocks = 5;  // many scan calls: their boundaries
  for (int round = 0; round < 40; round++) {
    std::vector<uint8_t>& bytes = scanned.inner.bytes;
    switch (rng() % 5) {
      case 0:
        if (scanned.pages() < 14) {
          const uint32_t to = scanned.pages() + 1 + rng() % 2;
          REQUIRE(scanned.grow(to));
        }
        break;
      case 1: {  // back to the image's content
        std::size_t block = rng() % (8 * kBlocksPerPage);
        std::memcpy(bytes.data() + block * kBlockBytes, ic.image.bytes.data() + block * kBlockBytes, kBlockBytes);
        break;
      }
      case 2: {
        std::size_t at = rng() % bytes.size(), n = std::min<std::size_t>(rng() % 40000, bytes.size() - at);
        std::memset(bytes.data() + at, 0, n);
        break;
      }
      default: {
        std::size_t at = rng() % bytes.size(), n = std::min<std::size_t>(rng() % 30000, bytes.size() - at);
        fillHeapLike(bytes.data() + at, n, rng());
      }
    }
    if (copied.pages() < scanned.pages()) REQUIRE(copied.grow(scanned.pages()));
    copied.inner.bytes = bytes;
    scanned.bytesRead = 0;
    Stats a = snap(scanned, t1, s1, o);
    Stats b = snap(copied, t2, s2, o);
    REQUIRE(s1.rows == s2.rows);
    REQUIRE(t1.manifest() == t2.manifest());
    REQUIRE(t1.hashes == t2.hashes);
    CHECK(a.blocksChanged == b.blocksChanged);
    CHECK(a.blockCount == b.blockCount);
    CHECK(a.pageCount == b.pageCount);
    // In place, take() reads only the blocks it writes (changed, or rewritten by compaction and not copied from
    // their row).
    CHECK(a.blocksCopied == b.blocksCopied);
    CHECK(scanned.bytesRead == uint64_t(a.blocksChanged + a.blocksCompacted - a.blocksCopied) * kBlockBytes);

    Held h1, h2;
    REQUIRE(verifyHeld(scanned, ic.base, h1));
    REQUIRE(verifyHeld(copied, ic.base, h2));
    CHECK(h1.blocks == h2.blocks);
    CHECK(h1.base == h2.base);
  }
  CHECK(scanned.scanCalls > 0);
  // Restored over the image, what it holds found by verifyHeld scanning in place: the very bytes.
  ScanningMemory fresh(8, ic.base);
  fresh.inner.bytes = ic.image.bytes;
  Tracker r;
  auto chunks = s1.chunks();
  std::string error;
  REQUIRE(restore(fresh, t1.manifest(), chunks, r, error));
  CHECK(fresh.inner.bytes == scanned.inner.bytes);
  CHECK(r.hashes == t1.hashes);
}
