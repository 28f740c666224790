// Built-in Wasm engines, driven by the core itself (see builtin.cpp): the per-server resources (the engine's /stdlib
// archive) and stateless execution.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "../server/server.h"
#include "../wasi/wasi.h"
#include "../wasmify/wasmify.h"
#include "../snapshot/boot_image.h"

namespace sw::core {

// What the core keeps for a server whose engine is built in. Created by the first sw_builtin_* call for the server.
struct BuiltinResources {
  std::shared_ptr<const wasi::Archive> stdlib;   // the engine's /stdlib (null: an empty directory)
  std::shared_ptr<const snapshot::BootImage> bootImage;    // null: every instance boots
};
BuiltinResources& builtinResources(uint32_t server);
// Forgets a server's resources (and its spare instance) when the server is freed.
void releaseBuiltinResources(uint32_t server);

// A guest instance of a server's built-in engine under a WASI host of its own; both are released (instance first) when
// the scope ends.
struct GuestScope {
  uint32_t host = 0;
  bool instantiated = false;
  GuestScope() = default;
  GuestScope(uint32_t h, bool inst) : host(h), instantiated(inst) {}
  GuestScope(const GuestScope&) = delete;
  GuestScope& operator=(const GuestScope&) = delete;
  ~GuestScope();
  // A fresh host with `options` and an instance of the server's engine under it; false if either failed.
  bool open(uint32_t server, wasi::HostOptions options);
};

// The engine's fuel budget for the WASI host's meter: limits.fuel, or -1 (unmetered) when it is 0.
double fuelBudget(const server::EngineInfo& engine);

// The host options every instance of a built-in engine runs with (SPEC §5.4: args ["sandbox"], an empty environment,
// env vars reach the engine through its driver; stdio captured; the reference policy), /stdlib mounted. With a boot
// image, also an empty, disabled /workspace: the image was taken with the session layout (fd 5 = /workspace, which
// wasi-libc records at boot), so a stateless instance has the same descriptors; its /workspace answers EACCES.
// Sessions replace it with the Interpreter's mirror.
wasi::HostOptions builtinHostOptions(uint32_t server);

// The server's boot image, or nullptr.
const snapshot::BootImage* builtinBootImage(uint32_t server);
// Writes `image` into the fresh (not initialised) guest under `host`: memory, then its globals. False + error:
// discard the instance.
bool loadBootImage(uint32_t host, const snapshot::BootImage& image, std::string& error);

// Starts the engine's interpreter in a guest just instantiated under `host`: from the boot image when the server has
// one (memory written, globals set, AfterRestore), else a full boot (_initialize, wasm_init, New). The host's fuel is
// reset to the budget first.
wasmify::Result<wasmify::Instance> startBuiltinInstance(uint32_t server, uint32_t host, wasmify::GuestCaller& guest,
                                                       const wasmify::WasmifyDriver& driver, double fuelBudget);

// The engine's outcome JSON with `usage` (SPEC §3.4) added from the instance under WASI host `host`, unless the
// round ended on a limit: a limit carries none (§10.3 item 39), in-guest output/result limits alike. An outcome that
// is not a JSON object comes back unchanged (the server reports it).
std::string withUsage(std::string outcomeJson, uint32_t host, const server::EngineInfo& engine);

// Runs `payload` ({code, envVars?}) on a fresh instance of the server's built-in engine and settles the exchange.
const server::Action& runBuiltinEngine(uint32_t serverHandle, server::Exchange& exchange,
                                       const server::EngineInfo& engine, const std::string& payload);

}  // namespace sw::core
