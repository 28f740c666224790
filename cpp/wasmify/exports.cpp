// The C ABI of cpp/wasmify inside the Emscripten core (compiled only under __EMSCRIPTEN__).
//
// * sw_wasmify_run: one stateless execution on a freshly instantiated built-in engine under a WASI host.
// * sw_wasmify_import_stubs: the non-WASI imports an engine's instances get (registry.cpp's table), for the shim.
// * sw_wasmify_session_*: a session (SPEC §5.2) on a built-in engine's instance under a WASI host, for tests and
//   tools; the core's Interpreter calls the C++ API (wasmify.h, bridge.h) directly.
// Every entry point names its engine (the registry's name: "javascript", "python", ...).
//
// The guest is reached through HostGuestCaller (bridge.h): sw_guest_call out, the WASI bridge for its memory, and the
// WASI host's own C exports (trap, fuel), never its internals.
#ifdef __EMSCRIPTEN__

#include <emscripten/emscripten.h>

#include <memory>
#include <optional>
#include <string>

#include "../abi/abi.h"
#include "bridge.h"
#include "wasmify.h"

extern "C" {
// cpp/wasi/exports.cpp
void sw_wasi_clear_trap(uint32_t h);
void sw_wasi_fuel_reset(uint32_t h, double budget);
}

namespace {

using namespace sw::wasmify;

std::string g_result;  // the last call's result text; valid until the next sw_wasmify_* call

uint32_t finish(Result<std::string> r) {
  if (r) {
    g_result = std::move(r.value());
    return sw::abi::WASMIFY_OK;
  }
  g_result = r.failure().message;
  switch (r.failure().kind) {
    case FailureKind::Engine: return sw::abi::WASMIFY_ENGINE_FAILED;
    case FailureKind::Limit: return sw::abi::WASMIFY_LIMIT;
    case FailureKind::Trap: return sw::abi::WASMIFY_TRAP;
  }
  return sw::abi::WASMIFY_ENGINE_FAILED;
}

// A session with the GuestCaller it runs on (WasmifySession holds a reference to it) and its engine's driver.
struct SessionBox {
  SessionBox(uint32_t host, const WasmifyDriver& d) : guest(host), driver(d) {}
  HostGuestCaller guest;
  const WasmifyDriver& driver;
  std::optional<WasmifySession> session;
};

// The registry's driver for `name`, or nullptr with the failure as the result.
const WasmifyDriver* driverNamed(const char* name, uint32_t len) {
  const BuiltinEngine* e = findBuiltinEngine(std::string_view(name, len));
  if (!e) {
    g_result = "unknown built-in engine: " + std::string(name, len) + " (known: " + builtinEngineNames() + ")";
    return nullptr;
  }
  return &e->driver;
}

SessionBox* boxOf(uint32_t s) { return reinterpret_cast<SessionBox*>(uintptr_t(s)); }

template <typename F>
uint32_t guarded(F&& f) {
  try {
    return f();
  } catch (const std::exception& e) {
    g_result = std::string("wasmify host failure: ") + e.what();
  } catch (...) {
    g_result = "wasmify host failure";
  }
  return 0;
}

// Boot or restore into a new SessionBox: its address, or 0 with the failure message as the result.
template <typename F>
uint32_t openSession(uint32_t host, const char* engine, uint32_t engineLen, F&& start) {
  return guarded([&]() -> uint32_t {
    const WasmifyDriver* driver = driverNamed(engine, engineLen);
    if (!driver) return 0;
    auto box = std::make_unique<SessionBox>(host, *driver);
    Result<WasmifySession> s = start(box->guest, box->driver);
    if (!s) {
      finish(s.failure());
      return 0;
    }
    box->session.emplace(std::move(s.value()));
    g_result.clear();
    return uint32_t(reinterpret_cast<uintptr_t>(box.release()));
  });
}

SessionOptions options(const char* cwd, uint32_t cwdLen, double fuel) {
  SessionOptions o;
  if (cwdLen) o.cwd.assign(cwd, cwdLen);
  o.fuel = fuel < 0 ? -1 : int64_t(fuel);
  return o;
}

}  // namespace

extern "C" {

// One stateless execution (SPEC §5.1 Engine.run) of built-in engine `engine` on a guest that was just instantiated
// under the WASI host `host` and registered with bindGuestMemory + wasmifyBind: resets the host's fuel to `fuel`
// (< 0: unmetered) and clears its trap, then _initialize, wasm_init, New (+ InterruptAddress), Eval.
// Returns WASMIFY_OK (result = EngineOutcome JSON), WASMIFY_ENGINE_FAILED, WASMIFY_LIMIT (an ExecutionLimitError) or
// WASMIFY_TRAP (a guest trap); the result is then the message.
// The instance must be discarded after a non-zero status.
EMSCRIPTEN_KEEPALIVE uint32_t sw_wasmify_run(uint32_t host, const char* engine, uint32_t engineLen, const char* code,
                                             uint32_t codeLen, const char* env, uint32_t envLen, double fuel) {
  try {
    const WasmifyDriver* driver = driverNamed(engine, engineLen);
    if (!driver) return sw::abi::WASMIFY_ENGINE_FAILED;
    sw_wasi_clear_trap(host);
    sw_wasi_fuel_reset(host, fuel);
    HostGuestCaller guest(host);
    ExecuteRequest request{std::string_view(code, codeLen), std::string_view(env, envLen), {}};
    return finish(runWasmify(guest, *driver, request));
  } catch (const std::exception& e) {
    return finish(Failure{FailureKind::Engine, std::string("wasmify host failure: ") + e.what()});
  } catch (...) {
    return finish(Failure{FailureKind::Engine, "wasmify host failure"});
  }
}

// The import stubs built-in engine `engine` needs besides WASI (the registry's table as importStubsJson writes it): the
// shim asks once per engine and passes them to makeImportObject. Returns the NUL-terminated JSON array (valid until
// the next sw_wasmify_* call), or NULL for an unknown engine (the message is the result).
EMSCRIPTEN_KEEPALIVE const char* sw_wasmify_import_stubs(const char* engine, uint32_t engineLen) {
  try {
    const BuiltinEngine* e = findBuiltinEngine(std::string_view(engine, engineLen));
    if (!e) {
      driverNamed(engine, engineLen);  // sets the message
      return nullptr;
    }
    g_result = importStubsJson(*e);
    return g_result.c_str();
  } catch (...) {
    g_result = "wasmify host failure";
    return nullptr;
  }
}

EMSCRIPTEN_KEEPALIVE const char* sw_wasmify_result() { return g_result.data(); }
EMSCRIPTEN_KEEPALIVE uint32_t sw_wasmify_result_len() { return uint32_t(g_result.size()); }

// A session of built-in engine `engine` on a guest just instantiated and registered under WASI host `host`
// (bootWasmifySession: _initialize, wasm_init, New (+ InterruptAddress)), starting in `cwd` ("" = /workspace); every
// execute starts with `fuel` (< 0: unmetered). Returns the session (free with sw_wasmify_session_free), or 0 with the
// failure as the result text.
EMSCRIPTEN_KEEPALIVE uint32_t sw_wasmify_session_boot(uint32_t host, const char* engine, uint32_t engineLen,
                                                      const char* cwd, uint32_t cwdLen, double fuel) {
  return openSession(host, engine, engineLen, [&](GuestCaller& guest, const WasmifyDriver& driver) {
    return bootWasmifySession(guest, driver, options(cwd, cwdLen, fuel));
  });
}

// A session adopted from a restored instance under WASI host `host`: the guest's memory already holds the snapshot
// (grown and written, docs/abi.md "Restore contract"; nothing was initialised), `handle` is the stored interpreter
// handle. Runs afterRestore (interrupt word, AfterRestore). As sw_wasmify_session_boot.
EMSCRIPTEN_KEEPALIVE uint32_t sw_wasmify_session_restore(uint32_t host, const char* engine, uint32_t engineLen,
                                                         double handle, const char* cwd, uint32_t cwdLen, double fuel) {
  return openSession(host, engine, engineLen, [&](GuestCaller& guest, const WasmifyDriver& driver) {
    SessionSnapshot snapshot{handle > 0 && handle <= 4294967295.0 ? uint64_t(handle) : 0, "{}"};
    return restoreWasmifySession(guest, driver, snapshot, options(cwd, cwdLen, fuel));
  });
}

// One session execute (WasmifySession::execute). Returns WASMIFY_OK with the SessionOutcome JSON ({logs, results,
// error?, cwd}) as the result — guest errors and limits included; a trap or host failure also comes back as an outcome
// (error ExecutionLimitError or EngineError) and sets the session invalid. WASMIFY_ENGINE_FAILED: not executed (the
// session is invalid), the message as the result.
EMSCRIPTEN_KEEPALIVE uint32_t sw_wasmify_session_execute(uint32_t s, const char* code, uint32_t codeLen,
                                                         const char* env, uint32_t envLen) {
  uint32_t status = sw::abi::WASMIFY_ENGINE_FAILED;
  guarded([&]() -> uint32_t {
    SessionBox* box = boxOf(s);
    ExecuteRequest request{std::string_view(code, codeLen), std::string_view(env, envLen), {}};
    auto out = box->session->execute(box->driver, request);
    if (!out) {
      g_result = out.failure().message;
      return 0;
    }
    g_result = std::move(out->outcomeJson);
    status = sw::abi::WASMIFY_OK;
    return 0;
  });
  return status;
}

EMSCRIPTEN_KEEPALIVE uint32_t sw_wasmify_session_invalid(uint32_t s) { return boxOf(s)->session->invalid ? 1 : 0; }

// The session's cwd as the result text; returns its length.
EMSCRIPTEN_KEEPALIVE uint32_t sw_wasmify_session_cwd(uint32_t s) {
  g_result = boxOf(s)->session->cwd;
  return uint32_t(g_result.size());
}

// The interpreter handle a snapshot stores (SPEC §4.5 `handle`).
EMSCRIPTEN_KEEPALIVE double sw_wasmify_session_handle(uint32_t s) {
  return double(boxOf(s)->session->instance.handle);
}

// Releases the C++ side only: the guest instance and its WASI host belong to whoever created them.
EMSCRIPTEN_KEEPALIVE void sw_wasmify_session_free(uint32_t s) { delete boxOf(s); }

}  // extern "C"

#endif  // __EMSCRIPTEN__
