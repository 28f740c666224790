// cpp/wasmify: the message subset, the nanopb-generated JavaScript messages, invoke and runWasmify against a fake
// guest (a GuestCaller that plays engine.wasm's exports over a byte vector).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "wasmify/wasmify.h"

using namespace sw::wasmify;
namespace js = sw::wasmify::engine;

// The JavaScript engine's driver, as the registry has it.
const sw::wasmify::WasmifyDriver& jsDriver() { return sw::wasmify::findBuiltinEngine("javascript")->driver; }

namespace {

std::string bytes(std::initializer_list<int> b) {
  std::string s;
  for (int v : b) s.push_back(char(uint8_t(v)));
  return s;
}

// A fake engine.wasm: linear memory, a bump allocator that tracks live blocks, and the wasmify exports.
class FakeGuest : public GuestCaller {
 public:
  std::vector<uint8_t> memory = std::vector<uint8_t>(4 << 20);  // room for a response at the 1 MiB cap
  std::set<uint32_t> live;
  std::vector<std::string> calls;
  uint32_t next = 1024;
  uint32_t interruptAddress = 0;
  // Behaviour knobs.
  uint32_t handle = 77;
  std::function<std::string(const js::EvalRequest&)> eval = [](const js::EvalRequest& r) {
    return js::encodeEvalResponse({"{\"logs\":{\"stdout\":[],\"stderr\":[]},\"results\":[{\"text\":\"" + r.source +
                                       "\"}],\"env\":" + (r.envJson.empty() ? "{}" : r.envJson) + "}",
                                   ""});
  };
  std::optional<Failure> trapOn;  // a Failure thrown by the named export below
  std::string trapExport;
  uint32_t packedOverride = 0xffffffff;  // != 0xffffffff: w_0_14 returns this length with a valid pointer
  std::vector<int64_t> fuelResets;
  std::vector<js::SessionEvalRequest> sessionCalls;
  std::vector<js::AfterRestoreRequest> afterRestoreCalls;
  uint32_t afterRestoreOk = 1;
  // What New must ask for: engines/javascript/engine.json builtin.heapLimit and stackLimit (protocol §5.6).
  uint32_t expectHeapLimit = 33554432;
  uint32_t expectStackLimit = 1048576;
  // SessionEval: the outcome carries the code and the cwd it ran in; `chdirTo` plays a process.chdir.
  std::string chdirTo;
  std::function<std::string(const js::SessionEvalRequest&)> sessionEval = [this](const js::SessionEvalRequest& r) {
    std::string cwd = !chdirTo.empty() ? chdirTo : r.cwd.empty() ? "/workspace" : r.cwd;
    return js::encodeSessionEvalResponse(
        {"{\"code\":\"" + r.source + "\",\"cwd\":\"" + cwd + "\"}", "", cwd});
  };

  uint32_t allocBlock(uint32_t len) {
    uint32_t p = next;
    next += (len + 15) & ~15u;
    if (next > memory.size()) return 0;
    live.insert(p);
    return p;
  }
  uint64_t respond(const std::string& msg) {
    uint32_t p = allocBlock(uint32_t(msg.size()));
    std::memcpy(memory.data() + p, msg.data(), msg.size());
    return (uint64_t(p) << 32) | msg.size();
  }
  std::string request(uint32_t ptr, uint32_t len) { return std::string(reinterpret_cast<char*>(&memory[ptr]), len); }

  Result<uint64_t> call(std::string_view name, std::initializer_list<uint32_t> args) override {
    calls.emplace_back(name);
    std::vector<uint32_t> a(args);
    if (trapOn && name == trapExport) return *trapOn;
    if (name == "_initialize" || name == "wasm_init") return uint64_t(0);
    if (name == "wasm_alloc") return uint64_t(allocBlock(a.at(0) ? a.at(0) : 1));
    if (name == "wasm_free") {
      REQUIRE(live.erase(a.at(0)) == 1);  // double free or a foreign pointer
      return uint64_t(0);
    }
    std::string req = request(a.at(0), a.at(1));
    if (name == "w_0_24") {
      auto r = js::decodeNewRequest(req);
      REQUIRE(r.ok());
      CHECK(r->heapLimit == expectHeapLimit);
      CHECK(r->stackLimit == expectStackLimit);
      return respond(js::encodeNewResponse(handle));
    }
    if (name == "w_0_21") return respond(js::encodeInterruptAddressResponse(4096));
    if (name == "w_0_14") {
      auto r = js::decodeEvalRequest(req);
      REQUIRE(r.ok());
      CHECK(r->handle == handle);
      if (packedOverride != 0xffffffff) {
        uint64_t packed = respond(std::string(packedOverride, '\0'));
        return packed;
      }
      return respond(eval(r.value()));
    }
    if (name == "w_0_25") return respond(js::encodeNewResponse(1));
    if (name == "w_0_27") {
      auto r = js::decodeAfterRestoreRequest(req);
      REQUIRE(r.ok());
      afterRestoreCalls.push_back(r.value());
      return respond(js::encodeAfterRestoreResponse(afterRestoreOk));
    }
    if (name == "w_0_26") {
      auto r = js::decodeSessionEvalRequest(req);
      REQUIRE(r.ok());
      CHECK(r->handle == handle);
      sessionCalls.push_back(r.value());
      return respond(sessionEval(r.value()));
    }
    return Failure{FailureKind::Trap, "missing export " + std::string(name)};
  }
  bool read(uint32_t ptr, void* dst, uint32_t len) override {
    if (uint64_t(ptr) + len > memory.size()) return false;
    std::memcpy(dst, memory.data() + ptr, len);
    return true;
  }
  bool write(uint32_t ptr, const void* src, uint32_t len) override {
    if (uint64_t(ptr) + len > memory.size()) return false;
    std::memcpy(memory.data() + ptr, src, len);
    return true;
  }
  void setFuelInterrupt(uint32_t address) override { interruptAddress = address; }
  void resetFuel(int64_t budget) override { fuelResets.push_back(budget); }
};

}  // namespace

TEST_CASE("wasmify: MessageWriter and parseMessage round trip", "[wasmify]") {
  MessageWriter w;
  w.varint(1, 0).varint(2, 300).varint(3, UINT64_MAX).bytes(4, "héllo").bytes(5, "");
  auto parsed = parseMessage(w.data());
  REQUIRE(parsed.ok());
  REQUIRE(parsed->size() == 5);
  CHECK(findField(parsed.value(), 2)->varint == 300);
  CHECK(findField(parsed.value(), 3)->varint == UINT64_MAX);
  CHECK(findField(parsed.value(), 4)->bytes == "héllo");
  CHECK(findField(parsed.value(), 4)->wireType == 2);
  CHECK(findField(parsed.value(), 5)->bytes.empty());
  CHECK(findField(parsed.value(), 6) == nullptr);
  CHECK(w.data().substr(0, 5) == bytes({0x08, 0x00, 0x10, 0xac, 0x02}));
  // The last occurrence of a repeated singular field wins.
  const std::string twiceMsg = MessageWriter().varint(1, 1).varint(1, 2).take();
  auto twice = parseMessage(twiceMsg);
  REQUIRE(twice.ok());
  CHECK(findField(twice.value(), 1)->varint == 2);
}

TEST_CASE("wasmify: parseMessage errors are protocol §5.6's", "[wasmify]") {
  auto err = [](const std::string& msg) {
    auto r = parseMessage(msg);
    return r.ok() ? std::string("ok") : r.failure().message;
  };
  CHECK(err("") == "ok");
  CHECK(err(bytes({0x08})) == kTruncatedProtobufField);                  // varint value missing
  CHECK(err(bytes({0x08, 0x80})) == kTruncatedProtobufField);            // varint value cut
  CHECK(err(bytes({0x12, 0x05, 'a'})) == kTruncatedProtobufField);       // length past the end
  CHECK(err(bytes({0x12})) == kTruncatedProtobufField);                  // length missing
  CHECK(err(bytes({0x88})) == kTruncatedProtobuf);                       // key cut
  CHECK(err(bytes({0x09, 0, 0, 0, 0, 0, 0, 0, 0})) == kUnsupportedProtobufField);  // fixed64
  CHECK(err(bytes({0x0d, 0, 0, 0, 0})) == kUnsupportedProtobufField);    // fixed32
  CHECK(err(bytes({0x0b})) == kUnsupportedProtobufField);                // start group
  // 10-byte varint with more than 64 bits, and an 11-byte varint.
  CHECK(err(bytes({0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02})) == kInvalidProtobuf);
  CHECK(err(bytes({0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00})) == kInvalidProtobuf);
  CHECK(err(bytes({0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})) == "ok");  // exactly 2^64-1
  CHECK(err(bytes({0x00, 0x00})) == kInvalidProtobuf);                   // field number 0
}

TEST_CASE("wasmify: JavaScript messages (nanopb) round trip", "[wasmify]") {
  auto nr = js::decodeNewRequest(js::encodeNewRequest({33554432, 1048576}));
  REQUIRE(nr.ok());
  CHECK(nr->heapLimit == 33554432);
  CHECK(nr->stackLimit == 1048576);
  // The layout is protocol §5.6's: [1: heap, 2: stack].
  const std::string newMsg = js::encodeNewRequest({33554432, 1048576});
  auto fields = parseMessage(newMsg);
  REQUIRE(fields.ok());
  CHECK(findField(fields.value(), 1)->varint == 33554432);
  CHECK(findField(fields.value(), 2)->varint == 1048576);

  std::string code = std::string("console.log('\0x')", 17) + std::string(70000, 'a');
  auto er = js::decodeEvalRequest(js::encodeEvalRequest({7, code, "{\"A\":\"b\"}"}));
  REQUIRE(er.ok());
  CHECK(er->handle == 7);
  CHECK(er->source == code);
  CHECK(er->envJson == "{\"A\":\"b\"}");
  const std::string evalMsg = js::encodeEvalRequest({7, "1+1", ""});
  auto ef = parseMessage(evalMsg);  // fields are views into the message
  REQUIRE(ef.ok());
  CHECK(findField(ef.value(), 2)->bytes == "1+1");
  CHECK(findField(ef.value(), 3)->varint == 3);  // the UTF-8 byte length, protocol §5.6's field 3
  CHECK(findField(ef.value(), 4) == nullptr);

  auto res = js::decodeEvalResponse(js::encodeEvalResponse({"{\"results\":[]}", ""}));
  REQUIRE(res.ok());
  CHECK(res->outcomeJson == "{\"results\":[]}");
  CHECK(res->failure.empty());
  // Response payload in field 1.
  const std::string resMsg = js::encodeEvalResponse({"X", ""});
  auto rf = parseMessage(resMsg);
  REQUIRE(rf.ok());
  CHECK(findField(rf.value(), 1)->bytes == "X");

  CHECK(js::decodeNewResponse(js::encodeNewResponse(42)).value() == 42);
  CHECK(js::decodeNewResponse("").value() == 0);
  CHECK(js::decodeInterruptAddressResponse(js::encodeInterruptAddressResponse(1234)).value() == 1234);
  CHECK(js::decodeFreeRequest(js::encodeFreeRequest(9)).value() == 9);
}

TEST_CASE("wasmify: JavaScript decoders report malformed messages", "[wasmify]") {
  CHECK(js::decodeNewResponse(bytes({0x08})).failure().message == kTruncatedProtobufField);
  CHECK(js::decodeNewResponse(bytes({0x0d, 1, 2, 3, 4})).failure().message == kUnsupportedProtobufField);
  CHECK(js::decodeNewResponse(bytes({0x0a, 0x01, 'x'})).failure().message == kInvalidProtobuf);  // wrong wire type
  CHECK(js::decodeEvalResponse(bytes({0x0a, 0x09, 'x'})).failure().message == kTruncatedProtobufField);
  CHECK(js::decodeEvalResponse(bytes({0x08, 0x01})).failure().message == kInvalidProtobuf);  // field 1 as varint
  // Unknown fields are skipped (forward compatibility).
  CHECK(js::decodeNewResponse(MessageWriter().varint(1, 5).bytes(9, "later").take()).value() == 5);
  // source_len must match source.
  CHECK(js::decodeEvalRequest(MessageWriter().varint(1, 1).bytes(2, "ab").varint(3, 5).take()).failure().message ==
        kInvalidProtobuf);
}

TEST_CASE("wasmify: runWasmify runs the JavaScript sequence against a fake guest", "[wasmify]") {
  FakeGuest guest;
  auto r = runWasmify(guest, jsDriver(), {"1 + 1", "{\"K\":\"v\"}"});
  REQUIRE(r.ok());
  CHECK(r.value() == "{\"logs\":{\"stdout\":[],\"stderr\":[]},\"results\":[{\"text\":\"1 + 1\"}],\"env\":{\"K\":\"v\"}}");
  CHECK(guest.interruptAddress == 4096);
  CHECK(guest.live.empty());  // every request and response buffer was freed
  std::vector<std::string> expected = {"_initialize", "wasm_init",
                                       "wasm_alloc", "w_0_24", "wasm_free", "wasm_free",
                                       "wasm_alloc", "w_0_21", "wasm_free", "wasm_free",
                                       "wasm_alloc", "w_0_14", "wasm_free", "wasm_free"};
  CHECK(guest.calls == expected);
}

TEST_CASE("wasmify: a zero handle is JavaScript engine initialization failed", "[wasmify]") {
  FakeGuest guest;
  guest.handle = 0;
  auto r = runWasmify(guest, jsDriver(), {"1", ""});
  REQUIRE_FALSE(r.ok());
  CHECK(r.failure().kind == FailureKind::Engine);
  CHECK(r.failure().message == "JavaScript engine initialization failed");
  // The generic message for other languages.
  WasmifyDriver d = jsDriver();
  d.initFailedMessage = kInitializationFailed;
  FakeGuest g2;
  g2.handle = 0;
  CHECK(runWasmify(g2, d, {"1", ""}).failure().message == "Interpreter initialization failed");
}

TEST_CASE("wasmify: response size cap", "[wasmify]") {
  FakeGuest atCap;
  atCap.packedOverride = kMaxResponseBytes;  // exactly the cap: allowed (then fails to decode as zeros)
  auto a = runWasmify(atCap, jsDriver(), {"1", ""});
  REQUIRE_FALSE(a.ok());
  CHECK(a.failure().message == kInvalidProtobuf);  // a zero byte is field number 0
  CHECK(atCap.live.empty());

  FakeGuest over;
  over.packedOverride = kMaxResponseBytes + 1;
  auto b = runWasmify(over, jsDriver(), {"1", ""});
  REQUIRE_FALSE(b.ok());
  CHECK(b.failure().kind == FailureKind::Engine);
  CHECK(b.failure().message == "Interpreter response limit exceeded");
  CHECK(over.live.empty());  // the oversized response was still released
}

TEST_CASE("wasmify: malformed and failed responses", "[wasmify]") {
  FakeGuest truncated;
  truncated.eval = [](const js::EvalRequest&) { return bytes({0x0a, 0x10, '{'}); };
  CHECK(runWasmify(truncated, jsDriver(), {"1", ""}).failure().message == kTruncatedProtobufField);

  FakeGuest cutKey;
  cutKey.eval = [](const js::EvalRequest&) { return bytes({0x80}); };
  CHECK(runWasmify(cutKey, jsDriver(), {"1", ""}).failure().message == kTruncatedProtobuf);

  FakeGuest fixed;
  fixed.eval = [](const js::EvalRequest&) { return bytes({0x0d, 0, 0, 0, 0}); };
  CHECK(runWasmify(fixed, jsDriver(), {"1", ""}).failure().message == kUnsupportedProtobufField);

  FakeGuest driverFailure;
  driverFailure.eval = [](const js::EvalRequest&) { return js::encodeEvalResponse({"", "invalid handle"}); };
  CHECK(runWasmify(driverFailure, jsDriver(), {"1", ""}).failure().message == "invalid handle");

  FakeGuest empty;
  empty.eval = [](const js::EvalRequest&) { return std::string(); };
  CHECK(runWasmify(empty, jsDriver(), {"1", ""}).failure().message == kInvalidProtobuf);
}

TEST_CASE("wasmify: a guest trap or limit surfaces with its kind", "[wasmify]") {
  FakeGuest limit;
  limit.trapOn = Failure{FailureKind::Limit, "Execution fuel exhausted"};
  limit.trapExport = "w_0_14";
  auto r = runWasmify(limit, jsDriver(), {"while(1){}", ""});
  REQUIRE_FALSE(r.ok());
  CHECK(r.failure().kind == FailureKind::Limit);
  CHECK(r.failure().message == "Execution fuel exhausted");

  FakeGuest trap;
  trap.trapOn = Failure{FailureKind::Trap, "RuntimeError: unreachable"};
  trap.trapExport = "wasm_init";
  CHECK(runWasmify(trap, jsDriver(), {"1", ""}).failure().kind == FailureKind::Trap);
}

TEST_CASE("wasmify: invoke reports a zero packed result and a failed allocation", "[wasmify]") {
  struct ZeroGuest : FakeGuest {
    Result<uint64_t> call(std::string_view name, std::initializer_list<uint32_t> args) override {
      if (name.starts_with("w_")) return uint64_t(0);
      return FakeGuest::call(name, args);
    }
  } zero;
  auto r = invoke(zero, 0, 14, "x");
  REQUIRE_FALSE(r.ok());
  CHECK(r.failure().message == "Interpreter method failed: w_0_14");
  CHECK(zero.live.empty());
  CHECK(methodExport(3, 12) == "w_3_12");

  struct NoMemory : FakeGuest {
    Result<uint64_t> call(std::string_view name, std::initializer_list<uint32_t> args) override {
      if (name == "wasm_alloc") return uint64_t(0);
      return FakeGuest::call(name, args);
    }
  } nomem;
  CHECK(invoke(nomem, 0, 14, "x").failure().message == "Interpreter method failed: wasm_alloc");
}

TEST_CASE("wasmify: SessionEval messages round trip", "[wasmify]") {
  auto rq = js::decodeSessionEvalRequest(js::encodeSessionEvalRequest({9, "let x = 1", "{\"A\":\"b\"}", "/workspace/s"}));
  REQUIRE(rq.ok());
  CHECK(rq->handle == 9);
  CHECK(rq->source == "let x = 1");
  CHECK(rq->envJson == "{\"A\":\"b\"}");
  CHECK(rq->cwd == "/workspace/s");
  const std::string msg = js::encodeSessionEvalRequest({9, "1+1", "", ""});
  auto f = parseMessage(msg);
  REQUIRE(f.ok());
  CHECK(findField(f.value(), 3)->varint == 3);
  CHECK(findField(f.value(), 5) == nullptr);  // an empty cwd is absent: the interpreter keeps its own
  auto rs = js::decodeSessionEvalResponse(js::encodeSessionEvalResponse({"{}", "", "/workspace/t"}));
  REQUIRE(rs.ok());
  CHECK(rs->outcomeJson == "{}");
  CHECK(rs->cwd == "/workspace/t");
  CHECK(js::decodeSessionEvalRequest(MessageWriter().varint(1, 1).bytes(2, "ab").varint(3, 1).take()).failure().message ==
        kInvalidProtobuf);
  CHECK(js::decodeSessionEvalResponse(bytes({0x1a, 0x05, '/'})).failure().message == kTruncatedProtobufField);
}

TEST_CASE("wasmify: a JavaScript session boots, executes with the context cwd and resets fuel every call", "[wasmify]") {
  FakeGuest guest;
  auto s = bootWasmifySession(guest, jsDriver(), {"/workspace/ctx", 5000});
  REQUIRE(s.ok());
  CHECK(s->cwd == "/workspace/ctx");
  CHECK(guest.interruptAddress == 4096);  // afterInit registered the interrupt word
  CHECK(guest.fuelResets == std::vector<int64_t>{5000});  // boot is metered
  std::vector<std::string> boot = {"_initialize", "wasm_init", "wasm_alloc", "w_0_24", "wasm_free", "wasm_free",
                                   "wasm_alloc",  "w_0_21",    "wasm_free",  "wasm_free"};
  CHECK(guest.calls == boot);

  auto out = s->execute(jsDriver(), {"a = 1", "{\"K\":\"v\"}"});
  REQUIRE(out.ok());
  CHECK(out->outcomeJson == "{\"code\":\"a = 1\",\"cwd\":\"/workspace/ctx\"}");
  CHECK(out->cwd == "/workspace/ctx");
  REQUIRE(guest.sessionCalls.size() == 1);
  CHECK(guest.sessionCalls[0].cwd == "/workspace/ctx");  // the session sends its cwd
  CHECK(guest.sessionCalls[0].envJson == "{\"K\":\"v\"}");
  CHECK(guest.fuelResets == std::vector<int64_t>{5000, 5000});

  guest.chdirTo = "/workspace/ctx/sub";  // the guest changed directory
  REQUIRE(s->execute(jsDriver(), {"process.chdir('sub')", ""}).ok());
  CHECK(s->cwd == "/workspace/ctx/sub");
  guest.chdirTo.clear();
  REQUIRE(s->execute(jsDriver(), {"process.cwd()", ""}).ok());
  CHECK(guest.sessionCalls.back().cwd == "/workspace/ctx/sub");
  CHECK(guest.fuelResets.size() == 4);
  CHECK(!s->invalid);
  CHECK(guest.live.empty());
}

TEST_CASE("wasmify: a failed session call is an outcome and invalidates the session", "[wasmify]") {
  struct Case {
    std::optional<Failure> trap;
    std::string failureField;
    std::string name, message;
  };
  const Case cases[] = {
      {Failure{FailureKind::Limit, "Execution fuel exhausted"}, "", "ExecutionLimitError", "Execution fuel exhausted"},
      {Failure{FailureKind::Limit, "Output limit exceeded"}, "", "ExecutionLimitError", "Output limit exceeded"},
      {Failure{FailureKind::Trap, "RuntimeError: unreachable"}, "", "EngineError", "RuntimeError: unreachable"},
      {std::nullopt, "JavaScript driver failure", "EngineError", "JavaScript driver failure"},
  };
  for (const Case& c : cases) {
    FakeGuest guest;
    auto s = bootWasmifySession(guest, jsDriver(), {"/workspace/w", 100});
    REQUIRE(s.ok());
    if (c.trap) {
      guest.trapOn = c.trap;
      guest.trapExport = "w_0_26";
    } else {
      guest.sessionEval = [&](const js::SessionEvalRequest&) { return js::encodeSessionEvalResponse({"", c.failureField, ""}); };
    }
    auto out = s->execute(jsDriver(), {"x", ""});
    REQUIRE(out.ok());  // never a Failure for what the guest did
    CHECK(out->outcomeJson == "{\"logs\":{\"stdout\":[],\"stderr\":[]},\"results\":[],\"error\":{\"name\":\"" + c.name +
                                  "\",\"message\":\"" + c.message + "\",\"traceback\":[]},\"cwd\":\"/workspace/w\"}");
    CHECK(out->cwd == "/workspace/w");
    CHECK(s->invalid);
    auto again = s->execute(jsDriver(), {"1", ""});
    REQUIRE_FALSE(again.ok());
    CHECK(again.failure().message == "Session instance is invalid");
  }
  // An over-sized response is the guest's doing too.
  FakeGuest big;
  auto s = bootWasmifySession(big, jsDriver());
  REQUIRE(s.ok());
  big.sessionEval = [](const js::SessionEvalRequest&) { return js::encodeSessionEvalResponse({std::string(kMaxResponseBytes, 'x'), "", ""}); };
  auto out = s->execute(jsDriver(), {"x", ""});
  REQUIRE(out.ok());
  CHECK(out->outcomeJson.find("\"name\":\"EngineError\",\"message\":\"Interpreter response limit exceeded\"") != std::string::npos);
  CHECK(s->invalid);
  CHECK(big.live.empty());
}

TEST_CASE("wasmify: restoreWasmifySession adopts the handle, re-registers the interrupt word, calls AfterRestore",
          "[wasmify]") {
  FakeGuest guest;
  auto r = restoreWasmifySession(guest, jsDriver(), {77, "{}"}, {"/workspace/r", 123});
  REQUIRE(r.ok());
  CHECK(r->instance.handle == 77);
  CHECK(r->cwd == "/workspace/r");
  CHECK(guest.interruptAddress == 4096);
  // No _initialize, wasm_init or New: only InterruptAddress, then AfterRestore (afterRestore).
  CHECK(guest.calls == std::vector<std::string>{"wasm_alloc", "w_0_21", "wasm_free", "wasm_free", "wasm_alloc",
                                                "w_0_27", "wasm_free", "wasm_free"});
  REQUIRE(guest.afterRestoreCalls.size() == 1);
  CHECK(guest.afterRestoreCalls[0].handle == 77);
  CHECK_FALSE(guest.afterRestoreCalls[0].bootImage);
  auto out = r->execute(jsDriver(), {"g", ""});
  REQUIRE(out.ok());
  CHECK(guest.sessionCalls.back().cwd == "/workspace/r");
  CHECK(guest.fuelResets == std::vector<int64_t>{123, 123});
  auto zero = restoreWasmifySession(guest, jsDriver(), {0, "{}"});
  REQUIRE_FALSE(zero.ok());
  CHECK(zero.failure().message == "JavaScript engine initialization failed");

  // From the boot image: the engine is told so (it must re-seed every generator).
  FakeGuest image;
  SessionSnapshot fromImage{77, "{}", true};
  REQUIRE(restoreWasmifySession(image, jsDriver(), fromImage).ok());
  REQUIRE(image.afterRestoreCalls.size() == 1);
  CHECK(image.afterRestoreCalls[0].bootImage);

  // An engine that cannot re-seed: the restore fails (the host discards the instance).
  FakeGuest refuses;
  refuses.afterRestoreOk = 0;
  CHECK(restoreWasmifySession(refuses, jsDriver(), {77, "{}"}).failure().message ==
        "Interpreter method failed: AfterRestore");
}

TEST_CASE("wasmify: the registry knows every built-in engine; hard-mode engines register no interrupt word",
          "[wasmify]") {
  REQUIRE(findBuiltinEngine("javascript") != nullptr);
  REQUIRE(findBuiltinEngine("python") != nullptr);
  CHECK(findBuiltinEngine("cobol") == nullptr);
  REQUIRE(findBuiltinEngine("perl") != nullptr);
  REQUIRE(findBuiltinEngine("ruby") != nullptr);
  CHECK(builtinEngineNames() == "javascript, python, perl, ruby");
  FakeGuest guest;
  guest.expectHeapLimit = guest.expectStackLimit = 0;  // Python sizes itself
  auto r = runWasmify(guest, findBuiltinEngine("python")->driver, {"1", ""});
  REQUIRE(r.ok());
  CHECK(guest.interruptAddress == 0);
  CHECK(std::find(guest.calls.begin(), guest.calls.end(), "w_0_21") == guest.calls.end());
}

TEST_CASE("wasmify: a generic session driver: sessionBoot, afterRestore", "[wasmify]") {
  // A driver without sessionExecute has no sessions.
  WasmifyDriver none = jsDriver();
  none.sessionExecute = nullptr;
  FakeGuest g0;
  CHECK(bootWasmifySession(g0, none).failure().message == "Sessions are not supported");

  // A driver with session hooks: boot runs sessionBoot through evaluate; execute updates cwd.
  WasmifyDriver d = jsDriver();
  std::vector<std::string> evaluated;
  d.sessionBoot = "boot()";
  d.evaluate = [&](Instance&, std::string_view code) -> Result<std::string> {
    evaluated.emplace_back(code);
    return std::string("ok");
  };
  d.sessionExecute = [](Instance& in, const ExecuteRequest& req) -> Result<SessionOutcome> {
    return SessionOutcome{"{\"code\":\"" + std::string(req.code) + "\",\"handle\":" + std::to_string(in.handle) + "}",
                          "/workspace/sub"};
  };
  FakeGuest g2;
  auto session = bootWasmifySession(g2, d);
  REQUIRE(session.ok());
  CHECK(evaluated == std::vector<std::string>{"boot()"});
  auto out = session->execute(d, {"x", ""});
  REQUIRE(out.ok());
  CHECK(out->outcomeJson == "{\"code\":\"x\",\"handle\":77}");
  CHECK(session->cwd == "/workspace/sub");

  bool restored = false;
  d.afterRestore = [&](Instance&, bool) -> Result<Unit> {
    restored = true;
    return Unit{};
  };
  FakeGuest g3;
  auto r = restoreWasmifySession(g3, d, {77, "{}"});
  REQUIRE(r.ok());
  CHECK(restored);
  CHECK(g3.calls.empty());  // no _initialize, wasm_init or init method on restore
  CHECK(r->instance.handle == 77);
}


TEST_CASE("wasmify: import stubs are the registry's table as JSON; engines speaking only WASI have none", "[wasmify]") {
  CHECK(importStubsJson(*findBuiltinEngine("python")) == "[]");
  const std::string ruby = importStubsJson(*findBuiltinEngine("ruby"));
  CHECK(ruby.find(R"({"module":"canonical_abi","name":"resource_new_rb-abi-value","kind":"first-argument"})") !=
        std::string::npos);
  CHECK(ruby.find(R"({"module":"canonical_abi","name":"resource_drop_js-abi-value","kind":"zero"})") !=
        std::string::npos);
  CHECK(ruby.find(R"({"module":"rb-js-abi-host","name":"*","kind":"throw",)"
                  R"("message":"JavaScript host access is disabled"})") != std::string::npos);
}
