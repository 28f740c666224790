// libFuzzer target: the host side of the wasmify ABI (cpp/wasmify) against hostile guest answers.
//
// Input: byte 0 picks the part, the rest is the tape.
//   byte0 % 4 == 0   the tape as one response message: parseMessage (every field's bytes inside the message; the
//                    fields written back with MessageWriter parse to the same fields) and every engine::decode*
//                    (an accepted message re-encodes to one that decodes to the same value)
//   otherwise        a built-in engine's driver (byte0 / 4, modulo their number: the registry's engines in manifest
//                    order, so the seeds' 1, 5, 9, 13 are the first four) driving a hostile guest
//                    through runWasmify (byte0 % 4 == 1), a session boot and two executes (2), or a session restore
//                    and an execute (3). Every guest export answers from the tape: a tape byte picks a trap, a limit,
//                    a raw 64-bit value, or (wasmify methods) a response of tape bytes copied into guest memory.
// Invariants (a violation traps): a Failure has a message; a session execute never fails for the guest's sake and
// its outcome is JSON; no read or write leaves the guest's 64 KiB memory (the GuestCaller checks bounds, ASan the
// host).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "json/json.h"
#include "wasmify/wasmify.h"

using namespace sw;
using namespace sw::wasmify;
namespace eng = sw::wasmify::engine;

namespace {

#define EXPECT(cond)               \
  do {                             \
    if (!(cond)) __builtin_trap(); \
  } while (0)

class Tape {
 public:
  explicit Tape(std::string_view bytes) : bytes_(bytes) {}
  bool empty() const { return pos_ >= bytes_.size(); }
  uint8_t u8() { return empty() ? 0 : uint8_t(bytes_[pos_++]); }
  uint32_t u32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= uint32_t(u8()) << (8 * i);
    return v;
  }
  std::string_view take(std::size_t n) {
    n = std::min(n, bytes_.size() - std::min(pos_, bytes_.size()));
    std::string_view out = bytes_.substr(std::min(pos_, bytes_.size()), n);
    pos_ += n;
    return out;
  }

 private:
  std::string_view bytes_;
  std::size_t pos_ = 0;
};

class HostileGuest final : public GuestCaller {
 public:
  explicit HostileGuest(Tape& tape) : tape_(tape) {}

  Result<uint64_t> call(std::string_view name, std::initializer_list<uint32_t>) override {
    if (++calls_ > 64 || tape_.empty()) return Failure{FailureKind::Trap, "tape ran out"};
    const uint8_t how = tape_.u8();
    switch (how % 8) {
      case 0: return Failure{FailureKind::Trap, "unreachable"};
      case 1: return Failure{FailureKind::Limit, "Fuel exhausted"};
      case 2: return uint64_t(0);
      case 3: return uint64_t(tape_.u32()) << 32 | tape_.u32();  // any packed value
      case 4: return uint64_t(tape_.u32() % 256);                  // a small pointer or length
      default: {
        // A response: tape bytes placed in guest memory, packed as (ptr << 32) | len, or a length the guest does not
        // have (the host must neither read past its memory nor trust the length).
        if (name.substr(0, 2) != "w_") return uint64_t(1024 + (how >> 3) * 16);
        const std::size_t len = tape_.u8() | std::size_t(tape_.u8()) << 8;
        std::string_view body = tape_.take(len);
        const uint32_t ptr = 4096;
        std::memcpy(memory_.data() + ptr, body.data(), std::min<std::size_t>(body.size(), memory_.size() - ptr));
        const uint32_t packedLen = how & 0x80 ? tape_.u32() : uint32_t(body.size());
        return uint64_t(ptr) << 32 | packedLen;
      }
    }
  }
  bool read(uint32_t ptr, void* dst, uint32_t len) override {
    if (uint64_t(ptr) + len > memory_.size()) return false;
    std::memcpy(dst, memory_.data() + ptr, len);
    return true;
  }
  bool write(uint32_t ptr, const void* src, uint32_t len) override {
    if (uint64_t(ptr) + len > memory_.size()) return false;
    std::memcpy(memory_.data() + ptr, src, len);
    return true;
  }

 private:
  Tape& tape_;
  std::vector<uint8_t> memory_ = std::vector<uint8_t>(65536);
  int calls_ = 0;
};

bool sameFields(const std::vector<Field>& a, const std::vector<Field>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); i++) {
    if (a[i].number != b[i].number || a[i].wireType != b[i].wireType || a[i].varint != b[i].varint ||
        a[i].bytes != b[i].bytes) {
      return false;
    }
  }
  return true;
}

void checkFailure(const Failure& f) { EXPECT(!f.message.empty()); }

void decodeAll(std::string_view msg) {
  auto fields = parseMessage(msg);
  if (fields) {
    MessageWriter w;
    for (const Field& f : fields.value()) {
      EXPECT(f.number != 0);
      if (f.wireType == 2) {
        EXPECT(f.bytes.data() >= msg.data() && f.bytes.data() + f.bytes.size() <= msg.data() + msg.size());
        w.bytes(f.number, f.bytes);
      } else {
        EXPECT(f.wireType == 0);
        w.varint(f.number, f.varint);
      }
    }
    std::string again = w.take();
    auto reparsed = parseMessage(again);
    EXPECT(reparsed && sameFields(reparsed.value(), fields.value()));
  } else {
    checkFailure(fields.failure());
  }
  // Each decoder: accepted -> re-encoded -> decoded to the same value.
  if (auto r = eng::decodeNewRequest(msg)) {
    auto again = eng::decodeNewRequest(eng::encodeNewRequest(r.value()));
    EXPECT(again && again->heapLimit == r->heapLimit && again->stackLimit == r->stackLimit);
  } else {
    checkFailure(r.failure());
  }
  if (auto r = eng::decodeNewResponse(msg)) {
    auto again = eng::decodeNewResponse(eng::encodeNewResponse(r.value()));
    EXPECT(again && again.value() == r.value());
  } else {
    checkFailure(r.failure());
  }
  if (auto r = eng::decodeEvalRequest(msg)) {
    auto again = eng::decodeEvalRequest(eng::encodeEvalRequest(r.value()));
    EXPECT(again && again->handle == r->handle && again->source == r->source && again->envJson == r->envJson);
  } else {
    checkFailure(r.failure());
  }
  if (auto r = eng::decodeEvalResponse(msg)) {
    auto again = eng::decodeEvalResponse(eng::encodeEvalResponse(r.value()));
    EXPECT(again && again->outcomeJson == r->outcomeJson && again->failure == r->failure);
  } else {
    checkFailure(r.failure());
  }
  if (auto r = eng::decodeSessionEvalRequest(msg)) {
    auto again = eng::decodeSessionEvalRequest(eng::encodeSessionEvalRequest(r.value()));
    EXPECT(again && again->handle == r->handle && again->source == r->source && again->envJson == r->envJson &&
           again->cwd == r->cwd);
  } else {
    checkFailure(r.failure());
  }
  if (auto r = eng::decodeSessionEvalResponse(msg)) {
    auto again = eng::decodeSessionEvalResponse(eng::encodeSessionEvalResponse(r.value()));
    EXPECT(again && again->outcomeJson == r->outcomeJson && again->failure == r->failure && again->cwd == r->cwd);
  } else {
    checkFailure(r.failure());
  }
  if (auto r = eng::decodeInterruptAddressResponse(msg)) {
    auto again = eng::decodeInterruptAddressResponse(eng::encodeInterruptAddressResponse(r.value()));
    EXPECT(again && again.value() == r.value());
  } else {
    checkFailure(r.failure());
  }
  if (auto r = eng::decodeFreeRequest(msg)) {
    auto again = eng::decodeFreeRequest(eng::encodeFreeRequest(r.value()));
    EXPECT(again && again.value() == r.value());
  } else {
    checkFailure(r.failure());
  }
  if (auto r = eng::decodeAfterRestoreRequest(msg)) {
    auto again = eng::decodeAfterRestoreRequest(eng::encodeAfterRestoreRequest(r.value()));
    EXPECT(again && again->handle == r->handle && again->bootImage == r->bootImage);
  } else {
    checkFailure(r.failure());
  }
  if (auto r = eng::decodeAfterRestoreResponse(msg)) {
    auto again = eng::decodeAfterRestoreResponse(eng::encodeAfterRestoreResponse(r.value()));
    EXPECT(again && again.value() == r.value());
  } else {
    checkFailure(r.failure());
  }
}

void checkOutcome(const Result<SessionOutcome>& out) {
  EXPECT(out.ok());  // a session execute turns every failure of the call into an outcome
  // The guest's outcome JSON is passed through as the engine wrote it (the server validates it); the host's own
  // failure outcome must be JSON.
  (void)out.value().cwd;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1 || size > 65536) return -1;
  const uint8_t selector = data[0];
  std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  if (selector % 4 == 0) {
    decodeAll(rest);
    return 0;
  }
  // The registry's engines in the manifests' order (engines/*/engine.json `order`); the seeds pick one by index.
  static const std::vector<std::string> kEngines = [] {
    std::vector<std::string> names;
    const std::string all = builtinEngineNames();
    for (std::size_t at = 0; at <= all.size();) {
      std::size_t comma = all.find(", ", at);
      if (comma == std::string::npos) comma = all.size();
      names.push_back(all.substr(at, comma - at));
      at = comma + 2;
    }
    return names;
  }();
  const BuiltinEngine* engine = findBuiltinEngine(kEngines[(selector / 4) % kEngines.size()]);
  EXPECT(engine);
  const WasmifyDriver& driver = engine->driver;
  Tape tape(rest);
  HostileGuest guest(tape);
  const ExecuteRequest request{"print(1)", "{\"A\":\"b\"}"};
  switch (selector % 4) {
    case 1: {
      auto r = runWasmify(guest, driver, request);
      if (!r) checkFailure(r.failure());
      break;
    }
    case 2: {
      auto session = bootWasmifySession(guest, driver, {"/workspace", 1000});
      if (!session) {
        checkFailure(session.failure());
        break;
      }
      for (int i = 0; i < 2; i++) {
        auto out = session->execute(driver, request);
        if (session->invalid) {
          // The host wrote this outcome itself: it must be JSON with an error.
          EXPECT(out.ok() || !out.failure().message.empty());
          if (out.ok()) EXPECT(json::parseCopy(out->outcomeJson).ok());
        } else {
          checkOutcome(out);
        }
      }
      break;
    }
    case 3: {
      SessionSnapshot snapshot{tape.u32() | 1u, "{}", (selector & 0x80) != 0};
      auto session = restoreWasmifySession(guest, driver, snapshot, {"/workspace/a", -1});
      if (!session) {
        checkFailure(session.failure());
        break;
      }
      auto out = session->execute(driver, request);
      if (session->invalid && out.ok()) EXPECT(json::parseCopy(out->outcomeJson).ok());
      break;
    }
  }
  return 0;
}
