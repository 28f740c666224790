// Bench only (not part of sw_snapshot): cpp/snapshot as a small Emscripten module whose Memory and ChunkWriter are
// JavaScript, so bench/snapshot-pages.mjs can run the real take()/restore() against a live engine.wasm instance the
// way the core does: every memory access is a copy between the guest's memory and this module's heap, made in JS.
// bench/snapshot-pages.mjs compiles it on demand (em++ -O2 -msimd128) into build/snap-bench/.
#include <emscripten.h>

#include <string>
#include <vector>

#include "snapshot/snapshot.h"

using namespace sw::snapshot;

EM_JS(uint32_t, bench_pages, (), { return Module.bench.pages(); });
EM_JS(int, bench_read, (double offset, uint8_t* dst, uint32_t len), { return Module.bench.read(offset, dst, len); });
EM_JS(int, bench_write, (double offset, const uint8_t* src, uint32_t len),
      { return Module.bench.write(offset, src, len); });
EM_JS(int, bench_grow, (uint32_t pages), { return Module.bench.grow(pages); });
EM_JS(int, bench_put, (uint32_t id, const uint8_t* data, uint32_t len), { return Module.bench.put(id, data, len); });
EM_JS(int, bench_remove, (uint32_t id), { return Module.bench.remove(id); });

namespace {

struct JsMemory final : Memory {
  uint32_t pages() override { return bench_pages(); }
  bool read(uint64_t offset, uint8_t* dst, uint32_t len) override { return bench_read(double(offset), dst, len); }
  bool write(uint64_t offset, const uint8_t* src, uint32_t len) override {
    return bench_write(double(offset), src, len);
  }
  bool grow(uint32_t totalPages) override { return bench_grow(totalPages); }
};

struct JsWriter final : ChunkWriter {
  bool put(uint32_t chunk, const uint8_t* data, uint32_t len) override { return bench_put(chunk, data, len); }
  bool remove(uint32_t chunk) override { return bench_remove(chunk); }
};

Tracker tracker;
Stats stats;
std::string text;
std::vector<uint32_t> table(kLzTableEntries, 0);

}  // namespace

extern "C" {

// take() over the JS memory into the JS writer; 1 = ok (else snap_text() is the error).
EMSCRIPTEN_KEEPALIVE int snap_take(int compress, uint32_t maxSegmentBytes, uint32_t batchBytes) {
  JsMemory memory;
  JsWriter writer;
  Options options;
  options.compress = compress != 0;
  if (maxSegmentBytes) options.maxSegmentBytes = maxSegmentBytes;
  if (batchBytes) options.batchBytes = batchBytes;
  return take(memory, tracker, tracker, writer, stats, text, options) ? 1 : 0;
}

EMSCRIPTEN_KEEPALIVE void snap_reset() { tracker = Tracker{}; }

// Stats as doubles, in the order of the struct.
EMSCRIPTEN_KEEPALIVE double snap_stat(int i) {
  const double v[] = {double(stats.memoryPages),     double(stats.pageCount),     double(stats.bytes),
                      double(stats.blockCount),      double(stats.chunkCount),    double(stats.storedBytes),
                      double(stats.chunksWritten),   double(stats.chunksDeleted), double(stats.bytesWritten),
                      double(stats.blocksChanged),   double(stats.blocksZeroed),  double(stats.blocksCompacted),
                      double(stats.rawBytesWritten), double(stats.fullRewrite)};
  return i >= 0 && i < int(sizeof v / sizeof v[0]) ? v[i] : -1;
}

EMSCRIPTEN_KEEPALIVE const char* snap_manifest() {
  text = tracker.manifest().encode();
  return text.c_str();
}

EMSCRIPTEN_KEEPALIVE const char* snap_text() { return text.c_str(); }

// restore() into the JS memory from `count` rows (ids[i], ptrs[i], lens[i]) and a manifest; seeds the tracker.
EMSCRIPTEN_KEEPALIVE int snap_restore(const char* manifestText, const uint32_t* ids, const uint32_t* ptrs,
                                      const uint32_t* lens, int count) {
  Manifest manifest;
  if (!Manifest::decode(manifestText, manifest, text)) return 0;
  std::vector<StoredChunk> chunks;
  for (int i = 0; i < count; i++)
    chunks.push_back({ids[i], reinterpret_cast<const uint8_t*>(uintptr_t(ptrs[i])), lens[i]});
  JsMemory memory;
  return restore(memory, manifest, chunks, tracker, text) ? 1 : 0;
}

// The codec's output size for one block (len if it does not compress below len).
EMSCRIPTEN_KEEPALIVE uint32_t snap_lz_size(const uint8_t* data, uint32_t len) {
  static std::vector<uint8_t> out(65536 + 1024);
  uint32_t n = lzCompress(data, len, out.data(), len - 1, table.data());
  return n ? n : len;
}

EMSCRIPTEN_KEEPALIVE int snap_is_zero(const uint8_t* data, uint32_t len) { return isZero(data, len); }

}  // extern "C"
