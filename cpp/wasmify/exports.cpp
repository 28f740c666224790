// The C ABI of cpp/wasmify inside the Emscripten core (compiled only under __EMSCRIPTEN__).
//
// * JsGuestCaller: a GuestCaller over one guest instance registered with core.wasmifyBind(host, instance). Calls go
//   out through the import sw_guest_call (wasmify_bridge.js); memory through sw_guest_read/sw_guest_write (the WASI
//   bridge, cpp/wasi/wasi_bridge.js). While the guest runs, its WASI imports re-enter the core (sw_wasi_*).
// * sw_wasmify_js_run: one stateless JavaScript execution on a freshly instantiated engine.wasm under a WASI host.
//
// The guest's WASI host is reached only through the WASI bridge's own C exports (trap, fuel), never its internals.
#ifdef __EMSCRIPTEN__

#include <emscripten/emscripten.h>

#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "wasmify.h"

extern "C" {
// wasmify_bridge.js
int64_t sw_guest_call(uint32_t host, uint32_t id, const char* name, uint32_t nameLen, uint32_t argc, uint32_t a0,
                      uint32_t a1, void* status);
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
}

namespace {

using namespace sw::wasmify;

struct CallStatus {
  uint32_t threw;
  uint32_t messageLen;
  char message[256];
};

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

// TrapKind values of cpp/wasi (wasi.h): 1 Exit, 2 Fuel, 3 OutputLimit, 4 HostError.
class JsGuestCaller final : public GuestCaller {
 public:
  explicit JsGuestCaller(uint32_t host) : host_(host) {}

  Result<uint64_t> call(std::string_view name, std::initializer_list<uint32_t> args) override {
    const std::string* stored = nullptr;
    uint32_t id = exportId(name, &stored);
    uint32_t a[2] = {0, 0};
    uint32_t argc = 0;
    for (uint32_t v : args) {
      if (argc < 2) a[argc] = v;
      argc++;
    }
    if (argc > 2) return engineFailure("sw_guest_call: more than two arguments");
    CallStatus status{};
    int64_t r = sw_guest_call(host_, id, stored->data(), uint32_t(stored->size()), argc, a[0], a[1], &status);
    if (!status.threw) return uint64_t(r);
    switch (sw_wasi_trap_kind(host_)) {
      case 2:
      case 3:
        return Failure{FailureKind::Limit, trapMessage()};
      case 1:
        return Failure{FailureKind::Trap, "Engine exited with code " + std::to_string(sw_wasi_trap_exit_code(host_))};
      case 4:
        return Failure{FailureKind::Trap, trapMessage()};
      default:
        return Failure{FailureKind::Trap,
                       std::string(status.message, std::min<uint32_t>(status.messageLen, sizeof status.message))};
    }
  }
  bool read(uint32_t guestPtr, void* dst, uint32_t len) override {
    if (uint64_t(guestPtr) + len > uint64_t(sw_guest_size(host_))) return false;
    sw_guest_read(host_, guestPtr, dst, len);
    return true;
  }
  bool write(uint32_t guestPtr, const void* src, uint32_t len) override {
    if (uint64_t(guestPtr) + len > uint64_t(sw_guest_size(host_))) return false;
    sw_guest_write(host_, guestPtr, src, len);
    return true;
  }
  void setFuelInterrupt(uint32_t address) override { sw_wasi_fuel_set_interrupt(host_, address, 0, 0); }

 private:
  std::string trapMessage() const {
    return std::string(sw_wasi_trap_message(host_), sw_wasi_trap_message_len(host_));
  }
  uint32_t host_;
};

std::string g_result;  // the last call's result text; valid until the next sw_wasmify_* call

uint32_t finish(Result<std::string> r) {
  if (r) {
    g_result = std::move(r.value());
    return 0;
  }
  g_result = r.failure().message;
  switch (r.failure().kind) {
    case FailureKind::Engine: return 1;
    case FailureKind::Limit: return 2;
    case FailureKind::Trap: return 3;
  }
  return 1;
}

}  // namespace

extern "C" {

// One stateless JavaScript execution (SPEC §5.1 Engine.run) on a guest that was just instantiated under the WASI
// host `host` and registered with bindGuestMemory + wasmifyBind: resets the host's fuel to `fuel` (< 0: unmetered)
// and clears its trap, then _initialize, wasm_init, New, InterruptAddress, Eval.
// Returns 0 (result = EngineOutcome JSON), 1 engine error, 2 ExecutionLimitError, 3 guest trap (result = message).
// The instance must be discarded after a non-zero status.
EMSCRIPTEN_KEEPALIVE uint32_t sw_wasmify_js_run(uint32_t host, const char* code, uint32_t codeLen, const char* env,
                                                uint32_t envLen, double fuel) {
  try {
    sw_wasi_clear_trap(host);
    sw_wasi_fuel_reset(host, fuel);
    JsGuestCaller guest(host);
    ExecuteRequest request{std::string_view(code, codeLen), std::string_view(env, envLen)};
    return finish(runWasmify(guest, javascript::driver(), request));
  } catch (const std::exception& e) {
    return finish(Failure{FailureKind::Engine, std::string("wasmify host failure: ") + e.what()});
  } catch (...) {
    return finish(Failure{FailureKind::Engine, "wasmify host failure"});
  }
}

EMSCRIPTEN_KEEPALIVE const char* sw_wasmify_result() { return g_result.data(); }
EMSCRIPTEN_KEEPALIVE uint32_t sw_wasmify_result_len() { return uint32_t(g_result.size()); }

}  // extern "C"

#endif  // __EMSCRIPTEN__
