// Runs a built-in Wasm engine (EngineInfo::builtin, a name in cpp/wasmify/registry.cpp) for one stateless execution,
// entirely from C++: a fresh WASI host (builtinHostOptions), a fresh engine instance the shim creates on request, the
// wasmify call sequence (cpp/wasmify), then the outcome with usage.
#include "builtin.h"

#include <emscripten/emscripten.h>

#include <string>
#include <unordered_map>

#include "../json/json.h"
#include "../wasi/bridge.h"
#include "../wasmify/bridge.h"

extern "C" {
// host_imports.js: the shim instantiates the engine's compiled module under WASI host `host` (and registers its memory
// and exports with the bridges); release drops it. Instantiating a compiled module is synchronous.
uint32_t sw_host_instantiate_guest(uint32_t server, uint32_t host);
void sw_host_release_guest(uint32_t host);
// cpp/wasi/exports.cpp
void sw_wasi_host_free(uint32_t h);
double sw_wasi_fuel_consumed(uint32_t h);
double sw_guest_size(uint32_t host);
void sw_wasi_clear_trap(uint32_t h);
void sw_wasi_fuel_reset(uint32_t h, double budget);
}

namespace sw::core {

namespace {

// Owns the WASI host and the guest instance for one run.
struct GuestScope {
  uint32_t host = 0;
  bool instantiated = false;
  ~GuestScope() {
    if (instantiated) sw_host_release_guest(host);
    if (host) sw_wasi_host_free(host);
  }
  // A fresh host and instance for `server`; false if either failed.
  bool open(uint32_t server) {
    host = wasi::newHostHandle(builtinHostOptions(server));
    if (!host) return false;
    instantiated = sw_host_instantiate_guest(server, host) != 0;
    return instantiated;
  }
};

// A spare instance per server: instantiated and booted (WASI _initialize, wasm_init, New, ...) after a response went
// out, so the next POST /execute only evaluates. It is used once, exactly like a fresh instance (same host
// configuration, fuel reset to the budget before the boot, so usage still counts the boot), then discarded.
struct Spare {
  uint32_t host = 0;
  uint64_t handle = 0;
};
std::unordered_map<uint32_t, Spare>& spares() {
  static std::unordered_map<uint32_t, Spare> map;
  return map;
}

std::unordered_map<uint32_t, BuiltinResources>& resources() {
  static std::unordered_map<uint32_t, BuiltinResources> map;
  return map;
}

double fuelBudget(const server::EngineInfo& engine) { return engine.limits.fuel > 0 ? engine.limits.fuel : -1; }

const wasmify::WasmifyDriver* driverOf(const server::EngineInfo& engine) {
  const wasmify::BuiltinEngine* e = wasmify::findBuiltinEngine(engine.builtin);
  return e ? &e->driver : nullptr;
}

}  // namespace

BuiltinResources& builtinResources(uint32_t server) { return resources()[server]; }

void releaseBuiltinResources(uint32_t server) {
  resources().erase(server);
  auto spare = spares().find(server);
  if (spare != spares().end()) {
    GuestScope scope{spare->second.host, true};  // releases the instance and its host
    spares().erase(spare);
  }
}

std::string withUsage(std::string outcomeJson, uint32_t host, const server::EngineInfo& engine) {
  auto outcome = json::parseCopy(outcomeJson);
  if (!outcome.ok() || !outcome.value.isObject()) return outcomeJson;
  const json::Value* error = outcome.value.find("error");
  const json::Value* name = error && error->isObject() ? error->find("name") : nullptr;
  if (name && name->isString() && name->asString() == "ExecutionLimitError") return outcomeJson;
  json::Value usage = json::Value::object();
  usage.set("fuelConsumed", json::Value::number(sw_wasi_fuel_consumed(host), ""));
  usage.set("fuelLimit", json::Value::number(engine.limits.fuel, ""));
  usage.set("memoryBytes", json::Value::number(sw_guest_size(host), ""));
  outcome.value.set("usage", std::move(usage));
  return json::stringify(outcome.value);
}

wasi::HostOptions builtinHostOptions(uint32_t server) {
  wasi::HostOptions o;
  o.args = {"sandbox"};
  o.stdio = wasi::StdioMode::Capture;
  o.referencePolicy = true;
  auto it = resources().find(server);
  if (it != resources().end()) o.stdlib = it->second.stdlib;
  return o;
}

const server::Action& runBuiltinEngine(uint32_t serverHandle, server::Exchange& exchange,
                                       const server::EngineInfo& engine, const std::string& payload) {
  const wasmify::WasmifyDriver* driver = driverOf(engine);
  if (!driver) return exchange.engineThrew(false, "unknown built-in engine");
  auto request = json::parseCopy(payload);  // the payload the server itself built: {code, envVars?}
  const json::Value* code = request.ok() ? request.value.find("code") : nullptr;
  if (!code || !code->isString()) return exchange.engineThrew(false, "invalid engine payload");
  std::string env;
  if (const json::Value* envVars = request.value.find("envVars")) env = json::stringify(*envVars);
  const wasmify::ExecuteRequest execute{code->asString(), env, {}};

  GuestScope scope;
  wasmify::Result<std::string> run = wasmify::engineFailure("");
  auto spare = spares().find(serverHandle);
  if (spare != spares().end()) {
    // The booted spare: evaluate only.
    scope.host = spare->second.host;
    scope.instantiated = true;
    const uint64_t handle = spare->second.handle;
    spares().erase(spare);
    wasmify::HostGuestCaller guest(scope.host);
    wasmify::Instance instance{guest, driver->service, handle};
    run = driver->runOnce(instance, execute);
  } else {
    if (!scope.open(serverHandle)) return exchange.engineThrew(false, "Engine initialization failed: instantiation");
    sw_wasi_clear_trap(scope.host);
    sw_wasi_fuel_reset(scope.host, fuelBudget(engine));
    wasmify::HostGuestCaller guest(scope.host);
    run = wasmify::runWasmify(guest, *driver, execute);
  }
  // A limit the host raised (a trap) is an ExecutionLimitError; an engine failure or a guest trap an EngineError.
  if (!run) return exchange.engineThrew(run.failure().kind == wasmify::FailureKind::Limit, run.failure().message);

  return exchange.engineFinished(withUsage(std::move(run.value()), scope.host, engine));
}

}  // namespace sw::core

extern "C" {
// Boots the next request's instance for a built-in engine, if none is waiting (the shim calls this after a response
// went out, from ctx.waitUntil). Returns 1 when a spare is ready.
EMSCRIPTEN_KEEPALIVE uint32_t sw_builtin_prepare_spare(uint32_t serverHandle) {
  try {
    const auto& engine = reinterpret_cast<sw::server::InterpreterServer*>(uintptr_t(serverHandle))->engine();
    const sw::wasmify::WasmifyDriver* driver = sw::core::driverOf(engine);
    if (!driver) return 0;
    if (sw::core::spares().count(serverHandle)) return 1;
    sw::core::GuestScope scope;
    if (!scope.open(serverHandle)) return 0;
    sw_wasi_clear_trap(scope.host);
    sw_wasi_fuel_reset(scope.host, sw::core::fuelBudget(engine));
    sw::wasmify::HostGuestCaller guest(scope.host);
    auto instance = sw::wasmify::bootInstance(guest, *driver);
    if (!instance) return 0;
    sw::core::spares()[serverHandle] = sw::core::Spare{scope.host, instance->handle};
    scope.host = 0;  // owned by the spare now
    scope.instantiated = false;
    return 1;
  } catch (...) {
    return 0;
  }
}

// The engine's /stdlib archive (a stored zip or a tar), copied once into the core and mounted read-only in every
// instance of the server's engine. 1 = ok; 0 = not a valid archive.
EMSCRIPTEN_KEEPALIVE uint32_t sw_builtin_set_stdlib(uint32_t serverHandle, const uint8_t* data, uint32_t len) {
  try {
    std::string error;
    auto archive = sw::wasi::Archive::parse(std::vector<uint8_t>(data, data + len), error);
    if (!archive) return 0;
    sw::core::builtinResources(serverHandle).stdlib = std::move(archive);
    return 1;
  } catch (...) {
    return 0;
  }
}
}
