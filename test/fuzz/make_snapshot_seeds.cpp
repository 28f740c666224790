// Writes the seed corpus of sw_fuzz_snapshot (test/fuzz/fuzz_snapshot.cpp) into the directory argv[1], from real
// take() output: built with the fuzz preset as sw_fuzz_snapshot_seeds and run by scripts/fuzz-seeds.sh before every
// fuzz run, so the seeds always match the stored format.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <map>
#include <string>
#include <vector>

#include "snapshot/boot_image.h"
#include "snapshot/snapshot.h"

using namespace sw::snapshot;

namespace {

struct MapWriter final : ChunkWriter {
  std::map<uint32_t, std::vector<uint8_t>> rows;
  bool put(uint32_t id, const uint8_t* data, uint32_t len) override {
    rows[id].assign(data, data + len);
    return true;
  }
  bool remove(uint32_t id) override {
    rows.erase(id);
    return true;
  }
};

void put32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; i++) out.push_back(char(v >> (8 * i)));
}

bool writeFile(const std::string& path, const std::string& bytes) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  return std::fclose(f) == 0 && ok;
}

// A memory started from a base (what the fuzzer's flag bit 0 gives restore).
struct BasedMemory final : Memory {
  VectorMemory inner;
  std::shared_ptr<const Base> from;
  BasedMemory(uint32_t pages, std::shared_ptr<const Base> b) : inner(pages), from(std::move(b)) {}
  uint32_t pages() override { return inner.pages(); }
  bool read(uint64_t offset, uint8_t* dst, uint32_t len) override { return inner.read(offset, dst, len); }
  bool write(uint64_t offset, const uint8_t* src, uint32_t len) override { return inner.write(offset, src, len); }
  bool grow(uint32_t totalPages) override { return inner.grow(totalPages); }
  std::shared_ptr<const Base> base() override { return from; }
};

// The fuzzer's base (fuzz_snapshot.cpp makeBase): the listed blocks hold a pattern, the others are zero.
std::shared_ptr<const Base> makeBase(uint64_t id, uint32_t pages, const std::vector<uint16_t>& nonZero) {
  auto b = std::make_shared<Base>();
  b->id = id;
  b->pages = pages;
  b->blocks.assign(std::size_t(pages) * kBlocksPerPage, 0);
  for (uint16_t block : nonZero) {
    Base::Run run{uint64_t(block) * kBlockBytes, std::vector<uint8_t>(kBlockBytes, uint8_t(block | 1))};
    b->blocks[block] = blockHash(run.bytes.data());
    b->runs.push_back(std::move(run));
  }
  return b;
}

// The seed must restore (so the fuzzer starts from inputs that reach the end of restore()).
bool restores(const Manifest& m, const MapWriter& w, std::shared_ptr<const Base> base, uint32_t pages) {
  std::vector<StoredChunk> chunks;
  for (const auto& [id, bytes] : w.rows) chunks.push_back(StoredChunk{id, bytes.data(), uint32_t(bytes.size())});
  BasedMemory memory(pages, std::move(base));
  Tracker tracker;
  std::string error;
  if (restore(memory, m, chunks, tracker, error)) return true;
  std::fprintf(stderr, "seed does not restore: %s\n", error.c_str());
  return false;
}

// manifest line, flags, base blocks, rows (the fuzzer's input layout)
std::string restoreInput(const Manifest& m, const MapWriter& w, uint8_t flags, const std::vector<uint16_t>& baseBlocks) {
  std::string out = m.encode() + "\n";
  out.push_back(char(flags));
  out.push_back(char(baseBlocks.size()));
  for (uint16_t b : baseBlocks) {
    out.push_back(char(b & 0xff));
    out.push_back(char(b >> 8));
  }
  for (const auto& [id, bytes] : w.rows) {
    put32(out, id);
    put32(out, uint32_t(bytes.size()));
    out.append(bytes.begin(), bytes.end());
  }
  return out;
}

void fill(VectorMemory& m, uint32_t seed) {
  for (uint32_t i = 0; i < 200; i++) m.bytes[(i * 397 + seed * 4099) % m.bytes.size()] = uint8_t(i * 7 + seed);
  for (uint32_t i = 0; i < 300; i++) m.bytes[2 * kBlockBytes + i] = uint8_t('a' + i % 5);  // compressible
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  std::string error;
  int failures = 0;
  auto save = [&](const char* name, const std::string& bytes) {
    if (!writeFile(dir + "/" + name, bytes)) {
      std::fprintf(stderr, "cannot write %s/%s\n", dir.c_str(), name);
      failures++;
    }
  };

  // A full snapshot of two pages, then an incremental one (a second segment superseding some blocks).
  VectorMemory memory(2);
  fill(memory, 1);
  MapWriter writer;
  Tracker first, second;
  Stats stats;
  Options small;
  small.maxSegmentBytes = 6000;  // several rows
  if (!take(memory, Tracker{}, first, writer, stats, error, small)) return std::fprintf(stderr, "%s\n", error.c_str()), 1;
  if (!restores(first.manifest(), writer, nullptr, 0)) failures++;
  save("full", restoreInput(first.manifest(), writer, 0, {}));
  save("full-known", restoreInput(first.manifest(), writer, 2 | 4, {}));
  fill(memory, 2);
  if (!take(memory, first, second, writer, stats, error, small)) return std::fprintf(stderr, "%s\n", error.c_str()), 1;
  if (!restores(second.manifest(), writer, nullptr, 0)) failures++;
  save("incremental", restoreInput(second.manifest(), writer, 0, {}));

  // A context relative to a base (format 2): changed blocks, a base block zeroed, grown memory; and a boot image file.
  const std::vector<uint16_t> baseBlocks{1, 2, 5, 20, 47};
  auto base = makeBase(0x0123456789abcdefull, 3, baseBlocks);
  BasedMemory booted(3, base);
  for (const Base::Run& run : base->runs) std::copy(run.bytes.begin(), run.bytes.end(), booted.inner.bytes.begin() + run.offset);
  fill(booted.inner, 4);
  for (uint32_t i = 0; i < kBlockBytes; i++) booted.inner.bytes[5 * kBlockBytes + i] = 0;
  booted.grow(4);
  booted.inner.bytes[3 * kPageBytes + 5] = 9;
  Tracker delta;
  MapWriter deltaRows;
  if (!take(booted, Tracker{}, delta, deltaRows, stats, error)) return std::fprintf(stderr, "%s\n", error.c_str()), 1;
  if (delta.manifest().zeros.empty()) return std::fprintf(stderr, "the relative seed has no zero run\n"), 1;
  if (!restores(delta.manifest(), deltaRows, base, 2)) failures++;
  save("relative", restoreInput(delta.manifest(), deltaRows, 1 | 4, baseBlocks));
  save("relative-known", restoreInput(delta.manifest(), deltaRows, 1 | 2 | 4, baseBlocks));
  std::vector<StoredChunk> chunks;
  for (const auto& [id, bytes] : deltaRows.rows) chunks.push_back(StoredChunk{id, bytes.data(), uint32_t(bytes.size())});
  save("boot-image", encodeBootImage("fuzz-build", "fuzz", "0123456789abcdef", 42, R"({"__stack_pointer":65536})",
                                     delta.manifest(), chunks));

  // One compressed block (the lzDecompress input as is).
  std::vector<uint8_t> out(kBlockBytes * 2);
  std::vector<uint32_t> table(kLzTableEntries);
  const uint32_t n = lzCompress(&memory.bytes[2 * kBlockBytes], kBlockBytes, out.data(), uint32_t(out.size()), table.data());
  if (n) save("lz-block", std::string(out.begin(), out.begin() + n));
  return failures ? 1 : 0;
}
