#if !defined(__EMSCRIPTEN__) && defined(SW_HAVE_SANDBOX_DO)  // libsqlite3 backs these tests natively
// cpp/sandbox: the caller's Sandbox Durable Object state machine (protocol §7.3-§7.10, checklist §10.6) over real SQLite
// (libsqlite3) with fake runtime Workers standing in for the bindings: each answers the probe, the interpreter's
// context routes, a stateless POST /execute and executeInContext (with a small mirror that pulls through getFiles,
// re-entering the Sandbox while its exchange waits). The real thing in workerd: test/integration/sandbox-smoke.test.mjs.
#include <catch2/catch.hpp>

#include "fakes.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "durable/sqlite_native.h"
#include "json/json.h"
#include "sandbox/sandbox.h"

using namespace sw;
using sw::sandbox::Action;
using sw::sandbox::ActionKind;
using sw::sandbox::CallAnswer;
using sw::sandbox::FetchAnswer;
using sw::sandbox::Sandbox;

namespace {

using sw::test::FakeAlarm;
using sw::test::FakeClock;

std::string str(std::string_view s) { return json::stringify(json::Value::string(std::string(s))); }

// A runtime Worker behind a binding. Its code language: one command per execute, e.g. "write /workspace/a.txt hi",
// "mkdir /workspace/d", "rm /workspace/a.txt", "throw", "env", "read /workspace/a.txt", anything else -> text "2".
struct FakeRuntime {
  std::string language = "javascript";
  std::string engine = "FakeJS 1";
  bool contexts = true;
  std::optional<std::string> probeBody;  // overrides the probe's JSON
  std::string probeContentType = "application/json";
  bool rpcThrows = false;
  std::optional<std::string> rpcResult;  // overrides executeInContext's result JSON
  bool forgetContexts = false;           // answers CONTEXT_NOT_FOUND
  int createStatus = 201;                 // of POST /interpreters/<key>/contexts
  std::string createBody;

  std::vector<std::string> requests;  // "METHOD PATH"
  std::vector<std::string> bodies;
  std::vector<std::string> rpcArgs;  // executeInContext args as JSON
  std::vector<std::string> rpcKeys;
  std::vector<std::vector<std::string>> pulls;  // each getFiles call's paths
  std::map<std::string, std::string> mirror;    // path -> bytes
  std::map<std::string, double> executions;    // context id -> count
};

struct Reply {
  int status = 0;
  std::string body;
  json::Value json;
  const json::Value& operator[](std::string_view key) const {
    static const json::Value none;
    const json::Value* v = json.isObject() ? json.find(key) : nullptr;
    return v ? *v : none;
  }
};

struct Fixture {
  std::string dbPath;
  FakeClock clock;
  FakeAlarm alarm;
  std::unique_ptr<durable::NativeSqlite> sql;
  std::unique_ptr<Sandbox> sbx;
  sandbox::Config config;
  std::map<std::string, FakeRuntime> env;
  uint32_t randomCounter = 0;

  Fixture(bool disabled = false, double ttl = 86400000) {
    static int n = 0;
    dbPath = (std::filesystem::temp_directory_path() /
              ("sw_sandbox_test_" + std::to_string(::getpid()) + "_" + std::to_string(n++) + ".sqlite"))
                 .string();
    std::filesystem::remove(dbPath);
    config.objectId = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    config.idleTtlMs = ttl;
    config.fileApiDisabled = disabled;
    env["JAVASCRIPT"];
    start();
  }
  ~Fixture() {
    sbx.reset();
    sql.reset();
    std::filesystem::remove(dbPath);
  }
  // A new Durable Object instance over the same storage (eviction, restart).
  void start() {
    sbx.reset();
    sql = std::make_unique<durable::NativeSqlite>(dbPath);
    sbx = std::make_unique<Sandbox>(*sql, alarm, clock, config, alarm.armed);
  }

  int countRows(const char* table) {
    std::vector<durable::SqlRow> rows;
    sql->exec(std::string("SELECT COUNT(*) FROM ") + table, {}, &rows);
    return int(rows[0][0].number);
  }

  FetchAnswer answerFetch(const Action& a) {
    FetchAnswer out;
    auto it = env.find(a.binding);
    if (it == env.end()) {
      out.kind = FetchAnswer::Kind::NoBinding;
      return out;
    }
    FakeRuntime& rt = it->second;
    rt.requests.push_back(a.method + " " + a.path);
    rt.bodies.push_back(a.body);
    out.kind = FetchAnswer::Kind::Response;
    const std::string prefix = "/interpreters/" + config.objectId;
    if (a.method == "GET" && a.path == "/interpreter") {
      out.status = 200;
      out.body = rt.probeBody ? *rt.probeBody
                              : "{\"language\":" + str(rt.language) + ",\"engine\":" + str(rt.engine) +
                                    ",\"contexts\":" + (rt.contexts ? "true" : "false") + "}";
    } else if (a.method == "POST" && a.path == prefix + "/contexts") {
      out.status = rt.createStatus;
      out.body = rt.createBody.empty() ? a.body : rt.createBody;
    } else if (a.method == "POST" && a.path == "/execute") {
      auto args = json::parseCopy(a.body);
      out.status = 200;
      out.body = "{\"code\":" + json::stringify(*args.value.find("code")) + ",\"language\":" + str(rt.language) +
                 ",\"engine\":" + str(rt.engine) +
                 ",\"durationMs\":1,\"logs\":{\"stdout\":[],\"stderr\":[]},\"results\":[{\"text\":\"ok\"}]}";
    } else if (a.method == "DELETE") {
      out.status = 200;
      out.body = "{\"success\":true}";
    } else {
      out.status = 404;
      out.body = "Not found";
    }
    return out;
  }

  CallAnswer answerCall(const Action& a) {
    CallAnswer out;
    auto it = env.find(a.binding);
    if (it == env.end()) {
      out.kind = CallAnswer::Kind::NoBinding;
      return out;
    }
    FakeRuntime& rt = it->second;
    rt.rpcArgs.push_back(a.body);
    rt.rpcKeys.push_back(a.path);
    if (rt.rpcThrows) {
      out.kind = CallAnswer::Kind::Threw;
      out.message = "network lost";
      return out;
    }
    out.kind = CallAnswer::Kind::Result;
    if (rt.rpcResult) {
      out.json = *rt.rpcResult;
      return out;
    }
    auto parsed = json::parseCopy(a.body);
    const json::Value& args = parsed.value;
    const std::string id = args.find("contextId")->asString();
    if (rt.forgetContexts) {
      out.json = R"({"ok":false,"status":404,"body":{"code":"CONTEXT_NOT_FOUND","message":"gone","context":{},)"
                 R"("httpStatus":404,"timestamp":"x"}})";
      return out;
    }
    // Reconcile the mirror: drop what the manifest lacks, pull what the mirror lacks (getFiles, re-entrant).
    const json::Value& ws = *args.find("workspace");
    const json::Value& manifest = *ws.find("manifest");
    for (auto m = rt.mirror.begin(); m != rt.mirror.end();)
      m = manifest.find(m->first) ? std::next(m) : rt.mirror.erase(m);
    std::vector<std::string> missing;
    for (const auto& [path, hash] : manifest.members())
      if (!rt.mirror.count(path)) missing.push_back(path);
    if (!missing.empty()) {
      rt.pulls.push_back(missing);
      std::string paths = "[";
      for (const auto& p : missing) paths += (paths.size() > 1 ? "," : "") + str(p);
      paths += "]";
      for (auto& f : sbx->filesFor(paths)) rt.mirror[f.path] = f.data;
    }
    std::vector<std::string> dirs;
    for (const auto& d : ws.find("dirs")->items()) dirs.push_back(d.asString());

    std::istringstream in(args.find("code")->asString());
    std::string cmd, path, data;
    in >> cmd >> path;
    std::getline(in >> std::ws, data);
    std::string results = "[{\"text\":\"2\"}]", error;
    std::vector<std::pair<std::string, std::string>> written;
    std::vector<std::string> deleted;
    if (cmd == "write") {
      rt.mirror[path] = data;
      written.emplace_back(path, data);
      results = "[]";
    } else if (cmd == "mkdir") {
      dirs.push_back(path);
      std::sort(dirs.begin(), dirs.end());
    } else if (cmd == "rm") {
      rt.mirror.erase(path);
      deleted.push_back(path);
    } else if (cmd == "throw") {
      results = "[]";
      error = R"(,"error":{"name":"Error","message":"boom","traceback":[]})";
    } else if (cmd == "env") {
      results = "[{\"json\":" + json::stringify(*args.find("envVars")) + "}]";
    } else if (cmd == "read") {
      auto f = rt.mirror.find(path);
      results = "[{\"text\":" + str(f == rt.mirror.end() ? "ENOENT" : f->second) + "}]";
    }
    const double n = ++rt.executions[id];
    std::string r = "{\"ok\":true,\"result\":{\"code\":" + json::stringify(*args.find("code")) +
                    ",\"language\":" + str(rt.language) + ",\"engine\":" + str(rt.engine) +
                    ",\"durationMs\":0,\"logs\":{\"stdout\":[],\"stderr\":[]},\"results\":" + results + error +
                    ",\"executionCount\":" + json::formatNumber(n) + ",\"context\":{\"id\":" + str(id) +
                    ",\"cwd\":\"/workspace\",\"executions\":" + json::formatNumber(n) +
                    ",\"snapshotMs\":3,\"snapshot\":{\"build\":\"b1\",\"pages\":2,\"bytes\":131072,"
                    "\"storedBytes\":1048576,\"takenAt\":5,\"stale\":false}},\"workspace\":{\"dirs\":[";
    for (std::size_t i = 0; i < dirs.size(); ++i) r += (i ? "," : "") + str(dirs[i]);
    r += "],\"files\":[";
    for (std::size_t i = 0; i < written.size(); ++i) {
      r += std::string(i ? "," : "") + "{\"path\":" + str(written[i].first) + ",\"data\":null,\"updatedAt\":123}";
      out.files.emplace_back(written[i].second);
    }
    r += "],\"deleted\":[";
    for (std::size_t i = 0; i < deleted.size(); ++i) r += (i ? "," : "") + str(deleted[i]);
    r += "]}}}";
    out.json = std::move(r);
    return out;
  }

  Reply drive(Sandbox::Exchange& ex, const Action* a, const std::string& body) {
    for (int guard = 0; guard < 32; ++guard) {
      switch (a->kind) {
        case ActionKind::Respond: {
          Reply r;
          r.status = a->response.status;
          r.body = a->response.body;
          auto parsed = json::parseCopy(r.body);
          if (parsed.ok()) r.json = parsed.value;
          return r;
        }
        case ActionKind::ReadBody: {
          std::size_t n = std::min(body.size(), ex.bodyCapacity());
          std::memcpy(ex.bodyBuffer(), body.data(), n);
          a = &ex.bodyReceived(n);
          break;
        }
        case ActionKind::Fetch: a = &ex.fetched(answerFetch(*a)); break;
        case ActionKind::Call: a = &ex.called(answerCall(*a)); break;
      }
    }
    FAIL("the exchange did not finish");
    return {};
  }

  Reply request(std::string method, std::string path, std::string body = "", std::optional<std::string> id = "s1",
                std::vector<http::Header> headers = {}) {
    Sandbox::Exchange ex(*sbx);
    http::RequestHead head;
    head.method = method;
    head.url = "https://sandbox.internal" + path;
    if (id) head.headers.push_back({"x-sandbox-id", *id});
    for (auto& h : headers) head.headers.push_back(h);
    head.hasBody = !body.empty();
    return drive(ex, &ex.start(head), body);
  }

  Reply runAlarm() {
    Sandbox::Exchange ex(*sbx);
    return drive(ex, &ex.startAlarm(), "");
  }

  Reply files(std::string body) { return request("POST", "/files", body); }

  std::string createContext(std::string binding = "JAVASCRIPT", std::string extra = "") {
    Reply r = request("POST", "/contexts", "{\"binding\":" + str(binding) + extra + "}");
    REQUIRE(r.status == 201);
    return r["id"].asString();
  }
};

std::string message(const Reply& r) { return r["message"].isString() ? r["message"].asString() : "<" + r.body + ">"; }
std::string code(const Reply& r) { return r["code"].isString() ? r["code"].asString() : "<none>"; }

}  // namespace

TEST_CASE("sandbox: x-sandbox-id is validated on every request (missing, reserved, leading hyphen, 64 chars)") {
  Fixture f;
  for (auto id : {std::optional<std::string>(), std::optional<std::string>("www"), std::optional<std::string>("-abc"),
                  std::optional<std::string>(std::string(64, 'a'))}) {
    Reply r = f.request("GET", "/", "", id);
    CHECK(r.status == 400);
    CHECK(code(r) == "VALIDATION_FAILED");
  }
  CHECK(message(f.request("GET", "/", "", "www")) == "Invalid sandbox id \"www\": 'www' is a reserved name");
  CHECK(message(f.request("GET", "/", "", "Admin")) == "Invalid sandbox id \"Admin\": 'Admin' is a reserved name");
  CHECK(message(f.request("GET", "/", "", "-abc")) == "Invalid sandbox id \"-abc\": cannot start or end with a hyphen");
  CHECK(message(f.request("GET", "/", "", "a b")) == "Invalid sandbox id \"a b\": must match /^[A-Za-z0-9._-]{1,63}$/");
  CHECK(f.request("GET", "/", "", std::string(63, 'a')).status == 200);
  CHECK(f.request("DELETE", "/", "", "www").status == 400);
}

TEST_CASE("sandbox: unknown paths and methods are 404 Not found; bodies are capped and must be JSON objects") {
  Fixture f;
  Reply r = f.request("GET", "/nope");
  CHECK(r.status == 404);
  CHECK(code(r) == "VALIDATION_FAILED");
  CHECK(message(r) == "Not found");
  CHECK(f.request("PUT", "/contexts").status == 404);
  CHECK(f.request("GET", "/execute").status == 404);
  CHECK(message(f.request("POST", "/env", "{")) == "Invalid JSON");
  CHECK(message(f.request("POST", "/env", "[1]")) == "Expected an object");
  CHECK(message(f.request("POST", "/env", "")) == "Invalid JSON");
  Reply big = f.request("POST", "/env", "{}", "s1", {{"content-length", "98305"}});
  CHECK(big.status == 413);
  CHECK(message(big) == "Request too large");
  std::string longBody = "{\"envVars\":{\"A\":\"" + std::string(98304, 'x') + "\"}}";
  CHECK(f.request("POST", "/env", longBody).status == 413);
  // /files allows 2 MiB.
  CHECK(f.request("POST", "/files", "{}", "s1", {{"content-length", "2097153"}}).status == 413);
  CHECK(f.request("POST", "/files", R"({"op":"exists","path":"/workspace"})", "s1", {{"content-length", "98305"}})
            .status == 200);
}

TEST_CASE("sandbox: POST /contexts probes the binding and registers the context (items 129-135)") {
  Fixture f;
  CHECK(message(f.request("POST", "/contexts", R"({"binding":"NOPE"})")) == "Unknown binding 'NOPE'");
  CHECK(message(f.request("POST", "/contexts", R"({"binding":"has-dash"})")) == "Unknown binding 'has-dash'");
  CHECK(message(f.request("POST", "/contexts", R"({"binding":"1INVALID"})")) == "Unknown binding '1INVALID'");
  f.env["WEIRD"].probeBody = "<html>hi</html>";
  CHECK(message(f.request("POST", "/contexts", R"({"binding":"WEIRD"})")) ==
        "Binding 'WEIRD' is not a sandbox-workers runtime Worker");
  f.env["JAVASCRIPT"].probeBody = R"({"language":"javascript","engine":"x","contexts":true,"protocol":2})";
  CHECK(message(f.request("POST", "/contexts", R"({"binding":"JAVASCRIPT"})")) ==
        "Binding 'JAVASCRIPT' speaks interpreter protocol 2; this caller supports 1");
  f.env["JAVASCRIPT"].probeBody = R"({"language":"javascript","engine":"x","contexts":true,"protocol":"1"})";
  CHECK(message(f.request("POST", "/contexts", R"({"binding":"JAVASCRIPT"})")) ==
        "Binding 'JAVASCRIPT' is not a sandbox-workers runtime Worker");
  f.env["JAVASCRIPT"].probeBody = R"({"language":"javascript","engine":"x","contexts":true,"protocol":1})";
  CHECK(f.request("POST", "/contexts", R"({"binding":"JAVASCRIPT"})").status == 201);
  f.env["JAVASCRIPT"].probeBody.reset();
  f.env["RUBY"].language = "ruby";
  f.env["RUBY"].contexts = false;
  CHECK(message(f.request("POST", "/contexts", R"({"binding":"RUBY"})")) ==
        "Code contexts are not supported by binding 'RUBY' (ruby)");

  f.env["JAVASCRIPT"].requests.clear();
  Reply r = f.request("POST", "/contexts", R"({"binding":"JAVASCRIPT","cwd":"/workspace"})");
  CHECK(r.status == 201);
  CHECK(r["binding"].asString() == "JAVASCRIPT");
  CHECK(r["language"].asString() == "javascript");
  CHECK(r["cwd"].asString() == "/workspace");
  const std::string id = r["id"].asString();
  CHECK(id.size() == 36);
  CHECK(id[14] == '4');
  CHECK(r["createdAt"].isString());
  CHECK(r["lastUsed"].isString());
  int creates = 0;
  for (auto& q : f.env["JAVASCRIPT"].requests)
    if (q == "POST /interpreters/" + f.config.objectId + "/contexts") ++creates;
  CHECK(creates == 1);
  CHECK(f.env["JAVASCRIPT"].bodies.back() == "{\"id\":\"" + id + "\",\"cwd\":\"/workspace\"}");

  CHECK(message(f.request("POST", "/contexts", "{}")) == "binding is required");
  CHECK(message(f.request("POST", "/contexts", R"({"binding":"JAVASCRIPT","envVars":{"bad-key":"x"}})")) ==
        "Invalid envVars key: bad-key");
  CHECK(message(f.request("POST", "/contexts", R"({"binding":"JAVASCRIPT","envVars":{"A":null}})")) ==
        "envVars values must be strings");
  CHECK(message(f.request("POST", "/contexts", R"({"binding":"JAVASCRIPT","envVars":[]})")) ==
        "envVars must be an object");
  CHECK(message(f.request("POST", "/contexts", R"({"binding":"JAVASCRIPT","cwd":""})")) ==
        "cwd must be a non-empty string");
  CHECK(message(f.request("POST", "/contexts", R"({"binding":"JAVASCRIPT","cwd":"/etc"})")) ==
        "Path escapes /workspace: /etc");
  CHECK(f.request("POST", "/contexts", R"({"binding":"JAVASCRIPT","cwd":"sub/dir"})")["cwd"].asString() ==
        "/workspace/sub/dir");
}

TEST_CASE("sandbox: a non-2xx answer of the interpreter's context creation is relayed as it is") {
  Fixture f;
  f.env["JAVASCRIPT"].createStatus = 400;
  f.env["JAVASCRIPT"].createBody =
      R"({"code":"VALIDATION_FAILED","message":"Cannot create more than 8 code contexts","context":{},"httpStatus":400,"timestamp":"t"})";
  Reply r = f.request("POST", "/contexts", R"({"binding":"JAVASCRIPT"})");
  CHECK(r.status == 400);
  CHECK(r.body == f.env["JAVASCRIPT"].createBody);
  CHECK(f.request("GET", "/contexts")["contexts"].items().empty());
}

TEST_CASE("sandbox: at most 8 contexts, checked before probing") {
  Fixture f;
  for (int i = 0; i < 8; ++i) f.createContext();
  const std::size_t probes = f.env["JAVASCRIPT"].requests.size();
  Reply r = f.request("POST", "/contexts", R"({"binding":"JAVASCRIPT"})");
  CHECK(r.status == 400);
  CHECK(message(r) == "Cannot create more than 8 code contexts");
  CHECK(f.env["JAVASCRIPT"].requests.size() == probes);
  CHECK(message(f.request("POST", "/contexts", R"({"binding":"NOPE"})")) == "Cannot create more than 8 code contexts");
}

TEST_CASE("sandbox: execute with a binding reuses its default context (item 136) and validates in order (137-138)") {
  Fixture f;
  Reply a = f.request("POST", "/execute", R"({"code":"1+1","binding":"JAVASCRIPT"})");
  REQUIRE(a.status == 200);
  Reply b = f.request("POST", "/execute", R"({"code":"1+1","binding":"JAVASCRIPT"})");
  REQUIRE(b.status == 200);
  CHECK(a["context"].find("id")->asString() == b["context"].find("id")->asString());
  CHECK(b["executionCount"].asNumber() == 2);
  CHECK(b["context"].find("executions")->asNumber() == 2);
  CHECK(b["context"].find("cwd")->asString() == "/workspace");
  CHECK(b["context"].find("snapshotMs")->asNumber() == 3);
  CHECK(b["context"].find("expiresAt")->isNumber());
  CHECK(!b.json.has("workspace"));
  CHECK(b["results"].items()[0].find("text")->asString() == "2");
  CHECK(f.request("GET", "/contexts")["contexts"].items().size() == 1);
  // Only one probe: for the default context's creation, never per execute.
  int probes = 0;
  for (auto& q : f.env["JAVASCRIPT"].requests) probes += q == "GET /interpreter";
  CHECK(probes == 1);
  CHECK(f.env["JAVASCRIPT"].rpcKeys.back() == f.config.objectId);

  CHECK(message(f.request("POST", "/execute", R"({"code":"1"})")) == "Pass a context or a binding");
  CHECK(message(f.request("POST", "/execute", R"({"code":"1","cwd":"/workspace","binding":"JAVASCRIPT"})")) ==
        "cwd is a context property; pass it to createCodeContext");
  CHECK(message(f.request("POST", "/execute", R"({"code":"  "})")) == "Non-empty code is required");
  Reply big = f.request("POST", "/execute", "{\"code\":\"" + std::string(65537, 'x') + "\"}");
  CHECK(big.status == 413);
  CHECK(message(big) == "Code exceeds 64 KiB");
  CHECK(message(f.request("POST", "/execute", R"({"code":"1","envVars":{"A":1}})")) ==
        "envVars values must be strings");
  CHECK(message(f.request("POST", "/execute", R"({"code":"1","contextId":""})")) ==
        "contextId must be a non-empty string");
  CHECK(message(f.request("POST", "/execute", R"({"code":"1","binding":7})")) == "binding must be a non-empty string");
  Reply missing = f.request("POST", "/execute", R"({"code":"1","contextId":"missing"})");
  CHECK(missing.status == 404);
  CHECK(code(missing) == "CONTEXT_NOT_FOUND");
  CHECK(message(missing) == "Code context 'missing' not found");
  CHECK(missing["context"].find("contextId")->asString() == "missing");
}

TEST_CASE("sandbox: a contexts:false binding takes the stateless path with sandbox + call env (item 139)") {
  Fixture f;
  f.env["RUBY"].language = "ruby";
  f.env["RUBY"].contexts = false;
  REQUIRE(f.request("POST", "/env", R"({"envVars":{"GREETING":"hi","DROP":"x"}})").status == 200);
  Reply r = f.request("POST", "/execute", R"({"code":"puts 1","binding":"RUBY","envVars":{"DROP":null}})");
  CHECK(r.status == 200);
  CHECK(r["language"].asString() == "ruby");
  CHECK(!r.json.has("context"));
  CHECK(!r.json.has("executionCount"));
  CHECK(f.env["RUBY"].requests.back() == "POST /execute");
  CHECK(f.env["RUBY"].bodies.back() == R"({"code":"puts 1","envVars":{"GREETING":"hi"}})");
  CHECK(f.request("GET", "/contexts")["contexts"].items().empty());
}

TEST_CASE("sandbox: env layering sandbox < context < call, null removes (item 140)") {
  Fixture f;
  REQUIRE(f.request("POST", "/env", R"({"envVars":{"A":"sandbox-a","B":"sandbox-b","C":"sandbox-c"}})").status == 200);
  std::string id = f.createContext("JAVASCRIPT", R"(,"envVars":{"B":"context-b"})");
  Reply r = f.request("POST", "/execute",
                      "{\"code\":\"env\",\"contextId\":" + str(id) + ",\"envVars\":{\"C\":null,\"D\":\"call-d\"}}");
  REQUIRE(r.status == 200);
  auto args = json::parseCopy(f.env["JAVASCRIPT"].rpcArgs.back());
  CHECK(json::stringify(*args.value.find("envVars")) == R"({"A":"sandbox-a","B":"context-b","D":"call-d"})");
  CHECK(args.value.find("contextId")->asString() == id);
  // POST /env: null removes, absent envVars is refused (item 150).
  REQUIRE(f.request("POST", "/env", R"({"envVars":{"A":"1","B":null}})").status == 200);
  CHECK(json::stringify(f.request("GET", "/")["envVars"]) == R"({"A":"1","C":"sandbox-c"})");
  CHECK(message(f.request("POST", "/env", "{}")) == "envVars is required");
  CHECK(message(f.request("POST", "/env", R"({"envVars":{"x-y":"1"}})")) == "Invalid envVars key: x-y");
}

TEST_CASE("sandbox: the sandbox env is capped at what an execute can carry; layering keeps JavaScript key order") {
  Fixture f;
  // Two bodies of ~60 KiB each: each fits the 96 KiB body cap, together they would not fit an execute.
  auto bodyOf = [](char prefix) {
    std::string b = R"({"envVars":{)";
    for (int i = 0; i < 4000; ++i) b += std::string(i ? "," : "") + "\"" + prefix + std::to_string(i) + "\":\"vvvvv\"";
    return b + "}}";
  };
  REQUIRE(f.request("POST", "/env", bodyOf('A')).status == 200);
  Reply refused = f.request("POST", "/env", bodyOf('B'));
  CHECK(refused.status == 413);
  CHECK(message(refused) == "Sandbox envVars would exceed 96 KiB");
  // Nothing of the refused call was kept; replacing existing keys (same size) and removing keys still works.
  CHECK(f.request("GET", "/")["envVars"].find("B0") == nullptr);
  CHECK(f.request("POST", "/env", R"({"envVars":{"A0":"wwwww","A1":null}})").status == 200);
  Reply info = f.request("GET", "/");
  CHECK(info["envVars"].find("A0")->asString() == "wwwww");
  CHECK(info["envVars"].find("A1") == nullptr);
  // Order: an existing key keeps its place, a key removed and set again in one layer moves to the end.
  Fixture g;
  REQUIRE(g.request("POST", "/env", R"({"envVars":{"X":"1","Y":"2","Z":"3"}})").status == 200);
  REQUIRE(g.request("POST", "/env", R"({"envVars":{"Y":"two","X":null,"W":"4"}})").status == 200);
  CHECK(json::stringify(g.request("GET", "/")["envVars"]) == R"({"Y":"two","Z":"3","W":"4"})");
}

TEST_CASE("sandbox: RPC failures map to 502, CONTEXT_NOT_FOUND drops the row, other failures relay (141-143)") {
  Fixture f;
  std::string id = f.createContext();
  f.env["JAVASCRIPT"].rpcThrows = true;
  Reply r = f.request("POST", "/execute", "{\"code\":\"1\",\"contextId\":" + str(id) + "}");
  CHECK(r.status == 502);
  CHECK(code(r) == "INTERNAL_ERROR");
  CHECK(message(r) == "Binding 'JAVASCRIPT' failed: network lost");
  f.env["JAVASCRIPT"].rpcThrows = false;

  const std::string failure =
      R"J({"code":"INTERNAL_ERROR","message":"Sandbox did not provide 1 workspace file(s)","context":{},"httpStatus":500,"timestamp":"2026-01-01T00:00:00.000Z"})J";
  f.env["JAVASCRIPT"].rpcResult = "{\"ok\":false,\"status\":500,\"body\":" + failure + "}";
  r = f.request("POST", "/execute", "{\"code\":\"1\",\"contextId\":" + str(id) + "}");
  CHECK(r.status == 500);
  CHECK(r.body == failure);

  for (const char* bad : {"null", "[]", R"({"ok":"yes"})", R"({"ok":false,"status":"500","body":{}})",
                          R"({"ok":true})", R"({"ok":true,"result":{"context":{}}})",
                          // a written file whose bytes did not come as a Uint8Array
                          R"({"ok":true,"result":{"context":{"cwd":"/workspace"},"workspace":{"dirs":[],)"
                          R"("files":[{"path":"/workspace/a","data":null,"updatedAt":1}],"deleted":[]}}})"}) {
    f.env["JAVASCRIPT"].rpcResult = bad;
    r = f.request("POST", "/execute", "{\"code\":\"1\",\"contextId\":" + str(id) + "}");
    CHECK(r.status == 502);
    CHECK(message(r) == "Binding 'JAVASCRIPT' failed: invalid executeInContext result");
  }
  // A diff the sandbox cannot apply (an escaping path) changes nothing, the context row included.
  f.env["JAVASCRIPT"].rpcResult =
      R"({"ok":true,"result":{"results":[],"context":{"cwd":"/workspace"},"workspace":{"dirs":["/etc"],)"
      R"("files":[],"deleted":[]}}})";
  r = f.request("POST", "/execute", "{\"code\":\"1\",\"contextId\":" + str(id) + "}");
  CHECK(r.status == 403);
  CHECK(code(r) == "PERMISSION_DENIED");
  CHECK(json::stringify(r["context"]) == R"({"errno":"EACCES"})");
  CHECK(f.request("GET", "/")["contexts"].items()[0].find("executions")->asNumber() == 0);
  f.env["JAVASCRIPT"].rpcResult.reset();

  f.env["JAVASCRIPT"].forgetContexts = true;
  r = f.request("POST", "/execute", "{\"code\":\"1\",\"contextId\":" + str(id) + "}");
  CHECK(r.status == 404);
  CHECK(code(r) == "CONTEXT_NOT_FOUND");
  CHECK(message(r) == "Code context '" + id + "' not found");
  CHECK(f.request("GET", "/contexts")["contexts"].items().empty());
  CHECK(f.countRows("contexts") == 0);
}

TEST_CASE("sandbox: the manifest carries shape only; getFiles answers from the tree while the call waits (144)") {
  Fixture f;
  REQUIRE(f.files(R"({"op":"write","path":"/workspace/a.txt","content":"hello"})").status == 200);
  REQUIRE(f.files(R"({"op":"mkdir","path":"/workspace/empty"})").status == 200);
  std::string id = f.createContext();
  Reply r = f.request("POST", "/execute", "{\"code\":\"read /workspace/a.txt\",\"contextId\":" + str(id) + "}");
  REQUIRE(r.status == 200);
  CHECK(r["results"].items()[0].find("text")->asString() == "hello");
  auto args = json::parseCopy(f.env["JAVASCRIPT"].rpcArgs.back());
  const json::Value& ws = *args.value.find("workspace");
  CHECK(!ws.has("files"));
  CHECK(!ws.has("disabled"));
  CHECK(json::stringify(*ws.find("dirs")) == R"(["/workspace/empty"])");
  const json::Value* hash = ws.find("manifest")->find("/workspace/a.txt");
  REQUIRE(hash);
  CHECK(hash->asString().rfind("sha256:", 0) == 0);
  CHECK(r.body.find("hello") != std::string::npos);  // the guest's result, not the manifest
  REQUIRE(f.env["JAVASCRIPT"].pulls.size() == 1);
  CHECK(f.env["JAVASCRIPT"].pulls[0] == std::vector<std::string>{"/workspace/a.txt"});
  // Unknown paths and non-arrays are skipped, never an error.
  CHECK(f.sbx->filesFor(R"(["/workspace/nope","/workspace/empty",7])").empty());
  CHECK(f.sbx->filesFor("{}").empty());
  CHECK(f.sbx->filesFor("not json").empty());
}

TEST_CASE("sandbox: a guest-written file is readable via /files and survives a restart (145); errors change nothing (146)") {
  Fixture f;
  std::string id = f.createContext();
  REQUIRE(f.request("POST", "/execute", "{\"code\":\"write /workspace/out.txt from guest\",\"contextId\":" + str(id) +
                                            "}")
              .status == 200);
  Reply read = f.files(R"({"op":"read","path":"/workspace/out.txt"})");
  CHECK(read.status == 200);
  CHECK(read["content"].asString() == "from guest");
  f.start();
  read = f.files(R"({"op":"read","path":"/workspace/out.txt"})");
  CHECK(read["content"].asString() == "from guest");
  CHECK(f.request("GET", "/contexts")["contexts"].items().size() == 1);
  CHECK(f.request("GET", "/")["contexts"].items()[0].find("executions")->asNumber() == 1);

  Reply before = f.files(R"({"op":"list","path":"/workspace","recursive":true})");
  Reply r = f.request("POST", "/execute", "{\"code\":\"throw\",\"contextId\":" + str(id) + "}");
  CHECK(r.status == 200);
  CHECK(r["error"].find("message")->asString() == "boom");
  CHECK(r["executionCount"].asNumber() == 2);
  Reply after = f.files(R"({"op":"list","path":"/workspace","recursive":true})");
  CHECK(json::stringify(before["files"]) == json::stringify(after["files"]));

  REQUIRE(f.request("POST", "/execute", "{\"code\":\"rm /workspace/out.txt\",\"contextId\":" + str(id) + "}").status ==
          200);
  CHECK(!f.files(R"({"op":"exists","path":"/workspace/out.txt"})")["exists"].asBool());
  f.start();
  CHECK(!f.files(R"({"op":"exists","path":"/workspace/out.txt"})")["exists"].asBool());
}

TEST_CASE("sandbox: a guest mkdir reaches the next execute on another binding and the listing (147)") {
  Fixture f;
  f.env["PYTHON"].language = "python";
  std::string js = f.createContext("JAVASCRIPT");
  std::string py = f.createContext("PYTHON");
  REQUIRE(f.request("POST", "/execute", "{\"code\":\"mkdir /workspace/made\",\"contextId\":" + str(js) + "}").status ==
          200);
  REQUIRE(f.request("POST", "/execute", "{\"code\":\"1\",\"contextId\":" + str(py) + "}").status == 200);
  auto args = json::parseCopy(f.env["PYTHON"].rpcArgs.back());
  CHECK(json::stringify(*args.value.find("workspace")->find("dirs")) == R"(["/workspace/made"])");
  Reply list = f.files(R"({"op":"list","path":"/workspace"})");
  REQUIRE(list["files"].items().size() == 1);
  CHECK(list["files"].items()[0].find("type")->asString() == "directory");
  CHECK(list["files"].items()[0].find("absolutePath")->asString() == "/workspace/made");
  f.start();
  CHECK(f.files(R"({"op":"list","path":"/workspace"})")["files"].items().size() == 1);
}

TEST_CASE("sandbox: DELETE / tells every distinct binding and wipes everything (148)") {
  Fixture f;
  f.env["PYTHON"].language = "python";
  f.createContext("JAVASCRIPT");
  f.createContext("JAVASCRIPT");
  f.createContext("PYTHON");
  REQUIRE(f.files(R"({"op":"write","path":"/workspace/a.txt","content":"x"})").status == 200);
  Reply r = f.request("DELETE", "/");
  CHECK(r.status == 200);
  CHECK(r.body == R"({"success":true})");
  const std::string wipe = "DELETE /interpreters/" + f.config.objectId;
  for (const char* b : {"JAVASCRIPT", "PYTHON"})
    CHECK(std::count(f.env[b].requests.begin(), f.env[b].requests.end(), wipe) == 1);
  CHECK(f.request("GET", "/contexts")["contexts"].items().empty());
  CHECK(!f.files(R"({"op":"exists","path":"/workspace/a.txt"})")["exists"].asBool());
  CHECK(std::isnan(f.alarm.armed) == false);  // the GET above touched again
  f.start();
  CHECK(f.request("GET", "/contexts")["contexts"].items().empty());
}

TEST_CASE("sandbox: DELETE /contexts/:id removes the row and tells the interpreter, best effort") {
  Fixture f;
  std::string id = f.createContext();
  CHECK(code(f.request("DELETE", "/contexts/nope")) == "CONTEXT_NOT_FOUND");
  Reply r = f.request("DELETE", "/contexts/" + id);
  CHECK(r.status == 200);
  CHECK(r.body == R"({"success":true})");
  CHECK(f.env["JAVASCRIPT"].requests.back() == "DELETE /interpreters/" + f.config.objectId + "/contexts/" + id);
  CHECK(f.request("GET", "/contexts")["contexts"].items().empty());
  // A percent-encoded id is decoded (the client encodes it, item 184).
  Reply weird = f.request("DELETE", "/contexts/ctx%2Fweird%20id");
  CHECK(message(weird) == "Code context 'ctx/weird id' not found");
}

TEST_CASE("sandbox: GET / reports SandboxInfo (149)") {
  Fixture f;
  REQUIRE(f.request("POST", "/env", R"({"envVars":{"K":"v"}})").status == 200);
  std::string id = f.createContext();
  REQUIRE(f.request("POST", "/execute", "{\"code\":\"write /workspace/a.txt 12345\",\"contextId\":" + str(id) + "}")
              .status == 200);
  Reply info = f.request("GET", "/");
  CHECK(info.status == 200);
  CHECK(info["id"].asString() == "s1");
  CHECK(json::stringify(info["envVars"]) == R"({"K":"v"})");
  REQUIRE(info["contexts"].items().size() == 1);
  const json::Value& c = info["contexts"].items()[0];
  CHECK(c.find("binding")->asString() == "JAVASCRIPT");
  CHECK(c.find("language")->asString() == "javascript");
  CHECK(c.find("engine")->asString() == "FakeJS 1");
  CHECK(c.find("executions")->asNumber() == 1);
  CHECK(c.find("snapshot")->find("storedBytes")->asNumber() == 1048576);
  CHECK(info["fileApi"].asBool());
  CHECK(info["workspace"].find("files")->asNumber() == 1);
  CHECK(info["workspace"].find("bytes")->asNumber() == 5);
  CHECK(info["expiresAt"].asNumber() == double(f.clock.epoch) + 86400000);
  CHECK(info["createdAt"].isString());
  CHECK(info["lastUsed"].isString());
}

TEST_CASE("sandbox: SANDBOX_FILE_API=disabled: 403 before the body, disabled manifest, no files rows (151-152)") {
  Fixture f(true);
  Reply r = f.request("POST", "/files", "not even json");
  CHECK(r.status == 403);
  CHECK(code(r) == "NOT_SUPPORTED");
  CHECK(message(r) == "The File API is disabled for this sandbox (SANDBOX_FILE_API=disabled)");
  CHECK(json::stringify(r["context"]) == R"({"feature":"files"})");
  std::string id = f.createContext();
  r = f.request("POST", "/execute", "{\"code\":\"write /workspace/a.txt x\",\"contextId\":" + str(id) + "}");
  CHECK(r.status == 200);
  auto args = json::parseCopy(f.env["JAVASCRIPT"].rpcArgs.back());
  CHECK(json::stringify(*args.value.find("workspace")) == R"({"dirs":[],"manifest":{},"disabled":true})");
  CHECK(f.sbx->filesFor(R"(["/workspace/a.txt"])").empty());
  Reply info = f.request("GET", "/");
  CHECK(!info["fileApi"].asBool());
  CHECK(json::stringify(info["workspace"]) == R"({"files":0,"bytes":0})");
  CHECK(info["contexts"].items()[0].find("executions")->asNumber() == 1);
  // The files table is never touched: not even created.
  std::vector<durable::SqlRow> rows;
  f.sql->exec("SELECT name FROM sqlite_master WHERE name = 'files'", {}, &rows);
  CHECK(rows.empty());
}

TEST_CASE("sandbox: SANDBOX_FILE_API disables the File API only when exactly \"disabled\" (153)") {
  CHECK(sandbox::fileApiDisabledBy(std::string_view("disabled")));
  for (const char* other : {"enabled", "", "Disabled", "disabled ", "0"})
    CHECK(!sandbox::fileApiDisabledBy(std::string_view(other)));
  CHECK(!sandbox::fileApiDisabledBy(std::nullopt));
  Fixture f;  // the default: enabled
  CHECK(f.request("GET", "/")["fileApi"].asBool());
  CHECK(f.files(R"({"op":"write","path":"/workspace/a","content":"x"})").status == 200);
}

TEST_CASE("sandbox: SANDBOX_IDLE_TTL_MS 0 disables expiry; touches within TTL/10 keep the deadline (154-155)") {
  {
    Fixture f(false, 0);
    CHECK(f.request("GET", "/")["expiresAt"].isNull());
    std::string id = f.createContext();
    Reply r = f.request("POST", "/execute", "{\"code\":\"1\",\"contextId\":" + str(id) + "}");
    CHECK(!r["context"].has("expiresAt"));
    CHECK(std::isnan(f.alarm.armed));
  }
  Fixture f(false, 100000);
  const double first = f.request("GET", "/")["expiresAt"].asNumber();
  CHECK(first == double(f.clock.epoch) + 100000);
  f.clock.epoch += 10000;  // exactly TTL/10: not more, so nothing moves
  CHECK(f.request("GET", "/")["expiresAt"].asNumber() == first);
  f.clock.epoch += 1;
  CHECK(f.request("GET", "/")["expiresAt"].asNumber() == double(f.clock.epoch) + 100000);
}

TEST_CASE("sandbox: the alarm re-arms while in use and destroys after the TTL (protocol §7.9)") {
  Fixture f(false, 100000);
  std::string id = f.createContext();
  REQUIRE(f.files(R"({"op":"write","path":"/workspace/a.txt","content":"x"})").status == 200);
  f.clock.epoch += 50000;
  f.runAlarm();
  CHECK(f.alarm.armed == double(f.clock.epoch) + 50000);
  CHECK(f.request("GET", "/contexts")["contexts"].items().size() == 1);
  f.clock.epoch += 100000;
  f.runAlarm();
  CHECK(f.env["JAVASCRIPT"].requests.back() == "DELETE /interpreters/" + f.config.objectId);
  CHECK(f.countRows("contexts") == 0);
  CHECK(f.countRows("meta") == 0);
  CHECK(f.countRows("files") == 0);
  CHECK(std::isnan(f.alarm.armed));
  f.runAlarm();  // no meta row: nothing happens
  CHECK(f.countRows("meta") == 0);
}

TEST_CASE("sandbox: storage format 1 is kept; other layouts are wiped on start (protocol §7.10)") {
  Fixture f;
  std::string id = f.createContext();
  REQUIRE(f.files(R"({"op":"write","path":"/workspace/a.txt","content":"x"})").status == 200);
  f.start();
  CHECK(f.request("GET", "/contexts")["contexts"].items().size() == 1);
  f.sql->exec("CREATE TABLE chunks (context_id TEXT, chunk INTEGER, data BLOB)", {});
  f.start();
  CHECK(f.request("GET", "/contexts")["contexts"].items().empty());
  CHECK(!f.files(R"({"op":"exists","path":"/workspace/a.txt"})")["exists"].asBool());
  f.sql->exec("UPDATE meta SET value = '{\"format\":2}' WHERE key = 'sandbox'", {});
  f.start();
  CHECK(f.countRows("meta") == 0);
  f.sql->exec("INSERT INTO meta (key, value) VALUES ('interpreter', '{}')", {});
  f.start();
  CHECK(f.countRows("meta") == 0);
}

TEST_CASE("sandbox: files API pre-checks in order (157)") {
  Fixture f;
  CHECK(message(f.files(R"({"op":"chmod","path":"/workspace/a"})")) == "Unknown op");
  CHECK(message(f.files(R"({"path":"/workspace/a"})")) == "Unknown op");
  CHECK(message(f.files(R"({"op":"read"})")) == "path is required");
  CHECK(message(f.files(R"({"op":"rename","path":"/workspace/a"})")) == "newPath is required for rename");
  CHECK(message(f.files(R"({"op":"move","path":"/workspace/a","newPath":""})")) == "newPath is required for move");
  CHECK(message(f.files(R"({"op":"read","path":"/workspace/a","encoding":"latin1"})")) ==
        "encoding must be utf-8 or base64");
}

TEST_CASE("sandbox: files API errors carry errno, path as sent and operation (158-165)") {
  Fixture f;
  Reply r = f.files(R"({"op":"read","path":"/workspace/missing.txt"})");
  CHECK(r.status == 404);
  CHECK(code(r) == "FILE_NOT_FOUND");
  CHECK(r["context"].find("errno")->asString() == "ENOENT");
  CHECK(r["context"].find("path")->asString() == "/workspace/missing.txt");
  CHECK(r["context"].find("operation")->asString() == "file.read");
  CHECK(r["operation"].asString() == "file.read");
  for (const char* p : {"../../etc/passwd", "/etc/passwd"}) {
    r = f.files(std::string(R"({"op":"read","path":")") + p + "\"}");
    CHECK(r.status == 403);
    CHECK(code(r) == "PERMISSION_DENIED");
    CHECK(r["context"].find("path")->asString() == p);
  }
  r = f.files("{\"op\":\"write\",\"path\":\"/workspace/big\",\"content\":\"" + std::string(1048577, 'a') + "\"}");
  CHECK(r.status == 413);
  CHECK(code(r) == "FILE_TOO_LARGE");
  CHECK(r["context"].find("maxSize")->asNumber() == 1048576);
  CHECK(r["context"].find("actualSize")->asNumber() == 1048577);
  CHECK(r["operation"].asString() == "file.write");

  REQUIRE(f.files(R"({"op":"mkdir","path":"/workspace/d"})").status == 200);
  r = f.files(R"({"op":"mkdir","path":"/workspace/d"})");
  CHECK(r.status == 500);
  CHECK(code(r) == "FILESYSTEM_ERROR");
  CHECK(r["context"].find("errno")->asString() == "EEXIST");
  CHECK(r["operation"].asString() == "directory.create");
  r = f.files(R"({"op":"mkdir","path":"/workspace/x/y"})");
  CHECK(code(r) == "FILESYSTEM_ERROR");
  CHECK(r["context"].find("errno")->asString() == "ENOENT");
  r = f.files(R"({"op":"mkdir","path":"/workspace/x/y","recursive":true})");
  CHECK(r.status == 200);
  CHECK(r["recursive"].asBool());
  CHECK(code(f.files(R"({"op":"mkdir","path":"/etc"})")) == "PERMISSION_DENIED");

  CHECK(code(f.files(R"({"op":"delete","path":"/workspace/d"})")) == "IS_DIRECTORY");
  CHECK(f.files(R"({"op":"delete","path":"/workspace/x","recursive":true})").status == 200);
  CHECK(f.files(R"({"op":"delete","path":"/workspace/none","force":true})").status == 200);
  CHECK(code(f.files(R"({"op":"read","path":"/workspace/d"})")) == "IS_DIRECTORY");
  REQUIRE(f.files(R"({"op":"write","path":"/workspace/file.txt","content":"x"})").status == 200);
  r = f.files(R"({"op":"write","path":"/workspace/file.txt/child.txt","content":"x"})");
  CHECK(r.status == 400);
  CHECK(code(r) == "NOT_DIRECTORY");
  REQUIRE(f.files(R"({"op":"write","path":"/workspace/d/inner","content":"x"})").status == 200);
  CHECK(code(f.files(R"({"op":"rename","path":"/workspace/file.txt","newPath":"/workspace/d"})")) == "IS_DIRECTORY");
  REQUIRE(f.files(R"({"op":"mkdir","path":"/workspace/e"})").status == 200);
  REQUIRE(f.files(R"({"op":"write","path":"/workspace/e/x","content":"x"})").status == 200);
  r = f.files(R"({"op":"rename","path":"/workspace/e","newPath":"/workspace/d"})");
  CHECK(r.status == 500);
  CHECK(code(r) == "FILESYSTEM_ERROR");
  CHECK(r["context"].find("errno")->asString() == "ENOTEMPTY");
  CHECK(r["operation"].asString() == "file.rename");
  r = f.files(R"({"op":"write","path":"/workspace/b.bin","content":"@@@","encoding":"base64"})");
  CHECK(code(r) == "FILESYSTEM_ERROR");
  CHECK(r["context"].find("errno")->asString() == "EINVAL");
  CHECK(!f.files(R"({"op":"exists","path":"/workspace/b.bin"})")["exists"].asBool());
}

TEST_CASE("sandbox: files API successes and persistence (166-169)") {
  Fixture f;
  Reply w = f.files(R"({"op":"write","path":"/workspace/file.txt","content":"hello"})");
  CHECK(w.status == 200);
  CHECK(w["success"].asBool());
  CHECK(w["path"].asString() == "/workspace/file.txt");
  CHECK(w["timestamp"].isString());
  Reply r = f.files(R"({"op":"read","path":"file.txt"})");
  CHECK(r["content"].asString() == "hello");
  CHECK(r["size"].asNumber() == 5);
  CHECK(r["encoding"].asString() == "utf-8");
  CHECK(!r["isBinary"].asBool());
  CHECK(r["mimeType"].asString() == "text/plain");
  CHECK(r["path"].asString() == "/workspace/file.txt");

  REQUIRE(f.files(R"({"op":"write","path":"/workspace/b.bin","content":"AAEC//4=","encoding":"base64"})").status ==
          200);
  r = f.files(R"({"op":"read","path":"/workspace/b.bin","encoding":"base64"})");
  CHECK(r["content"].asString() == "AAEC//4=");
  CHECK(r["isBinary"].asBool());
  CHECK(r["mimeType"].asString() == "application/octet-stream");
  // utf-8 reading of invalid bytes is lossy (U+FFFD), never a failure.
  r = f.files(R"({"op":"read","path":"/workspace/b.bin"})");
  CHECK(r["content"].asString() == std::string("\0\1\2\xEF\xBF\xBD\xEF\xBF\xBD", 9));

  REQUIRE(f.files(R"({"op":"write","path":"/workspace/.hidden","content":"h"})").status == 200);
  REQUIRE(f.files(R"({"op":"mkdir","path":"/workspace/sub"})").status == 200);
  REQUIRE(f.files(R"({"op":"write","path":"/workspace/sub/n.json","content":"{}"})").status == 200);
  Reply list = f.files(R"({"op":"list","path":"/workspace"})");
  CHECK(list["count"].asNumber() == 3);
  for (const auto& e : list["files"].items()) CHECK(e.find("name")->asString() != ".hidden");
  list = f.files(R"({"op":"list","path":"/workspace","includeHidden":true,"recursive":true})");
  CHECK(list["count"].asNumber() == 5);
  bool sawNested = false;
  for (const auto& e : list["files"].items()) {
    if (e.find("absolutePath")->asString() != "/workspace/sub/n.json") continue;
    sawNested = true;
    CHECK(e.find("relativePath")->asString() == "sub/n.json");
    CHECK(e.find("type")->asString() == "file");
    CHECK(e.find("size")->asNumber() == 2);
    CHECK(e.find("mode")->asString() == "-rw-r--r--");
    CHECK(!e.find("permissions")->find("executable")->asBool());
    CHECK(e.find("modifiedAt")->asString() == server::isoTime(f.clock.epoch));
  }
  CHECK(sawNested);
  CHECK(code(f.files(R"({"op":"list","path":"/workspace/file.txt"})")) == "NOT_DIRECTORY");

  CHECK(!f.files(R"({"op":"exists","path":"/workspace/missing"})")["exists"].asBool());
  Reply esc = f.files(R"({"op":"exists","path":"../../etc"})");
  CHECK(esc.status == 200);
  CHECK(!esc["exists"].asBool());
  CHECK(f.files(R"({"op":"exists","path":"/workspace"})")["exists"].asBool());

  Reply mv = f.files(R"({"op":"move","path":"/workspace/file.txt","newPath":"sub/moved.txt"})");
  CHECK(mv.status == 200);
  CHECK(mv["newPath"].asString() == "/workspace/sub/moved.txt");
  f.start();
  CHECK(f.files(R"({"op":"read","path":"/workspace/sub/moved.txt"})")["content"].asString() == "hello");
  CHECK(!f.files(R"({"op":"exists","path":"/workspace/file.txt"})")["exists"].asBool());
  CHECK(f.files(R"({"op":"read","path":"/workspace/b.bin","encoding":"base64"})")["content"].asString() == "AAEC//4=");
  CHECK(f.files(R"({"op":"list","path":"/workspace/sub"})")["count"].asNumber() == 2);
}

TEST_CASE("sandbox: a full workspace answers NO_SPACE (161)") {
  Fixture f;
  const std::string mib(1048576, 'a');
  for (int i = 0; i < 16; ++i)
    REQUIRE(f.files("{\"op\":\"write\",\"path\":\"/workspace/f" + std::to_string(i) + "\",\"content\":\"" + mib + "\"}")
                .status == 200);
  Reply r = f.files(R"({"op":"write","path":"/workspace/one","content":"x"})");
  CHECK(r.status == 500);
  CHECK(code(r) == "NO_SPACE");
  CHECK(r["context"].find("errno")->asString() == "ENOSPC");
}
TEST_CASE("sandbox: hostile bodies and hostile binding answers always end in a JSON answer, never a crash") {
  // Deterministic mutations of valid requests (byte flips, truncation, type swaps), and bindings that answer with
  // random statuses, bodies, throws and malformed RPC results. ASan/UBSan watch the rest.
  Fixture f;
  f.env["PYTHON"].language = "python";
  std::mt19937 rng(12345);
  const std::vector<std::pair<std::string, std::string>> seeds = {
      {"/execute", R"({"code":"write /workspace/a.txt hi","binding":"JAVASCRIPT","envVars":{"A":"1","B":null}})"},
      {"/execute", R"({"code":"mkdir /workspace/d","binding":"PYTHON"})"},
      {"/contexts", R"({"binding":"JAVASCRIPT","cwd":"/workspace/sub","envVars":{"K":"v"}})"},
      {"/env", R"({"envVars":{"A":"x","B":null}})"},
      {"/files", R"({"op":"write","path":"/workspace/f.txt","content":"AAEC","encoding":"base64"})"},
      {"/files", R"({"op":"rename","path":"/workspace/f.txt","newPath":"/workspace/g.txt"})"},
      {"/files", R"({"op":"list","path":"/workspace","recursive":true,"includeHidden":1})"},
      {"/files", R"({"op":"mkdir","path":"/workspace/a/b","recursive":true})"},
  };
  const std::vector<std::string> fragments = {"null", "[]", "{}", "\"\"", "-1", "1e400", "\"\\u0000\"", "\"\\ud800\"",
                                              "\"../../etc\"", "\"/workspace/\"", "true", "\"x-y\""};
  auto mutate = [&](std::string s) {
    const int kind = int(rng() % 4);
    if (kind == 0 && !s.empty()) s[rng() % s.size()] = char(rng() % 256);
    if (kind == 1 && !s.empty()) s.resize(rng() % s.size());
    if (kind == 2) {
      // Replace a value after a random ':' with a fragment.
      std::size_t colon = s.find(':', rng() % s.size());
      if (colon != std::string::npos) {
        std::size_t end = s.find_first_of(",}", colon);
        if (end != std::string::npos) s = s.substr(0, colon + 1) + fragments[rng() % fragments.size()] + s.substr(end);
      }
    }
    return s;  // kind 3: unchanged
  };
  int answered = 0;
  for (int i = 0; i < 1500; ++i) {
    // Bindings misbehave a third of the time.
    for (auto& [name, rt] : f.env) {
      rt.rpcThrows = rng() % 12 == 0;
      rt.forgetContexts = rng() % 12 == 0;
      rt.rpcResult.reset();
      rt.probeBody.reset();
      rt.createStatus = 201;
      rt.createBody.clear();
      const int r = int(rng() % 9);
      if (r == 0) rt.rpcResult = fragments[rng() % fragments.size()];
      if (r == 1) rt.rpcResult = R"({"ok":false,"status":)" + std::to_string(rng() % 700) + R"(,"body":{"code":"X"}})";
      if (r == 2) rt.probeBody = R"({"language":"javascript","engine":"e","contexts":)" + fragments[rng() % fragments.size()] + "}";
      if (r == 3) rt.createStatus = int(100 + rng() % 500);
      if (r == 4)
        rt.rpcResult = R"({"ok":true,"result":{"context":{"cwd":)" + fragments[rng() % fragments.size()] +
                       R"(},"workspace":{"dirs":[)" + fragments[rng() % fragments.size()] + R"(],"files":[],"deleted":[]}}})";
    }
    const auto& [path, body] = seeds[rng() % seeds.size()];
    Reply r = f.request("POST", path, mutate(body));
    CHECK(r.json.isObject());
    if (r.status == 200 || r.status == 201) ++answered;
    if (rng() % 200 == 0) f.start();  // an eviction now and then
  }
  CHECK(answered > 100);
  // Still a working sandbox afterwards.
  for (auto& [name, rt] : f.env) {
    rt = FakeRuntime{};
    rt.language = name == "PYTHON" ? "python" : "javascript";
  }
  CHECK(f.request("POST", "/execute", R"({"code":"1","binding":"JAVASCRIPT"})").status == 200);
}
#endif
