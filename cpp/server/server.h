// cpp/server: InterpreterServer, the runtime Worker's protocol logic (protocol §2–§3).
//
// Sans-I/O: the server never performs I/O itself. Each request is an Exchange, a small state machine that the shim
// drives: it returns the next Action (send this response, read the body into this buffer, run the engine with this
// payload, forward to the Interpreter Durable Object) and is fed the answer. Every protocol rule lives here, so the
// shim stays a marshaller and the whole surface is testable natively.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../abi/abi.h"
#include "../http/http.h"
#include "../json/json.h"

namespace sw::server {

// The protocol's request body limit, 96 KiB (protocol §2.3 steps 2 and 4): an engine's unless it sets its own, and every
// Interpreter route's (POST /contexts, protocol §2.6 step 1), which is also what the Worker forwards at most.
constexpr std::size_t kRequestBodyLimit = abi::REQUEST_MAX_BYTES;
// The code of one execute (protocol §2.3): an engine's unless it sets its own.
constexpr std::size_t kCodeBytesLimit = abi::CODE_MAX_BYTES;

// executeInContext sizes (docs/limits.md). Workers RPC caps one value at 32 MiB; these keep every argument and
// answer well inside it and bound what the shim copies into the core before C++ sees it.
// The arguments as JSON: code (64 KiB), envVars and the workspace shape (paths are bounded by the workspace's
// 1 MiB of path bytes); more is 413 "Request too large".
constexpr std::size_t kMaxRpcArgsBytes = 4 * 1048576;
// A getFiles answer, encoded: at most 16 MiB of files can be used, plus paths and per-entry framing; more is the
// workspace's ENOSPC.
constexpr std::size_t kMaxPulledBytes = 20 * 1048576;
// A result's workspace changes as the RPC value carries them (file bytes, every path at 2 bytes per byte, framing):
// more and the round fails with ExecutionLimitError "Workspace changes exceed 24 MiB", its changes rolled back. A
// round within the workspace limits stays below it; it is a backstop.
constexpr std::size_t kMaxWorkspaceChangeBytes = 24 * 1048576;

struct Limits {
  double fuel = 0;
  double memoryBytes = 0;
  double codeBytes = kCodeBytesLimit;
  double requestBytes = kRequestBodyLimit;
};

// What the server knows about the engine it fronts (the Engine contract's identity fields, protocol §5.1).
struct EngineInfo {
  std::string language;
  std::string engineName;
  std::string build;
  Limits limits;
  bool sessions = false;
  // Non-empty for an engine the core drives itself over the wasmify ABI (a name in cpp/wasmify/registry.cpp, the id
  // of a manifest with a `builtin` section); empty for an Engine written in JavaScript, which the core runs through the
  // sw_host_engine_run import.
  std::string builtin;
};

// Parses the engine description the shim passes at start-up:
// {"language","engineName","build","limits":{"fuel","memoryBytes","codeBytes","requestBytes"},"sessions":bool,
//  "builtin"?:string}.
// Returns nullopt and sets `error` when a field is missing or has the wrong type.
std::optional<EngineInfo> parseEngineInfo(std::string_view json, std::string& error);

// Time source, injectable for tests.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual double monotonicMs() = 0;
  virtual int64_t epochMs() = 0;
};
Clock& systemClock();

// ISO-8601 UTC with milliseconds, as Date.prototype.toISOString() prints it.
std::string isoTime(int64_t epochMs);

// Result and log limits (protocol §3.2–§3.3).
constexpr std::size_t kMaxResultBytes = 65536;
constexpr std::size_t kMaxLogEntries = 200;
constexpr std::size_t kMaxLogUnits = 32768;
constexpr std::size_t kMaxHostMessageUnits = 2048;

// --- errors, as every route and the RPC report them (errors.cpp) -----------------------------------------------------

// An ErrorResponse (protocol §3.6); `operation` (protocol §3.8), when not empty, is its top-level `operation`.
// protocol §3.7: the ErrorResponse code of a filesystem errno ("ENOENT" -> "FILE_NOT_FOUND"; others FILESYSTEM_ERROR).
std::string errnoCode(std::string_view errnoName);
// protocol §3.6: the canonical HTTP status of an error code (500 for one it does not know).
int codeStatus(std::string_view code);
// protocol §7.2: the message of the 400 when `id` is not a sandbox id, nullopt when it is one (the Sandbox's
// x-sandbox-id, the gateway's /sandbox/<id>; the caller's client reads the same abi.def rows).
std::optional<std::string> sandboxIdError(std::string_view id);

http::Response errorResponse(Clock& clock, int status, std::string_view code, std::string_view message,
                             std::string_view contextJson = "{}", std::string_view operation = {});
// The generic fallback for anything unexpected: 502 INTERNAL_ERROR "Engine execution failed".
http::Response internalErrorResponse(Clock& clock);
// An error as executeInContext returns it (protocol §2.7: returned, never thrown): {"ok":false,"status":S,"body":B}.
std::string rpcErrorJson(const http::Response& error);
// The `error` member of an outcome the host reports itself: {name, message (cut to kMaxHostMessageUnits UTF-16
// units), traceback: []}.
void writeHostError(json::Writer& w, std::string_view name, std::string_view message);
// The outcome of an engine run that failed as a whole (protocol §5.3): no logs, no results, the host's error; with `cwd`
// a SessionOutcome (protocol §5.1).
std::string failedOutcomeJson(std::string_view errorName, std::string_view message,
                              std::optional<std::string_view> cwd = std::nullopt);

// --- usage (protocol §3.4), the one definition of the envelope (server.cpp) ---------------------------------------

// What a run cost: the fuel spent (budget - what is left, capped at the budget), the budget, the guest's memory in
// bytes. Every path that reports usage builds it from this: the built-in engines' outcomes and a JavaScript
// engine's WASI host (wasmify::hostUsage), and an engine's own usage is read back through parseUsage.
struct Usage {
  double fuelConsumed = 0;
  double fuelLimit = 0;
  double memoryBytes = 0;
};
// {fuelConsumed, fuelLimit, memoryBytes}, in that order.
json::Value usageJson(const Usage& usage);
// An outcome's `usage`: nullopt unless it is an object with the three numbers.
std::optional<Usage> parseUsage(const json::Value& v);

// --- what a request must be, for the Worker and the Interpreter alike (request.cpp) ----------------------------------

// How many body bytes the shim reads for a body of at most `limit` bytes: one more, so a body that is too large shows
// as such without being read whole.
constexpr std::size_t bodyReadBound(std::size_t limit) { return limit + 1; }
// True when the request's Content-Length announces more than `limit` bytes: refused before a byte is read.
bool declaredTooLarge(const http::RequestHead& head, double limit);

// A request body in core memory as the shim copies it in: bodyReadBound(limit) bytes, then simdjson's padding.
class BodyBuffer {
 public:
  void allocate(std::size_t limit);
  void release() { bytes_.reset(); }
  char* data() { return bytes_.get(); }
  std::size_t capacity() const { return bodyReadBound(limit_); }
  bool tooLarge(std::size_t received) const { return received > limit_; }
  // The first `received` bytes (at most the limit) as a JSON document.
  json::ParseResult parse(std::size_t received);

 private:
  std::unique_ptr<char[]> bytes_;  // uninitialized: only the bytes received and the padding are ever read
  std::size_t limit_ = 0;
};

// A request that fails validation: the status and message of its VALIDATION_FAILED ErrorResponse.
struct Invalid {
  int status;
  std::string message;
};
// `code` (protocol §2.3, §2.7): a string, not blank, of at most limits.codeBytes UTF-8 bytes. `code` may be null (absent).
std::optional<Invalid> checkCode(const json::Value* code, const Limits& limits);
// What `envVars` may hold besides strings. POST /execute (protocol §2.3 step 12) skips null values and keys no process
// environment can have; executeInContext (protocol §2.7) takes strings only, under any key.
enum class EnvVarsRule { Execute, Context };
// `envVars` when present: an object of strings (as `rule` allows); `envJson` gets the object the engine receives.
std::optional<Invalid> readEnvVars(const json::Value& envVars, EnvVarsRule rule, std::string& envJson);
// An interpreter key (protocol §2.5 step 1), checked by the Worker and again by the Interpreter: 1-128 characters of
// [A-Za-z0-9._-].
std::optional<Invalid> checkInterpreterKey(std::string_view key);
// The checks before a code-context request reaches the Interpreter (protocol §2.5 steps 1-3; HTTP and RPC alike): the
// message of the 400 when `key` is invalid or the runtime cannot keep contexts, nullopt when it may go on.
std::optional<std::string> contextsUnavailable(const EngineInfo& engine, std::string_view key, bool hasBinding);

// The optional `language` check of POST /execute (protocol §2.4).
bool languageMatches(std::string_view requested, std::string_view runtimeLanguage);
std::string normalizeLanguage(std::string_view requested);

bool isValidInterpreterKey(std::string_view key);

// "." and "..": an id that cannot be a URL path segment (the URL parser removes it with the segment before, so
// DELETE /interpreters/K/contexts/%2e%2e would reach DELETE /interpreters/K/). Refused as a key or context id on every
// route, percent-encoded or not.
bool isDotSegment(std::string_view id);
constexpr std::string_view kDotSegmentIdMessage = "Context id must not be '.' or '..'";

// Number(text) for a header or env value (decimal, exponent, 0x/0b/0o, Infinity; surrounding blanks ignored; "" is
// 0); nullopt where Number() gives NaN.
std::optional<double> jsNumber(std::string_view s);
// "64 KiB": the size label of the "Code exceeds" message.
std::string kibLabel(double bytes);
double roundMs(double ms);
bool isValidEnvKey(std::string_view key);

// The shim reads the kind as a number (cpp/abi/abi.def).
enum class ActionKind : uint32_t {
  Respond = abi::ACTION_RESPOND,       // send `response`
  ReadBody = abi::ACTION_READ_BODY,    // read at most `bodyLimit + 1` bytes of the request body into bodyBuffer(),
                                       // then bodyReceived()
  RunEngine = abi::ACTION_RUN_ENGINE,  // call the engine with `payload` (JSON {code, envVars?}), then
                                       // engineFinished()/engineThrew()
  Forward = abi::ACTION_FORWARD,       // forward to the Interpreter DO for `interpreterKey` at `forwardPath` with at
                                       // most bodyLimit + 1 bytes of the body, relay its response
};

struct Action {
  ActionKind kind = ActionKind::Respond;
  http::Response response;
  std::size_t bodyLimit = 0;
  std::string payload;
  std::string interpreterKey;
  std::string forwardPath;
  std::vector<http::Header> forwardHeaders;  // headers to add to the forwarded request
};

class InterpreterServer;

// One request.
class Exchange {
 public:
  Exchange(const InterpreterServer& server, Clock& clock);

  // hasInterpreterBinding: whether env.INTERPRETER exists in this Worker.
  const Action& start(const http::RequestHead& head, bool hasInterpreterBinding);
  // The buffer the body is read into: capacity bodyReadBound(bodyLimit) bytes, followed by json::kPadding writable
  // bytes.
  char* bodyBuffer() { return body_.data(); }
  std::size_t bodyCapacity() const { return body_.capacity(); }
  // `n` bytes were written to bodyBuffer(); n == bodyLimit + 1 means the body was longer than the limit.
  const Action& bodyReceived(std::size_t n);
  // Reading the body failed midway (the stream errored or ended short of its Content-Length), also while reading it
  // for a Forward.
  const Action& bodyFailed();
  // The engine returned an outcome, serialized as JSON.
  const Action& engineFinished(std::string_view outcomeJson);
  // The engine threw: `limit` when it was an ExecutionLimitError; `message` is the Error's message, or nullopt when
  // the thrown value was not an Error (reported as "Execution failed").
  const Action& engineThrew(bool limit, std::optional<std::string_view> message);
  // The engine's outcome could not be serialized: `reason` is what JSON.stringify threw.
  const Action& engineOutcomeUnserializable(std::string_view reason);
  // Something unexpected happened outside the server (for example the shim caught a trap).
  const Action& fail();

  const Action& action() const { return action_; }
  // Reserves a padded input buffer of `len` bytes (+ padding) for a JSON document the shim copies in.
  char* inputBuffer(std::size_t len);
  std::string_view input() const { return std::string_view(input_.data(), inputLen_); }

 private:
  const Action& respond(http::Response r);
  const Action& validationError(int status, std::string_view message);
  const Action& validateExecute(const json::ParseResult& parsed);
  const Action& finishExecution(std::string body);

  const InterpreterServer& server_;
  Clock& clock_;
  Action action_;
  BodyBuffer body_;
  std::vector<char> input_;
  std::size_t inputLen_ = 0;
  std::string code_;
  double startedMs_ = 0;
};

class InterpreterServer {
 public:
  explicit InterpreterServer(EngineInfo engine) : engine_(std::move(engine)) {}
  const EngineInfo& engine() const { return engine_; }
  std::unique_ptr<Exchange> newExchange(Clock& clock = systemClock()) const {
    return std::make_unique<Exchange>(*this, clock);
  }

 private:
  EngineInfo engine_;
};

// Maps an engine outcome (protocol §5.1 EngineOutcome, as JSON) into the fields after `durationMs` of an
// ExecutionResult, enforcing the result and log limits. Exposed for tests.
std::string assembleOutcome(const json::Value& outcome);
// The members an ExecutionResult starts with (protocol §3.1: code, language, engine, durationMs), then those of
// `outcome` (assembleOutcome's), into the object `w` has open: POST /execute's body and executeInContext's result.
void writeExecutionResult(json::Writer& w, const EngineInfo& engine, std::string_view code, double durationMs,
                          std::string_view outcome);

}  // namespace sw::server
