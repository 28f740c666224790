// A guest instance's memory and mutable globals as the core reaches them (Emscripten core only): through the shim's
// copy primitives (cpp/wasi/wasi_bridge.js) and the globals imports (host_imports.js).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "../json/json.h"
#include "../snapshot/snapshot.h"
#include "../wasi/bridge.h"

extern "C" {
// host_imports.js: the shim instantiates the engine's compiled module under WASI host `host` (and registers its memory
// and exports with the bridges), 1 = ok; release drops it. Instantiating a compiled module is synchronous.
uint32_t sw_host_instantiate_guest(uint32_t server, uint32_t host);
void sw_host_release_guest(uint32_t host);
// The instance pool (builtin.h): park the instance under `host` (its pool id; 0 = not parked), bind a parked
// instance under a new `host` (1 = ok), drop a parked instance.
uint32_t sw_host_park_guest(uint32_t host);
uint32_t sw_host_unpark_guest(uint32_t id, uint32_t host);
void sw_host_drop_parked(uint32_t id);
// host_imports.js / cpp/wasi/wasi_bridge.js
uint32_t sw_host_guest_grow(uint32_t host, uint32_t pages);
uint32_t sw_host_guest_globals(uint32_t host);
uint32_t sw_host_guest_set_global(uint32_t host, const char* name, uint32_t nameLen, const char* value,
                                  uint32_t valueLen);
void sw_guest_read(uint32_t host, uint32_t guestPtr, void* corePtr, uint32_t len);
void sw_guest_write(uint32_t host, uint32_t guestPtr, const void* corePtr, uint32_t len);
double sw_guest_size(uint32_t host);
// The memory scanner (cpp/tools/scanner.h) over the guest's memory, in place: 1 = done, 0 = not available or failed.
uint32_t sw_guest_scan(uint32_t host, uint32_t first, uint32_t count, const uint32_t* refs, uint64_t* hashes,
                       uint8_t* flags);
// The stack mark of an engine module our fuel tool rewrote (docs/fuel-tool.md "The stack mark"): with `reset`,
// sw_stack_low = sw_stack_pointer first; then out = {sw_stack_low, sw_stack_pointer, sw_stack_base, sw_stack_top}.
// 0 = the guest has none.
uint32_t sw_host_guest_stack(uint32_t host, uint32_t reset, uint32_t* out);
}

namespace sw::core {

// snapshot::Held of the memory under a WASI host, with the host's memoryGeneration when it was established.
struct HeldMemory {
  snapshot::Held held;
  uint64_t generation = 0;
  bool valid(uint32_t host) const { return generation == wasi::memoryGeneration(host); }
};

// The guest's linear memory for cpp/snapshot, through the same copy primitives as every WASI call.
class GuestMemoryView final : public snapshot::Memory {
 public:
  explicit GuestMemoryView(uint32_t host) : host_(host) {}
  uint32_t pages() override { return uint32_t(uint64_t(sw_guest_size(host_)) / snapshot::kPageBytes); }
  bool read(uint64_t offset, uint8_t* dst, uint32_t len) override {
    if (offset + len > uint64_t(sw_guest_size(host_))) return false;
    sw_guest_read(host_, uint32_t(offset), dst, len);
    return true;
  }
  bool write(uint64_t offset, const uint8_t* src, uint32_t len) override {
    if (offset + len > uint64_t(sw_guest_size(host_))) return false;
    wasi::touchMemory(host_);
    sw_guest_write(host_, uint32_t(offset), src, len);
    return true;
  }
  bool grow(uint32_t totalPages) override { return sw_host_guest_grow(host_, totalPages) != 0; }
  // In place, by the scanner module the shim instantiates over this guest's memory and the core's (docs/snapshots.md
  // "Scanning in place"): the base's blocks are named by their address in the core's heap.
  bool scan(uint32_t first, uint32_t count, const snapshot::Base* base, uint64_t* hashes, uint8_t* asBase) override {
    if (uint64_t(first) + count > uint64_t(sw_guest_size(host_)) / snapshot::kBlockBytes) return false;
    bool any = false;
    if (base) {
      blocks_.resize(count);
      refs_.resize(count);
      base->blockDataRange(first, count, blocks_.data());
      for (uint32_t i = 0; i < count; i++) {
        refs_[i] = uint32_t(reinterpret_cast<uintptr_t>(blocks_[i]));  // wasm32: a pointer is the heap address
        any = any || blocks_[i];
      }
    }
    return sw_guest_scan(host_, first, count, any ? refs_.data() : nullptr, hashes, asBase) != 0;
  }
  std::span<const uint64_t> knownBlocks() override { return known_; }
  // Set right after the memory was reset to a known image, cleared before the guest runs again.
  void setKnownBlocks(std::span<const uint64_t> known) { known_ = known; }
  std::shared_ptr<const snapshot::Base> base() override { return base_; }
  // The stack mark (docs/snapshots.md "The stack mark"): the stack below the lowest value the guest gave its stack
  // pointer since markClean(), less a red zone, was not written. Only once markClean() was called on this view.
  Blocks unwritten() override {
    uint32_t s[4];
    if (!clean_ || !sw_host_guest_stack(host_, 0, s)) return {};
    const uint32_t low = std::min(s[0], s[3]), base = s[2];
    if (low < base + kStackRedZone) return {};
    const uint32_t first = (base + snapshot::kBlockBytes - 1) / snapshot::kBlockBytes;
    const uint32_t end = (low - kStackRedZone) / snapshot::kBlockBytes;
    return end > first ? Blocks{first, end - first} : Blocks{};
  }
  // Right when memory is what a tracker describes (a restore wrote it, a take's transaction committed): the stack
  // mark starts again from the stack pointer.
  void markClean() { clean_ = sw_host_guest_stack(host_, 1, stack_) != 0; }
  // The boot image's memory the instance started from (a session's: its snapshots are stored relative to it).
  void setBase(std::shared_ptr<const snapshot::Base> base) { base_ = std::move(base); }
  // What the memory holds exactly (snapshot::Held), as of now: valid until anything writes the memory or calls the
  // guest (wasi::memoryGeneration moves).
  const snapshot::Held* held() override { return held_ && held_->valid(host_) ? &held_->held : nullptr; }
  void setHeld(snapshot::Held held) { held_ = HeldMemory{std::move(held), wasi::memoryGeneration(host_)}; }
  void setHeld(std::optional<HeldMemory> held) { held_ = std::move(held); }
  // The knowledge, if still valid (for the pool: parked with the instance).
  std::optional<HeldMemory> takeHeld() {
    std::optional<HeldMemory> h;
    if (held_ && held_->valid(host_)) h = std::move(held_);
    held_.reset();
    return h;
  }

 private:
  uint32_t host_;
  std::span<const uint64_t> known_;
  std::shared_ptr<const snapshot::Base> base_;
  std::optional<HeldMemory> held_;
  // What the guest may write below its lowest stack pointer: the C ABI's red zone is 128 bytes (LLVM's WebAssembly
  // frame lowering, for leaf functions); one whole block leaves room to spare.
  static constexpr uint32_t kStackRedZone = snapshot::kBlockBytes;
  bool clean_ = false;
  uint32_t stack_[4] = {};
  std::vector<const uint8_t*> blocks_;  // scan's scratch
  std::vector<uint32_t> refs_;
};

// Sets the guest's exported mutable globals from {name: value} (numbers, or strings for i64). False if one does not
// exist or does not take the value. Anything that is not an object sets nothing.
inline bool setGuestGlobals(uint32_t host, const json::Value& globals) {
  if (!globals.isObject()) return true;
  for (const auto& [name, value] : globals.members()) {
    std::string text = value.isString() ? value.asString() : value.isNumber() ? value.rawNumber() : "";
    if (text.empty() ||
        !sw_host_guest_set_global(host, name.data(), uint32_t(name.size()), text.data(), uint32_t(text.size())))
      return false;
  }
  return true;
}

}  // namespace sw::core
