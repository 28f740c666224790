// The C ABI of cpp/wasmify inside the Emscripten core (compiled only under __EMSCRIPTEN__).
//
// * sw_wasmify_run: one stateless execution on a freshly instantiated built-in engine under a WASI host.
// * sw_wasmify_import_stubs: the non-WASI imports an engine's instances get (registry.cpp's table), for the shim.
// * sw_wasmify_session_*: a session (protocol §5.2) on a built-in engine's instance under a WASI host, for ./wasmify,
//   tests and tools; the core's Interpreter calls the C++ API (wasmify.h, bridge.h) directly.
// * sw_wasmify_js_driver_new, sw_wasmify_hook_invoke, sw_wasmify_*_driver, sw_wasmify_session_settled: the same with a
//   WasmifyDriver written in JavaScript (./wasmify), whose hooks the core calls back (sw_host_wasmify_hook).
// Every entry point names its engine (the registry's name: a language id, engines/<id>/engine.json).
//
// The guest is reached through HostGuestCaller (bridge.h): sw_guest_call out, the WASI bridge for its memory, and the
// WASI host's own C exports (trap, fuel), never its internals.
#ifdef __EMSCRIPTEN__

#include <emscripten/emscripten.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../abi/abi.h"
#include "../abi/reply.h"
#include "../json/json.h"
#include "../server/server.h"
#include "../wasi/bridge.h"
#include "../wasi/wasi.h"
#include "bridge.h"
#include "wasmify.h"

extern "C" {
// cpp/wasi/exports.cpp
void sw_wasi_clear_trap(uint32_t h);
void sw_wasi_fuel_reset(uint32_t h, double budget);
// wasmify_bridge.js -> worker-shim/wasmify.js: hook `hook` (WASMIFY_HOOK_*) of the WasmifyDriver written in JavaScript
// registered as `driver`, called with `call` (what its ctx.invoke passes back to sw_wasmify_hook_invoke), the
// interpreter handle and the argument text. Returns a reply buffer (abi.def sw_reply_head: a SESSION_* status, fields),
// 0 when the shim could not allocate one.
uint32_t sw_host_wasmify_hook(uint32_t driver, uint32_t hook, uint32_t call, double handle, const char* arg,
                              uint32_t argLen);
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
struct HookCall;  // below: a hook call of a driver written in JavaScript

struct SessionBox {
  SessionBox(uint32_t host, const WasmifyDriver& d, std::shared_ptr<const WasmifyDriver> keep = nullptr,
             uint32_t jsId = 0)
      : guest(host), driver(d), keepDriver(std::move(keep)), jsDriver(jsId) {}
  HostGuestCaller guest;
  const WasmifyDriver& driver;
  std::shared_ptr<const WasmifyDriver> keepDriver;  // a driver written in JavaScript lives as long as its sessions
  uint32_t jsDriver = 0;                            // ... and its id in the shim (0: a built-in driver)
  std::shared_ptr<HookCall> pendingCall;            // its sessionExecute answered a promise that has not settled
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

// One stateless run of `driver` (sw_wasmify_run, sw_wasmify_run_driver): the host's trap cleared and fuel reset to
// `fuel`, then runWasmify on the guest registered for `host`; a WASMIFY_* status, the result as finish() leaves it.
uint32_t runOn(uint32_t host, const WasmifyDriver& driver, const char* code, uint32_t codeLen, const char* env,
               uint32_t envLen, double fuel) {
  try {
    sw_wasi_clear_trap(host);
    sw_wasi_fuel_reset(host, fuel);
    HostGuestCaller guest(host);
    ExecuteRequest request{std::string_view(code, codeLen), std::string_view(env, envLen), {}};
    return finish(runWasmify(guest, driver, request));
  } catch (const std::exception& e) {
    return finish(Failure{FailureKind::Engine, std::string("wasmify host failure: ") + e.what()});
  } catch (...) {
    return finish(Failure{FailureKind::Engine, "wasmify host failure"});
  }
}

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
uint32_t openWith(uint32_t host, const WasmifyDriver& driver, std::shared_ptr<const WasmifyDriver> keep, F&& start,
                  uint32_t jsId = 0) {
  auto box = std::make_unique<SessionBox>(host, driver, std::move(keep), jsId);
  Result<WasmifySession> s = start(box->guest, box->driver);
  if (!s) {
    finish(s.failure());
    return 0;
  }
  box->session.emplace(std::move(s.value()));
  g_result.clear();
  return uint32_t(reinterpret_cast<uintptr_t>(box.release()));
}

template <typename F>
uint32_t openSession(uint32_t host, const char* engine, uint32_t engineLen, F&& start) {
  return guarded([&]() -> uint32_t {
    const WasmifyDriver* driver = driverNamed(engine, engineLen);
    if (!driver) return 0;
    return openWith(host, *driver, nullptr, start);
  });
}

// A session execute of a driver written in JavaScript (below, with the JavaScript drivers).
uint32_t executeJs(SessionBox* box, const ExecuteRequest& request, uint32_t& status);

SessionOptions options(const char* cwd, uint32_t cwdLen, double fuel) {
  SessionOptions o;
  if (cwdLen) o.cwd.assign(cwd, cwdLen);
  o.fuel = fuel < 0 ? -1 : int64_t(fuel);
  return o;
}

}  // namespace

extern "C" {

// One stateless execution (protocol §5.1 Engine.run) of built-in engine `engine` on a guest that was just instantiated
// under the WASI host `host` and registered with bindGuestMemory + wasmifyBind: resets the host's fuel to `fuel`
// (< 0: unmetered) and clears its trap, then _initialize, wasm_init, New (+ InterruptAddress), Eval.
// Returns WASMIFY_OK (result = EngineOutcome JSON), WASMIFY_ENGINE_FAILED, WASMIFY_LIMIT (an ExecutionLimitError) or
// WASMIFY_TRAP (a guest trap); the result is then the message.
// The instance must be discarded after a non-zero status.
EMSCRIPTEN_KEEPALIVE uint32_t sw_wasmify_run(uint32_t host, const char* engine, uint32_t engineLen, const char* code,
                                             uint32_t codeLen, const char* env, uint32_t envLen, double fuel) {
  const WasmifyDriver* driver = driverNamed(engine, engineLen);
  if (!driver) return sw::abi::WASMIFY_ENGINE_FAILED;
  return runOn(host, *driver, code, codeLen, env, envLen, fuel);
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

// protocol §3.4 usage under WASI host `host` (hostUsage, bridge.h) as JSON in the result; 0 when the budget is exhausted
// and `whenExhausted` is 0 (./wasi usage() then throws the fuel error, protocol §5.5).
EMSCRIPTEN_KEEPALIVE const char* sw_wasmify_usage(uint32_t host, uint32_t whenExhausted) {
  if (!whenExhausted && sw::wasi::hostOf(host).fuel().exhausted()) return nullptr;
  g_result = sw::json::stringify(sw::server::usageJson(hostUsage(host)));
  return g_result.data();
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
    if (box->jsDriver != 0) return executeJs(box, request, status);
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

// The interpreter handle a snapshot stores (protocol §4.5 `handle`).
EMSCRIPTEN_KEEPALIVE double sw_wasmify_session_handle(uint32_t s) {
  return double(boxOf(s)->session->instance.handle);
}

// Releases the C++ side only: the guest instance and its WASI host belong to whoever created them.
EMSCRIPTEN_KEEPALIVE void sw_wasmify_session_free(uint32_t s) { delete boxOf(s); }

}  // extern "C"


// --- WasmifyDriver objects written in JavaScript ------------------------------------------------------------------
//
// The driver's hooks are JavaScript; everything around them stays here, exactly as for a built-in driver: the boot
// steps (wasm_init, the init method, the zero-handle rule), the message encoding and invoke (the response limit, the
// protobuf subset's errors), WasmifySession's fuel reset, cwd bookkeeping and invalidation. A hook reaches the guest
// only through ctx.invoke (sw_wasmify_hook_invoke), which runs wasmify::invoke on the instance the hook was called for.
// What a hook answers is checked here: sessionExecute/runOnce answer { results: [...], error?, cwd?, logs? }; logs
// default to the WASI host's captured stdout/stderr of the call, usage is the host's.
namespace {

// One hook call in progress: what ctx.invoke needs, and the last invoke failure (a trap or a limit inside the guest
// that the hook let escape keeps its kind).
struct HookCall {
  Instance* instance = nullptr;
  std::optional<Failure> invokeFailure;
};

using sw::abi::Reply;

Reply takeReply(uint32_t p) { return sw::abi::takeReply(p, "the driver's answer could not be copied into the core"); }

// Calls a hook with `call`; the shim's reply.
Reply hookReply(uint32_t driver, uint32_t hook, HookCall& call, std::string_view arg) {
  return takeReply(sw_host_wasmify_hook(driver, hook, uint32_t(reinterpret_cast<uintptr_t>(&call)),
                                        double(call.instance->handle), arg.data(), uint32_t(arg.size())));
}

// A hook's reply: its answer text (JSON for every hook but evaluate's raw string), or the Failure it amounts to.
Result<std::string> hookAnswer(const char* name, const HookCall& call, const Reply& r) {
  const std::string what = std::string("WasmifyDriver.") + name;
  switch (r.status) {
    case sw::abi::SESSION_OK:
      return r.field(0);
    case sw::abi::SESSION_THREW:
    case sw::abi::SESSION_THREW_LIMIT:
      // A guest failure the hook let escape is that failure (a trap stays a trap, the fuel backstop a limit).
      if (call.invokeFailure) return *call.invokeFailure;
      if (r.status == sw::abi::SESSION_THREW_LIMIT) return Failure{FailureKind::Limit, r.field(0)};
      return engineFailure(what + " threw: " + (r.field(0).empty() ? "(no message)" : r.field(0)));
    case sw::abi::SESSION_PROMISE:
      // Only sessionExecute may answer later (sw_wasmify_session_execute); the other hooks run inside one synchronous
      // call sequence of the core (boot, restore, a stateless run).
      return engineFailure(what + " returned a promise: only sessionExecute may be asynchronous");
    case sw::abi::SESSION_UNSERIALIZABLE:
      return engineFailure(what + " answered a value that cannot be serialized: " + r.field(0));
    default:
      return engineFailure(what + " failed: " + r.field(0));
  }
}

Result<std::string> callHook(uint32_t driver, uint32_t hook, const char* name, Instance& instance,
                             std::string_view arg) {
  HookCall call;
  call.instance = &instance;
  return hookAnswer(name, call, hookReply(driver, hook, call, arg));
}

// The captured stdout/stderr of the WASI host as protocol §3.3 lines.
sw::json::Value capturedLines(uint32_t host, uint32_t fd) {
  sw::json::Value lines = sw::json::Value::array();
  for (auto& line : sw::wasi::hostOf(host).stdio().lines(fd)) lines.push(sw::json::Value::string(std::move(line)));
  return lines;
}

bool isLines(const sw::json::Value* v) {
  if (!v || !v->isArray()) return false;
  for (const auto& line : v->items())
    if (!line.isString()) return false;
  return true;
}

// A sessionExecute/runOnce answer as the EngineOutcome JSON (+ its cwd), or the protocol failure it is.
// With `sessionCwd` (sessionExecute): a SessionOutcome, its cwd the answer's (a non-empty string) else sessionCwd, also
// in the JSON (protocol §5.1).
Result<SessionOutcome> outcomeOf(const char* name, std::string_view answer, uint32_t host,
                                 std::optional<std::string_view> sessionCwd = std::nullopt) {
  const std::string what = std::string("WasmifyDriver.") + name;
  auto parsed = sw::json::parseCopy(answer);
  if (!parsed.ok() || !parsed.value.isObject()) return engineFailure(what + " did not answer an object");
  const sw::json::Value& v = parsed.value;
  const sw::json::Value* results = v.find("results");
  if (!results || !results->isArray()) return engineFailure(what + " answered no results array");
  const sw::json::Value* error = v.find("error");
  if (error && !error->isNull() && !error->isObject()) return engineFailure(what + " answered an error that is not an object");
  sw::json::Value out = sw::json::Value::object();
  const sw::json::Value* logs = v.find("logs");
  sw::json::Value lines = sw::json::Value::object();
  if (logs && logs->isObject() && isLines(logs->find("stdout")) && isLines(logs->find("stderr"))) {
    lines = *logs;
  } else {
    lines.set("stdout", capturedLines(host, 1));
    lines.set("stderr", capturedLines(host, 2));
  }
  out.set("logs", std::move(lines));
  out.set("results", *results);
  if (error && !error->isNull()) out.set("error", *error);
  out.set("usage", sw::server::usageJson(hostUsage(host)));
  SessionOutcome o;
  if (sessionCwd) {
    const sw::json::Value* cwd = v.find("cwd");
    o.cwd = cwd && cwd->isString() && !cwd->asString().empty() ? cwd->asString() : std::string(*sessionCwd);
    out.set("cwd", sw::json::Value::string(o.cwd));
  }
  o.outcomeJson = sw::json::stringify(out);
  return o;
}

std::string requestJson(const ExecuteRequest& request, bool withCwd) {
  std::string out = "{\"code\":";
  sw::json::Writer(out).string(request.code);
  out += ",\"envVars\":";
  out += request.envJson.empty() ? std::string_view("{}") : request.envJson;
  if (withCwd) {
    out += ",\"cwd\":";
    sw::json::Writer(out).string(request.cwd);
  }
  out += "}";
  return out;
}

// A sessionExecute hook's reply as the call's SessionOutcome (the request's cwd unless the answer names one).
Result<SessionOutcome> sessionOutcomeOf(const HookCall& call, const Reply& r, std::string_view cwd) {
  auto text = hookAnswer("sessionExecute", call, r);
  if (!text) return text.failure();
  const uint32_t host = static_cast<HostGuestCaller&>(call.instance->guest).host();
  return outcomeOf("sessionExecute", text.value(), host, cwd);
}

// Calls sessionExecute: the outcome at once, or nullopt when the hook answered a promise (then `call` must live until
// sw_wasmify_session_settled: the hook may still invoke the guest through it).
std::optional<Result<SessionOutcome>> startSessionExecute(uint32_t driver, HookCall& call,
                                                          const ExecuteRequest& request) {
  // The call's logs are its own: what booting or an earlier call printed is not in them.
  const uint32_t host = static_cast<HostGuestCaller&>(call.instance->guest).host();
  sw::wasi::hostOf(host).stdio().reset();
  Reply r = hookReply(driver, sw::abi::WASMIFY_HOOK_SESSION_EXECUTE, call, requestJson(request, true));
  if (r.status == sw::abi::SESSION_PROMISE) return std::nullopt;
  return sessionOutcomeOf(call, r, request.cwd);
}

struct JsDriverSpec {
  uint32_t id = 0;
  uint32_t hooks = 0;  // WASMIFY_HOOK_* bits the object has
};

std::shared_ptr<WasmifyDriver> makeJsDriver(JsDriverSpec spec, uint32_t initMethod, std::string initRequest,
                                            std::string sessionBoot) {
  auto d = std::make_shared<WasmifyDriver>();
  d->language = "wasmify-driver";
  d->service = 0;
  d->initMethod = initMethod;
  d->initRequest = [initRequest] { return initRequest; };
  d->sessionBoot = std::move(sessionBoot);
  const uint32_t id = spec.id;
  auto has = [&](uint32_t bit) { return (spec.hooks & (1u << bit)) != 0; };
  if (has(sw::abi::WASMIFY_HOOK_EVALUATE)) {
    d->evaluate = [id](Instance& instance, std::string_view code) -> Result<std::string> {
      auto r = callHook(id, sw::abi::WASMIFY_HOOK_EVALUATE, "evaluate", instance, code);
      if (!r) return r.failure();
      auto parsed = sw::json::parseCopy(r.value());
      if (!parsed.ok() || !parsed.value.isString()) return engineFailure("WasmifyDriver.evaluate did not return a string");
      return parsed.value.asString();
    };
  }
  if (has(sw::abi::WASMIFY_HOOK_SESSION_EXECUTE)) {
    d->sessionExecute = [id](Instance& instance, const ExecuteRequest& request) -> Result<SessionOutcome> {
      HookCall call;
      call.instance = &instance;
      auto started = startSessionExecute(id, call, request);
      if (!started) return engineFailure("WasmifyDriver.sessionExecute returned a promise outside a session execute");
      return std::move(*started);
    };
  }
  if (has(sw::abi::WASMIFY_HOOK_RUN_ONCE)) {
    d->runOnce = [id](Instance& instance, const ExecuteRequest& request) -> Result<std::string> {
      const uint32_t host = static_cast<HostGuestCaller&>(instance.guest).host();
      auto r = callHook(id, sw::abi::WASMIFY_HOOK_RUN_ONCE, "runOnce", instance, requestJson(request, false));
      if (!r) return r.failure();
      auto out = outcomeOf("runOnce", r.value(), host);
      if (!out) return out.failure();
      return std::move(out->outcomeJson);
    };
  }
  if (has(sw::abi::WASMIFY_HOOK_AFTER_RESTORE)) {
    d->afterRestore = [id](Instance& instance, bool bootImage) -> Result<Unit> {
      auto r = callHook(id, sw::abi::WASMIFY_HOOK_AFTER_RESTORE, "afterRestore", instance,
                        bootImage ? "{\"bootImage\":true}" : "{\"bootImage\":false}");
      if (!r) return r.failure();
      return Unit{};
    };
  }
  return d;
}

// What sw_wasmify_js_driver_new returns.
struct JsDriverBox {
  std::shared_ptr<WasmifyDriver> driver;
  uint32_t id = 0;
};

JsDriverBox* jsDriverOf(uint32_t d) { return reinterpret_cast<JsDriverBox*>(uintptr_t(d)); }

// ctx.invoke's request fields: u32 count, then per field u32 number, u8 wire type (0 varint: u64 LE; 2 bytes: u32
// length + bytes). The response's fields are written the same way, the last occurrence of each number only
// (protobuf's rule for singular fields).
bool encodeFields(const uint8_t* p, uint32_t len, std::string& message) {
  const uint8_t* end = p + len;
  auto u32 = [&](uint32_t& v) {
    if (end - p < 4) return false;
    std::memcpy(&v, p, 4);
    p += 4;
    return true;
  };
  uint32_t count = 0;
  if (!u32(count)) return false;
  MessageWriter w;
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t number = 0;
    if (!u32(number) || p >= end) return false;
    if (number == 0 || number > 536870911) return false;  // protobuf field numbers: 1 .. 2^29 - 1
    const uint8_t type = *p++;
    if (type == 0) {
      if (end - p < 8) return false;
      uint64_t v;
      std::memcpy(&v, p, 8);
      p += 8;
      w.varint(number, v);
    } else if (type == 2) {
      uint32_t n = 0;
      if (!u32(n) || uint32_t(end - p) < n) return false;
      w.bytes(number, std::string_view(reinterpret_cast<const char*>(p), n));
      p += n;
    } else {
      return false;
    }
  }
  message = w.take();
  return p == end;
}

std::string decodeFields(const std::vector<Field>& fields) {
  std::vector<const Field*> last;
  for (const auto& f : fields) {
    bool replaced = false;
    for (auto*& l : last)
      if (l->number == f.number) l = &f, replaced = true;
    if (!replaced) last.push_back(&f);
  }
  std::string out;
  auto put32 = [&](uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); };
  put32(uint32_t(last.size()));
  for (const Field* f : last) {
    put32(f->number);
    out.push_back(char(f->wireType));
    if (f->wireType == 0) {
      out.append(reinterpret_cast<const char*>(&f->varint), 8);
    } else {
      put32(uint32_t(f->bytes.size()));
      out.append(f->bytes);
    }
  }
  return out;
}

}  // namespace

extern "C" {

// A WasmifyDriver written in JavaScript, registered by the shim as `id`: its initMethod, the init method's request
// (fields as sw_wasmify_hook_invoke encodes them; empty = none), sessionBoot, and which hooks it has (1 <<
// WASMIFY_HOOK_*). Returns the driver (free with sw_wasmify_js_driver_free; a session keeps it alive), or 0 with the
// message as the result.
EMSCRIPTEN_KEEPALIVE uint32_t sw_wasmify_js_driver_new(uint32_t id, double initMethod, const uint8_t* init,
                                                       uint32_t initLen, const char* boot, uint32_t bootLen,
                                                       uint32_t hooks) {
  return guarded([&]() -> uint32_t {
    if (!(initMethod >= 0 && initMethod <= 4294967295.0) || initMethod != double(uint32_t(initMethod))) {
      g_result = "WasmifyDriver.initMethod must be a wasmify method id (an integer from 0)";
      return 0;
    }
    std::string initRequest;
    if (initLen && !encodeFields(init, initLen, initRequest)) {
      g_result = "WasmifyDriver.initRequest must be a list of [field, value] pairs";
      return 0;
    }
    if (!(hooks & (1u << sw::abi::WASMIFY_HOOK_RUN_ONCE)) && !(hooks & (1u << sw::abi::WASMIFY_HOOK_SESSION_EXECUTE))) {
      g_result = "WasmifyDriver needs runOnce or sessionExecute";
      return 0;
    }
    if (bootLen && !(hooks & (1u << sw::abi::WASMIFY_HOOK_EVALUATE))) {
      g_result = "WasmifyDriver.sessionBoot needs evaluate";
      return 0;
    }
    auto driver = makeJsDriver({id, hooks}, uint32_t(initMethod), std::move(initRequest), std::string(boot, bootLen));
    return uint32_t(reinterpret_cast<uintptr_t>(new JsDriverBox{std::move(driver), id}));
  });
}

EMSCRIPTEN_KEEPALIVE void sw_wasmify_js_driver_free(uint32_t d) { delete jsDriverOf(d); }

// ctx.invoke(method, fields) of the hook call `call`: wasmify::invoke on the hook's instance with the fields (encoding
// above) as the request. WASMIFY_OK: the result is the response's fields; otherwise the failure's status and message
// (the call remembers it: a hook that lets the error escape fails with it).
EMSCRIPTEN_KEEPALIVE uint32_t sw_wasmify_hook_invoke(uint32_t call, double method, const uint8_t* fields,
                                                     uint32_t len) {
  auto* c = reinterpret_cast<HookCall*>(uintptr_t(call));
  try {
    if (!(method >= 0 && method <= 4294967295.0) || method != double(uint32_t(method)))
      return finish(engineFailure("ctx.invoke: the method must be a wasmify method id (an integer from 0)"));
    std::string request;
    if (!encodeFields(fields, len, request))
      return finish(engineFailure("ctx.invoke: fields must be [number, value] pairs (value: integer, bigint, string or bytes)"));
    auto response = c->instance->invoke(uint32_t(method), request);
    if (!response) {
      c->invokeFailure = response.failure();
      return finish(response.failure());
    }
    auto parsed = parseMessage(response.value());
    if (!parsed) {
      c->invokeFailure = parsed.failure();
      return finish(parsed.failure());
    }
    return finish(decodeFields(parsed.value()));
  } catch (const std::exception& e) {
    c->invokeFailure = Failure{FailureKind::Engine, std::string("wasmify host failure: ") + e.what()};
    return finish(*c->invokeFailure);
  }
}

}  // extern "C"

namespace {

// sw_wasmify_session_execute of a session whose driver is written in JavaScript: WasmifySession::execute in two halves,
// so that its sessionExecute may answer a promise (WASMIFY_PENDING, the result the hook call's id) and the outcome is
// taken when it settled (sw_wasmify_session_settled).
uint32_t executeJs(SessionBox* box, const ExecuteRequest& request, uint32_t& status) {
  if (box->pendingCall) {
    g_result = "WasmifySession.execute: the previous call has not settled";
    return 0;
  }
  auto call = box->session->begin(box->driver, request);
  if (!call) {
    g_result = call.failure().message;
    return 0;
  }
  auto hook = std::make_shared<HookCall>();
  hook->instance = &box->session->instance;
  auto started = startSessionExecute(box->jsDriver, *hook, call.value());
  if (!started) {
    box->pendingCall = hook;
    g_result = std::to_string(uint32_t(reinterpret_cast<uintptr_t>(hook.get())));
    status = sw::abi::WASMIFY_PENDING;
    return 0;
  }
  auto out = box->session->end(std::move(*started));
  g_result = std::move(out->outcomeJson);
  status = sw::abi::WASMIFY_OK;
  return 0;
}

}  // namespace

extern "C" {

// The settled answer of a pending sessionExecute (WASMIFY_PENDING), as the shim's reply buffer (abi.def sw_reply_head):
// WASMIFY_OK with the SessionOutcome JSON as the result -- a failure is in it and sets the session invalid, as for an
// answer at once; WASMIFY_ENGINE_FAILED when nothing was pending.
EMSCRIPTEN_KEEPALIVE uint32_t sw_wasmify_session_settled(uint32_t s, uint32_t replyBuffer) {
  uint32_t status = sw::abi::WASMIFY_ENGINE_FAILED;
  guarded([&]() -> uint32_t {
    SessionBox* box = boxOf(s);
    Reply r = takeReply(replyBuffer);
    if (!box->pendingCall) {
      g_result = "WasmifySession: no call is pending";
      return 0;
    }
    std::shared_ptr<HookCall> hook = std::move(box->pendingCall);
    auto out = box->session->end(sessionOutcomeOf(*hook, r, box->session->cwd));
    g_result = std::move(out->outcomeJson);
    status = sw::abi::WASMIFY_OK;
    return 0;
  });
  return status;
}

// sw_wasmify_run / _session_boot / _session_restore with a driver from sw_wasmify_js_driver_new instead of a name.
EMSCRIPTEN_KEEPALIVE uint32_t sw_wasmify_run_driver(uint32_t host, uint32_t d, const char* code, uint32_t codeLen,
                                                    const char* env, uint32_t envLen, double fuel) {
  std::shared_ptr<WasmifyDriver> driver = jsDriverOf(d)->driver;  // kept alive through the run
  return runOn(host, *driver, code, codeLen, env, envLen, fuel);
}

EMSCRIPTEN_KEEPALIVE uint32_t sw_wasmify_session_boot_driver(uint32_t host, uint32_t d, const char* cwd,
                                                             uint32_t cwdLen, double fuel) {
  return guarded([&]() -> uint32_t {
    std::shared_ptr<WasmifyDriver> driver = jsDriverOf(d)->driver;
    return openWith(
        host, *driver, driver,
        [&](GuestCaller& guest, const WasmifyDriver& dr) {
          return bootWasmifySession(guest, dr, options(cwd, cwdLen, fuel));
        },
        jsDriverOf(d)->id);
  });
}

EMSCRIPTEN_KEEPALIVE uint32_t sw_wasmify_session_restore_driver(uint32_t host, uint32_t d, double handle,
                                                                const char* cwd, uint32_t cwdLen, double fuel) {
  return guarded([&]() -> uint32_t {
    std::shared_ptr<WasmifyDriver> driver = jsDriverOf(d)->driver;
    return openWith(
        host, *driver, driver,
        [&](GuestCaller& guest, const WasmifyDriver& dr) {
          SessionSnapshot snapshot{handle > 0 && handle <= 9007199254740991.0 ? uint64_t(handle) : 0, "{}"};
          return restoreWasmifySession(guest, dr, snapshot, options(cwd, cwdLen, fuel));
        },
        jsDriverOf(d)->id);
  });
}

// Charges what a guest instrumented by our fuel tool counted since its last `sandbox.charge` (at most one batch) to
// its WASI host's meter, exactly as the built-in engines' runs end (HostGuestCaller::flushFuel): an engine written in
// JavaScript calls it through ./wasi's WasiHost.flushFuel() when a run returns, so its usage and its limit are exact.
// The instance must be registered with wasmifyBind. A guest without the tool's globals is left alone.
// Returns 0, WASMIFY_LIMIT when the charge overdrew the budget, WASMIFY_TRAP when the guest's counter is corrupt.
EMSCRIPTEN_KEEPALIVE uint32_t sw_wasmify_flush_fuel(uint32_t host) {
  HostGuestCaller guest(host);
  const Result<Unit> r = guest.flushFuel();
  if (r) return 0;
  return r.failure().kind == FailureKind::Limit ? sw::abi::WASMIFY_LIMIT : sw::abi::WASMIFY_TRAP;
}

}  // extern "C"

#endif  // __EMSCRIPTEN__
