// libFuzzer target for sw-wasm-fuel (cpp/tools/wasm_fuel.cpp): any input either fails with a message or gives a
// module that, instrumented again, is refused as already instrumented (stripped or extracted again: refused too).
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>

#include "tools/wasm_fuel.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sw::tools::FuelOptions options;
  if (size > 0 && (data[0] & 1)) options.maxPages = 1u << (data[0] >> 4);
  options.batch = 1 + (size > 1 ? data[1] % 4096 : 0);
  // Weighted mode (every built-in engine's), with a scale and each way of treating an existing sandbox.charge.
  if (size > 0 && (data[0] & 2)) {
    options.weighted = true;
    options.scale = 1 + (size > 2 ? data[2] : 0);
    options.existingCharge = (data[0] & 4) ? sw::tools::ExistingCharge::Mute
                             : (data[0] & 8) ? sw::tools::ExistingCharge::Reuse
                                             : sw::tools::ExistingCharge::Refuse;
  }
  // The stack mark: refused with a message for any module whose stack it cannot prove comes first.
  options.stackMark = size > 3 && (data[3] & 1);
  std::string error;
  // --strip-data over the same input: refuses with a message or strips, and never strips its own output again.
  if (auto stripped = sw::tools::stripDataSegments(std::span(data, size), &error)) {
    if (sw::tools::stripDataSegments(*stripped, &error)) std::abort();
  } else if (error.empty()) {
    std::abort();
  }
  error.clear();
  // --extract-files over the same input (a one-letter prefix, so random data can hold it): refuses with a message, or
  // extracts, and its output has no prefix string left to find.
  if (auto extracted = sw::tools::extractEmbeddedFiles(std::span(data, size), "/z", nullptr, &error)) {
    if (sw::tools::extractEmbeddedFiles(*extracted, "/z", nullptr, &error)) std::abort();
  } else if (error.empty()) {
    std::abort();
  }
  error.clear();
  auto out = sw::tools::instrumentFuel(std::span(data, size), options, &error);
  if (!out) {
    if (error.empty()) std::abort();
    return 0;
  }
  auto again = sw::tools::instrumentFuel(*out, sw::tools::FuelOptions{}, &error);
  if (again || error.find("already imports sandbox.charge") == std::string::npos) std::abort();
  return 0;
}
