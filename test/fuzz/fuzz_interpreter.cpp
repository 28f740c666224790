// libFuzzer target: hostile input to the Interpreter Durable Object (cpp/interp) over real SQLite (in memory) with a
// small engine whose state is a linear memory, so snapshots and restores run too.
//
// Input: a selector byte (taken modulo 7, so the seeds are text: '#' 0, '$' 1, '%' 2, '&' 3, '\'' 4, '(' 5, ')' 6),
// then the rest.
//   0  executeInContext("k", rest as the args JSON); if files are requested, the answer is derived from `rest`
//   1  POST /contexts with `rest` as the body
//   2  DELETE /contexts/<rest>
//   3  executeInContext with a valid frame around `rest` as the code and a manifest of `rest`-derived paths
//   4  the alarm; 5 a new Interpreter over the same storage (eviction); 6 DELETE /
// Invariants (a violation traps): every step ends in valid JSON, an RPC result is {ok:true,result} or
// {ok:false,status,body{code,message,...}}, an HTTP answer is a JSON object, and nothing throws out of the Interpreter.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "durable/sqlite_native.h"
#include "interp/interpreter.h"
#include "json/json.h"

using namespace sw;

namespace {

#define EXPECT(cond)               \
  do {                             \
    if (!(cond)) __builtin_trap(); \
  } while (0)

class FuzzClock final : public server::Clock {
 public:
  double monotonicMs() override { return now_ += 0.5; }
  int64_t epochMs() override { return int64_t(1767225600000.0 + now_); }

 private:
  double now_ = 0;
};

class NullAlarm final : public durable::Alarm {
 public:
  void set(double) override {}
  void remove() override {}
};

// A toy engine: the code's bytes are written into its memory (so every execute changes some blocks); "!" raises,
// "~" is a limit, "#" invalidates, "w<name>" writes a workspace file.
class ToySession final : public interp::Session {
 public:
  explicit ToySession(std::shared_ptr<wasi::Workspace> ws) : ws_(std::move(ws)) {}
  snapshot::VectorMemory mem{3};
  bool bad = false;
  interp::SessionOutcome execute(std::string_view code, std::string_view) override {
    const std::size_t n = std::min<std::size_t>(code.size(), 4096);
    std::memcpy(mem.bytes.data() + 65536 + (counter_++ % 16) * 4096, code.data(), n);
    std::string error;
    if (!code.empty() && code[0] == '!') error = "Error";
    if (!code.empty() && code[0] == '~') error = "ExecutionLimitError";
    if (!code.empty() && code[0] == '#') {
      bad = true;
      error = "EngineError";
    }
    if (code.size() > 1 && code[0] == 'w') ws_->writeFile(std::string(code.substr(1, 20)), code, 1000000);
    std::string out = R"({"logs":{"stdout":["x"],"stderr":[]},"results":[{"text":"ok"}])";
    if (!error.empty()) out = R"({"logs":{"stdout":[],"stderr":[]},"results":[],"error":{"name":")" + error +
                              R"(","message":"m","traceback":[]}})";
    return {out, "/workspace"};
  }
  bool invalid() const override { return bad; }
  bool canSnapshot() override { return !bad; }
  snapshot::Memory& memory() override { return mem; }
  uint64_t handle() const override { return 7; }

 private:
  std::shared_ptr<wasi::Workspace> ws_;
  uint32_t counter_ = 0;
};

class ToyFactory final : public interp::SessionFactory {
 public:
  std::unique_ptr<interp::Session> boot(const std::shared_ptr<wasi::Workspace>& ws, std::string_view) override {
    return std::make_unique<ToySession>(ws);
  }
  std::unique_ptr<interp::Session> restore(const std::shared_ptr<wasi::Workspace>& ws, std::string_view,
                                           const std::function<bool(snapshot::Memory&)>& fill, uint64_t,
                                           std::string_view) override {
    auto s = std::make_unique<ToySession>(ws);
    if (!fill(s->mem)) return nullptr;
    return s;
  }
};

struct World {
  server::EngineInfo engine{"toy", "toy 1", "build-1", {1000, 1 << 20, 65536, 98304}, true, ""};
  FuzzClock clock;
  NullAlarm alarm;
  ToyFactory factory;
  durable::NativeSqlite sql{":memory:"};
  std::unique_ptr<interp::Interpreter> interp;
  World() { restart(); }
  void restart() {
    interp.reset();
    interp = std::make_unique<interp::Interpreter>(engine, sql, alarm, factory, clock, 1000, std::nan(""));
    http("POST", "/contexts", R"({"id":"c1"})");
  }
  void http(const std::string& method, const std::string& path, std::string_view body = {}) {
    interp::Interpreter::HttpExchange ex(*interp);
    http::RequestHead head;
    head.method = method;
    head.url = "https://interpreter.internal" + path;
    head.headers.push_back({"x-interpreter-key", "k"});
    head.hasBody = !body.empty();
    const server::Action* a = &ex.start(head);
    if (a->kind == server::ActionKind::ReadBody) {
      const std::size_t n = std::min(body.size(), ex.bodyCapacity());
      std::memcpy(ex.bodyBuffer(), body.data(), n);
      a = &ex.bodyReceived(n);
    }
    EXPECT(a->kind == server::ActionKind::Respond);
    auto parsed = json::parseCopy(a->response.body);
    EXPECT(parsed.ok() && parsed.value.isObject());
  }
  void checkStep(const interp::Step& s) {
    EXPECT(s.kind == interp::Step::Kind::Done);
    auto parsed = json::parseCopy(s.json);
    EXPECT(parsed.ok() && parsed.value.isObject());
    const json::Value* ok = parsed.value.find("ok");
    EXPECT(ok && ok->isBool());
    if (ok->asBool()) {
      const json::Value* result = parsed.value.find("result");
      EXPECT(result && result->isObject() && result->find("context") && result->find("workspace"));
      EXPECT(result->find("workspace")->find("files")->items().size() == s.files.size());
    } else {
      const json::Value* status = parsed.value.find("status");
      const json::Value* body = parsed.value.find("body");
      EXPECT(status && status->isNumber() && body && body->isObject());
      EXPECT(body->find("code") && body->find("message") && body->find("code")->isString());
    }
  }
  void execute(std::string_view args, std::string_view answerSeed) {
    interp::Step s = interp->executeStart("k", args);
    if (s.kind == interp::Step::Kind::NeedFiles) {
      auto paths = json::parseCopy(s.pathsJson);
      EXPECT(paths.ok() && paths.value.isArray());
      std::vector<interp::PulledEntry> entries;
      std::size_t i = 0;
      for (const auto& p : paths.value.items()) {
        const uint8_t mode = answerSeed.empty() ? 0 : uint8_t(answerSeed[i++ % answerSeed.size()]);
        if (mode % 7 == 6) continue;  // omit one
        interp::PulledEntry e;
        e.isObject = mode % 11 != 10;
        e.pathIsString = true;
        e.dataIsBytes = mode % 13 != 12;
        e.updatedAtIsNumber = true;
        e.path = mode % 17 == 16 ? "/workspace/other" : p.asString();
        e.data = std::string(answerSeed.substr(0, mode % 64));
        e.updatedAt = mode;
        entries.push_back(std::move(e));
      }
      s = interp->executeFiles(answerSeed.size() % 5 != 4, std::move(entries));
    }
    checkStep(s);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static World* world = new World();
  if (size == 0) return 0;
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (data[0] % 7) {
      case 0: world->execute(rest, rest); break;
      case 1: world->http("POST", "/contexts", rest); break;
      case 2: world->http("DELETE", "/contexts/" + std::string(rest.substr(0, 200))); break;
      case 3: {
        // A valid frame: the fuzz bytes become the code and the manifest's paths (hashes in both forms).
        std::string code = json::stringify(json::Value::string(std::string(rest)));
        std::string manifest = "{";
        for (std::size_t i = 0; i + 4 <= rest.size() && i < 64; i += 4) {
          if (manifest.size() > 1) manifest += ",";
          std::string path = "/workspace/" + std::string(rest.substr(i, 4));
          manifest += json::stringify(json::Value::string(path)) + ":" +
                      (rest[i] & 1 ? "\"sha256:" + std::string(64, 'a') + "\"" : "\"0011223344556677\"");
        }
        manifest += "}";
        std::string dirs = rest.size() > 2 && rest[1] & 1 ? R"(["/workspace/d","/workspace/d/e"])" : "[]";
        world->execute(R"({"contextId":"c1","code":)" + code + R"(,"workspace":{"dirs":)" + dirs +
                           R"(,"manifest":)" + manifest + "}}",
                       rest);
        break;
      }
      case 4: world->interp->alarm(); break;
      case 5: world->restart(); break;
      case 6: world->http("DELETE", "/"); world->http("POST", "/contexts", R"({"id":"c1"})"); break;
    }
  } catch (...) {
    __builtin_trap();  // nothing may escape the Interpreter's API (the C ABI would turn it into a 502)
  }
  return 0;
}
