// HostGuestCaller (bridge.h): a GuestCaller over the guest instance registered for a WASI host handle. Emscripten only.
#ifdef __EMSCRIPTEN__

#include "bridge.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_map>
#include <vector>

#include "../abi/abi.h"
#include "../json/json.h"
#include "../wasi/bridge.h"
#include "../wasi/wasi.h"

extern "C" {
// wasmify_bridge.js
int64_t sw_guest_call(uint32_t host, uint32_t id, const char* name, uint32_t nameLen, uint32_t argc, uint32_t a0,
                      uint32_t a1, uint32_t a2, uint32_t a3, sw_guest_call_status* status);
// cpp/wasi/wasi_bridge.js
void sw_guest_read(uint32_t host, uint32_t guestPtr, void* corePtr, uint32_t len);
void sw_guest_write(uint32_t host, uint32_t guestPtr, const void* corePtr, uint32_t len);
double sw_guest_size(uint32_t host);
// cpp/wasi/exports.cpp
uint32_t sw_wasi_trap_kind(uint32_t h);
uint32_t sw_wasi_trap_exit_code(uint32_t h);
const char* sw_wasi_trap_message(uint32_t h);
uint32_t sw_wasi_trap_message_len(uint32_t h);
void sw_wasi_clear_trap(uint32_t h);
void sw_wasi_fuel_reset(uint32_t h, double budget);
void sw_wasi_fuel_set_interrupt(uint32_t h, uint32_t address, uint32_t bitsAddress, uint32_t bits);
int32_t sw_wasi_charge(uint32_t h, uint32_t units);
const char* sw_wasi_output(uint32_t h, uint32_t fd);
uint32_t sw_wasi_scratch_len(uint32_t h);
// wasmify_bridge.js: a guest's exported numeric global (NaN when it has none), and setting one (1 = ok).
double sw_guest_get_global(uint32_t host, const char* name, uint32_t nameLen);
uint32_t sw_guest_set_global(uint32_t host, const char* name, uint32_t nameLen, double value);
}

namespace sw::wasmify {

namespace {

// Export names are interned once per process: the bridge caches the looked-up function per instance and id.
uint32_t exportId(std::string_view name, const std::string** stored) {
  static std::unordered_map<std::string, uint32_t> ids;
  static std::vector<const std::string*> names;
  auto it = ids.find(std::string(name));
  if (it == ids.end()) {
    it = ids.emplace(std::string(name), uint32_t(names.size())).first;
    names.push_back(&it->first);  // unordered_map nodes are stable
  }
  *stored = names[it->second];
  return it->second;
}

}  // namespace

Result<uint64_t> HostGuestCaller::call(std::string_view name, std::initializer_list<uint32_t> args) {
  const std::string* stored = nullptr;
  uint32_t id = exportId(name, &stored);
  uint32_t a[4] = {0, 0, 0, 0};
  uint32_t argc = 0;
  for (uint32_t v : args) {
    if (argc < 4) a[argc] = v;
    argc++;
  }
  if (argc > 4) return engineFailure("sw_guest_call: more than four arguments");
  sw_guest_call_status status{};
  wasi::touchMemory(host_);  // the guest may write anywhere in its memory
  int64_t r =
      sw_guest_call(host_, id, stored->data(), uint32_t(stored->size()), argc, a[0], a[1], a[2], a[3], &status);
  if (!status.threw) return uint64_t(r);
  switch (wasi::TrapKind(sw_wasi_trap_kind(host_))) {
    case wasi::TrapKind::Fuel:
    case wasi::TrapKind::OutputLimit:
      return Failure{FailureKind::Limit, trapMessage()};
    case wasi::TrapKind::Exit: {
      // What an engine says on its way out (Perl: "Out of memory in ...") is the last line it wrote to fd 2.
      std::string said = stderrTail(64 * 1024);
      while (!said.empty() && (said.back() == '\n' || said.back() == '\r')) said.pop_back();
      if (auto nl = said.rfind('\n'); nl != std::string::npos) said.erase(0, nl + 1);
      if (said.size() > 200) said.resize(200);
      return Failure{FailureKind::Trap, "Engine exited with code " + std::to_string(sw_wasi_trap_exit_code(host_)) +
                                            (said.empty() ? "" : ": " + said)};
    }
    case wasi::TrapKind::HostError:
      return Failure{FailureKind::Trap, trapMessage()};
    default:
      return Failure{FailureKind::Trap,
                     std::string(status.message, std::min<uint32_t>(status.message_len, sizeof status.message))};
  }
}

std::string HostGuestCaller::stderrTail(uint32_t maxBytes) const {
  const char* text = sw_wasi_output(host_, 2);
  uint32_t len = sw_wasi_scratch_len(host_);
  uint32_t skip = len > maxBytes ? len - maxBytes : 0;
  return std::string(text + skip, len - skip);
}

bool HostGuestCaller::read(uint32_t guestPtr, void* dst, uint32_t len) {
  if (uint64_t(guestPtr) + len > uint64_t(sw_guest_size(host_))) return false;
  sw_guest_read(host_, guestPtr, dst, len);
  return true;
}

bool HostGuestCaller::write(uint32_t guestPtr, const void* src, uint32_t len) {
  if (uint64_t(guestPtr) + len > uint64_t(sw_guest_size(host_))) return false;
  wasi::touchMemory(host_);
  sw_guest_write(host_, guestPtr, src, len);
  return true;
}

void HostGuestCaller::setFuelInterrupt(uint32_t address) { sw_wasi_fuel_set_interrupt(host_, address, 0, 0); }

bool HostGuestCaller::canBoot() const { return !wasi::hostOf(host_).noDataSegments(); }

void HostGuestCaller::resetFuel(int64_t budget) {
  sw_wasi_clear_trap(host_);
  sw_wasi_fuel_reset(host_, double(budget));
}

Result<Unit> HostGuestCaller::flushFuel() {
  static constexpr std::string_view kLeft = "sw_fuel_left", kBatch = "sw_fuel_batch", kScale = "sw_fuel_scale";
  const double left = sw_guest_get_global(host_, kLeft.data(), uint32_t(kLeft.size()));
  const double batch = sw_guest_get_global(host_, kBatch.data(), uint32_t(kBatch.size()));
  if (std::isnan(left) || std::isnan(batch) || left >= batch) return Unit{};
  // Weighted modules count weight, `sw_fuel_scale` of it per unit (absent: tick mode, one per unit).
  double scale = sw_guest_get_global(host_, kScale.data(), uint32_t(kScale.size()));
  if (std::isnan(scale) || scale < 1) scale = 1;
  if (!sw_guest_set_global(host_, kLeft.data(), uint32_t(kLeft.size()), batch)) {
    return Failure{FailureKind::Trap, "the fuel counter of the engine cannot be set"};
  }
  // Below a refill the counter is at most one straight-line run (or one bulk length / 4) past zero: the spent weight
  // fits a u32 unless the counter is corrupt.
  const double spent = std::floor((batch - left) / scale);
  if (spent > double(UINT32_MAX)) return Failure{FailureKind::Trap, "the fuel counter of the engine is corrupt"};
  if (spent >= 1 && sw_wasi_charge(host_, uint32_t(spent)) != 0) return Failure{FailureKind::Limit, trapMessage()};
  return Unit{};
}

std::string HostGuestCaller::trapMessage() const {
  return std::string(sw_wasi_trap_message(host_), sw_wasi_trap_message_len(host_));
}

std::unique_ptr<GuestCaller> guestForHost(uint32_t host) { return std::make_unique<HostGuestCaller>(host); }

server::Usage hostUsage(uint32_t host) {
  const wasi::Fuel& fuel = wasi::hostOf(host).fuel();
  return {double(fuel.consumed()), fuel.metered() ? double(fuel.budget()) : 0, sw_guest_size(host)};
}

std::string withUsage(std::string outcomeJson, uint32_t host) {
  auto outcome = json::parseCopy(outcomeJson);
  if (!outcome.ok() || !outcome.value.isObject()) return outcomeJson;
  outcome.value.set("usage", server::usageJson(hostUsage(host)));
  return json::stringify(outcome.value);
}

}  // namespace sw::wasmify

#endif  // __EMSCRIPTEN__
