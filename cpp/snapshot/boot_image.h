// Boot images (docs/boot-images.md): a built-in engine's memory right after boot (WASI _initialize, wasm_init, New),
// taken at build time under our own host in Node (scripts/boot-images.mjs) and shipped in the Worker bundle. A
// stateless execute and a new context start from it instead of booting. The image holds every non-zero 4 KiB block
// of that memory, compressed, so it also carries what the module's data segments put there: the module the Worker
// ships has none (sw-wasm-fuel --strip-data), and instantiating it copies nothing the image then overwrites.
//
// File format (little endian): "SWBOOT2\n", u32 header length, header JSON {"build", "engine", "module", "handle",
// "globals", "manifest"}, then the manifest's segments, each u32 id, u32 length, bytes. `module` is the id of the
// module stripped from the one the image was taken from (the sw.nodata section, cpp/tools/wasm_fuel.h), "" if none.
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
  std::string module;        // the stripped module's id (16 hex digits): only that module may start from it
  uint64_t handle = 0;       // the interpreter handle New returned
  // hash64 of the whole file (never 0): the Base::id of the memory it gives an instance, which a context's snapshot
  // (format 2) is stored relative to and restores only over.
  uint64_t id = 0;
  json::Value globals;       // the guest's exported mutable globals after boot
  Manifest manifest;          // every non-zero block of the booted memory
  std::vector<uint8_t> bytes;                 // the whole file
  std::vector<StoredChunk> chunks;  // views into `bytes`

  // Frees the rows (and the file) once they are no longer needed; the header fields stay. Applying the image after
  // this fails (its rows are missing).
  void dropRows() {
    chunks = {};
    bytes = {};
  }
};

// nullptr + error on anything malformed (the rows themselves are verified when the image is applied).
std::shared_ptr<BootImage> parseBootImage(std::vector<uint8_t> bytes, std::string& error);

std::string encodeBootImage(std::string_view build, std::string_view engine, std::string_view module, uint64_t handle,
                            std::string_view globalsJson, const Manifest& manifest,
                            const std::vector<StoredChunk>& rows);

// Writes the image into a freshly instantiated (not initialised) instance's memory, with or without data segments:
// verified rows, every stored block, and every other block zeroed (only those not known to be zero already:
// Memory::knownBlocks). False + error on anything wrong: discard the instance.
bool applyBootImage(const BootImage& image, Memory& memory, std::string& error);

// The module id in a stripped module's sw.nodata section ("sw-nodata1;module=<16 hex>;..."), or "" if the text is
// not one.
std::string noDataModuleId(std::string_view section);

}  // namespace sw::snapshot
