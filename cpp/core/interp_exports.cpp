// The C ABI of the Interpreter Durable Object (cpp/interp) and of the Worker's executeInContext pre-checks. The shim
// (worker-shim/interpreter.js) creates one sw_do per Durable Object instance and marshals fetch, executeInContext and
// alarm calls into it; it never decides anything itself. No C++ exception crosses this boundary.
#include <emscripten/emscripten.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../interp/interpreter.h"
#include "../json/json.h"
#include "../server/server.h"
#include "byte_reader.h"
#include "core.h"
#include "do_sql.h"
#include "exchange_view.h"
#include "sessions.h"

namespace {

using sw::core::address;
using sw::interp::Interpreter;
using sw::interp::Step;

struct DoBox {
  uint32_t server = 0;
  std::unique_ptr<sw::core::JsSql> sql;
  std::unique_ptr<sw::core::JsAlarm> alarm;
  std::unique_ptr<sw::interp::SessionFactory> sessions;
  std::unique_ptr<Interpreter> interp;
  std::vector<char> input;
  Step step;
  std::vector<sw_byte_span> fileTable;
  sw_step_view view{};
  std::string error;
};

struct DoExchangeBox {
  DoBox* owner = nullptr;
  std::unique_ptr<Interpreter::HttpExchange> exchange;
  sw::core::PublishedView published;
  std::vector<char> input;
};

sw::server::InterpreterServer* serverOf(uint32_t h) {
  return reinterpret_cast<sw::server::InterpreterServer*>(uintptr_t(h));
}
DoBox* doOf(uint32_t h) { return reinterpret_cast<DoBox*>(uintptr_t(h)); }
DoExchangeBox* exOf(uint32_t h) { return reinterpret_cast<DoExchangeBox*>(uintptr_t(h)); }

std::string g_rpcAnswer;  // the last sw_server_rpc_check or sw_rpc_failure answer

// A scratch input buffer of `len` bytes (one more, so it is never empty); null when out of memory.
char* reserveInput(std::vector<char>& input, uint32_t len) {
  try {
    input.resize(std::size_t(len) + 1);
    return input.data();
  } catch (...) {
    return nullptr;
  }
}

// What the shim reads after an executeInContext step (sw_step_view, cpp/abi/abi.def).
const sw_step_view* publishStep(DoBox* box, Step step) {
  box->step = std::move(step);
  box->fileTable.clear();
  for (const auto& f : box->step.files) box->fileTable.push_back({address(f.data()), uint32_t(f.size())});
  sw_step_view& v = box->view;
  v = {};
  if (box->step.kind == Step::Kind::NeedFiles) {
    v.kind = sw::abi::STEP_NEED_FILES;
    v.json_ptr = address(box->step.pathsJson.data());
    v.json_len = uint32_t(box->step.pathsJson.size());
  } else if (box->step.kind == Step::Kind::AwaitEngine) {
    v.kind = sw::abi::STEP_AWAIT_ENGINE;
    v.json_ptr = address(box->step.json.data());
    v.json_len = uint32_t(box->step.json.size());
  } else {
    v.kind = sw::abi::STEP_DONE;
    v.json_ptr = address(box->step.json.data());
    v.json_len = uint32_t(box->step.json.size());
    v.files_ptr = address(box->fileTable.data());
    v.files_count = uint32_t(box->step.files.size());
  }
  return &v;
}

// The protocol's generic failure as an RPC result.
Step internalFailure() {
  Step s;
  s.json = sw::server::rpcErrorJson(sw::server::internalErrorResponse(sw::server::systemClock()));
  return s;
}

template <typename F>
const sw_step_view* guardedStep(uint32_t h, F&& f) {
  DoBox* box = doOf(h);
  return sw::core::publishGuarded([&](Step s) { return publishStep(box, std::move(s)); },
                                  [&] { return f(*box->interp); }, [] { return internalFailure(); });
}

template <typename F>
const sw_action_view* guardedAction(uint32_t h, F&& f) {
  DoExchangeBox* box = exOf(h);
  return sw::core::publishGuarded(
      [&](const sw::server::Action& a) {
        return box->published.publish(
            sw::core::actionFields(a, box->exchange->bodyBuffer(), box->exchange->bodyCapacity()));
      },
      [&]() -> const sw::server::Action& { return f(*box->exchange); },
      [&]() -> const sw::server::Action& { return box->exchange->fail(); });
}

// The generic failure as an RPC result, into g_rpcAnswer; "" when even that failed (out of memory): the shim then asks
// a fresh core.
const char* rpcFailureAnswer() {
  try {
    g_rpcAnswer = internalFailure().json;
  } catch (...) {
    g_rpcAnswer.clear();
  }
  return g_rpcAnswer.c_str();
}

}  // namespace

extern "C" {

// The Worker's executeInContext checks before forwarding (protocol §2.7, the §2.5 steps 1-3). Returns the
// {ok:false,status,body} JSON (NUL-terminated) to return as-is, or null when the call may be forwarded; "" when the
// check itself failed (see rpcFailureAnswer).
EMSCRIPTEN_KEEPALIVE const char* sw_server_rpc_check(uint32_t server, const char* key, uint32_t keyLen,
                                                     uint32_t hasBinding) {
  try {
    auto refused = sw::server::contextsUnavailable(serverOf(server)->engine(), std::string_view(key, keyLen),
                                                   hasBinding != 0);
    if (!refused) return nullptr;
    g_rpcAnswer = sw::server::rpcErrorJson(
        sw::server::errorResponse(sw::server::systemClock(), 400, "VALIDATION_FAILED", *refused));
    return g_rpcAnswer.c_str();
  } catch (...) {
    return rpcFailureAnswer();
  }
}

// The generic failure as an RPC result (NUL-terminated JSON; "" when out of memory), for an executeInContext the shim
// could not carry through the core.
EMSCRIPTEN_KEEPALIVE const char* sw_rpc_failure() { return rpcFailureAnswer(); }

// One Interpreter for a Durable Object instance. storage: the shim's id for ctx.storage (the SQL and alarm imports
// receive it). ttl: INTERPRETER_IDLE_TTL_MS as text (has_ttl 0 when unset). armed_alarm: getAlarm() at start-up, or
// NaN. Returns 0 on failure (message via sw_last_error... here sw_do_error(0)).
EMSCRIPTEN_KEEPALIVE uint32_t sw_do_new(uint32_t server, uint32_t storage, const char* ttl, uint32_t ttlLen,
                                        uint32_t hasTtl, double armedAlarm) {
  static std::string creationError;
  try {
    auto box = std::make_unique<DoBox>();
    box->server = server;
    box->sql = std::make_unique<sw::core::JsSql>(storage);
    box->alarm = std::make_unique<sw::core::JsAlarm>(storage);
    const auto& engine = serverOf(server)->engine();
    box->sessions = sw::core::makeSessionFactory(server, engine);
    const double ttlMs = sw::durable::parseIdleTtl(hasTtl ? std::optional<std::string_view>(std::string_view(ttl, ttlLen))
                                                         : std::nullopt);
    box->interp = std::make_unique<Interpreter>(engine, *box->sql, *box->alarm, *box->sessions,
                                                sw::server::systemClock(), ttlMs, armedAlarm);
    return address(box.release());
  } catch (const std::exception& e) {
    creationError = e.what();
    emscripten_log(EM_LOG_ERROR, "[sandbox-workers] Interpreter start failed: %s", creationError.c_str());
    return 0;
  } catch (...) {
    return 0;
  }
}

EMSCRIPTEN_KEEPALIVE void sw_do_free(uint32_t h) { delete doOf(h); }

// What the last execute did (interp::Counters), as JSON, for tests and benches: valid until the next call.
EMSCRIPTEN_KEEPALIVE const char* sw_do_counters(uint32_t h) {
  static std::string text;
  const sw::interp::Counters& c = doOf(h)->interp->counters();
  text = "{\"chunksWritten\":" + std::to_string(c.chunksWritten) + ",\"bytesWritten\":" +
         std::to_string(c.bytesWritten) + ",\"blocksChanged\":" + std::to_string(c.blocksChanged) +
         ",\"blocksUnwritten\":" + std::to_string(c.blocksUnwritten) +
         ",\"memoryBlocks\":" + std::to_string(c.memoryBlocks) + ",\"restored\":" + (c.restored ? "true" : "false") +
         ",\"booted\":" + (c.booted ? "true" : "false") + "}";
  return text.c_str();
}

// Scratch input for executeInContext: the key, then the args JSON; or the encoded getFiles answer.
EMSCRIPTEN_KEEPALIVE char* sw_do_input(uint32_t h, uint32_t len) { return reserveInput(doOf(h)->input, len); }

EMSCRIPTEN_KEEPALIVE const sw_step_view* sw_do_execute_start(uint32_t h, uint32_t keyLen, uint32_t argsLen) {
  return guardedStep(h, [&](Interpreter& interp) {
    const auto& in = doOf(h)->input;
    if (std::size_t(keyLen) + argsLen > in.size()) return internalFailure();
    return interp.executeStart(std::string_view(in.data(), keyLen), std::string_view(in.data() + keyLen, argsLen));
  });
}

// The getFiles answer, encoded by the shim into sw_do_input: u32 isArray, u32 count, then per entry u8 flags
// (FILE_IS_OBJECT, FILE_PATH_IS_STRING, FILE_DATA_IS_BYTES, FILE_UPDATED_AT_IS_NUMBER), u32 + path bytes, u32 + data
// bytes, f64 updatedAt.
EMSCRIPTEN_KEEPALIVE const sw_step_view* sw_do_execute_files(uint32_t h, uint32_t len) {
  return guardedStep(h, [&](Interpreter& interp) {
    auto& in = doOf(h)->input;
    if (len > in.size()) return internalFailure();
    const auto* bytes = reinterpret_cast<const uint8_t*>(in.data());
    sw::core::ByteReader r{bytes, bytes + len};
    uint32_t isArray = 0, count = 0;
    if (!r.u32(isArray) || !r.u32(count)) return internalFailure();
    std::vector<sw::interp::PulledEntry> entries;
    if (isArray) {
      entries.reserve(std::min<uint32_t>(count, 4096));
      for (uint32_t i = 0; i < count; ++i) {
        if (r.p >= r.end) return internalFailure();
        const uint8_t flags = *r.p++;
        sw::interp::PulledEntry e;
        e.isObject = flags & sw::abi::FILE_IS_OBJECT;
        e.pathIsString = flags & sw::abi::FILE_PATH_IS_STRING;
        e.dataIsBytes = flags & sw::abi::FILE_DATA_IS_BYTES;
        e.updatedAtIsNumber = flags & sw::abi::FILE_UPDATED_AT_IS_NUMBER;
        if (!r.bytes(e.path) || !r.bytes(e.data) || !r.f64(e.updatedAt)) return internalFailure();
        entries.push_back(std::move(e));
      }
    }
    std::vector<char>().swap(in);  // the pulled bytes now live in `entries`
    return interp.executeFiles(isArray != 0, std::move(entries));
  });
}

static_assert(sw::abi::RPC_ARGS_MAX_BYTES == sw::server::kMaxRpcArgsBytes);
static_assert(sw::abi::PULLED_MAX_BYTES == sw::server::kMaxPulledBytes);

// The getFiles answer would encode to more than PULLED_MAX_BYTES: the shim did not copy it.
EMSCRIPTEN_KEEPALIVE const sw_step_view* sw_do_execute_files_too_large(uint32_t h) {
  return guardedStep(h, [&](Interpreter& interp) { return interp.executeFilesTooLarge(); });
}

// The getFiles callback threw instead of answering.
EMSCRIPTEN_KEEPALIVE const sw_step_view* sw_do_execute_files_failed(uint32_t h) {
  return guardedStep(h, [&](Interpreter& interp) { return interp.executeFilesFailed(); });
}

// After STEP_AWAIT_ENGINE: the engine's promise settled and the shim holds its value or reason for the session.
EMSCRIPTEN_KEEPALIVE const sw_step_view* sw_do_execute_resume(uint32_t h) {
  return guardedStep(h, [&](Interpreter& interp) { return interp.executeResume(); });
}

// After STEP_AWAIT_ENGINE: the promise had not settled after the step's waitMs.
EMSCRIPTEN_KEEPALIVE const sw_step_view* sw_do_execute_abandon(uint32_t h) {
  return guardedStep(h, [&](Interpreter& interp) { return interp.executeAbandon(); });
}

// INTERPRETER_ENGINE_WAIT_MS as text (has 0 when unset): how long an execute waits for an engine's promise.
EMSCRIPTEN_KEEPALIVE void sw_do_set_engine_wait(uint32_t h, const char* text, uint32_t len, uint32_t has) {
  doOf(h)->interp->setEngineWaitMs(
      sw::interp::parseEngineWait(has ? std::optional<std::string_view>(std::string_view(text, len)) : std::nullopt));
}

// INTERPRETER_MAX_SNAPSHOT_BYTES as text (has 0 when unset): the cap on what one context's snapshot may store.
EMSCRIPTEN_KEEPALIVE void sw_do_set_max_snapshot(uint32_t h, const char* text, uint32_t len, uint32_t has) {
  doOf(h)->interp->setMaxSnapshotBytes(sw::interp::parseMaxSnapshotBytes(
      has ? std::optional<std::string_view>(std::string_view(text, len)) : std::nullopt));
}

EMSCRIPTEN_KEEPALIVE uint32_t sw_do_alarm(uint32_t h) {
  try {
    doOf(h)->interp->alarm();
    return 1;
  } catch (...) {
    return 0;
  }
}

// --- HTTP (after the Worker forwarded the request) -------------------------------------------------------------------

EMSCRIPTEN_KEEPALIVE uint32_t sw_do_exchange_new(uint32_t h) {
  try {
    auto box = std::make_unique<DoExchangeBox>();
    box->owner = doOf(h);
    box->exchange = std::make_unique<Interpreter::HttpExchange>(*box->owner->interp);
    return address(box.release());
  } catch (...) {
    return 0;
  }
}

EMSCRIPTEN_KEEPALIVE void sw_do_exchange_free(uint32_t ex) { delete exOf(ex); }

EMSCRIPTEN_KEEPALIVE char* sw_do_exchange_input(uint32_t ex, uint32_t len) {
  return reserveInput(exOf(ex)->input, len);
}

// method, url and headers ("name: value\r\n" block) were copied into sw_do_exchange_input, in that order.
EMSCRIPTEN_KEEPALIVE const sw_action_view* sw_do_exchange_start(uint32_t ex, uint32_t methodLen, uint32_t urlLen,
                                                                uint32_t headersLen, uint32_t hasBody) {
  return guardedAction(ex, [&](Interpreter::HttpExchange& exchange) -> const sw::server::Action& {
    const auto& in = exOf(ex)->input;
    auto head = sw::core::requestHeadFrom(std::string_view(in.data(), in.size()), methodLen, urlLen, headersLen,
                                          hasBody != 0);
    if (!head) return exchange.fail();
    return exchange.start(*head);
  });
}

EMSCRIPTEN_KEEPALIVE const sw_action_view* sw_do_exchange_body_received(uint32_t ex, uint32_t n) {
  return guardedAction(ex, [&](Interpreter::HttpExchange& e) -> const sw::server::Action& { return e.bodyReceived(n); });
}

EMSCRIPTEN_KEEPALIVE const sw_action_view* sw_do_exchange_body_failed(uint32_t ex) {
  return guardedAction(ex, [&](Interpreter::HttpExchange& e) -> const sw::server::Action& { return e.bodyFailed(); });
}

EMSCRIPTEN_KEEPALIVE const sw_action_view* sw_do_exchange_fail(uint32_t ex) {
  return guardedAction(ex, [&](Interpreter::HttpExchange& e) -> const sw::server::Action& { return e.fail(); });
}
}
