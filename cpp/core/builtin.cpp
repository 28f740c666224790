// Runs a built-in Wasm engine (EngineInfo::builtin) for one stateless execution, entirely from C++: a fresh WASI host
// (SPEC §5.4: args ["sandbox"], an empty environment — JavaScript receives envVars through the Eval request), a fresh
// engine instance the shim creates on request, the wasmify call sequence (cpp/wasmify), then the outcome with usage.
#include "builtin.h"

#include <emscripten/emscripten.h>

#include <string>
#include <unordered_map>

#include "../json/json.h"
#include "../wasmify/bridge.h"
#include "../wasmify/wasmify.h"

extern "C" {
// host_imports.js: the shim instantiates the engine's compiled module under WASI host `host` (and registers its memory
// and exports with the bridges); release drops it. Instantiating a compiled module is synchronous.
uint32_t sw_host_instantiate_guest(uint32_t server, uint32_t host);
void sw_host_release_guest(uint32_t host);
// cpp/wasi/exports.cpp
uint32_t sw_wasi_host_new(const char* config, uint32_t len, uint32_t archive);
void sw_wasi_host_free(uint32_t h);
double sw_wasi_fuel_consumed(uint32_t h);
double sw_guest_size(uint32_t host);
void sw_wasi_clear_trap(uint32_t h);
void sw_wasi_fuel_reset(uint32_t h, double budget);
// cpp/wasmify/exports.cpp
uint32_t sw_wasmify_js_run(uint32_t host, const char* code, uint32_t codeLen, const char* env, uint32_t envLen,
                           double fuel);
const char* sw_wasmify_result();
uint32_t sw_wasmify_result_len();
}

namespace sw::core {

namespace {

constexpr std::string_view kHostConfig =
    R"({"args":["sandbox"],"env":[],"workspace":false,"preopens":[],"stdio":"capture","referencePolicy":true})";

// Owns the WASI host and the guest instance for one run.
struct GuestScope {
  uint32_t host = 0;
  bool instantiated = false;
  ~GuestScope() {
    if (instantiated) sw_host_release_guest(host);
    if (host) sw_wasi_host_free(host);
  }
};

// A spare instance per server: instantiated and booted (WASI _initialize, wasm_init, New, InterruptAddress) after a
// response went out, so the next POST /execute only evaluates. It is used once, exactly like a fresh instance (same
// host configuration, fuel reset to the budget before the boot, so usage still counts the boot), then discarded.
struct Spare {
  uint32_t host = 0;
  uint64_t handle = 0;
};
std::unordered_map<uint32_t, Spare>& spares() {
  static std::unordered_map<uint32_t, Spare> map;
  return map;
}

double fuelBudget(const server::EngineInfo& engine) { return engine.limits.fuel > 0 ? engine.limits.fuel : -1; }

}  // namespace

const server::Action& runBuiltinEngine(uint32_t serverHandle, server::Exchange& exchange,
                                       const server::EngineInfo& engine, const std::string& payload) {
  auto request = json::parseCopy(payload);  // the payload the server itself built: {code, envVars?}
  const json::Value* code = request.ok() ? request.value.find("code") : nullptr;
  if (!code || !code->isString()) return exchange.engineThrew(false, "invalid engine payload");
  std::string env;
  if (const json::Value* envVars = request.value.find("envVars")) env = json::stringify(*envVars);

  GuestScope scope;
  const std::string& source = code->asString();
  uint32_t status = 0;
  std::string text;
  auto spare = spares().find(serverHandle);
  if (spare != spares().end()) {
    // The booted spare: evaluate only.
    scope.host = spare->second.host;
    scope.instantiated = true;
    const uint64_t handle = spare->second.handle;
    spares().erase(spare);
    wasmify::HostGuestCaller guest(scope.host);
    wasmify::Instance instance{guest, wasmify::javascript::kService, handle};
    auto r = wasmify::javascript::driver().runOnce(instance, wasmify::ExecuteRequest{source, env, {}});
    if (r) {
      text = std::move(r.value());
    } else {
      status = r.failure().kind == wasmify::FailureKind::Limit ? 2 : 1;
      text = r.failure().message;
    }
  } else {
    scope.host = sw_wasi_host_new(kHostConfig.data(), uint32_t(kHostConfig.size()), 0);
    if (!scope.host) return exchange.engineThrew(false, "Engine initialization failed: no WASI host");
    scope.instantiated = sw_host_instantiate_guest(serverHandle, scope.host) != 0;
    if (!scope.instantiated) return exchange.engineThrew(false, "Engine initialization failed: instantiation");
    status = sw_wasmify_js_run(scope.host, source.data(), uint32_t(source.size()), env.data(), uint32_t(env.size()),
                               fuelBudget(engine));
    text.assign(sw_wasmify_result(), sw_wasmify_result_len());
  }
  switch (status) {
    case 0: break;
    case 2: return exchange.engineThrew(true, text);    // ExecutionLimitError raised by the host (trap)
    default: return exchange.engineThrew(false, text);  // engine error or guest trap
  }

  // The driver's EngineOutcome, plus usage (SPEC §3.4) unless the round ended on a limit: the fuel interrupt must
  // carry none (§10.3 item 39), and the in-guest output/result limits are treated alike.
  auto outcome = json::parseCopy(text);
  if (!outcome.ok() || !outcome.value.isObject()) return exchange.engineFinished(text);  // the server reports it
  const json::Value* error = outcome.value.find("error");
  const json::Value* name = error && error->isObject() ? error->find("name") : nullptr;
  const bool limited = name && name->isString() && name->asString() == "ExecutionLimitError";
  if (!limited) {
    json::Value usage = json::Value::object();
    usage.set("fuelConsumed", json::Value::number(sw_wasi_fuel_consumed(scope.host), ""));
    usage.set("fuelLimit", json::Value::number(engine.limits.fuel, ""));
    usage.set("memoryBytes", json::Value::number(sw_guest_size(scope.host), ""));
    outcome.value.set("usage", std::move(usage));
  }
  return exchange.engineFinished(json::stringify(outcome.value));
}

}  // namespace sw::core

extern "C" {
// Boots the next request's instance for a built-in engine, if none is waiting (the shim calls this after a response
// went out, from ctx.waitUntil). Returns 1 when a spare is ready.
EMSCRIPTEN_KEEPALIVE uint32_t sw_builtin_prepare_spare(uint32_t serverHandle) {
  try {
    const auto& engine = reinterpret_cast<sw::server::InterpreterServer*>(uintptr_t(serverHandle))->engine();
    if (engine.builtin.empty()) return 0;
    if (sw::core::spares().count(serverHandle)) return 1;
    sw::core::GuestScope scope;
    scope.host = sw_wasi_host_new(sw::core::kHostConfig.data(), uint32_t(sw::core::kHostConfig.size()), 0);
    if (!scope.host) return 0;
    scope.instantiated = sw_host_instantiate_guest(serverHandle, scope.host) != 0;
    if (!scope.instantiated) return 0;
    sw_wasi_clear_trap(scope.host);
    sw_wasi_fuel_reset(scope.host, sw::core::fuelBudget(engine));
    sw::wasmify::HostGuestCaller guest(scope.host);
    auto instance = sw::wasmify::bootInstance(guest, sw::wasmify::javascript::driver());
    if (!instance) return 0;
    sw::core::spares()[serverHandle] = sw::core::Spare{scope.host, instance->handle};
    scope.host = 0;  // owned by the spare now
    scope.instantiated = false;
    return 1;
  } catch (...) {
    return 0;
  }
}
}
