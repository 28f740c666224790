// libFuzzer target: the snapshot reader (cpp/snapshot) on hostile input. Every input goes through all of:
//
//   1. lzDecompress of the raw bytes into a 4 KiB block (and into a shorter length taken from the first byte);
//   2. parseBootImage of the raw bytes, and applyBootImage of an accepted image into a small memory;
//   3. Manifest::decode of the first line as text (an accepted manifest must survive encode -> decode unchanged);
//   4. restore of that manifest and the rows that follow the line into a small memory, twice: as given, and with
//      the manifest's segment lengths and checksums set to those of the rows (so the fuzzer gets past the checksum
//      gate into the row structure and the block hashes).
//
// Input layout after the first '\n' (see test/fuzz/make_snapshot_seeds.cpp, which writes the seed corpus):
//   u8 flags: bit 0 the memory starts from a base (Memory::base(), with the manifest's id, for format 2), bit 1 the
//             memory reports knownBlocks(), bit 2 the memory starts non-empty
//   u8 base-block count, then that many u16 block indices: the base's non-zero blocks (bit 0 only)
//   rows: u32 id, u32 length, bytes, ... (little endian; a truncated row ends the list)
//
// Anything must be rejected or accepted without a crash, leak, sanitizer report or out-of-bounds access; a
// violated invariant traps.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "snapshot/boot_image.h"
#include "snapshot/snapshot.h"

using namespace sw::snapshot;

namespace {

#define EXPECT(cond)               \
  do {                             \
    if (!(cond)) __builtin_trap(); \
  } while (0)

constexpr uint32_t kMaxFuzzPages = 32;  // restore into at most 2 MiB of memory

// A small memory that can report what it holds (the knownBlocks() skip path of restore).
class FuzzMemory final : public Memory {
 public:
  FuzzMemory(uint32_t pages, bool known, uint8_t fill, std::shared_ptr<const Base> base = nullptr)
      : known_(known), bytes_(std::size_t(pages) * kPageBytes), base_(std::move(base)) {
    for (std::size_t i = 0; i < bytes_.size(); i += 4096 + 17) bytes_[i] = fill;
  }
  std::shared_ptr<const Base> base() override { return base_; }
  uint32_t pages() override { return uint32_t(bytes_.size() / kPageBytes); }
  bool read(uint64_t offset, uint8_t* dst, uint32_t len) override {
    if (offset > bytes_.size() || len > bytes_.size() - offset) return false;
    std::memcpy(dst, bytes_.data() + offset, len);
    return true;
  }
  bool write(uint64_t offset, const uint8_t* src, uint32_t len) override {
    EXPECT(offset <= bytes_.size() && len <= bytes_.size() - offset);  // restore never writes out of range
    std::memcpy(bytes_.data() + offset, src, len);
    hashes_.clear();
    return true;
  }
  bool grow(uint32_t totalPages) override {
    if (totalPages > kMaxFuzzPages) return false;
    if (totalPages > pages()) bytes_.resize(std::size_t(totalPages) * kPageBytes, 0);
    hashes_.clear();
    return true;
  }
  std::span<const uint64_t> knownBlocks() override {
    if (!known_) return {};
    if (hashes_.empty()) {
      for (std::size_t off = 0; off < bytes_.size(); off += kBlockBytes) hashes_.push_back(blockHash(&bytes_[off]));
    }
    return hashes_;
  }

 private:
  bool known_;
  std::vector<uint8_t> bytes_;
  std::vector<uint64_t> hashes_;
  std::shared_ptr<const Base> base_;
};

// A base of `pages` whose listed blocks hold a pattern (one run per block), the others zero.
std::shared_ptr<const Base> makeBase(uint64_t id, uint32_t pages, const std::vector<uint32_t>& nonZero) {
  auto b = std::make_shared<Base>();
  b->id = id;
  b->pages = pages;
  b->blocks.assign(std::size_t(pages) * kBlocksPerPage, 0);
  uint64_t previous = UINT64_MAX;
  for (uint32_t block : nonZero) {  // ascending and distinct only: runs must be
    if (block >= b->blocks.size() || (previous != UINT64_MAX && block <= previous)) continue;
    previous = block;
    Base::Run run{uint64_t(block) * kBlockBytes, std::vector<uint8_t>(kBlockBytes, uint8_t(block | 1))};
    b->blocks[block] = blockHash(run.bytes.data());
    b->runs.push_back(std::move(run));
  }
  return b;
}

uint32_t get32(const uint8_t* p) { return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24; }

void lz(const uint8_t* data, size_t size) {
  static uint8_t block[kBlockBytes];
  const uint32_t len = uint32_t(size > UINT32_MAX ? UINT32_MAX : size);
  (void)lzDecompress(data, len, block, kBlockBytes);
  if (size) (void)lzDecompress(data + 1, len - 1, block, uint32_t(data[0]) * 16 + 1);
}

void bootImage(const uint8_t* data, size_t size) {
  std::string error;
  auto image = parseBootImage(std::vector<uint8_t>(data, data + size), error);
  EXPECT(image || !error.empty());
  if (!image || image->manifest.memoryPages > kMaxFuzzPages) return;
  FuzzMemory memory(0, false, 0);
  (void)applyBootImage(*image, memory, error);
}

void manifestAndRestore(const uint8_t* data, size_t size) {
  const uint8_t* nl = static_cast<const uint8_t*>(std::memchr(data, '\n', size));
  const std::string_view text(reinterpret_cast<const char*>(data), nl ? size_t(nl - data) : size);
  Manifest manifest;
  std::string error;
  if (!Manifest::decode(text, manifest, error)) {
    EXPECT(!error.empty());
    return;
  }
  {  // round trip
    Manifest again;
    std::string error2;
    EXPECT(Manifest::decode(manifest.encode(), again, error2));
    EXPECT(again == manifest);
  }
  if (!nl || manifest.memoryPages > kMaxFuzzPages) return;

  const uint8_t* p = nl + 1;
  const uint8_t* end = data + size;
  const uint8_t flags = p < end ? *p++ : 0;
  std::vector<uint32_t> zero;
  const uint8_t zeroCount = p < end ? *p++ : 0;
  for (uint8_t i = 0; i < zeroCount && end - p >= 2; i++, p += 2) zero.push_back(uint32_t(p[0]) | uint32_t(p[1]) << 8);
  std::vector<StoredChunk> rows;
  while (end - p >= 8) {
    const uint32_t id = get32(p), len = get32(p + 4);
    p += 8;
    if (len > size_t(end - p)) break;
    rows.push_back(StoredChunk{id, p, len});
    p += len;
  }

  const uint32_t startPages = (flags & 4) ? std::min<uint32_t>(manifest.memoryPages, 2) : 0;
  const std::shared_ptr<const Base> base =
      (flags & 1) ? makeBase(manifest.base ? manifest.base : 1, std::min<uint32_t>(manifest.memoryPages, 3), zero)
                  : nullptr;
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) {  // make every listed row's length and checksum match the manifest
      bool changed = false;
      for (Manifest::Segment& s : manifest.segments) {
        for (const StoredChunk& c : rows) {
          if (c.id != s.id) continue;
          s.bytes = c.len;
          s.checksum = hash64(c.data, c.len, kChecksumSeed);
          changed = true;
          break;
        }
      }
      if (!changed) return;
    }
    FuzzMemory memory(startPages, flags & 2, uint8_t(flags | 1), base);
    Tracker tracker;
    std::string restoreError;
    const bool ok = restore(memory, manifest, rows, tracker, restoreError);
    EXPECT(ok || !restoreError.empty());
    if (ok) {
      EXPECT(memory.pages() == manifest.memoryPages);
      EXPECT(tracker.seeded && tracker.memoryPages == manifest.memoryPages);
      EXPECT(tracker.base == (manifest.base ? base : nullptr));
      // A restored memory can be snapshotted again.
      struct NullWriter final : ChunkWriter {
        bool put(uint32_t, const uint8_t*, uint32_t) override { return true; }
        bool remove(uint32_t) override { return true; }
      } writer;
      Tracker next;
      Stats stats;
      std::string takeError;
      EXPECT(take(memory, tracker, next, writer, stats, takeError));
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1u << 20)) return -1;
  lz(data, size);
  bootImage(data, size);
  manifestAndRestore(data, size);
  return 0;
}
