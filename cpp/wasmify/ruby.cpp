// The Ruby engine's host-side driver. ruby.wasm (CRuby 4.0, @ruby/4.0-wasm-wasi; engines/ruby/) is a prebuilt reactor
// we cannot relink, so the host drives it through its own exports, whose names carry their WIT signatures (legacy
// wit-bindgen). The language work lives in Ruby: engines/ruby/driver.rb, mounted as /stdlib/sandbox_driver.rb and
// loaded at boot, defines Sandbox.run_hex, which runs one request and returns the outcome JSON (protocol §3, §6.5). One
// request is one evaluation of `Sandbox.run_hex("<code hex>","<env JSON hex>")`: hex, so the host builds no Ruby
// syntax. A code context's execute adds the context's cwd as a third argument, and the outcome carries the cwd after
// the call (docs/code-contexts.md "Ruby"). engines/ruby/README.md has the call sequence.
#include <random>
#include <string>
#include <utility>

#include "../json/json.h"
#include "wasmify.h"

namespace sw::wasmify {

namespace {

constexpr std::string_view kLanguage = "ruby";

// The exports, by their full names.
constexpr std::string_view kRealloc = "cabi_realloc";
constexpr std::string_view kRubyInit = "ruby-init: func(args: list<string>) -> ()";
constexpr std::string_view kRubyInitLoadpath = "ruby-init-loadpath: func() -> ()";
constexpr std::string_view kEvalProtect =
    "rb-eval-string-protect: func(str: string) -> tuple<handle<rb-abi-value>, s32>";
constexpr std::string_view kStringPtr = "rstring-ptr: func(value: handle<rb-abi-value>) -> string";
constexpr std::string_view kPostStringPtr = "cabi_post_rstring-ptr";
constexpr std::string_view kDropValue = "canonical_abi_drop_rb-abi-value";

// ruby's argv: the stdlib archive's root on the load path, no RubyGems (the stdlib is a flat, trimmed copy), UTF-8
// source and external encodings; `-e_=0` keeps ruby_options from reading a script from stdin (it is parsed only).
constexpr std::string_view kRubyArgs[] = {"ruby", "-I/stdlib", "--disable-gems", "-EUTF-8", "-e_=0"};
// Evaluates to the String "ok", or to what failed (an exception here would leave only a nonzero state). It assigns no
// local variable: these evaluations run in TOPLEVEL_BINDING, from which a code context's binding is made, and guest
// code would see such a local (driver.rb, session_binding).
constexpr std::string_view kBootScript =
    "begin; load '/stdlib/sandbox_driver.rb'; 'ok'; rescue Exception; \"#{$!.class}: #{$!.message}\"; end";
constexpr std::string_view kDriverFailed = "Ruby driver failed";

// The recursion-through-C trap (README "Recursion through C traps"): a raise unwinding many C frames overflows
// asyncify's buffer and asyncify_stop_unwind executes `unreachable`. The module has no name section, so the host
// cannot tell it from any other `unreachable` (rb_bug, abort): it stays an EngineError, with a hint.
constexpr std::string_view kUnreachableTrap = "RuntimeError: unreachable";
constexpr std::string_view kUnreachableHint =
    " (the Ruby VM trapped; most often recursion too deep through C methods such as each or inspect)";

// rb_protect's states are Ruby's small TAG_* numbers. On 4.0, recursion through C (a block passed to `each`) can
// return from the eval with the return area overwritten instead of trapping: any larger "state" is that.
constexpr uint32_t kMaxTag = 0xf;
constexpr std::string_view kCorruptStateHint =
    ": the Ruby VM's state is corrupt (most often recursion too deep through C methods such as each or inspect)";

// How much of fd 2's tail runRuby searches for rb_bug's report of a failed allocation (its first line; the report
// that follows is a few KiB).
constexpr uint32_t kStderrScan = 64 * 1024;

Result<uint32_t> guestAlloc(GuestCaller& guest, uint32_t size) {
  auto p = guest.call(kRealloc, {0, 0, 1, size});
  if (!p) return p.failure();
  if (uint32_t(p.value()) == 0) return engineFailure(std::string(kMethodFailed) + ": out of memory");
  return uint32_t(p.value());
}

// A copy of `bytes` in guest memory (cabi_realloc), NUL-terminated when `nul` (ruby-init reads argv as C strings).
Result<uint32_t> guestBytes(GuestCaller& guest, std::string_view bytes, bool nul = false) {
  if (bytes.size() >= UINT32_MAX - 1) return engineFailure(kMethodFailed);
  auto p = guestAlloc(guest, uint32_t(bytes.size() + (nul ? 1 : 0)));
  if (!p) return p.failure();
  const char zero = 0;
  if ((!bytes.empty() && !guest.write(p.value(), bytes.data(), uint32_t(bytes.size()))) ||
      (nul && !guest.write(p.value() + uint32_t(bytes.size()), &zero, 1))) {
    return engineFailure(std::string(kMethodFailed) + ": request outside guest memory");
  }
  return p;
}

// Two u32 at a return area (the exports' retptrs point at a static area: read before the next call).
bool readPair(GuestCaller& guest, uint32_t at, uint32_t& a, uint32_t& b) {
  uint32_t pair[2];
  if (!guest.read(at, pair, sizeof pair)) return false;
  a = pair[0];
  b = pair[1];
  return true;
}

Result<Unit> rubyInit(GuestCaller& guest) {
  constexpr uint32_t n = std::size(kRubyArgs);
  uint32_t list[2 * n];
  for (uint32_t i = 0; i < n; i++) {
    auto p = guestBytes(guest, kRubyArgs[i], true);
    if (!p) return p.failure();
    list[2 * i] = p.value();
    list[2 * i + 1] = uint32_t(kRubyArgs[i].size());  // without the NUL
  }
  auto listPtr = guestAlloc(guest, sizeof list);
  if (!listPtr) return listPtr.failure();
  if (!guest.write(listPtr.value(), list, sizeof list)) return engineFailure(kInitializationFailed);
  if (auto r = guest.call(kRubyInit, {listPtr.value(), n}); !r) return r.failure();
  if (auto r = guest.call(kRubyInitLoadpath, {}); !r) return r.failure();
  return Unit{};
}

// Evaluates `code` at the top level and returns the resulting String's bytes (at most kMaxResponseBytes). A nonzero
// rb_protect state (an exception escaped) or a non-String value is `failed`; the caller guarantees a String.
Result<std::string> evalToString(GuestCaller& guest, std::string_view code, std::string_view failed) {
  auto src = guestBytes(guest, code);
  if (!src) return src.failure();
  auto ret = guest.call(kEvalProtect, {src.value(), uint32_t(code.size())});
  if (!ret) {
    Failure f = ret.failure();
    if (f.kind == FailureKind::Trap && f.message == kUnreachableTrap) f.message += kUnreachableHint;
    return f;
  }
  uint32_t handle = 0, state = 0;
  if (!readPair(guest, uint32_t(ret.value()), handle, state)) return engineFailure(kTruncatedProtobuf);
  if (state > kMaxTag) return engineFailure(std::string(failed).append(kCorruptStateHint));
  if (state != 0) return engineFailure(std::string(failed) + " (state " + std::to_string(int32_t(state)) + ")");
  auto str = guest.call(kStringPtr, {handle});
  if (!str) return str.failure();
  uint32_t ptr = 0, len = 0;
  if (!readPair(guest, uint32_t(str.value()), ptr, len)) return engineFailure(kTruncatedProtobuf);
  if (len > kMaxResponseBytes) return engineFailure(kResponseLimitExceeded);
  std::string out(len, '\0');
  if (len && !guest.read(ptr, out.data(), len)) return engineFailure(kTruncatedProtobuf);
  if (auto r = guest.call(kPostStringPtr, {uint32_t(str.value())}); !r) return r.failure();
  if (auto r = guest.call(kDropValue, {handle}); !r) return r.failure();
  return out;
}

// Evaluates `code` for its effect (its value is dropped); an exception is `failed`.
Result<Unit> evalRuby(GuestCaller& guest, std::string_view code, std::string_view failed) {
  auto src = guestBytes(guest, code);
  if (!src) return src.failure();
  auto ret = guest.call(kEvalProtect, {src.value(), uint32_t(code.size())});
  if (!ret) return ret.failure();
  uint32_t handle = 0, state = 0;
  if (!readPair(guest, uint32_t(ret.value()), handle, state)) return engineFailure(kTruncatedProtobuf);
  if (state != 0) return engineFailure(std::string(failed) + " (state " + std::to_string(int32_t(state)) + ")");
  if (auto r = guest.call(kDropValue, {handle}); !r) return r.failure();
  return Unit{};
}

void appendHex(std::string& out, std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
}

// One call of Sandbox.run_hex (driver.rb): its String is the outcome JSON. `session`: a code context's execute, which
// passes the context's cwd (request.cwd, maybe empty) as the third argument. `prelude` (afterRestore's re-seed) runs
// first, in the same evaluation.
Result<std::string> runRuby(GuestCaller& guest, const ExecuteRequest& request, bool session = false,
                            std::string_view prelude = {}) {
  const std::string_view env = request.envJson.empty() ? std::string_view("{}") : request.envJson;
  std::string call;
  call.reserve(36 + prelude.size() + 2 * (request.code.size() + env.size() + request.cwd.size()));
  call.append(prelude);
  call.append("Sandbox.run_hex(\"");
  appendHex(call, request.code);
  call.append("\",\"");
  appendHex(call, env);
  if (session) {
    call.append("\",\"");
    appendHex(call, request.cwd);
  }
  call.append("\")");
  auto out = evalToString(guest, call, kDriverFailed);
  // The ticks of the last partial batch (docs/fuel-tool.md): usage is exact, and the budget holds to the tick.
  if (out) {
    if (auto r = guest.flushFuel(); !r) return r.failure();
  }
  if (!out) {
    // Memory exhausted inside the VM (e.g. during GC) is fatal for Ruby, not a NoMemoryError. Mostly it prints
    // "[FATAL] failed to allocate memory" and exits (a trap here whose message ends with that line). Ruby 4.0's
    // arrays that grow without GC (object shapes, ...) call rb_bug instead: "[BUG] rb_darray_..._without_gc: failed"
    // on fd 2, then abort, which is the module's `unreachable` (the 4.0 bump, issue 28).
    const Failure& f = out.failure();
    if (f.kind == FailureKind::Trap &&
        (f.message.find("failed to allocate memory") != std::string::npos ||
         (f.message.starts_with(kUnreachableTrap) &&
          guest.stderrTail(kStderrScan).find("_without_gc: failed") != std::string::npos))) {
      return Failure{FailureKind::Limit, "Memory limit exceeded"};
    }
    return f;
  }
  if (out->empty()) return engineFailure(kInvalidProtobuf);
  return out;
}

WasmifyDriver makeRubyDriver() {
  WasmifyDriver d;
  d.language = kLanguage;
  d.boot = [](GuestCaller& guest) -> Result<uint64_t> {
    if (auto r = rubyInit(guest); !r) return r.failure();
    auto loaded = evalToString(guest, kBootScript, kInitializationFailed);
    if (!loaded) return loaded.failure();
    if (loaded.value() != "ok") return engineFailure(std::string(kInitializationFailed) + ": " + loaded.value());
    // Warm-up: what the first request would compile or load lazily (the capture, JSON generation, the error and
    // syntax-error paths) lands in the boot image instead of being paid by every request.
    for (std::string_view code : {"puts 'x'; warn 'y'; {a: [1, 'b', 2.5, nil]}", "raise 'z'", "1 +", "'s'"}) {
      if (auto r = runRuby(guest, ExecuteRequest{code, "{\"A\":\"b\"}"}); !r) return r.failure();
    }
    if (auto r = evalRuby(guest, "GC.start; nil", kInitializationFailed); !r) return r.failure();
    // Boot's last partial batch of ticks: charged now, so the boot image stores a full batch.
    if (auto r = guest.flushFuel(); !r) return r.failure();
    return 1;  // one VM per instance
  };
  d.evaluate = [](Instance& instance, std::string_view code) -> Result<std::string> {
    const std::string call = std::exchange(instance.prelude, {}) + std::string(code);
    if (auto r = evalRuby(instance.guest, call, kDriverFailed); !r) return r.failure();
    return std::string();
  };
  d.runOnce = [](Instance& instance, const ExecuteRequest& request) {
    return runRuby(instance.guest, request, false, std::exchange(instance.prelude, {}));
  };
  d.sessionExecute = [](Instance& instance, const ExecuteRequest& request) -> Result<SessionOutcome> {
    auto out = runRuby(instance.guest, request, true, std::exchange(instance.prelude, {}));
    if (!out) return out.failure();
    // The cwd after the call is the outcome's "cwd" (driver.rb: Dir.pwd when under /workspace); an outcome without
    // one (the driver's own fallback) keeps the context's. The core checks it again before storing it.
    std::string cwd;
    auto parsed = json::parseCopy(out.value());
    const json::Value* c = parsed.ok() && parsed.value.isObject() ? parsed.value.find("cwd") : nullptr;
    if (c && c->isString()) cwd = c->asString();
    return SessionOutcome{std::move(out.value()), std::move(cwd)};
  };
  d.afterRestore = [](Instance& instance, bool) -> Result<Unit> {
    // Ruby seeded its default Random while booting: every instance restored from the shared boot image would draw
    // the same numbers. A context's own snapshot is re-seeded too, as Python's `random` is (protocol §6.3, §6.5).
    // Run by the next call into the engine, first in its evaluation (one evaluation fewer per request or restore);
    // nothing of the guest runs before it.
    std::random_device rd;
    const uint64_t seed = (uint64_t(rd()) << 32) | rd();
    instance.prelude = "Random.srand(" + std::to_string(seed) + ");";
    return Unit{};
  };
  return d;
}

// canonical_abi: a resource handle is the guest pointer itself; the JavaScript bridge is disabled (protocol §6.5).
// stdlib.tar's js.rb makes `require "js"` a guest NotImplementedError; only `require "js.so"` reaches these.
constexpr ImportStub kRubyImportStubs[] = {
    {"canonical_abi", "resource_new_rb-abi-value", ImportStubKind::FirstArgument},
    {"canonical_abi", "resource_get_rb-abi-value", ImportStubKind::FirstArgument},
    {"canonical_abi", "resource_drop_js-abi-value", ImportStubKind::Zero},
    {"rb-js-abi-host", "*", ImportStubKind::Throw, "JavaScript host access is disabled"},
};

}  // namespace

const WasmifyDriver& rubyDriver() {
  static const WasmifyDriver d = makeRubyDriver();
  return d;
}

std::span<const ImportStub> rubyImportStubs() { return kRubyImportStubs; }

}  // namespace sw::wasmify
