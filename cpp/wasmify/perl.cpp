// The Perl engine's host-side driver. zeroperl (engines/perl/, Perl 5.42) is a prebuilt module we cannot relink with
// the wasmify guest glue, so the host drives it through its own exports (zeroperl_init, zeroperl_eval, values and
// variables) and the language work lives in Perl: engines/perl/sandbox_driver.pl, loaded from /stdlib at boot, which
// maps results, errors and logs (protocol §3, §6.4). One call here: the request goes into $Sandbox::REQ, the host
// evaluates `Sandbox::run()`, and reads the outcome JSON from $Sandbox::OUT (and a session's cwd from $Sandbox::CWD).
#include <random>
#include <string>

#include "wasmify.h"

namespace sw::wasmify {

namespace {

constexpr std::string_view kLanguage = "perl";
// Loaded once per interpreter; the warm-up call compiles what the first request would (JSON::PP's encoder, the
// capture, error paths) so that it is in the boot image rather than paid by every request.
constexpr std::string_view kBootScript =
    "do '/stdlib/sandbox_driver.pl' or die($@ || \"sandbox_driver.pl: $!\"); 1";
constexpr uint32_t kMaxErrorBytes = 4096;

// A NUL-terminated copy of `bytes` in guest memory (the engine's own malloc); the caller frees it.
Result<uint32_t> guestString(GuestCaller& guest, std::string_view bytes) {
  if (bytes.size() >= UINT32_MAX) return engineFailure(kMethodFailed);
  auto ptr = guest.call("malloc", {uint32_t(bytes.size() + 1)});
  if (!ptr) return ptr.failure();
  const uint32_t p = uint32_t(ptr.value());
  if (p == 0) return engineFailure(std::string(kMethodFailed) + ": out of memory");
  const char nul = 0;
  if ((!bytes.empty() && !guest.write(p, bytes.data(), uint32_t(bytes.size()))) ||
      !guest.write(p + uint32_t(bytes.size()), &nul, 1)) {
    return engineFailure(std::string(kMethodFailed) + ": request outside guest memory");
  }
  return p;
}

Result<Unit> guestFree(GuestCaller& guest, uint32_t ptr) {
  if (auto r = guest.call("free", {ptr}); !r) return r.failure();
  return Unit{};
}

// zeroperl_last_error(): a NUL-terminated string, read in bounded pieces.
std::string lastError(GuestCaller& guest) {
  auto ptr = guest.call("zeroperl_last_error", {});
  if (!ptr || ptr.value() == 0) return "";
  std::string out;
  char buf[256];
  uint32_t at = uint32_t(ptr.value());
  while (out.size() < kMaxErrorBytes && guest.read(at, buf, sizeof buf)) {
    for (char c : buf) {
      if (c == 0) return out;
      out.push_back(c);
    }
    at += sizeof buf;
  }
  return out;
}

// Evaluates Perl code in scalar context; a Perl error is an engine failure (the driver's own code failed), reported
// as `failed` and Perl's message.
Result<Unit> evalPerl(GuestCaller& guest, std::string_view code, std::string_view failed = kInitializationFailed) {
  auto p = guestString(guest, code);
  if (!p) return p.failure();
  auto rc = guest.call("zeroperl_eval", {p.value(), 1, 0, 0});
  if (!rc) return rc.failure();
  if (auto r = guestFree(guest, p.value()); !r) return r.failure();
  if (uint32_t(rc.value()) != 0) {
    std::string error = lastError(guest);
    return engineFailure(std::string(failed) + (error.empty() ? "" : ": " + error));
  }
  return Unit{};
}

// Sets the package variable `name` to a byte string.
Result<Unit> setVar(GuestCaller& guest, std::string_view name, std::string_view bytes) {
  auto data = guestString(guest, bytes);
  if (!data) return data.failure();
  auto sv = guest.call("zeroperl_new_string", {data.value(), uint32_t(bytes.size())});
  if (!sv) return sv.failure();
  if (auto r = guestFree(guest, data.value()); !r) return r.failure();
  if (sv.value() == 0) return engineFailure(std::string(kMethodFailed) + ": zeroperl_new_string");
  auto n = guestString(guest, name);
  if (!n) return n.failure();
  auto ok = guest.call("zeroperl_set_var", {n.value(), uint32_t(sv.value())});
  if (!ok) return ok.failure();
  if (auto r = guestFree(guest, n.value()); !r) return r.failure();
  if (auto r = guest.call("zeroperl_value_free", {uint32_t(sv.value())}); !r) return r.failure();
  if (uint32_t(ok.value()) == 0) return engineFailure(std::string(kMethodFailed) + ": zeroperl_set_var");
  return Unit{};
}

// Reads the package variable `name` as bytes (at most kMaxResponseBytes).
Result<std::string> getVar(GuestCaller& guest, std::string_view name) {
  auto n = guestString(guest, name);
  if (!n) return n.failure();
  auto sv = guest.call("zeroperl_get_var", {n.value()});
  if (!sv) return sv.failure();
  if (auto r = guestFree(guest, n.value()); !r) return r.failure();
  if (sv.value() == 0) return engineFailure(std::string(kMethodFailed) + ": zeroperl_get_var");
  auto lenPtr = guest.call("malloc", {4});
  if (!lenPtr) return lenPtr.failure();
  if (lenPtr.value() == 0) return engineFailure(std::string(kMethodFailed) + ": out of memory");
  auto text = guest.call("zeroperl_to_string", {uint32_t(sv.value()), uint32_t(lenPtr.value())});
  if (!text) return text.failure();
  uint32_t len = 0;
  if (!guest.read(uint32_t(lenPtr.value()), &len, 4)) return engineFailure(kTruncatedProtobuf);
  if (auto r = guestFree(guest, uint32_t(lenPtr.value())); !r) return r.failure();
  if (len > kMaxResponseBytes) return engineFailure(kResponseLimitExceeded);
  std::string out(len, '\0');
  if (len && (text.value() == 0 || !guest.read(uint32_t(text.value()), out.data(), len))) {
    return engineFailure(kTruncatedProtobuf);
  }
  if (auto r = guest.call("zeroperl_value_free", {uint32_t(sv.value())}); !r) return r.failure();
  return out;
}

// One call of Sandbox::run (sandbox_driver.pl): the request is "mode\0env\0cwd\0code".
Result<std::string> runPerl(Instance& instance, std::string_view mode, const ExecuteRequest& request) {
  std::string req;
  req.reserve(mode.size() + request.envJson.size() + request.cwd.size() + request.code.size() + 3);
  req.append(mode).push_back('\0');
  req.append(request.envJson).push_back('\0');
  req.append(request.cwd).push_back('\0');
  req.append(request.code);
  if (auto r = setVar(instance.guest, "Sandbox::REQ", req); !r) return r.failure();
  auto ran = evalPerl(instance.guest, "Sandbox::run()", "Perl driver failed");
  // The ticks of the last partial batch (docs/fuel-tool.md): usage is exact, and the budget holds to the tick.
  if (ran) ran = instance.guest.flushFuel();
  if (!ran) {
    // Perl's "Out of memory!" is not an exception a program can catch: Perl writes it to fd 2 and exits (proc_exit, a
    // trap here whose message ends with that line). The instance is invalid either way (a session restores its last
    // snapshot).
    //
    // Out of memory while Perl folds constants at compile time (`'a' x 1_000_000_000`; `sort 1 .. 100_000_000`) ends
    // the same way, but Perl's last words are another line: croak_no_mem's my_exit unwinds into fold_constants or
    // gen_constant_list, which expect no my_exit there (nothing a program writes can exit while constants fold) and
    // panic "<site> JMPENV_PUSH returned 2", and that panic is what the engine says on its way out.
    const Failure& f = ran.failure();
    const bool foldedOutOfMemory = f.message.find("panic: ") != std::string::npos &&
                                   f.message.find(" JMPENV_PUSH returned 2") != std::string::npos;
    if (f.kind != FailureKind::Limit && (f.message.find("Out of memory") != std::string::npos || foldedOutOfMemory)) {
      return Failure{FailureKind::Limit, "Memory limit exceeded"};
    }
    return f;
  }
  auto out = getVar(instance.guest, "Sandbox::OUT");
  if (!out) return out.failure();
  if (out->empty()) return engineFailure(kInvalidProtobuf);
  return out;
}

WasmifyDriver makePerlDriver() {
  WasmifyDriver d;
  d.language = kLanguage;
  d.boot = [](GuestCaller& guest) -> Result<uint64_t> {
    auto rc = guest.call("zeroperl_init", {});
    if (!rc) return rc.failure();
    if (uint32_t(rc.value()) != 0) {
      std::string error = lastError(guest);
      return engineFailure(std::string(kInitializationFailed) + (error.empty() ? "" : ": " + error));
    }
    if (auto r = evalPerl(guest, kBootScript); !r) return r.failure();
    Instance warm{guest, 0, 1};
    for (std::string_view code : {"print qq(x\\n); warn qq(y\\n); +{a => [1, 'b']}", "die 'z'"}) {
      if (auto r = runPerl(warm, "stateless", ExecuteRequest{code, "{\"A\":\"b\"}"}); !r) return r.failure();
    }
    // Boot's last partial batch of ticks: charged now, so the boot image stores a full batch.
    if (auto r = guest.flushFuel(); !r) return r.failure();
    return 1;  // one interpreter per instance
  };
  d.evaluate = [](Instance& instance, std::string_view code) -> Result<std::string> {
    if (auto r = evalPerl(instance.guest, code); !r) return r.failure();
    return std::string();
  };
  d.runOnce = [](Instance& instance, const ExecuteRequest& request) {
    return runPerl(instance, "stateless", request);
  };
  d.sessionExecute = [](Instance& instance, const ExecuteRequest& request) -> Result<SessionOutcome> {
    auto out = runPerl(instance, "session", request);
    if (!out) return out.failure();
    auto cwd = getVar(instance.guest, "Sandbox::CWD");
    if (!cwd) return cwd.failure();
    return SessionOutcome{std::move(out.value()), std::move(cwd.value())};
  };
  d.afterRestore = [](Instance& instance, bool bootImage) -> Result<Unit> {
    // The boot image is shared by every request: re-seed rand() (protocol §6.4: a context's own snapshot keeps its state).
    if (!bootImage) return Unit{};
    std::random_device rd;
    return evalPerl(instance.guest, "srand(" + std::to_string(rd() & 0x7fffffffu) + "); 1");
  };
  return d;
}

}  // namespace

const WasmifyDriver& perlDriver() {
  static const WasmifyDriver d = makePerlDriver();
  return d;
}

}  // namespace sw::wasmify
