// cpp/wasmify: the host side of the wasmify ABI (protocol §5.6, docs/abi.md) and the language-neutral interpreter host
// built on it (the seed's ./wasmify: runWasmify, bootWasmifySession/restoreWasmifySession, WasmifyDriver).
//
// An engine built for wasmify exports `wasm_init`, `wasm_alloc`/`wasm_free` and one `w_<service>_<method>(ptr, len)
// -> i64` per method. The host encodes a request message, copies it into guest memory, calls the method, and
// decodes the response, whose payload is field 1. Everything here is synchronous C++ over a GuestCaller, so it runs
// natively against a fake guest (test/unit/test_wasmify*.cpp) and, in the core, against a real guest instance
// through the `sw_guest_call` import (wasmify_bridge.js, exports.cpp).
//
// Re-entrancy: while the core is inside a guest call, the guest's WASI imports re-enter the core (sw_wasi_*). Code
// here holds no core-global state across a guest call.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sw::wasmify {

// --- errors ---------------------------------------------------------------------------------------------------

// A larger response fails kResponseLimitExceeded. protocol §5.6's reference engines cap at 131,072; ours is 1 MiB because
// a legitimate outcome (64 KiB of result and 32,768 units of logs, JSON-escaped up to 6x) can reach ~600 KB.
inline constexpr uint32_t kMaxResponseBytes = 1048576;

inline constexpr std::string_view kResponseLimitExceeded = "Interpreter response limit exceeded";
inline constexpr std::string_view kInvalidProtobuf = "Invalid protobuf";
inline constexpr std::string_view kNoDataSegments =
    "Engine initialization failed: the engine module has no data segments; only its boot image or a snapshot can "
    "start it";
inline constexpr std::string_view kTruncatedProtobuf = "Truncated protobuf";
inline constexpr std::string_view kTruncatedProtobufField = "Truncated protobuf field";
inline constexpr std::string_view kUnsupportedProtobufField = "Unsupported protobuf field";
inline constexpr std::string_view kInitializationFailed = "Interpreter initialization failed";
inline constexpr std::string_view kMethodFailed = "Interpreter method failed";  // the guest answered 0

enum class FailureKind : uint8_t {
  Engine,  // a protocol or engine failure (the errors above); the server answers EngineError
  Limit,   // the guest was stopped by a limit (fuel backstop, output limit): ExecutionLimitError; instance invalid
  Trap,    // the guest trapped (unreachable, memory fault, stack exhaustion, proc_exit, host failure); invalid
};

struct Failure {
  FailureKind kind = FailureKind::Engine;
  std::string message;
};

struct Unit {};

// A value or a Failure.
template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit on purpose
  Result(Failure failure) : failure_(std::move(failure)) {}  // NOLINT
  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }
  T& value() { return *value_; }
  const T& value() const { return *value_; }
  T* operator->() { return &*value_; }
  const Failure& failure() const { return failure_; }

 private:
  std::optional<T> value_;
  Failure failure_;
};

inline Failure engineFailure(std::string_view message) { return Failure{FailureKind::Engine, std::string(message)}; }

// --- the guest ------------------------------------------------------------------------------------------------

// One live guest instance, as the host reaches it. Under Emscripten: the engine's WebAssembly.Instance, called
// through the sw_guest_call import, its memory through sw_guest_read/sw_guest_write. Natively: a fake.
class GuestCaller {
 public:
  virtual ~GuestCaller() = default;
  // Calls the export `name` with i32 arguments; the result zero-extended to 64 bits (0 for a void export). A throw
  // out of the guest (a trap, or a WASI trap such as the fuel backstop) is a Failure of kind Limit or Trap.
  virtual Result<uint64_t> call(std::string_view name, std::initializer_list<uint32_t> args) = 0;
  // Bounds-checked copies; false when the range leaves the guest's memory.
  virtual bool read(uint32_t guestPtr, void* dst, uint32_t len) = 0;
  virtual bool write(uint32_t guestPtr, const void* src, uint32_t len) = 0;
  // wasm_alloc / wasm_free (override to count or fake them). alloc fails with kMethodFailed on a NULL pointer.
  virtual Result<uint32_t> alloc(uint32_t len);
  virtual Result<Unit> free(uint32_t ptr);
  // Puts the guest's fuel meter in the JavaScript engine's interrupt mode (protocol §5.5) with this interrupt word.
  // Default: no meter.
  virtual void setFuelInterrupt(uint32_t address) { (void)address; }
  // Before a call sequence: clears the host's trap record and restores the fuel budget (< 0: unmetered), which also
  // clears an interrupt word the meter had set. Default: no meter.
  virtual void resetFuel(int64_t budget) { (void)budget; }
  // A module rewritten by our fuel tool (docs/fuel-tool.md) counts ticks in its exported global `sw_fuel_left` and
  // charges the host once per batch: after a run, this charges what the last partial batch spent and refills it, so
  // usage is exact and an image or snapshot stores a full batch. A Limit failure if that charge overdraws the budget.
  // Default (and for a module without the global): nothing to do.
  virtual Result<Unit> flushFuel() { return Unit{}; }
  // False when the guest's module has no data segments (docs/boot-images.md): only memory a boot image or a snapshot
  // filled makes it whole, so bootInstance refuses it instead of running it on memory that lacks them.
  virtual bool canBoot() const { return true; }
  // The last `maxBytes` of what the guest wrote to fd 2 during this call sequence (the WASI host's capture): what an
  // engine said before it trapped (Ruby's "[BUG] ...: failed" report). Default: nothing captured.
  virtual std::string stderrTail(uint32_t maxBytes) const {
    (void)maxBytes;
    return {};
  }
};

// --- messages (the protocol §5.6 protobuf subset) -----------------------------------------------------------------

struct Field {
  uint32_t number = 0;
  uint8_t wireType = 0;     // 0 varint, 2 length-delimited
  uint64_t varint = 0;      // wire type 0
  std::string_view bytes;   // wire type 2 (a view into the message)
};

// Splits a message into fields. Errors (exactly protocol §5.6): a key or value varint longer than 64 bits ->
// kInvalidProtobuf; a key running off the end -> kTruncatedProtobuf; a value running off the end ->
// kTruncatedProtobufField; a wire type other than 0 and 2 -> kUnsupportedProtobufField.
Result<std::vector<Field>> parseMessage(std::string_view message);
// The last occurrence of a field (protobuf's rule for singular fields), or nullptr.
const Field* findField(const std::vector<Field>& fields, uint32_t number);

// Writes the subset by hand (for languages without a .proto, e.g. Python's [1:"/stdlib"]).
class MessageWriter {
 public:
  MessageWriter& varint(uint32_t field, uint64_t value);
  MessageWriter& bytes(uint32_t field, std::string_view value);
  const std::string& data() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  void putVarint(uint64_t v);
  std::string out_;
};

// `w_<service>_<method>`.
std::string methodExport(uint32_t service, uint32_t method);

// One method call: wasm_alloc(request), copy in, w_<service>_<method>(ptr, len), wasm_free(ptr); a response over
// kMaxResponseBytes fails kResponseLimitExceeded; copy the response out; wasm_free(outPtr). Returns the response
// bytes (not yet parsed). A packed result of 0 (the guest could not decode the request or ran out of memory) fails
// "Interpreter method failed: w_S_M".
Result<std::string> invoke(GuestCaller& guest, uint32_t service, uint32_t method, std::string_view request);

// --- the interpreter host -------------------------------------------------------------------------------------

// One guest instance with its interpreter handle.
struct Instance {
  GuestCaller& guest;
  uint32_t service = 0;
  uint64_t handle = 0;
  // Code a driver's afterRestore leaves for the next call into the engine to run first, in the same evaluation (Ruby's
  // re-seed: one evaluation fewer per restore). The driver that sets it applies and clears it.
  std::string prelude = {};
  Result<std::string> invoke(uint32_t method, std::string_view request) const {
    return wasmify::invoke(guest, service, method, request);
  }
};

struct ExecuteRequest {
  std::string_view code;
  std::string_view envJson;    // the request's envVars as a JSON object text; "" = none
  std::string_view cwd = {};  // sessions: the context's working directory (WasmifySession::execute fills it in)
};

// SessionOutcome (protocol §5.1): the EngineOutcome JSON plus the working directory after the call.
struct SessionOutcome {
  std::string outcomeJson;
  std::string cwd;
};

// A language's parts (the seed's WasmifyDriver). Hooks receive the Instance; a Failure from a hook is the call's.
struct WasmifyDriver {
  std::string_view language;
  uint32_t service = 0;
  uint32_t initMethod = 0;                                   // the method that creates the interpreter handle
  std::function<std::string()> initRequest;                  // its request (e.g. heap/stack limits, "/stdlib")
  std::string_view initFailedMessage = kInitializationFailed;  // a zero handle
  // A prebuilt engine that does not speak the wasmify ABI (Perl): after `_initialize`, this creates the interpreter
  // through the engine's own exports and returns the handle, instead of wasm_init and the init method.
  std::function<Result<uint64_t>(GuestCaller&)> boot;
  // Fresh instances only, right after the handle exists (e.g. JavaScript registers its fuel interrupt word).
  std::function<Result<Unit>(Instance&)> afterInit;
  std::string sessionBoot;                                   // a script run once when a session boots ("" none)
  // Runs one script, capturing stdout/stderr, returning a string result (session boot, internal helpers).
  std::function<Result<std::string>(Instance&, std::string_view code)> evaluate;
  // One session call.
  std::function<Result<SessionOutcome>(Instance&, const ExecuteRequest&)> sessionExecute;
  // One stateless call: the EngineOutcome JSON.
  std::function<Result<std::string>(Instance&, const ExecuteRequest&)> runOnce;
  // Optional: after a snapshot restore or a boot image (`bootImage`), e.g. Python re-seeds random.
  std::function<Result<Unit>(Instance&, bool bootImage)> afterRestore;
};

// Fresh-instance boot (protocol §5.6): WASI `_initialize`, `wasm_init`, the driver's init method (zero handle ->
// driver.initFailedMessage), afterInit. With driver.boot: `_initialize`, then boot instead of the wasmify steps.
Result<Instance> bootInstance(GuestCaller& guest, const WasmifyDriver& driver);

// Stateless execution on a freshly instantiated guest: bootInstance, then driver.runOnce. Returns the EngineOutcome
// JSON. The instance is not reused afterwards (nothing is freed inside it).
Result<std::string> runWasmify(GuestCaller& guest, const WasmifyDriver& driver, const ExecuteRequest& request);

// --- sessions (protocol §5.2) ---

// How a session instance runs. The fuel budget is restored at the start of every execute (protocol §5.5: "Sessions
// reset the budget ... at the start of every execute"), and the cwd is the context's (protocol §4.4: boot/restore with
// `options.cwd`): the session sends it with every execute, so a fresh or restored instance continues where the
// context left off.
struct SessionOptions {
  std::string cwd = "/workspace";
  int64_t fuel = -1;  // < 0: unmetered
};

// One live session instance (protocol §5.2). The GuestCaller must outlive it.
struct WasmifySession {
  Instance instance;
  std::string cwd = "/workspace";  // after the last execute (protocol §5.3 rule 5)
  int64_t fuel = -1;               // the budget every execute starts with
  bool invalid = false;            // set after a trap, a limit trap or a host failure: the server drops the instance
  // One call: resets the fuel meter, runs driver.sessionExecute with `cwd`, adopts the outcome's cwd. Never fails for
  // a guest error or a limit: a guest-level error is in the outcome as the engine reports it; a failure of the call
  // itself sets `invalid` and becomes an outcome with error ExecutionLimitError (a Limit: the fuel backstop, the
  // output limit) or EngineError (a Trap, or an Engine failure such as an over-sized response), empty logs, no
  // results, and the current cwd. The only Failures are preconditions: an invalid session, a driver without sessions.
  // A clean fuel interrupt (JavaScript) is a guest-level ExecutionLimitError: the instance stays valid.
  Result<SessionOutcome> execute(const WasmifyDriver& driver, const ExecuteRequest& request);
  // execute() in two halves, for a call that answers later (a WasmifyDriver written in JavaScript whose sessionExecute
  // answered a promise, cpp/wasmify/exports.cpp): begin() checks the preconditions, resets the fuel meter and gives
  // the request with the session's cwd; end() adopts the call's result exactly as execute() does.
  Result<ExecuteRequest> begin(const WasmifyDriver& driver, const ExecuteRequest& request);
  Result<SessionOutcome> end(Result<SessionOutcome> out);
};
struct SessionSnapshot {
  uint64_t handle = 0;
  std::string extraJson = "{}";
  bool bootImage = false;  // the memory came from the build-time boot image, not from this context's snapshot
};
// Boots a fresh instance (fuel reset to options.fuel first, so boot is metered) and runs driver.sessionBoot.
Result<WasmifySession> bootWasmifySession(GuestCaller& guest, const WasmifyDriver& driver,
                                          const SessionOptions& options = {});
// Adopts a restored instance: its memory already holds the snapshot (protocol §4.5 restore contract, docs/abi.md); no
// _initialize, wasm_init or init method runs. Then afterRestore (JavaScript: registers the interrupt word with this
// host's meter).
Result<WasmifySession> restoreWasmifySession(GuestCaller& guest, const WasmifyDriver& driver,
                                             const SessionSnapshot& snapshot, const SessionOptions& options = {});

// --- built-in engines (proto/wasmify/engine.proto) --------------------------------------------------------------

namespace engine {

inline constexpr uint32_t kService = 0;
// Method numbers: the Method enum of engine.proto (checked against the generated code in engine.cpp).
enum Method : uint32_t {
  kEval = 14,
  kInterruptAddress = 21,
  kNew = 24,
  kFree = 25,
  kSessionEval = 26,
  kAfterRestore = 27,
};

struct NewRequest {
  uint32_t heapLimit = 0;
  uint32_t stackLimit = 0;
};
struct EvalRequest {
  uint32_t handle = 0;
  std::string source;
  std::string envJson;
};
struct EvalResponse {
  std::string outcomeJson;
  std::string failure;
};
struct SessionEvalRequest {
  uint32_t handle = 0;
  std::string source;
  std::string envJson;
  std::string cwd;  // the context's cwd ("" = the interpreter keeps its own)
};
struct SessionEvalResponse {
  std::string outcomeJson;  // {logs, results, error?, cwd}
  std::string failure;
  std::string cwd;          // after the call
};
struct AfterRestoreRequest {
  uint32_t handle = 0;
  bool bootImage = false;
};

// nanopb-generated encoders/decoders. Decoders check the protocol §5.6 subset first (parseMessage's errors), then
// decode with nanopb (a nanopb failure -> kInvalidProtobuf).
std::string encodeNewRequest(const NewRequest& request);
Result<NewRequest> decodeNewRequest(std::string_view bytes);
std::string encodeNewResponse(uint32_t handle);
Result<uint32_t> decodeNewResponse(std::string_view bytes);
std::string encodeEvalRequest(const EvalRequest& request);
Result<EvalRequest> decodeEvalRequest(std::string_view bytes);
std::string encodeEvalResponse(const EvalResponse& response);
Result<EvalResponse> decodeEvalResponse(std::string_view bytes);
std::string encodeSessionEvalRequest(const SessionEvalRequest& request);
Result<SessionEvalRequest> decodeSessionEvalRequest(std::string_view bytes);
std::string encodeSessionEvalResponse(const SessionEvalResponse& response);
Result<SessionEvalResponse> decodeSessionEvalResponse(std::string_view bytes);
std::string encodeInterruptAddressResponse(uint32_t address);
Result<uint32_t> decodeInterruptAddressResponse(std::string_view bytes);
std::string encodeFreeRequest(uint32_t handle);
Result<uint32_t> decodeFreeRequest(std::string_view bytes);
std::string encodeAfterRestoreRequest(const AfterRestoreRequest& request);
Result<AfterRestoreRequest> decodeAfterRestoreRequest(std::string_view bytes);
std::string encodeAfterRestoreResponse(uint32_t ok);
Result<uint32_t> decodeAfterRestoreResponse(std::string_view bytes);

// What differs between built-in engines on the host side: the rest of the protocol is engine.proto for all.
struct Spec {
  std::string_view language;
  std::string_view initFailedMessage = kInitializationFailed;  // New answered handle 0
  uint32_t heapLimit = 0;   // New's request (0 = the engine's default)
  uint32_t stackLimit = 0;
  bool interrupt = false;   // fuel in interrupt mode: register the engine's interrupt word with the host's meter
};

// The WasmifyDriver of a built-in engine: init = New; afterInit = InterruptAddress -> setFuelInterrupt (interrupt
// mode only); afterRestore = the same, then AfterRestore; runOnce/evaluate = Eval; sessionExecute = SessionEval.
WasmifyDriver makeDriver(const Spec& spec);

}  // namespace engine

// --- the registry of built-in engines ----------------------------------------------------------------------------

// A function import of a prebuilt engine that neither WASI nor the core provides (e.g. ruby.wasm's JavaScript bridge).
// The shim builds exactly these functions from the table (importStubsJson) when it instantiates the engine; any other
// unknown import throws `Unsupported host capability: m.n` (protocol §5.4). A throw unwinds the guest: the guest call
// fails as a Trap with the message, and the instance is discarded.
enum class ImportStubKind : uint8_t {
  FirstArgument,  // returns its first argument (an identity resource handle)
  Zero,           // returns 0 (nothing for a void import)
  Throw,          // throws an Error with `message`
};
struct ImportStub {
  std::string_view module;
  std::string_view name;  // "*": every function import of `module`
  ImportStubKind kind = ImportStubKind::Zero;
  std::string_view message = {};  // Throw only
};

// One per manifest with a `builtin` section (registry.cpp): the name a runtime's Engine gives as `builtin` (and the
// name the build scripts, boot images and the shim use for engines/<name>/).
struct BuiltinEngine {
  std::string_view name;
  const WasmifyDriver& driver;
  std::span<const ImportStub> importStubs = {};
  // The module's whole state at rest is its linear memory and its exported mutable globals (no other mutable global,
  // no table writes), so an instance whose run failed mid-call (a trap) can still be reset exactly by the instance
  // pool (cpp/core/builtin.cpp) instead of being dropped. test/integration/instance-pool.test.mjs checks the globals
  // of every engine that sets it.
  bool resetAfterTrap = false;
};
// nullptr when `name` is not a built-in engine.
const BuiltinEngine* findBuiltinEngine(std::string_view name);
// The registered names, comma-separated (for error messages).
std::string builtinEngineNames();
// The engine's import stubs as the shim reads them: a JSON array of {"module", "name", "kind": "first-argument" |
// "zero" | "throw", "message"?}, in table order (the first row that matches an import wins).
std::string importStubsJson(const BuiltinEngine& engine);

// A prebuilt engine's driver (cpp/wasmify/<id>.cpp: `WasmifyDriver& <id>Driver()`, and its import stubs if any) is
// declared and registered by builtin_engines.gen.inc from its manifest's `builtin`, not here.

}  // namespace sw::wasmify
