// Writes the seed corpus of sw_fuzz_snapshot (test/fuzz/fuzz_snapshot.cpp) into the directory argv[1], from real
// take() output: built with the fuzz preset as sw_fuzz_snapshot_seeds and run by scripts/fuzz-seeds.sh before every
// fuzz run, so the seeds always match the stored format.
#include <cstdint>
#include <cstdio>
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

// The seed must restore (so the fuzzer starts from inputs that reach the end of restore()).
bool restores(const Manifest& m, const MapWriter& w, bool delta, const std::vector<uint32_t>& zero, uint32_t pages) {
  std::vector<StoredChunk> chunks;
  for (const auto& [id, bytes] : w.rows) chunks.push_back(StoredChunk{id, bytes.data(), uint32_t(bytes.size())});
  VectorMemory memory(pages);
  Tracker tracker;
  std::string error;
  RestoreOptions options;
  options.delta = delta;
  options.zeroBlocks = zero;
  if (restore(memory, m, chunks, tracker, error, options)) return true;
  std::fprintf(stderr, "seed does not restore: %s\n", error.c_str());
  return false;
}

// manifest line, flags, zero blocks, rows (the fuzzer's input layout)
std::string restoreInput(const Manifest& m, const MapWriter& w, uint8_t flags, const std::vector<uint16_t>& zero) {
  std::string out = m.encode() + "\n";
  out.push_back(char(flags));
  out.push_back(char(zero.size()));
  for (uint16_t b : zero) {
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
  if (!restores(first.manifest(), writer, false, {}, 0)) failures++;
  save("full", restoreInput(first.manifest(), writer, 0, {}));
  save("full-known", restoreInput(first.manifest(), writer, 2 | 4, {}));
  fill(memory, 2);
  if (!take(memory, first, second, writer, stats, error, small)) return std::fprintf(stderr, "%s\n", error.c_str()), 1;
  if (!restores(second.manifest(), writer, false, {}, 0)) failures++;
  save("incremental", restoreInput(second.manifest(), writer, 0, {}));

  // A delta against a fresh memory (what a boot image holds), with zeroed blocks; and the boot image file itself.
  VectorMemory fresh(3);
  fill(fresh, 3);
  Tracker pristine, delta;
  if (!pristineTracker(fresh, pristine, error)) return std::fprintf(stderr, "%s\n", error.c_str()), 1;
  VectorMemory booted = fresh;
  fill(booted, 4);
  for (uint32_t i = 0; i < kBlockBytes; i++) booted.bytes[5 * kBlockBytes + i] = 0;
  MapWriter deltaRows;
  if (!take(booted, pristine, delta, deltaRows, stats, error)) return std::fprintf(stderr, "%s\n", error.c_str()), 1;
  if (!restores(delta.manifest(), deltaRows, true, {5, 47}, 2)) failures++;
  save("delta", restoreInput(delta.manifest(), deltaRows, 1 | 4, {5, 47}));
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
