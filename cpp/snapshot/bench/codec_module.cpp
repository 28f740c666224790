// Bench only (not part of sw_snapshot): the block codec (cpp/snapshot/codec.cpp) alone as a small Emscripten module,
// so bench/snapshot-codec.mjs can time lzCompress / lzDecompress in Wasm per 4 KiB block, one module per codec
// version (this tree's and a base commit's), side by side in one Node process.
#include <emscripten.h>

#include <algorithm>
#include <vector>

#include "snapshot/snapshot.h"

using namespace sw::snapshot;

namespace {

std::vector<uint32_t> table(kLzTableEntries, 0);

}  // namespace

extern "C" {

// Compresses `count` consecutive 4 KiB blocks of `src` in order with one table (as a take's writer does: the table's
// stale positions carry over from block to block, so the output depends on the order), capacity 4,095 like a take;
// block i's output goes to out + i * 4096, its length (0 = stored raw) to lens[i]. With `us`, each call is timed
// (microseconds into us[i]); without, only the whole loop. Returns the loop's milliseconds.
EMSCRIPTEN_KEEPALIVE double codec_compress(const uint8_t* src, uint32_t count, uint8_t* out, uint32_t* lens,
                                           double* us) {
  std::fill(table.begin(), table.end(), 0u);
  const double start = emscripten_get_now();
  for (uint32_t i = 0; i < count; i++) {
    const std::size_t at = std::size_t(i) * kBlockBytes;
    if (us) {
      const double t = emscripten_get_now();
      lens[i] = lzCompress(src + at, kBlockBytes, out + at, kBlockBytes - 1, table.data());
      us[i] = (emscripten_get_now() - t) * 1e3;
    } else {
      lens[i] = lzCompress(src + at, kBlockBytes, out + at, kBlockBytes - 1, table.data());
    }
  }
  return emscripten_get_now() - start;
}

// Decodes `count` compressed blocks (block i: lens[i] bytes at packed + i * 4096) into a ring of 64 blocks at `out`
// (a restore decodes into a batch buffer the same way); ok[i] = 1 if it decoded. `us` as for codec_compress.
EMSCRIPTEN_KEEPALIVE double codec_decompress(const uint8_t* packed, const uint32_t* lens, uint32_t count,
                                             uint8_t* out, uint8_t* ok, double* us) {
  const double start = emscripten_get_now();
  for (uint32_t i = 0; i < count; i++) {
    const uint8_t* in = packed + std::size_t(i) * kBlockBytes;
    uint8_t* dst = out + std::size_t(i % 64) * kBlockBytes;
    if (us) {
      const double t = emscripten_get_now();
      ok[i] = lzDecompress(in, lens[i], dst, kBlockBytes);
      us[i] = (emscripten_get_now() - t) * 1e3;
    } else {
      ok[i] = lzDecompress(in, lens[i], dst, kBlockBytes);
    }
  }
  return emscripten_get_now() - start;
}

// One block, for building the corpus: decodes `len` bytes at `in` into `out` (4 KiB); 1 if it decoded.
EMSCRIPTEN_KEEPALIVE int codec_decode_one(const uint8_t* in, uint32_t len, uint8_t* out) {
  return lzDecompress(in, len, out, kBlockBytes);
}

}  // extern "C"
