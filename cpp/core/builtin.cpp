// Runs a built-in Wasm engine (EngineInfo::builtin) for one stateless execution, entirely from C++: a fresh WASI host
// (SPEC §5.4: args ["sandbox"], an empty environment — JavaScript receives envVars through the Eval request), a fresh
// engine instance the shim creates on request, the wasmify call sequence (cpp/wasmify), then the outcome with usage.
#include "builtin.h"

#include <string>

#include "../json/json.h"

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

}  // namespace

const server::Action& runBuiltinEngine(uint32_t serverHandle, server::Exchange& exchange,
                                       const server::EngineInfo& engine, const std::string& payload) {
  auto request = json::parseCopy(payload);  // the payload the server itself built: {code, envVars?}
  const json::Value* code = request.ok() ? request.value.find("code") : nullptr;
  if (!code || !code->isString()) return exchange.engineThrew(false, "invalid engine payload");
  std::string env;
  if (const json::Value* envVars = request.value.find("envVars")) env = json::stringify(*envVars);

  GuestScope scope;
  scope.host = sw_wasi_host_new(kHostConfig.data(), uint32_t(kHostConfig.size()), 0);
  if (!scope.host) return exchange.engineThrew(false, "Engine initialization failed: no WASI host");
  scope.instantiated = sw_host_instantiate_guest(serverHandle, scope.host) != 0;
  if (!scope.instantiated) return exchange.engineThrew(false, "Engine initialization failed: instantiation");

  const double fuel = engine.limits.fuel > 0 ? engine.limits.fuel : -1;  // < 0: unmetered
  const std::string& source = code->asString();
  const uint32_t status =
      sw_wasmify_js_run(scope.host, source.data(), uint32_t(source.size()), env.data(), uint32_t(env.size()), fuel);
  std::string text(sw_wasmify_result(), sw_wasmify_result_len());
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
