#ifndef __EMSCRIPTEN__  // libsqlite3 backs these tests natively; the core build reaches SQLite through the shim
// cpp/interp: the Interpreter Durable Object's logic over real SQLite (libsqlite3) with a small fake engine whose
// state lives in a linear memory, so snapshots, restores and eviction run through the real cpp/snapshot code.
// The real JavaScript engine is exercised end to end in workerd (test/integration/contexts.test.mjs).
#include <catch2/catch.hpp>

#include "fakes.h"

#include <cmath>
#include <new>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "interp/interpreter.h"
#include "durable/sqlite_native.h"
#include "json/json.h"

using namespace sw;
using sw::interp::Interpreter;
using sw::interp::Step;

namespace {

using sw::test::FakeAlarm;
using sw::test::FakeClock;

// A toy language: one command per execute.
//   set N | get | throw | limit | trap | hostbug | write PATH DATA | stat PATH... | openfd | closefd | cd DIR | noise N
//   | limitthrow (execute throws SessionLimitThrow) | extra JSON (what extraJson() reports from now on) | bigextra N
// Its only state is a counter at kSlot in its memory (plus noise), so a snapshot must carry it.
constexpr uint32_t kSlot = 70000;

class FakeSession final : public interp::Session {
 public:
  FakeSession(std::shared_ptr<wasi::Workspace> ws, std::string cwd) : ws_(std::move(ws)), cwd_(std::move(cwd)) {}
  snapshot::VectorMemory mem{2};
  uint64_t handleValue = 42;
  bool invalid_ = false;
  bool openFd = false;
  std::string extra = "{}";

  interp::SessionOutcome execute(std::string_view code, std::string_view envJson) override {
    std::istringstream in{std::string(code)};
    std::string cmd;
    in >> cmd;
    auto ok = [&](std::string text) {
      return interp::SessionOutcome{"{\"logs\":{\"stdout\":[\"ran\"],\"stderr\":[]},\"results\":[{\"text\":" +
                                        json::stringify(json::Value::string(text)) + "}]}",
                                    cwd_};
    };
    auto err = [&](std::string name) {
      return interp::SessionOutcome{"{\"logs\":{\"stdout\":[],\"stderr\":[]},\"results\":[],\"error\":{\"name\":\"" +
                                        name + "\",\"message\":\"m\",\"traceback\":[]}}",
                                    cwd_};
    };
    if (cmd == "set") {
      uint32_t v = 0;
      in >> v;
      std::memcpy(mem.bytes.data() + kSlot, &v, 4);
      return ok(std::to_string(v));
    }
    if (cmd == "get") {
      uint32_t v;
      std::memcpy(&v, mem.bytes.data() + kSlot, 4);
      return ok(std::to_string(v));
    }
    if (cmd == "env") return ok(std::string(envJson));
    if (cmd == "throw") return err("Error");
    if (cmd == "limit") {
      uint32_t v = 999;  // state mutated in a limited round stays visible in the live instance
      std::memcpy(mem.bytes.data() + kSlot, &v, 4);
      return err("ExecutionLimitError");
    }
    if (cmd == "trap") {
      uint32_t v = 777;
      std::memcpy(mem.bytes.data() + kSlot, &v, 4);
      invalid_ = true;
      return err("EngineError");
    }
    if (cmd == "hostbug") throw std::runtime_error("host bug");
    if (cmd == "limitthrow") throw interp::SessionLimitThrow("limit thrown by the engine");
    if (cmd == "extra") {
      std::getline(in >> std::ws, extra);
      return ok("extra");
    }
    if (cmd == "bigextra") {  // an extra of about N bytes (more than a request's code may carry)
      std::size_t n = 0;
      in >> n;
      extra = "{\"big\":\"" + std::string(n, 'x') + "\"}";
      return ok("extra");
    }
    if (cmd == "hostoom") throw std::bad_alloc();
    if (cmd == "handle") {  // what handle() answers from now on (any u64)
      in >> handleValue;
      return ok(std::to_string(handleValue));
    }
    if (cmd == "write") {
      std::string path, data;
      in >> path >> data;
      ws_->writeFile(path, data, 5000000000ull);
      if (in >> cmd && cmd == "throw") return err("Error");
      return ok("written");
    }
    if (cmd == "stat") {  // what the guest sees at each path: "file", "dir" or the errno's name ("ENOENT")
      std::string path, seen;
      while (in >> path) {
        wasi::Workspace::Entry e;
        wasi::Errno rc = ws_->stat(path, e);
        seen += std::string(seen.empty() ? "" : ",") +
                (rc != wasi::Errno::Success ? std::string(wasi::errnoName(rc)) : e.directory ? "dir" : "file");
      }
      return ok(seen);
    }
    if (cmd == "openfd") {
      openFd = true;
      return ok("open");
    }
    if (cmd == "closefd") {
      openFd = false;
      return ok("closed");
    }
    if (cmd == "cd") {
      in >> cwd_;
      return ok(cwd_);
    }
    if (cmd == "noise") {
      uint32_t n = 0;
      in >> n;
      mem.grow(2 + n);
      for (std::size_t i = 2 * 65536; i < mem.bytes.size(); i += 7) mem.bytes[i] = uint8_t(i * 31 + n);
      return ok("noise");
    }
    return err("SyntaxError");
  }
  bool invalid() const override { return invalid_; }
  bool canSnapshot() override { return !invalid_ && !openFd; }
  snapshot::Memory& memory() override { return mem; }
  uint64_t handle() const override { return handleValue; }
  std::string extraJson() const override { return extra; }

 private:
  std::shared_ptr<wasi::Workspace> ws_;
  std::string cwd_;
};

// A JavaScript engine whose boot/restore/execute answer promises (js_sessions.cpp's JsSession, minus the shim): every
// call leaves the session pending() until the Interpreter resumes it; `rejectOpen` makes the open's promise reject.
class AsyncSession final : public interp::Session {
 public:
  AsyncSession(std::unique_ptr<FakeSession> inner, bool rejectOpen) : inner_(std::move(inner)), rejectOpen_(rejectOpen) {}
  interp::SessionOutcome execute(std::string_view code, std::string_view envJson) override {
    code_ = std::string(code), env_ = std::string(envJson);
    waiting_ = Waiting::Execute;
    return {};
  }
  bool pending() const override { return waiting_ != Waiting::None; }
  uint32_t awaitId() const override { return 17; }
  void finishOpen() override {
    if (waiting_ != Waiting::Open) return;
    waiting_ = Waiting::None;
    if (rejectOpen_) throw std::runtime_error("rejected");
  }
  interp::SessionOutcome finishExecute() override {
    REQUIRE(waiting_ == Waiting::Execute);
    waiting_ = Waiting::None;
    return inner_->execute(code_, env_);
  }
  bool invalid() const override { return inner_->invalid(); }
  bool canSnapshot() override { return inner_->canSnapshot(); }
  snapshot::Memory& memory() override { return inner_->memory(); }
  uint64_t handle() const override { return inner_->handle(); }
  std::string extraJson() const override { return inner_->extraJson(); }

 private:
  enum class Waiting { None, Open, Execute };
  std::unique_ptr<FakeSession> inner_;
  bool rejectOpen_;
  Waiting waiting_ = Waiting::Open;
  std::string code_, env_;
};

class FakeFactory final : public interp::SessionFactory {
 public:
  int boots = 0;
  int restores = 0;
  std::string restoredExtra;  // the extra the last restore received
  bool restoreThrows = false;  // stands in for an allocation failure while restoring
  bool async = false;          // sessions answer promises (AsyncSession)
  bool rejectBoot = false, rejectRestore = false;
  std::unique_ptr<interp::Session> wrap(std::unique_ptr<FakeSession> s, bool reject) {
    if (!async) return s;
    return std::make_unique<AsyncSession>(std::move(s), reject);
  }
  std::unique_ptr<interp::Session> boot(const std::shared_ptr<wasi::Workspace>& ws, std::string_view cwd) override {
    ++boots;
    auto s = std::make_unique<FakeSession>(ws, std::string(cwd));
    s->mem.bytes[100] = 1;  // "engine initialised" bytes
    return wrap(std::move(s), rejectBoot);
  }
  std::unique_ptr<interp::Session> restore(const std::shared_ptr<wasi::Workspace>& ws, std::string_view cwd,
                                           const std::function<bool(snapshot::Memory&)>& fill, uint64_t handle,
                                           std::string_view extraJson) override {
    if (restoreThrows) throw std::bad_alloc();
    ++restores;
    restoredExtra = std::string(extraJson);
    auto s = std::make_unique<FakeSession>(ws, std::string(cwd));
    s->mem.bytes[100] = 1;
    if (!fill(s->mem)) return nullptr;
    s->handleValue = handle;
    return wrap(std::move(s), rejectRestore);
  }
};

struct Fixture {
  std::string dbPath;
  server::EngineInfo engine{"toy", "toy 1", "build-1", {1000, 1 << 20, 65536, 98304}, true, ""};
  FakeClock clock;
  FakeAlarm alarm;
  FakeFactory factory;
  std::unique_ptr<durable::NativeSqlite> sql;
  std::unique_ptr<Interpreter> interp;
  double ttl = durable::kDefaultIdleTtlMs;

  Fixture() {
    static int n = 0;
    dbPath = (std::filesystem::temp_directory_path() / ("sw_interp_test_" + std::to_string(::getpid()) + "_" +
                                                      std::to_string(n++) + ".sqlite"))
               .string();
    std::filesystem::remove(dbPath);
    start();
  }
  ~Fixture() {
    interp.reset();
    sql.reset();
    std::filesystem::remove(dbPath);
  }
  // A new Durable Object instance over the same storage (eviction).
  void start() {
    interp.reset();
    sql = std::make_unique<durable::NativeSqlite>(dbPath);
    interp = std::make_unique<Interpreter>(engine, *sql, alarm, factory, clock, ttl, alarm.armed);
  }

  std::pair<int, json::Value> http(std::string method, std::string path, std::string body = "",
                                   std::string key = "k") {
    Interpreter::HttpExchange ex(*interp);
    http::RequestHead head;
    head.method = method;
    head.url = "https://interpreter.internal" + path;
    if (!key.empty()) head.headers.push_back({"x-interpreter-key", key});
    head.hasBody = !body.empty();
    const server::Action* a = &ex.start(head);
    if (a->kind == server::ActionKind::ReadBody) {
      std::size_t n = std::min(body.size(), ex.bodyCapacity());
      std::memcpy(ex.bodyBuffer(), body.data(), n);
      a = &ex.bodyReceived(n);
    }
    REQUIRE(a->kind == server::ActionKind::Respond);
    auto parsed = json::parseCopy(a->response.body);
    REQUIRE(parsed.ok());
    return {a->response.status, parsed.value};
  }

  void createContext(std::string id = "c1") {
    auto [status, body] = http("POST", "/contexts", "{\"id\":\"" + id + "\"}");
    REQUIRE(status == 201);
  }

  // One executeInContext; `files` answers a getFiles call (counted in pulls).
  int pulls = 0;
  int awaits = 0;        // AwaitEngine steps so far
  bool abandon = false;  // answer them with executeAbandon
  std::vector<std::string> lastPulled;
  std::map<std::string, std::string> sandbox;  // the caller's files: path -> bytes
  Step lastStep;
  json::Value execute(std::string code, std::string extraArgs = "", std::string contextId = "c1",
                      std::string key = "k", bool disabled = false) {
    std::string manifest = "{";
    for (auto& [p, d] : sandbox) {
      if (manifest.size() > 1) manifest += ",";
      manifest += json::stringify(json::Value::string(p)) + ":\"" + workspace::hashBytes(d) + "\"";
    }
    manifest += "}";
    std::string dirs = "[]";
    std::string args = "{\"contextId\":" + json::stringify(json::Value::string(contextId)) +
                       ",\"code\":" + json::stringify(json::Value::string(code)) +
                       ",\"workspace\":{\"dirs\":" + dirs + ",\"manifest\":" + manifest +
                       (disabled ? ",\"disabled\":true" : "") + "}" + extraArgs + "}";
    Step s = interp->executeStart(key, args);
    if (s.kind == Step::Kind::NeedFiles) {
      ++pulls;
      auto paths = json::parseCopy(s.pathsJson);
      lastPulled.clear();
      std::vector<interp::PulledEntry> entries;
      for (auto& p : paths.value.items()) {
        lastPulled.push_back(p.asString());
        if (!sandbox.count(p.asString())) continue;
        interp::PulledEntry e;
        e.isObject = e.pathIsString = e.dataIsBytes = e.updatedAtIsNumber = true;
        e.path = p.asString();
        e.data = sandbox[p.asString()];
        e.updatedAt = 1234;
        entries.push_back(std::move(e));
      }
      s = interp->executeFiles(true, std::move(entries));
    }
    // An engine's promise: settled (resume) or, with `abandon`, not settled in time.
    while (s.kind == Step::Kind::AwaitEngine) {
      ++awaits;
      auto wait = json::parseCopy(s.json);
      REQUIRE(wait.ok());
      REQUIRE(wait.value.find("session")->asNumber() == 17);
      s = abandon ? interp->executeAbandon() : interp->executeResume();
    }
    REQUIRE(s.kind == Step::Kind::Done);
    lastStep = s;
    auto parsed = json::parseCopy(s.json);
    REQUIRE(parsed.ok());
    return parsed.value;
  }
  static std::string text(const json::Value& r) {
    const json::Value* results = r.find("result")->find("results");
    if (!results || results->items().empty()) return "<none>";
    return results->items()[0].find("text")->asString();
  }
};

const json::Value& field(const json::Value& v, std::initializer_list<const char*> path) {
  const json::Value* cur = &v;
  for (const char* k : path) {
    cur = cur->find(k);
    REQUIRE(cur != nullptr);
  }
  return *cur;
}

}  // namespace

TEST_CASE("interp: context routes (protocol §2.6, §10.4 items 74-81)", "[interp]") {
  Fixture f;
  auto [s1, b1] = f.http("POST", "/contexts", R"({"id":"ctx-1"})");
  CHECK(s1 == 201);
  CHECK(b1.find("id")->asString() == "ctx-1");
  CHECK(b1.find("cwd")->asString() == "/workspace");
  CHECK(b1.find("createdAt")->asString() == "2026-01-01T00:00:00.000Z");

  auto [s2, b2] = f.http("POST", "/contexts", R"({"id":"ctx-1"})");
  CHECK(s2 == 400);
  CHECK(b2.find("message")->asString() == "Code context 'ctx-1' already exists");

  CHECK(f.http("POST", "/contexts", R"({"id":""})").second.find("message")->asString() ==
        "id must be a non-empty string of at most 128 characters");
  CHECK(f.http("POST", "/contexts", "{\"id\":\"" + std::string(129, 'x') + "\"}").first == 400);
  CHECK(f.http("POST", "/contexts", R"({"id":"x","cwd":""})").second.find("message")->asString() ==
        "cwd must be a non-empty string");
  auto [s3, b3] = f.http("POST", "/contexts", R"({"id":"x","cwd":"/etc"})");
  CHECK(s3 == 400);
  CHECK(b3.find("message")->asString() == "Path escapes /workspace: /etc");
  auto [s4, b4] = f.http("POST", "/contexts", R"({"id":"sub","cwd":"sub/../deep"})");
  CHECK(s4 == 201);
  CHECK(b4.find("cwd")->asString() == "/workspace/deep");
  CHECK(f.http("POST", "/contexts", "nope").second.find("message")->asString() == "Invalid JSON");
  CHECK(f.http("POST", "/contexts", "[1]").second.find("message")->asString() == "Expected an object");
  CHECK(f.http("POST", "/contexts", R"({"id":"x"})", "bad key!").second.find("message")->asString() ==
        "Invalid interpreter key");

  for (int i = 0; i < 6; ++i) CHECK(f.http("POST", "/contexts", "{\"id\":\"n" + std::to_string(i) + "\"}").first == 201);
  auto [s5, b5] = f.http("POST", "/contexts", R"({"id":"ninth"})");
  CHECK(s5 == 400);
  CHECK(b5.find("message")->asString() == "Cannot create more than 8 code contexts");

  CHECK(f.http("DELETE", "/contexts/ctx-1").first == 200);
  auto [s6, b6] = f.http("DELETE", "/contexts/ctx-1");
  CHECK(s6 == 404);
  CHECK(b6.find("code")->asString() == "CONTEXT_NOT_FOUND");
  CHECK(json::stringify(*b6.find("context")) == R"({"contextId":"ctx-1"})");
  CHECK(f.http("DELETE", "/contexts/n%30").first == 200);  // URL-decoded id

  auto [s7, b7] = f.http("GET", "/contexts");
  CHECK(s7 == 404);
  CHECK(b7.find("message")->asString() == "Not found");

  CHECK(f.http("DELETE", "/").first == 200);
  CHECK(f.http("DELETE", "/contexts/n1").first == 404);
}

TEST_CASE("interp: executeInContext validation order (protocol §2.7, §10.4 items 82-85)", "[interp]") {
  Fixture f;
  f.createContext();
  auto msg = [&](std::string key, std::string args) {
    Step s = f.interp->executeStart(key, args);
    auto v = json::parseCopy(s.json).value;
    CHECK(v.find("ok")->asBool() == false);
    return std::to_string(int(v.find("status")->asNumber())) + " " + v.find("body")->find("message")->asString();
  };
  const std::string ws = R"("workspace":{"dirs":[],"manifest":{}})";
  CHECK(msg("not a valid key!", "{}") == "400 Invalid interpreter key");
  CHECK(msg("k", "") == "400 Non-empty code is required");
  CHECK(msg("k", R"({"code":"  "})") == "400 Non-empty code is required");
  CHECK(msg("k", "{\"code\":\"" + std::string(65537, 'a') + "\"}") == "413 Code exceeds 64 KiB");
  CHECK(msg("k", R"({"code":"1","envVars":null})") == "400 envVars must be an object");
  CHECK(msg("k", R"({"code":"1","envVars":{"A":1}})") == "400 envVars values must be strings");
  CHECK(msg("k", R"({"code":"1"})") == "400 contextId must be a non-empty string");
  CHECK(msg("k", R"({"code":"1","contextId":"c1"})") == "400 workspace is required");
  CHECK(msg("k", R"({"code":"1","contextId":"c1","workspace":{"dirs":"x","manifest":{}}})") ==
        "400 workspace.dirs must be an array of strings");
  CHECK(msg("k", R"({"code":"1","contextId":"c1","workspace":{"dirs":[],"manifest":[]}})") ==
        "400 workspace.manifest must be an object");
  CHECK(msg("k", R"({"code":"1","contextId":"c1","workspace":{"dirs":[],"manifest":{"/workspace/a":1}}})") ==
        "400 workspace.manifest must map string paths to string hashes");
  CHECK(msg("k", R"({"code":"1","contextId":"c1","workspace":{"dirs":[],"manifest":{},"disabled":"yes"}})") ==
        "400 workspace.disabled must be a boolean");
  CHECK(msg("k", R"({"code":"1","contextId":"nope",)" + ws + "}") == "404 Code context 'nope' not found");
  CHECK(msg("k", R"({"code":"1","contextId":"c1","workspace":{"dirs":["/etc"],"manifest":{}}})") ==
        "403 Path escapes /workspace: /etc");
}

TEST_CASE("interp: state, executions and snapshots (items 94-95, 99)", "[interp]") {
  Fixture f;
  f.createContext();
  auto r1 = f.execute("set 41");
  CHECK(field(r1, {"ok"}).asBool());
  CHECK(Fixture::text(r1) == "41");
  CHECK(field(r1, {"result", "logs", "stdout"}).items().size() == 1);
  const json::Value& snap = field(r1, {"result", "context", "snapshot"});
  CHECK(snap.find("build")->asString() == "build-1");
  CHECK(snap.find("stale")->asBool() == false);
  CHECK(snap.find("pages")->asNumber() > 0);
  CHECK(snap.find("bytes")->asNumber() == snap.find("pages")->asNumber() * 65536);
  CHECK(snap.find("storedBytes")->asNumber() > 0);
  CHECK(field(r1, {"result", "context"}).has("snapshotMs"));
  CHECK(f.interp->counters().rowsWritten <= 3);

  auto r2 = f.execute("get");
  CHECK(Fixture::text(r2) == "41");
  CHECK(field(r2, {"result", "executionCount"}).asNumber() == 2);
  CHECK(field(r2, {"result", "context", "executions"}).asNumber() == 2);
  CHECK(f.factory.boots == 1);

  // Eviction: a new instance over the same storage restores the counter.
  f.start();
  auto r3 = f.execute("get");
  CHECK(Fixture::text(r3) == "41");
  CHECK(f.factory.restores == 1);
  CHECK(f.factory.boots == 1);
  CHECK(f.interp->counters().restored);

  // Large state: restored exactly after eviction.
  f.execute("noise 20");
  f.execute("set 7");
  f.start();
  CHECK(Fixture::text(f.execute("get")) == "7");
}

TEST_CASE("interp: an engine that throws an ExecutionLimitError is reported as a limit, dropped, not snapshotted", "[interp]") {
  Fixture f;
  f.createContext();
  auto r1 = f.execute("set 3");
  const std::string snap1 = json::stringify(field(r1, {"result", "context", "snapshot"}));
  auto r2 = f.execute("limitthrow");
  CHECK(field(r2, {"result", "error", "name"}).asString() == "ExecutionLimitError");
  CHECK(field(r2, {"result", "error", "message"}).asString() == "limit thrown by the engine");
  CHECK_FALSE(f.interp->hasResident());
  CHECK(json::stringify(field(r2, {"result", "context", "snapshot"})) == snap1);
  CHECK(Fixture::text(f.execute("get")) == "3");
  CHECK(f.factory.restores == 1);
}

TEST_CASE("interp: an engine-defined snapshot extra round-trips to restore; an oversized one keeps the last snapshot", "[interp]") {
  Fixture f;
  f.createContext();
  f.execute("set 4");
  f.execute("extra {\"engine\":\"toy\",\"n\":[1,2]}");
  f.start();
  CHECK(Fixture::text(f.execute("get")) == "4");
  CHECK(f.factory.restoredExtra == "{\"engine\":\"toy\",\"n\":[1,2]}");
  // Over 64 KiB: the snapshot fails, the resident is dropped, the stored one (4) stays.
  f.execute("set 6");
  f.execute("bigextra 70000");
  CHECK_FALSE(f.interp->hasResident());
  CHECK(Fixture::text(f.execute("get")) == "6");  // "set 6" was snapshotted before the extra grew
  f.execute("extra {\"globals\":7}");           // the built-in engines' member keeps its rules
  CHECK_FALSE(f.interp->hasResident());
}

TEST_CASE("interp: limit, invalid, stale and host-bug rounds (items 96-98, protocol §5.3)", "[interp]") {
  Fixture f;
  f.createContext();
  auto r1 = f.execute("set 1");
  const std::string snap1 = json::stringify(field(r1, {"result", "context", "snapshot"}));

  // 96: a limit round keeps the instance, writes no snapshot, leaves the record as it was.
  auto r2 = f.execute("limit");
  CHECK(field(r2, {"result", "error", "name"}).asString() == "ExecutionLimitError");
  CHECK_FALSE(field(r2, {"result", "context"}).has("snapshotMs"));
  CHECK(json::stringify(field(r2, {"result", "context", "snapshot"})) == snap1);
  CHECK(Fixture::text(f.execute("get")) == "999");  // state from the limited round is live

  // 97: an invalidating round drops the instance; the next call restores the last snapshot (stale stays false).
  f.execute("set 5");
  auto r3 = f.execute("trap");
  CHECK(field(r3, {"result", "context", "snapshot", "stale"}).asBool() == false);
  CHECK_FALSE(f.interp->hasResident());
  CHECK(Fixture::text(f.execute("get")) == "5");
  CHECK(f.factory.restores == 1);

  // 98: canSnapshot() false with a live instance marks the record stale, no snapshotMs.
  auto r4 = f.execute("openfd");
  CHECK(field(r4, {"result", "context", "snapshot", "stale"}).asBool() == true);
  CHECK_FALSE(field(r4, {"result", "context"}).has("snapshotMs"));
  auto r5 = f.execute("closefd");
  CHECK(field(r5, {"result", "context", "snapshot", "stale"}).asBool() == false);

  // A host bug (execute throws) is an EngineError, the resident is dropped and nothing is snapshotted.
  auto r6 = f.execute("hostbug");
  CHECK(field(r6, {"result", "error", "name"}).asString() == "EngineError");
  CHECK(field(r6, {"result", "error", "message"}).asString() == "host bug");
  CHECK_FALSE(f.interp->hasResident());
  // A failure of the host itself (out of memory) says so without its internal text.
  auto r6b = f.execute("hostoom");
  CHECK(field(r6b, {"result", "error", "name"}).asString() == "EngineError");
  CHECK(field(r6b, {"result", "error", "message"}).asString() == "The engine failed (host error)");
  CHECK_FALSE(f.interp->hasResident());

  // An ordinary guest exception neither invalidates nor prevents a snapshot.
  auto r7 = f.execute("throw");
  CHECK(field(r7, {"result", "error", "name"}).asString() == "Error");
  CHECK(field(r7, {"result", "context"}).has("snapshotMs"));
}

TEST_CASE("interp: another build boots fresh; damaged rows boot fresh (items 100, 104)", "[interp]") {
  Fixture f;
  f.createContext();
  f.execute("set 9");
  f.engine.build = "build-2";
  f.start();
  auto r = f.execute("get");
  CHECK(Fixture::text(r) == "0");
  CHECK(field(r, {"result", "context", "snapshot", "build"}).asString() == "build-2");
  CHECK(f.factory.boots == 2);

  // Corrupt every stored row: the restore verifies checksums and boots fresh instead of running bad memory.
  f.execute("set 11");
  f.sql->exec("UPDATE chunks SET data = zeroblob(length(data))", {});
  f.start();
  CHECK(Fixture::text(f.execute("get")) == "0");
  CHECK(f.factory.boots == 3);
}

TEST_CASE("interp: legacy layouts are wiped on start (item 104)", "[interp]") {
  for (std::string setup : {"CREATE TABLE files (path TEXT)", "CREATE TABLE pages (n INTEGER)",
                            "INSERT INTO meta VALUES ('sandbox', '{}')", "INSERT INTO meta VALUES ('session', '{}')",
                            "UPDATE meta SET value = '{\"format\":3}' WHERE key = 'interpreter'"}) {
    Fixture f;
    f.createContext();
    f.sql->exec(setup, {});
    f.start();
    CHECK(f.http("DELETE", "/contexts/c1").first == 404);
  }
  Fixture keep;
  keep.createContext();
  keep.start();
  CHECK(keep.http("DELETE", "/contexts/c1").first == 200);
}

TEST_CASE("interp: the mirror pulls only missing files, returns guest writes, deletes unlisted files before the run and rolls back on an error (items 86-93)", "[interp]") {
  Fixture f;
  f.createContext();
  f.sandbox["/workspace/a.txt"] = "A";
  f.sandbox["/workspace/b.txt"] = "B";
  f.execute("get");
  CHECK(f.pulls == 1);
  CHECK(f.lastPulled == std::vector<std::string>{"/workspace/a.txt", "/workspace/b.txt"});
  f.sandbox["/workspace/c.txt"] = "C";
  f.execute("get");
  CHECK(f.pulls == 2);
  CHECK(f.lastPulled == std::vector<std::string>{"/workspace/c.txt"});
  f.execute("get");
  CHECK(f.pulls == 2);  // nothing changed: no getFiles

  // 92: a guest write comes back as a file with bytes.
  auto r = f.execute("write out.txt hello");
  const auto& files = field(r, {"result", "workspace", "files"}).items();
  REQUIRE(files.size() == 1);
  CHECK(files[0].find("path")->asString() == "/workspace/out.txt");
  CHECK(f.lastStep.files == std::vector<std::string>{"hello"});
  CHECK(files[0].find("updatedAt")->asNumber() == 5000);

  // 91: a mirror file absent from the manifest is deleted before the code runs (out.txt was never synced back):
  // the guest no longer finds it, the files the manifest names are still there, and the round reports no deletion
  // of its own.
  auto r2 = f.execute("stat out.txt a.txt c.txt");
  CHECK(Fixture::text(r2) == "ENOENT,file,file");
  CHECK(field(r2, {"result", "workspace", "deleted"}).items().empty());

  // 93: write then raise: no files, no deletions, and the write is gone.
  auto r3 = f.execute("write gone.txt x throw");
  CHECK(field(r3, {"result", "workspace", "files"}).items().empty());
  CHECK(field(r3, {"result", "workspace", "deleted"}).items().empty());
  std::string out;
  CHECK(f.interp->hasResident());

  // 89/90: getFiles answering an extra path, or nothing.
  f.sandbox["/workspace/d.txt"] = "D";
  {
    Step s = f.interp->executeStart("k", R"({"contextId":"c1","code":"get","workspace":{"dirs":[],"manifest":{"/workspace/d.txt":")" +
                                             workspace::hashBytes("D") + "\"}}}");
    REQUIRE(s.kind == Step::Kind::NeedFiles);
    interp::PulledEntry e;
    e.isObject = e.pathIsString = e.dataIsBytes = e.updatedAtIsNumber = true;
    e.path = "/workspace/zzz.txt";
    e.data = "D";
    std::vector<interp::PulledEntry> entries{e};
    auto v = json::parseCopy(f.interp->executeFiles(true, std::move(entries)).json).value;
    CHECK(v.find("status")->asNumber() == 500);
    CHECK(v.find("body")->find("code")->asString() == "INTERNAL_ERROR");
    CHECK(v.find("body")->find("message")->asString() == "Sandbox returned an invalid workspace file entry");
  }
  {
    Step s = f.interp->executeStart("k", R"({"contextId":"c1","code":"get","workspace":{"dirs":[],"manifest":{"/workspace/d.txt":")" +
                                             workspace::hashBytes("D") + "\"}}}");
    REQUIRE(s.kind == Step::Kind::NeedFiles);
    auto v = json::parseCopy(f.interp->executeFiles(true, {}).json).value;
    CHECK(v.find("body")->find("message")->asString() == "Sandbox did not provide 1 workspace file(s)");
    s = f.interp->executeStart("k", R"({"contextId":"c1","code":"get","workspace":{"dirs":[],"manifest":{"/workspace/d.txt":")" +
                                        workspace::hashBytes("D") + "\"}}}");
    v = json::parseCopy(f.interp->executeFiles(false, {}).json).value;
    CHECK(v.find("body")->find("message")->asString() == "Sandbox returned an invalid workspace file list");
  }
  // getFiles threw: the generic 502, and the pending execute is gone.
  {
    Step s = f.interp->executeStart("k", R"({"contextId":"c1","code":"get","workspace":{"dirs":[],"manifest":{"/workspace/d.txt":")" +
                                             workspace::hashBytes("D") + "\"}}}");
    REQUIRE(s.kind == Step::Kind::NeedFiles);
    auto v = json::parseCopy(f.interp->executeFilesFailed().json).value;
    CHECK(v.find("ok")->asBool() == false);
    CHECK(v.find("status")->asNumber() == 502);
    CHECK(v.find("body")->find("code")->asString() == "INTERNAL_ERROR");
    CHECK(v.find("body")->find("message")->asString() == "Engine execution failed");
    v = json::parseCopy(f.interp->executeFiles(true, {}).json).value;
    CHECK(v.find("status")->asNumber() == 502);  // nothing pending any more
  }
}

TEST_CASE("interp: deleting the resident's context; sequential contexts share one resident (item 101)", "[interp]") {
  Fixture f;
  f.createContext("a");
  f.createContext("b");
  f.execute("set 1", "", "a");
  f.execute("set 2", "", "b");  // closes a's instance, boots b
  CHECK(Fixture::text(f.execute("get", "", "a")) == "1");  // restores a
  CHECK(f.factory.restores == 1);
  CHECK(f.http("DELETE", "/contexts/a").first == 200);
  CHECK_FALSE(f.interp->hasResident());
  f.createContext("a");
  CHECK(Fixture::text(f.execute("get", "", "a")) == "0");  // fresh
}

TEST_CASE("interp: idle expiry (items 102-103, protocol §4.7)", "[interp]") {
  CHECK(durable::parseIdleTtl(std::nullopt) == 86400000);
  CHECK(durable::parseIdleTtl("") == 86400000);
  CHECK(durable::parseIdleTtl("0") == 0);
  CHECK(durable::parseIdleTtl("1e3") == 1000);
  CHECK(durable::parseIdleTtl("-5") == 86400000);
  CHECK(durable::parseIdleTtl("abc") == 86400000);

  {
    Fixture f;
    f.ttl = 1;
    f.start();
    f.createContext();
    CHECK(f.alarm.armed == double(f.clock.epoch) + 1);
    f.clock.epoch += 10;
    f.interp->alarm();
    CHECK(f.http("DELETE", "/contexts/c1").first == 404);
  }
  {
    Fixture f;
    f.ttl = 0;
    f.start();
    f.createContext();
    f.execute("set 1");
    CHECK(std::isnan(f.alarm.armed));
    CHECK(f.alarm.sets == 0);
  }
  {
    Fixture f;  // default TTL: re-armed only when it moved by more than a tenth
    f.createContext();
    const int sets = f.alarm.sets;
    f.clock.epoch += 1000;
    f.execute("set 1");
    CHECK(f.alarm.sets == sets);
    f.clock.epoch += 86400000 / 5;
    f.execute("set 2");
    CHECK(f.alarm.sets == sets + 1);
    // The alarm fires early (activity since): it re-arms instead of wiping.
    f.interp->alarm();
    CHECK(f.http("DELETE", "/contexts/c1").first == 200);
  }
}

TEST_CASE("interp: envVars and the cwd reach the session", "[interp]") {
  Fixture f;
  f.createContext();
  CHECK(Fixture::text(f.execute("env", R"(,"envVars":{"A":"1"})")) == R"({"A":"1"})");
  auto r = f.execute("cd /workspace/sub");
  CHECK(field(r, {"result", "context", "cwd"}).asString() == "/workspace/sub");
}

TEST_CASE("interp: a reported cwd is stored only normalized under /workspace (issue 23, forged cwd)", "[interp]") {
  Fixture f;
  f.createContext();
  CHECK(field(f.execute("cd /workspace/a/./b/../c"), {"result", "context", "cwd"}).asString() == "/workspace/a/c");
  for (const char* forged : {"/etc/../..", "/etc", "/", "relative", "/workspace/../etc", "/workspacex",
                             "/workspace/../../workspace/../x"}) {
    CAPTURE(forged);
    CHECK(field(f.execute(std::string("cd ") + forged), {"result", "context", "cwd"}).asString() == "/workspace/a/c");
  }
  std::string deep = "/workspace";
  for (int i = 0; i < 300; ++i) deep += "/d";
  CHECK(field(f.execute("cd " + deep), {"result", "context", "cwd"}).asString() == "/workspace/a/c");
  f.start();  // the stored row holds it too
  CHECK(field(f.execute("get"), {"result", "context", "cwd"}).asString() == "/workspace/a/c");
}

TEST_CASE("interp: every u64 is a snapshot handle, handed back to restore as it was (issue 23)", "[interp]") {
  for (uint64_t handle : {uint64_t(0), uint64_t(1), uint64_t(UINT64_MAX), uint64_t(1) << 63}) {
    CAPTURE(handle);
    Fixture f;
    f.createContext();
    f.execute("handle " + std::to_string(handle));
    f.execute("set 31");
    f.start();
    auto r = f.execute("get");
    CHECK(Fixture::text(r) == "31");
    CHECK(f.factory.restores == 1);
    CHECK(field(r, {"result", "context"}).find("restored") == nullptr);
    CHECK(Fixture::text(f.execute("handle " + std::to_string(handle))) == std::to_string(handle));
  }
}

TEST_CASE("interp: a restore that does not happen is reported in the result, with its reason (issue 23)", "[interp]") {
  auto reason = [](const json::Value& r) {
    const json::Value& ctx = field(r, {"result", "context"});
    REQUIRE(ctx.find("restored") != nullptr);
    CHECK(ctx.find("restored")->asBool() == false);
    return ctx.find("restoreError")->find("code")->asString() + " " +
           ctx.find("restoreError")->find("message")->asString();
  };
  SECTION("another build") {
    Fixture f;
    f.createContext();
    f.execute("set 4");
    f.engine.build = "build-2";
    f.start();
    auto r = f.execute("get");
    CHECK(Fixture::text(r) == "0");
    CHECK(reason(r) == "BUILD_CHANGED The snapshot was taken under engine build 'build-1'; this runtime runs build 'build-2'");
    // Reported once: the next round runs on the resident.
    CHECK(field(f.execute("get"), {"result", "context"}).find("restored") == nullptr);
  }
  SECTION("the engine's restore throws") {
    Fixture f;
    f.createContext();
    f.execute("set 4");
    f.factory.restoreThrows = true;
    f.start();
    auto r = f.execute("get");
    CHECK(Fixture::text(r) == "0");
    CHECK(reason(r).rfind("RESTORE_FAILED The engine could not restore the snapshot: ", 0) == 0);
  }
  SECTION("its promise rejects") {
    Fixture f;
    f.factory.async = true;
    f.createContext();
    f.execute("set 4");
    f.factory.rejectRestore = true;
    f.start();
    auto r = f.execute("get");
    CHECK(Fixture::text(r) == "0");
    CHECK(reason(r) == "RESTORE_FAILED The engine could not restore the snapshot: rejected");
  }
  SECTION("a damaged record or rows") {
    Fixture f;
    f.createContext();
    f.execute("set 4");
    f.sql->exec("UPDATE contexts SET value = json_set(value, '$.snapshot.handle', '43')", {});
    f.start();
    CHECK(reason(f.execute("get")).rfind("SNAPSHOT_DAMAGED ", 0) == 0);
    f.execute("set 5");
    f.sql->exec("UPDATE chunks SET data = x'00'", {});
    f.start();
    CHECK(reason(f.execute("get")).rfind("SNAPSHOT_DAMAGED The stored snapshot could not be decoded: ", 0) == 0);
    f.execute("set 6");
    f.sql->exec("UPDATE contexts SET value = 'garbage'", {});
    f.start();
    CHECK(reason(f.execute("get")) == "SNAPSHOT_DAMAGED The context's stored record is damaged");
  }
  SECTION("nothing to restore: nothing reported") {
    Fixture f;
    f.createContext();
    CHECK(field(f.execute("get"), {"result", "context"}).find("restored") == nullptr);
  }
}

TEST_CASE("interp: a snapshot over INTERPRETER_MAX_SNAPSHOT_BYTES is not stored; the record goes stale", "[interp]") {
  CHECK(interp::parseMaxSnapshotBytes(std::nullopt) == 0);
  CHECK(interp::parseMaxSnapshotBytes("") == 0);
  CHECK(interp::parseMaxSnapshotBytes("-1") == 0);
  CHECK(interp::parseMaxSnapshotBytes("nope") == 0);
  CHECK(interp::parseMaxSnapshotBytes("1048576") == 1048576);
  Fixture f;
  f.createContext();
  auto first = f.execute("set 4");
  const double stored = field(first, {"result", "context", "snapshot", "storedBytes"}).asNumber();
  f.interp->setMaxSnapshotBytes(1);
  auto over = f.execute("set 5");
  CHECK(Fixture::text(over) == "5");
  CHECK(field(over, {"result", "context", "snapshot", "stale"}).asBool() == true);
  CHECK(field(over, {"result", "context", "snapshot", "storedBytes"}).asNumber() == stored);
  CHECK(Fixture::text(f.execute("get")) == "5");  // the live instance stays
  f.start();                                       // evicted: the last snapshot that fit
  CHECK(Fixture::text(f.execute("get")) == "4");
  CHECK(f.factory.restores == 1);
}

TEST_CASE("interp: every limit of the workspace manifest is a 400 naming it (issue 23)", "[interp]") {
  Fixture f;
  f.createContext();
  f.execute("set 3");
  auto msg = [&](std::string ws) {
    Step s = f.interp->executeStart("k", R"({"code":"get","contextId":"c1","workspace":)" + ws + "}");
    auto v = json::parseCopy(s.json).value;
    REQUIRE(v.find("ok")->asBool() == false);
    return std::to_string(int(v.find("status")->asNumber())) + " " + v.find("body")->find("code")->asString() + " " +
           v.find("body")->find("message")->asString();
  };
  std::string longDir = "/workspace";
  while (longDir.size() < 100000) longDir += "/a";
  CHECK(msg(R"({"dirs":[")" + longDir + R"("],"manifest":{}})").rfind(
            "400 VALIDATION_FAILED workspace.dirs entry exceeds the path limit of 4096 bytes: /workspace/a/a", 0) == 0);
  CHECK(msg(R"({"dirs":["/workspace/x","/workspace/x/"],"manifest":{}})") ==
        "400 VALIDATION_FAILED workspace.dirs lists a directory twice: /workspace/x");
  CHECK(msg(R"({"dirs":["/workspace/x"],"manifest":{"/workspace/x":"0000000000000000"}})") ==
        "400 VALIDATION_FAILED workspace.manifest path is also a directory: /workspace/x");
  CHECK(msg(R"({"dirs":[],"manifest":{"/workspace/a":"0000000000000000","/workspace/./a":"0000000000000000"}})") ==
        "400 VALIDATION_FAILED workspace.manifest names one path twice: /workspace/a");
  CHECK(msg(R"({"dirs":[],"manifest":{"/workspace":"0000000000000000"}})") ==
        "400 VALIDATION_FAILED workspace.manifest path is the /workspace root, a directory: /workspace");
  CHECK(msg(R"({"dirs":["/etc"],"manifest":{}})") == "403 PERMISSION_DENIED Path escapes /workspace: /etc");
  // The Interpreter keeps serving, state intact.
  CHECK(Fixture::text(f.execute("get")) == "3");
}

TEST_CASE("interp: context ids '.' and '..' are refused on every route (issue 23)", "[interp]") {
  Fixture f;
  f.createContext();
  for (const char* id : {".", ".."}) {
    auto [status, body] = f.http("POST", "/contexts", std::string(R"({"id":")") + id + "\"}");
    CHECK(status == 400);
    CHECK(body.find("message")->asString() == "Context id must not be '.' or '..'");
    auto r = f.execute("get", "", id);
    CHECK(field(r, {"status"}).asNumber() == 400);
  }
  CHECK(f.http("DELETE", "/contexts/%2e%2e").first == 400);
  CHECK(f.http("DELETE", "/contexts/.").first == 400);
  CHECK(f.http("DELETE", "/contexts/c1").first == 200);
}
#endif  // __EMSCRIPTEN__

#ifndef __EMSCRIPTEN__
TEST_CASE("interp: a bad handle, extra or field in the context row boots fresh and the context recovers", "[interp]") {
  const char* edits[] = {
      "json_set(value, '$.snapshot.handle', '43')",                       // another handle, well-formed
      "json_set(value, '$.snapshot.handle', 'not a number')",
      "json_set(value, '$.snapshot.handle', '99999999999')",              // beyond the memory
      "json_set(value, '$.snapshot.extra', json('{\"globals\":{\"__stack_pointer\":\"1\"}}'))",
      "json_set(value, '$.snapshot.extra', json('{\"globals\":7}'))",
      "json_set(value, '$.snapshot.memoryPages', 3)",
      "json_set(value, '$.snapshot.chunkCount', 'x')",
      "json_remove(value, '$.snapshot.check')",
  };
  for (const char* edit : edits) {
    CAPTURE(edit);
    Fixture f;
    f.createContext();
    f.execute("set 9");
    f.sql->exec(std::string("UPDATE contexts SET value = ") + edit, {});
    f.start();  // evicted: the next call must restore from storage
    auto r = f.execute("get");
    CHECK(Fixture::text(r) == "0");  // booted fresh instead of restoring with the edited record
    CHECK(f.factory.boots == 2);
    CHECK(f.factory.restores == 0);
    // The context recovered: a new snapshot was written and the next eviction restores it.
    f.execute("set 5");
    f.start();
    CHECK(Fixture::text(f.execute("get")) == "5");
    CHECK(f.factory.restores == 1);
  }
}

TEST_CASE("interp: a context row whose value is damaged boots fresh under its id, and its old rows never block a restore", "[interp]") {
  // Found by test/integration/adversarial.test.mjs: a truncated value answered 404 CONTEXT_NOT_FOUND while the row
  // stayed (counting toward the 8-context cap, DELETE answering 404 too); an unreadable record left its chunk rows
  // behind, unknown rows to the next restore.
  const char* values[] = {
      "substr(value, 1, length(value) / 2)",              // truncated
      "'garbage'",                                        // not JSON
      "'null'",                                           // not an object
      "x'00ff'",                                          // not text
      "json_set(value, '$.snapshot', json('[1,2]'))",     // a record that cannot be read at all
  };
  for (const char* value : values) {
    CAPTURE(value);
    Fixture f;
    f.createContext();
    f.execute("set 9");
    f.execute("set 9");  // a second snapshot: more than one generation of rows
    f.sql->exec(std::string("UPDATE contexts SET value = ") + value, {});
    f.start();
    auto r = f.execute("get");
    REQUIRE(field(r, {"ok"}).asBool());
    CHECK(Fixture::text(r) == "0");  // booted fresh
    CHECK(f.factory.restores == 0);
    f.execute("set 5");
    f.start();
    CHECK(Fixture::text(f.execute("get")) == "5");  // the new snapshot restores: no rows of the old one are left
    CHECK(f.factory.restores == 1);
    CHECK(f.http("DELETE", "/contexts/c1").first == 200);
  }
}

TEST_CASE("interp: an untouched record still restores (the check covers what was written)", "[interp]") {
  Fixture f;
  f.createContext();
  f.execute("set 9");
  f.execute("noise 3");
  f.start();
  CHECK(Fixture::text(f.execute("get")) == "9");
  CHECK(f.factory.restores == 1);
  CHECK(f.factory.boots == 1);
}

TEST_CASE("interp: a restore that fails in storage boots fresh instead of failing every later call", "[interp]") {
  Fixture f;
  f.createContext();
  f.execute("set 9");
  // An allocation failure inside the restore: this call boots fresh (it used to answer 502, and so did every later
  // call, the snapshot being left in place).
  f.factory.restoreThrows = true;
  f.start();
  auto r = f.execute("get");
  REQUIRE(field(r, {"ok"}).asBool());
  CHECK(Fixture::text(r) == "0");
  CHECK(f.factory.boots == 2);
  f.factory.restoreThrows = false;
  // The rows vanish behind the record's back: listing finds none, the restore fails.
  f.execute("set 3");
  f.sql->exec("DELETE FROM chunks", {});
  f.start();
  CHECK(Fixture::text(f.execute("get")) == "0");
  // A chunk row that is not a blob.
  f.execute("set 4");
  f.sql->exec("UPDATE chunks SET data = 'text'", {});
  f.start();
  CHECK(Fixture::text(f.execute("get")) == "0");
  CHECK(Fixture::text(f.execute("get")) == "0");
  f.execute("set 6");
  f.start();
  CHECK(Fixture::text(f.execute("get")) == "6");
}

TEST_CASE("interp: executeInContext args over 4 MiB are 413 before they are parsed", "[interp]") {
  Fixture f;
  f.createContext();
  std::string args = "{\"contextId\":\"c1\",\"code\":\"get\",\"workspace\":{\"dirs\":[],\"manifest\":{}},\"pad\":\"" +
                     std::string(server::kMaxRpcArgsBytes, 'x') + "\"}";
  Step s = f.interp->executeStart("k", args);
  REQUIRE(s.kind == Step::Kind::Done);
  auto r = json::parseCopy(s.json);
  REQUIRE(r.ok());
  CHECK_FALSE(field(r.value, {"ok"}).asBool());
  CHECK(field(r.value, {"status"}).asNumber() == 413);
  CHECK(field(r.value, {"body", "message"}).asString() == "Request too large");
}

TEST_CASE("interp: a 100 KB workspace.dirs path is a 400 naming the path limit and does not wedge later calls", "[interp]") {
  Fixture f;
  f.createContext();
  std::string deep = "/workspace";
  while (deep.size() < 100000) deep += "/a";
  std::string args = "{\"contextId\":\"c1\",\"code\":\"get\",\"workspace\":{\"dirs\":[" +
                     json::stringify(json::Value::string(deep)) + "],\"manifest\":{}}}";
  Step s = f.interp->executeStart("k", args);
  REQUIRE(s.kind == Step::Kind::Done);
  auto r = json::parseCopy(s.json);
  REQUIRE(r.ok());
  CHECK_FALSE(field(r.value, {"ok"}).asBool());
  CHECK(field(r.value, {"status"}).asNumber() == 400);
  CHECK(field(r.value, {"body", "code"}).asString() == "VALIDATION_FAILED");
  CHECK(field(r.value, {"body", "message"}).asString().rfind("workspace.dirs entry exceeds the path limit of 4096 bytes", 0) == 0);
  auto ok = f.execute("set 1");
  CHECK(field(ok, {"ok"}).asBool());
  CHECK(Fixture::text(ok) == "1");
}
#endif

#ifndef __EMSCRIPTEN__
TEST_CASE("interp: asynchronous sessions resume after AwaitEngine; an abandoned call drops the instance", "[interp]") {
  Fixture f;
  f.factory.async = true;
  f.createContext();
  CHECK(Fixture::text(f.execute("set 5")) == "5");
  CHECK(f.awaits == 2);  // the boot, then the execute
  CHECK(Fixture::text(f.execute("get")) == "5");
  CHECK(f.awaits == 3);  // the resident is reused
  f.start();             // evicted: restore (awaited), then execute
  CHECK(Fixture::text(f.execute("get")) == "5");
  CHECK(f.awaits == 5);
  CHECK(f.factory.restores == 1);

  // Not settled in time: an EngineError round, the instance dropped, nothing snapshotted; the next call restores.
  f.abandon = true;
  auto r = f.execute("set 9");
  f.abandon = false;
  CHECK(field(r, {"result", "error", "name"}).asString() == "EngineError");
  CHECK(field(r, {"result", "error", "message"}).asString().find("did not settle within 30000 ms") != std::string::npos);
  CHECK_FALSE(f.interp->hasResident());
  CHECK(Fixture::text(f.execute("get")) == "5");
  CHECK(f.factory.restores == 2);

  // A call that was left waiting (the shim never resumed it): the next call drops that resident and restores.
  Step waiting = f.interp->executeStart("k", "{\"contextId\":\"c1\",\"code\":\"set 8\",\"workspace\":{\"dirs\":[],\"manifest\":{}}}");
  REQUIRE(waiting.kind == Step::Kind::AwaitEngine);
  CHECK(Fixture::text(f.execute("get")) == "5");
  CHECK(f.factory.restores == 3);

  // A restore whose promise rejects boots fresh; a boot whose promise rejects is the generic failure.
  f.factory.rejectRestore = true;
  f.start();
  CHECK(Fixture::text(f.execute("get")) == "0");
  f.factory.rejectRestore = false;
  f.factory.rejectBoot = true;
  f.createContext("c2");
  auto failed = f.execute("get", "", "c2");
  CHECK(failed.find("ok")->asBool() == false);
  CHECK(failed.find("status")->asNumber() == 502);

  CHECK(interp::parseEngineWait(std::nullopt) == interp::kDefaultEngineWaitMs);
  CHECK(interp::parseEngineWait("250") == 250);
  CHECK(interp::parseEngineWait("0") == interp::kDefaultEngineWaitMs);
  CHECK(interp::parseEngineWait("soon") == interp::kDefaultEngineWaitMs);
}
#endif
