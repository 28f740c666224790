// sw-wasm-fuel: rewrites a prebuilt wasm module so our host meters it (docs/fuel-tool.md). Built natively; engine
// build scripts run it through scripts/tools/wasm-fuel.sh.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace sw::tools {

struct FuelOptions {
  // Ticks spent between two `sandbox.charge` calls; 1..2^30 so `batch - left` never overflows an i32.
  uint32_t batch = 1024;
  // When set: the single defined memory's maximum, in 64 KiB pages.
  std::optional<uint32_t> maxPages;
};

struct FuelStats {
  uint32_t functions = 0;  // function bodies instrumented (the refill function excluded)
  uint32_t loops = 0;      // loop heads instrumented
  uint32_t droppedCustomSections = 0;
};

// The instrumented module, or nullopt with a message in *error. Never throws; the same input and options give the
// same bytes.
std::optional<std::vector<uint8_t>> instrumentFuel(std::span<const uint8_t> in, const FuelOptions& options,
                                                   std::string* error, FuelStats* stats = nullptr);

}  // namespace sw::tools
