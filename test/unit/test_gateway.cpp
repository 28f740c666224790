// cpp/gateway: the Playground gateway's routes (protocol §8; §10.9 items 185-188), driven through its Exchange as
// gateway/worker.js drives it. The same routes run in workerd in test/integration/gateway.test.mjs.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "gateway/gateway.h"
#include "json/json.h"
#include "gateway_languages.h"

using namespace sw;
using gateway::ActionKind;

namespace {

http::RequestHead head(std::string method, std::string path, std::vector<http::Header> headers = {},
                       bool hasBody = false) {
  http::RequestHead h;
  h.method = std::move(method);
  h.url = "https://playground.example" + path;
  h.headers = std::move(headers);
  h.hasBody = hasBody;
  return h;
}

std::string headerOf(const http::Response& r, std::string_view name) {
  for (const auto& h : r.headers)
    if (h.name == name) return h.value;
  return "";
}

json::Value bodyOf(const http::Response& r) {
  auto parsed = json::parseCopy(r.body);
  REQUIRE(parsed.ok());
  return std::move(parsed.value);
}

std::string messageOf(const http::Response& r) { return bodyOf(r).find("message")->asString(); }

// Writes `body` into the ReadBody buffer and reports it, as the shim does (at most the buffer's capacity).
const gateway::Action& send(gateway::Exchange& ex, std::string_view body) {
  const auto& a = ex.action();
  REQUIRE(a.kind == ActionKind::ReadBody);
  std::size_t n = std::min(body.size(), a.capacity);
  std::memcpy(a.buffer, body.data(), n);
  return ex.bodyReceived(n);
}

const gateway::Action& postJson(gateway::Exchange& ex, std::string path, std::string_view body) {
  const auto& a = ex.start(head("POST", std::move(path), {{"content-type", "application/json"}}, true), true);
  if (a.kind != ActionKind::ReadBody) return a;
  return send(ex, body);
}

}  // namespace

TEST_CASE("gateway: POST /execute/python is validated, then re-posted to the PYTHON binding as {code, envVars}") {
  gateway_test::Gateway ex;
  const auto& a = postJson(ex, "/execute/python", R"({"code":"1 + 1","envVars":{"X":"1","bad-key":"2"},"extra":1})");
  REQUIRE(a.kind == ActionKind::Relay);
  CHECK(a.target == "PYTHON");
  CHECK(a.method == "POST");
  CHECK(a.path == "/execute");
  CHECK(a.body == R"({"code":"1 + 1","envVars":{"X":"1"}})");
}

TEST_CASE("gateway: POST /execute is JavaScript's; POST /execute/php is 400 Unsupported language: php") {
  gateway_test::Gateway js;
  CHECK(postJson(js, "/execute", R"({"code":"1"})").target == "JAVASCRIPT");
  gateway_test::Gateway php;
  const auto& a = php.start(head("POST", "/execute/php", {{"content-type", "application/json"}}, true), true);
  REQUIRE(a.kind == ActionKind::Respond);
  CHECK(a.response.status == 400);
  CHECK(bodyOf(a.response).find("code")->asString() == "VALIDATION_FAILED");
  CHECK(messageOf(a.response) == "Unsupported language: php");
}

TEST_CASE("gateway: POST /execute/lua goes to the LUA binding (our fifth language)") {
  gateway_test::Gateway ex;
  CHECK(postJson(ex, "/execute/lua", R"({"code":"return 1"})").target == "LUA");
}

TEST_CASE("gateway: POST /execute/<language> applies the runtime's own validation, in its order") {
  struct Case {
    std::vector<http::Header> headers;
    std::string body;
    int status;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{{"content-type", "text/plain"}}, R"({"code":"1"})", 415, "Content-Type must be application/json"},
      {{{"content-type", "application/json"}, {"content-length", "98305"}}, "", 413, "Request too large"},
      {{{"content-type", "application/json"}}, "{", 400, "Invalid JSON"},
      {{{"content-type", "application/json"}}, "[1]", 400, "Expected an object"},
      {{{"content-type", "application/json"}}, R"({"code":"1","input":null})", 400,
       "input is no longer supported; pass data with envVars"},
      {{{"content-type", "application/json"}}, R"({"code":"1","language":"ruby"})", 400,
       "Unsupported language 'ruby' on this runtime (python)"},
      {{{"content-type", "application/json"}}, R"({"code":"  "})", 400, "Non-empty code is required"},
      {{{"content-type", "application/json"}}, R"({"code":"1","envVars":{"A":1}})", 400,
       "envVars values must be strings"},
  };
  for (const auto& c : cases) {
    gateway_test::Gateway ex;
    const gateway::Action* a = &ex.start(head("POST", "/execute/python", c.headers, true), true);
    if (a->kind == ActionKind::ReadBody) a = &send(ex, c.body);
    INFO(c.message);
    REQUIRE(a->kind == ActionKind::Respond);
    CHECK(a->response.status == c.status);
    CHECK(messageOf(a->response) == c.message);
  }
  // "python3" is an alias of python (protocol §2.4): accepted on /execute/python.
  gateway_test::Gateway alias;
  CHECK(postJson(alias, "/execute/python", R"({"code":"1","language":"python3"})").kind == ActionKind::Relay);
  // More than 96 KiB of body, undeclared: 413 once the 98,305th byte arrives.
  gateway_test::Gateway big;
  const auto& a = postJson(big, "/execute/python", std::string(98305, ' '));
  CHECK(a.response.status == 413);
}

TEST_CASE("gateway: a runtime that cannot be reached is 502 INTERNAL_ERROR Engine execution failed") {
  gateway_test::Gateway ex;
  REQUIRE(postJson(ex, "/execute/ruby", R"({"code":"1"})").kind == ActionKind::Relay);
  const auto& a = ex.fetchFailed();
  REQUIRE(a.kind == ActionKind::Respond);
  CHECK(a.response.status == 502);
  CHECK(bodyOf(a.response).find("code")->asString() == "INTERNAL_ERROR");
  CHECK(messageOf(a.response) == "Engine execution failed");
}

TEST_CASE("gateway: 405s carry Allow: GET /execute (Use POST), POST /languages, PUT on a sandbox route") {
  struct Case {
    std::string method, path, message, allow;
  };
  for (const auto& c : std::vector<Case>{{"GET", "/execute", "Use POST", "POST"},
                                         {"DELETE", "/execute/python", "Use POST", "POST"},
                                         {"POST", "/languages", "Method not allowed", "GET"},
                                         {"PUT", "/languages/python/sandboxes/abc", "Method not allowed",
                                          "GET, POST, DELETE"},
                                         {"PATCH", "/languages/python/sandboxes/abc/files", "Method not allowed",
                                          "GET, POST, DELETE"}}) {
    gateway_test::Gateway ex;
    const auto& a = ex.start(head(c.method, c.path), true);
    INFO(c.method << " " << c.path);
    REQUIRE(a.kind == ActionKind::Respond);
    CHECK(a.response.status == 405);
    CHECK(headerOf(a.response, "allow") == c.allow);
    CHECK(messageOf(a.response) == c.message);
    CHECK(bodyOf(a.response).find("httpStatus")->asNumber() == 405);
  }
}

TEST_CASE("gateway: GET /languages probes every binding in order and lists five entries") {
  gateway_test::Gateway ex;
  const gateway::Action* a = &ex.start(head("GET", "/languages"), true);
  std::vector<std::string> probed;
  while (a->kind == ActionKind::Fetch) {
    CHECK(a->method == "GET");
    CHECK(a->path == "/interpreter");
    probed.push_back(a->target);
    if (a->target == "PERL") {
      a = &ex.fetchFailed();  // an unreachable runtime is listed as disabled
    } else {
      std::string language = http::asciiLower(a->target);
      bool contexts = a->target != "RUBY";
      a = &ex.fetched(200, R"({"language":")" + language + R"(","engine":"E )" + language +
                               R"(","contexts":)" + (contexts ? "true" : "false") + R"(,"protocol":1})");
    }
  }
  CHECK(probed == std::vector<std::string>{"JAVASCRIPT", "PYTHON", "PERL", "RUBY", "LUA"});
  REQUIRE(a->kind == ActionKind::Respond);
  CHECK(a->response.status == 200);
  json::Value body = bodyOf(a->response);
  const auto& list = body.find("languages")->items();
  REQUIRE(list.size() == 5);
  std::vector<std::string> ids;
  for (const auto& e : list) ids.push_back(e.find("id")->asString());
  CHECK(ids == std::vector<std::string>{"javascript", "python", "perl", "ruby", "lua"});
  const json::Value& python = list[1];
  CHECK(python.find("name")->asString() == "Python");
  CHECK(python.find("package")->asString() == "@sandbox-workers/python");
  CHECK(python.find("version")->asString() == std::string(gateway::packageVersion()));
  CHECK(python.find("engine")->asString() == "E python");
  CHECK(python.find("enabled")->asBool());
  CHECK(python.find("mode")->asString() == "both");
  CHECK(python.find("limits")->find("fuel")->asNumber() == 100000000);
  CHECK(python.find("limits")->find("requestBytes")->asNumber() == 98304);
  CHECK(list[3].find("mode")->asString() == "stateless");
  CHECK(list[3].find("contexts")->asBool() == false);
  CHECK(list[2].find("enabled")->asBool() == false);
  CHECK(list[2].find("engine")->isNull());
}

TEST_CASE("gateway: a probe that is not a runtime's (wrong language, not JSON, not 200) lists it as disabled") {
  for (auto [status, answer] : std::vector<std::pair<int, std::string>>{
           {200, R"({"language":"python","engine":"x","contexts":true})"},  // JAVASCRIPT answering as python
           {200, "not json"},
           {500, R"({"language":"javascript","engine":"x","contexts":true})"}}) {
    gateway_test::Gateway ex;
    const gateway::Action* a = &ex.start(head("GET", "/languages"), true);
    a = &ex.fetched(status, answer);
    while (a->kind == ActionKind::Fetch) a = &ex.fetchFailed();
    CHECK(bodyOf(a->response).find("languages")->items()[0].find("enabled")->asBool() == false);
  }
}

TEST_CASE("gateway: POST .../sandboxes/abc/execute reaches the Sandbox with binding forced to PYTHON") {
  gateway_test::Gateway ex;
  const auto& a = postJson(ex, "/languages/python/sandboxes/abc/execute", R"({"code":"x = 1","binding":"EVIL"})");
  REQUIRE(a.kind == ActionKind::Sandbox);
  CHECK(a.target == "abc");
  CHECK(a.method == "POST");
  CHECK(a.path == "/execute");
  CHECK(a.body == R"({"code":"x = 1","binding":"PYTHON"})");
  bool idHeader = false;
  for (const auto& h : a.headers) idHeader = idHeader || (h.name == "x-sandbox-id" && h.value == "abc");
  CHECK(idHeader);
  // POST /contexts gets the binding too, added when absent.
  gateway_test::Gateway ctx;
  CHECK(postJson(ctx, "/languages/ruby/sandboxes/abc/contexts", R"({"cwd":"/workspace"})").body ==
        R"({"cwd":"/workspace","binding":"RUBY"})");
}

TEST_CASE("gateway: sandbox sub-paths: GET and DELETE forwarded bodiless, /files bodies unchanged, / by default") {
  gateway_test::Gateway get;
  const auto& g = get.start(head("GET", "/languages/perl/sandboxes/s1"), true);
  REQUIRE(g.kind == ActionKind::Sandbox);
  CHECK(g.path == "/");
  CHECK(g.body.empty());
  gateway_test::Gateway del;
  const auto& d = del.start(head("DELETE", "/languages/perl/sandboxes/s1/contexts/ctx%2Fweird%20id"), true);
  CHECK(d.path == "/contexts/ctx%2Fweird%20id");
  CHECK(d.method == "DELETE");
  gateway_test::Gateway files;
  const auto& f = postJson(files, "/languages/perl/sandboxes/s1/files", R"({"op":"list","path":"/workspace","binding":"X"})");
  REQUIRE(f.kind == ActionKind::Sandbox);
  CHECK(f.body == R"({"op":"list","path":"/workspace","binding":"X"})");
}

TEST_CASE("gateway: sandbox routes check the language, the sandbox id and the body caps") {
  struct Case {
    std::string path;
    int status;
    std::string message;
  };
  for (const auto& c : std::vector<Case>{
           {"/languages/php/sandboxes/abc", 400, "Unsupported language: php"},
           {"/languages/python/sandboxes/-abc", 400, "Invalid sandbox id \"-abc\": cannot start or end with a hyphen"},
           {"/languages/python/sandboxes/Admin", 400, "Invalid sandbox id \"Admin\": 'Admin' is a reserved name"},
           {"/languages/python/sandboxes/a%20b", 400,
            "Invalid sandbox id \"a b\": must match /^[A-Za-z0-9._-]{1,63}$/"},
           {"/languages/python/sandboxes/" + std::string(64, 'a'), 400,
            "Invalid sandbox id \"" + std::string(64, 'a') + "\": must match /^[A-Za-z0-9._-]{1,63}$/"}}) {
    gateway_test::Gateway ex;
    const auto& a = ex.start(head("GET", c.path), true);
    INFO(c.path);
    REQUIRE(a.kind == ActionKind::Respond);
    CHECK(a.response.status == c.status);
    CHECK(messageOf(a.response) == c.message);
  }
  // 96 KiB for /execute and /contexts (declared or streamed), 2 MiB for /files.
  gateway_test::Gateway declared;
  const auto& d = declared.start(head("POST", "/languages/python/sandboxes/abc/execute",
                                      {{"content-type", "application/json"}, {"content-length", "98305"}}, true),
                                 true);
  CHECK(d.response.status == 413);
  gateway_test::Gateway streamed;
  CHECK(postJson(streamed, "/languages/python/sandboxes/abc/contexts", std::string(98305, ' ')).response.status ==
        413);
  gateway_test::Gateway files;
  const auto& f = postJson(files, "/languages/python/sandboxes/abc/files", std::string(200000, ' '));
  CHECK(f.kind == ActionKind::Sandbox);
  gateway_test::Gateway tooBig;
  CHECK(postJson(tooBig, "/languages/python/sandboxes/abc/files", std::string(2 * 1048576 + 1, ' '))
            .response.status == 413);
  // /execute and /contexts bodies must be JSON objects.
  gateway_test::Gateway notJson;
  CHECK(messageOf(postJson(notJson, "/languages/python/sandboxes/abc/execute", "{").response) == "Invalid JSON");
  gateway_test::Gateway notObject;
  CHECK(messageOf(postJson(notObject, "/languages/python/sandboxes/abc/execute", "[]").response) ==
        "Expected an object");
}

TEST_CASE("gateway: every other path is a static asset (404 without assets)") {
  gateway_test::Gateway page;
  CHECK(page.start(head("GET", "/"), true).kind == ActionKind::Asset);
  gateway_test::Gateway partial;
  CHECK(partial.start(head("GET", "/languages/python/sandboxes"), true).kind == ActionKind::Asset);
  gateway_test::Gateway none;
  const auto& a = none.start(head("GET", "/app.js"), false);
  REQUIRE(a.kind == ActionKind::Respond);
  CHECK(a.response.status == 404);
}

TEST_CASE("gateway: a step out of order is the generic 502, never a crash") {
  gateway_test::Gateway ex;
  CHECK(ex.bodyReceived(3).response.status == 502);
  gateway_test::Gateway probe;
  probe.start(head("GET", "/languages"), true);
  CHECK(probe.bodyReceived(1).response.status == 502);
}

TEST_CASE("gateway: the sandbox id is a path segment: percent-decoded before the id rules, a bad escape checked as sent") {
  gateway_test::Gateway decoded;
  const auto& a = decoded.start(head("GET", "/languages/python/sandboxes/%41bc/contexts"), true);
  REQUIRE(a.kind == ActionKind::Sandbox);
  CHECK(a.target == "Abc");
  gateway_test::Gateway bad;
  const auto& b = bad.start(head("GET", "/languages/python/sandboxes/a%zz"), true);
  REQUIRE(b.kind == ActionKind::Respond);
  CHECK(messageOf(b.response) == "Invalid sandbox id \"a%zz\": must match /^[A-Za-z0-9._-]{1,63}$/");
}

TEST_CASE("gateway: the languages come from PLAYGROUND_LANGUAGES; without a usable table every route is a 500") {
  for (const char* vars : {R"({})", R"({"PLAYGROUND_LANGUAGES":"[]"})", R"({"PLAYGROUND_LANGUAGES":"[{\"id\":\"x\"}]"})",
                           R"({"PLAYGROUND_LANGUAGES":"not json"})"}) {
    gateway::Exchange ex;
    ex.configure(vars);
    const auto& a = ex.start(head("GET", "/languages"), true);
    REQUIRE(a.kind == ActionKind::Respond);
    CHECK(a.response.status == 500);
    CHECK(messageOf(a.response).rfind("Invalid gateway configuration: PLAYGROUND_LANGUAGES", 0) == 0);
  }
  // One row of a language no C++ names: it is listed, routed and bound by its row alone.
  gateway::Exchange toy;
  toy.configure(R"({"PLAYGROUND_RATE_LIMIT":"0","PLAYGROUND_MAX_SANDBOXES":"0","PLAYGROUND_MAX_TOTAL_SANDBOXES":"0",)"
                R"("PLAYGROUND_LANGUAGES":"[{\"id\":\"toy\",\"name\":\"Toy\",\"binding\":\"TOY_RT\",)"
                R"(\"package\":\"@example/toy\",\"fuel\":7,\"memoryBytes\":65536,\"default\":true}]"})");
  const auto& run = postJson(toy, "/execute", R"({"code":"1"})");
  REQUIRE(run.kind == ActionKind::Relay);
  CHECK(run.target == "TOY_RT");
  gateway::Exchange list;
  list.configure(R"({"PLAYGROUND_LANGUAGES":"[{\"id\":\"toy\",\"name\":\"Toy\",\"binding\":\"TOY_RT\",)"
                 R"(\"package\":\"@example/toy\",\"fuel\":7,\"memoryBytes\":65536}]"})");
  const gateway::Action* a = &list.start(head("GET", "/languages"), true);
  REQUIRE(a->kind == ActionKind::Fetch);
  CHECK(a->target == "TOY_RT");
  a = &list.fetched(200, R"({"language":"toy","engine":"toy 1","contexts":false,"protocol":1})");
  REQUIRE(a->kind == ActionKind::Respond);
  const json::Value row = bodyOf(a->response).find("languages")->items().at(0);
  CHECK(row.find("package")->asString() == "@example/toy");
  CHECK(row.find("limits")->find("fuel")->asNumber() == 7);
  CHECK(row.find("mode")->asString() == "stateless");
}
