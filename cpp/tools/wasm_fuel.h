// sw-wasm-fuel: rewrites a prebuilt wasm module so our host meters it (docs/fuel-tool.md). Built natively; engine
// build scripts run it through scripts/tools/wasm-fuel.sh.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sw::tools {

// What to do with a module that already imports `sandbox.charge` (an engine that counts some of its own work).
enum class ExistingCharge {
  Refuse,  // an error (the default: such a module may already be instrumented)
  Reuse,   // the meter calls that import; the module's own calls keep charging
  Mute,    // the meter calls that import; the module's own calls go to a stub that charges nothing and returns 0
};

struct FuelOptions {
  // Ticks spent between two `sandbox.charge` calls; 1..2^30 so `batch - left` never overflows an i32. Weighted:
  // units per charge (the counter then holds batch * scale weight).
  uint32_t batch = 1024;
  // When set: the single defined memory's maximum, in 64 KiB pages.
  std::optional<uint32_t> maxPages;
  // Weighted metering: every straight-line run of code is charged its static cost (one per instruction, more for
  // calls and divisions) where it starts, checked at function entries and loop heads; memory.copy/fill/init charge
  // one per 4 bytes of their length. Without it: one tick per function entry and loop head.
  bool weighted = false;
  // Weighted only: weight per fuel unit (the engine's calibration, docs/fuel.md). batch * scale must fit 2^30.
  uint32_t scale = 1;
  // Weighted only: the weight of call_indirect and return_call_indirect, 1..1000 (an engine's calibration: a sort
  // whose comparator is called through a table wants more, an interpreter whose every operation is one less).
  uint32_t indirectCallWeight = 12;
  ExistingCharge existingCharge = ExistingCharge::Refuse;
  // The stack mark (docs/fuel-tool.md "The stack mark"): every `global.set` of the stack pointer also lowers a new
  // exported global, sw_stack_low, to the value set when it is lower. The host resets it to the stack pointer
  // (exported as sw_stack_pointer) and reads it later: the stack below it, less the ABI's red zone, was not written
  // in between. Only for a module whose stack comes first in memory (wasm-ld --stack-first): the stack is then
  // [sw_stack_base, sw_stack_top), both exported constants, with every data segment above it.
  bool stackMark = false;
};

struct FuelStats {
  uint32_t functions = 0;  // function bodies instrumented (the refill function excluded)
  uint32_t loops = 0;      // loop heads instrumented
  uint32_t segments = 0;   // weighted: straight-line runs charged
  uint32_t bulk = 0;       // weighted: memory.copy/fill/init charged by length
  uint32_t folded = 0;     // weighted: small loop-free functions charged at their call sites instead
  uint32_t muted = 0;      // calls of the module's own sandbox.charge sent to the stub
  uint32_t droppedCustomSections = 0;
  uint32_t stackMarks = 0;  // stack mark: `global.set` of the stack pointer rewritten
};

// The instrumented module, or nullopt with a message in *error. Never throws; the same input and options give the
// same bytes.
std::optional<std::vector<uint8_t>> instrumentFuel(std::span<const uint8_t> in, const FuelOptions& options,
                                                   std::string* error, FuelStats* stats = nullptr);

// --- modules without data segments (sw-wasm-fuel --strip-data; docs/boot-images.md) ---------------------------------

// The custom section a stripped module carries: "sw-nodata1;module=<16 hex>;segments=<n>;bytes=<n>", `module` being
// hash64 (cpp/snapshot) of the whole input module with kNoDataSeed. The boot image taken from that input records the
// same id, and the core refuses to start the stripped module from any other image or without one.
inline constexpr char kNoDataSection[] = "sw.nodata";
inline constexpr uint64_t kNoDataSeed = 0x53574e4f44415441ull;  // "SWNODATA"

struct StripStats {
  uint32_t activeSegments = 0;   // removed (or, when code names segments, emptied into passive ones)
  uint64_t activeBytes = 0;      // the bytes instantiation no longer copies
  uint32_t passiveSegments = 0;  // kept as they were (memory.init copies them at run time)
  bool keptIndices = false;      // code uses memory.init or data.drop: every segment index stays valid
  uint64_t module = 0;           // the id written into the section
  std::string section;           // the section's text
};

// The module with nothing left for instantiation to copy into memory: every active data segment is dropped. When the
// code uses memory.init or data.drop, the data section keeps its segment count: each active segment becomes an empty
// passive one (to memory.init and data.drop the same as an active segment after instantiation, which drops it), and
// passive segments stay whole. Otherwise the data and data count sections go entirely. Everything else is copied as
// it is; the kNoDataSection section is appended. Only ever run the result from the input's boot image. nullopt with
// a message in *error for a module it cannot read or one already stripped. Never throws; same input, same bytes.
std::optional<std::vector<uint8_t>> stripDataSegments(std::span<const uint8_t> in, std::string* error,
                                                      StripStats* stats = nullptr);

// --- a prebuilt module's embedded files out of its memory (sw-wasm-fuel --extract-files; docs/fuel-tool.md) ---------

// zeroperl (engines/perl) embeds its Perl library in its data segments: a table of {char* path, uint8_t* start,
// uint8_t* end} (3 x u32) whose paths start with a prefix ("/zeroperl"), and lookups that claim every path under
// that prefix (strncmp with the prefix's one string) and never ask WASI for it. extractEmbeddedFiles returns the
// module with those files' bytes gone from its data segments and the prefix string's first byte set to NUL, so that
// no path matches it and every open/stat goes to WASI, where the host serves the same files (an archive mount,
// docs/wasi-host.md); the files come back in *files. It refuses, with a message, anything it cannot identify
// exactly: the prefix string not exactly once in the data, no longest run of table entries or two, entries whose
// contents are not contiguous or paths that repeat or are not plain, a table or prefix address no i32.const in the
// code names, code that names data segments (memory.init, data.drop), passive segments or non-constant addresses.
// Never throws; same input, same bytes.
struct EmbeddedFile {
  std::string path;  // absolute, as the table has it ("/zeroperl/lib/5.42.0/strict.pm")
  std::vector<uint8_t> data;
};
struct ExtractStats {
  uint32_t files = 0;
  uint64_t bytes = 0;           // the files' contents, removed from the data segments
  uint32_t table = 0;           // the table's address
  uint32_t prefix = 0;          // the prefix string's address
  uint32_t segmentsBefore = 0;  // active data segments in and out
  uint32_t segmentsAfter = 0;
};
std::optional<std::vector<uint8_t>> extractEmbeddedFiles(std::span<const uint8_t> in, std::string_view prefix,
                                                         std::vector<EmbeddedFile>* files, std::string* error,
                                                         ExtractStats* stats = nullptr);

}  // namespace sw::tools
