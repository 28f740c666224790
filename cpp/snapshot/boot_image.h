// Boot images (docs/boot-images.md): a built-in engine's memory right after boot (WASI _initialize, wasm_init, New),
// taken at build time under our own host in Node (scripts/boot-images.mjs) and shipped in the Worker bundle. A
// stateless execute and a new context start from it instead of booting: the image holds only the 4 KiB blocks that
// boot changed relative to a freshly instantiated module (cpp/snapshot's delta restore), compressed.
//
// File format (little endian): "SWBOOT1\n", u32 header length, header JSON {"build", "engine", "handle", "globals",
// "manifest", "zero": [block, ...]}, then the manifest's segments, each u32 id, u32 length, bytes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "../json/json.h"
#include "snapshot.h"

namespace sw::snapshot {

struct BootImage {
  std::string build;         // the engine build it was taken from (engine-build.json); another build ignores it
  std::string engine;        // the registry name
  uint64_t handle = 0;       // the interpreter handle New returned
  json::Value globals;       // the guest's exported mutable globals after boot
  Manifest manifest;
  std::vector<uint32_t> zeroBlocks;
  std::vector<uint8_t> bytes;                 // the whole file
  std::vector<StoredChunk> chunks;  // views into `bytes`
};

// nullptr + error on anything malformed (the rows themselves are verified when the image is applied).
std::shared_ptr<const BootImage> parseBootImage(std::vector<uint8_t> bytes, std::string& error);

std::string encodeBootImage(std::string_view build, std::string_view engine, uint64_t handle,
                            std::string_view globalsJson, const Manifest& manifest,
                            const std::vector<uint32_t>& zeroBlocks, const std::vector<StoredChunk>& rows);

// Writes the image into a freshly instantiated (not initialised) instance's memory: verified rows, the changed
// blocks, the blocks boot zeroed. False + error on anything wrong: discard the instance.
bool applyBootImage(const BootImage& image, Memory& memory, std::string& error);

}  // namespace sw::snapshot
