// cpp/wasmify/bridge.h: the guest instance behind a WASI host handle, as a GuestCaller (Emscripten core only).
//
// The shim instantiates a guest under WASI host `host` (makeImportObject(core, host, module)) and registers it with
// both bridges: bindGuestMemory(core, host, instance.exports.memory) and core.wasmifyBind(host, instance) (in the
// core's own flow: the sw_host_instantiate_guest import). From then on C++ reaches that instance through
// HostGuestCaller:
//
//   sw::wasmify::HostGuestCaller guest(host);                 // or guestForHost(host) for a unique_ptr
//   auto session = sw::wasmify::bootWasmifySession(guest, driver, {cwd, fuel});
//   auto outcome = session->execute(driver, {code, envJson});
//
// * call(name, args): the import sw_guest_call (wasmify_bridge.js). A throw out of the guest is reported, never
//   propagated: a trap the host recorded (cpp/wasi: fuel backstop or output limit -> FailureKind::Limit; proc_exit or a
//   host failure -> Trap) or any other error (a Wasm RuntimeError -> Trap, with its text).
// * read/write: bounds-checked copies through sw_guest_read/sw_guest_write (cpp/wasi/wasi_bridge.js).
// * setFuelInterrupt(address): sw_wasi_fuel_set_interrupt(host, address, 0, 0) (the JavaScript meter, protocol §5.5).
// * resetFuel(budget): sw_wasi_clear_trap + sw_wasi_fuel_reset (budget < 0: unmetered).
//
// A HostGuestCaller holds only the handle: it is cheap, and it must not outlive the WASI host or the registration
// (core.wasmifyUnbind(host) / sw_wasi_host_free(host)). Calls made after the instance was unbound fail as Trap
// ("no guest instance bound to host N").
#pragma once

#ifdef __EMSCRIPTEN__

#include <cstdint>
#include <memory>
#include <string>

#include "../server/server.h"
#include "wasmify.h"

namespace sw::wasmify {

class HostGuestCaller final : public GuestCaller {
 public:
  explicit HostGuestCaller(uint32_t host) : host_(host) {}
  Result<uint64_t> call(std::string_view name, std::initializer_list<uint32_t> args) override;
  bool read(uint32_t guestPtr, void* dst, uint32_t len) override;
  bool write(uint32_t guestPtr, const void* src, uint32_t len) override;
  void setFuelInterrupt(uint32_t address) override;
  void resetFuel(int64_t budget) override;
  Result<Unit> flushFuel() override;
  bool canBoot() const override;
  std::string stderrTail(uint32_t maxBytes) const override;
  uint32_t host() const { return host_; }

 private:
  std::string trapMessage() const;
  uint32_t host_;
};

// The same, owned.
std::unique_ptr<GuestCaller> guestForHost(uint32_t host);

// protocol §3.4 usage of the run under WASI host `host` so far: its fuel meter (the budget; 0 when unmetered) and the
// bound guest's memory. Also once the budget is exhausted (fuelConsumed = fuelLimit then): every result carries usage,
// limit errors included (docs/protocol-decisions.md). The one source of usage for the built-in engines' outcomes, a
// JavaScript WasmifyDriver's and a JavaScript engine's (./wasi usage(), sw_wasmify_usage).
server::Usage hostUsage(uint32_t host);
// `outcomeJson` (an EngineOutcome) with `usage` set to hostUsage(host); one that is not a JSON object comes back
// unchanged (the server reports it).
std::string withUsage(std::string outcomeJson, uint32_t host);

}  // namespace sw::wasmify

#endif  // __EMSCRIPTEN__
