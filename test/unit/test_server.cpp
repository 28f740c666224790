// cpp/server: the runtime Worker's protocol logic, driven through Exchange exactly as the shim drives it.
// Covers protocol §10.1 (probe and routing), §10.2 (POST /execute validation), §2.4 (aliases), §2.5 (forwarding
// checks), protocol §3.1-§3.6 (ExecutionResult assembly, limits, ErrorResponse).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "server/server.h"

using namespace sw;
using server::Action;
using server::ActionKind;

namespace {

class FakeClock final : public server::Clock {
 public:
  double mono = 5000.0;
  int64_t epoch = 1700000000123;  // 2023-11-14T22:13:20.123Z
  double monotonicMs() override { return mono; }
  int64_t epochMs() override { return epoch; }
};

constexpr const char* kTimestamp = "2023-11-14T22:13:20.123Z";
constexpr const char* kEngineName = "QuickJS test";

server::EngineInfo engineInfo(std::string language = "javascript", bool sessions = true) {
  server::EngineInfo e;
  e.language = std::move(language);
  e.engineName = kEngineName;
  e.build = "test-build";
  e.limits.fuel = 50000000;
  e.limits.memoryBytes = 64.0 * 1048576;
  e.sessions = sessions;
  return e;
}

http::RequestHead makeHead(std::string method, std::string path, std::vector<http::Header> headers = {},
                           bool hasBody = false) {
  http::RequestHead h;
  h.method = std::move(method);
  h.url = "https://sandbox.internal" + path;
  h.headers = std::move(headers);
  h.hasBody = hasBody;
  return h;
}

http::RequestHead postExecute(std::vector<http::Header> headers = {{"content-type", "application/json"}},
                              bool hasBody = true) {
  return makeHead("POST", "/execute", std::move(headers), hasBody);
}

// One server, one fake clock, one exchange. Not movable: the exchange holds references to both.
struct Rig {
  FakeClock clock;
  server::InterpreterServer srv;
  std::unique_ptr<server::Exchange> ex;

  explicit Rig(server::EngineInfo e = engineInfo()) : srv(std::move(e)), ex(srv.newExchange(clock)) {}
  Rig(const Rig&) = delete;
  Rig& operator=(const Rig&) = delete;

  Action start(const http::RequestHead& h, bool binding = true) { return ex->start(h, binding); }

  // Writes the body the way the shim does: at most bodyLimit + 1 bytes, then bodyReceived(n).
  Action feed(std::string_view body) {
    const Action& a = ex->action();
    REQUIRE(a.kind == ActionKind::ReadBody);
    REQUIRE(ex->bodyCapacity() == a.bodyLimit + 1);
    std::size_t n = std::min(body.size(), a.bodyLimit + 1);
    if (n) std::memcpy(ex->bodyBuffer(), body.data(), n);
    return ex->bodyReceived(n);
  }

  Action post(std::string_view body,
              std::vector<http::Header> headers = {{"content-type", "application/json"}}) {
    Action a = start(postExecute(std::move(headers)));
    if (a.kind != ActionKind::ReadBody) return a;
    return feed(body);
  }
};

std::optional<std::string> headerOf(const http::Response& r, std::string_view name) {
  for (const auto& h : r.headers)
    if (h.name == name) return h.value;
  return std::nullopt;
}

json::Value parseBody(const std::string& body) {
  INFO(body);
  auto p = json::parseCopy(body);
  REQUIRE(p.ok());
  return p.value;
}

std::vector<std::string> keysOf(const json::Value& v) {
  std::vector<std::string> keys;
  for (const auto& m : v.members()) keys.push_back(m.first);
  return keys;
}

bool isIsoTimestamp(const std::string& s) {
  static const std::regex iso(R"(^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$)");
  return std::regex_match(s, iso);
}

void checkJsonHeaders(const http::Response& r) {
  CHECK(headerOf(r, "content-type") == std::optional<std::string>("application/json"));
  CHECK(headerOf(r, "cache-control") == std::optional<std::string>("no-store"));
}

// An ErrorResponse (protocol §3.6): exact code/message, httpStatus == status, ISO timestamp from the fake clock.
void checkError(const Action& a, int status, std::string_view message, std::string_view code = "VALIDATION_FAILED",
                std::string_view timestamp = kTimestamp) {
  INFO("body: " << a.response.body);
  REQUIRE(a.kind == ActionKind::Respond);
  CHECK(a.response.status == status);
  checkJsonHeaders(a.response);
  json::Value v = parseBody(a.response.body);
  REQUIRE(v.isObject());
  CHECK(keysOf(v) == std::vector<std::string>{"code", "message", "context", "httpStatus", "timestamp"});
  REQUIRE(v.find("code")->isString());
  CHECK(v.find("code")->asString() == code);
  REQUIRE(v.find("message")->isString());
  CHECK(v.find("message")->asString() == message);
  REQUIRE(v.find("context")->isObject());
  CHECK(v.find("context")->members().empty());
  REQUIRE(v.find("httpStatus")->isNumber());
  CHECK(v.find("httpStatus")->asNumber() == status);
  REQUIRE(v.find("timestamp")->isString());
  CHECK(isIsoTimestamp(v.find("timestamp")->asString()));
  CHECK(v.find("timestamp")->asString() == timestamp);
}

void checkValidation(const Action& a, int status, std::string_view message) { checkError(a, status, message); }

void checkRun(const Action& a, std::string_view payload) {
  INFO("body: " << a.response.body);
  REQUIRE(a.kind == ActionKind::RunEngine);
  CHECK(a.payload == payload);
  CHECK(json::parseCopy(a.payload).ok());
}

void checkInternal(const Action& a) { checkError(a, 502, "Engine execution failed", "INTERNAL_ERROR"); }

// A JSON string literal of `n` copies of `unit` (unit is raw UTF-8 or an escape sequence).
std::string repeat(std::string_view unit, std::size_t n) {
  std::string s;
  s.reserve(unit.size() * n);
  for (std::size_t i = 0; i < n; ++i) s.append(unit);
  return s;
}

std::string codeBody(std::string_view codeLiteralContents, std::string_view extra = "") {
  return std::string(R"({"code":")") + std::string(codeLiteralContents) + "\"" + std::string(extra) + "}";
}

// Outcome JSON built with the writer (so test strings are escaped correctly).
std::string outcomeJson(const std::vector<std::string>& out, const std::vector<std::string>& err,
                        std::string_view resultsRaw = "[]", std::string_view extraRaw = "") {
  std::string s;
  json::Writer w(s);
  w.beginObject();
  w.key("logs").beginObject();
  w.key("stdout").beginArray();
  for (const auto& l : out) w.string(l);
  w.endArray();
  w.key("stderr").beginArray();
  for (const auto& l : err) w.string(l);
  w.endArray();
  w.endObject();
  w.key("results").raw(resultsRaw);
  w.endObject();
  if (!extraRaw.empty()) {
    s.pop_back();
    s += ",";
    s += extraRaw;
    s += "}";
  }
  return s;
}

json::Value assemble(std::string_view outcome) {
  auto parsed = json::parseCopy(outcome);
  REQUIRE(parsed.ok());
  return parseBody(server::assembleOutcome(parsed.value));
}

const json::Value& at(const json::Value& v, std::string_view key) {
  const json::Value* p = v.find(key);
  INFO("missing key " << key);
  REQUIRE(p != nullptr);
  return *p;
}

void checkLimitError(const json::Value& result, std::string_view message) {
  const json::Value& e = at(result, "error");
  REQUIRE(e.isObject());
  CHECK(keysOf(e) == std::vector<std::string>{"name", "message", "traceback"});
  CHECK(at(e, "name").asString() == "ExecutionLimitError");
  CHECK(at(e, "message").asString() == message);
  REQUIRE(at(e, "traceback").isArray());
  CHECK(at(e, "traceback").items().empty());
}

const std::string kUsage = R"("usage":{"fuelConsumed":10,"fuelLimit":50000000,"memoryBytes":65536})";

// Runs a valid request and returns the exchange in the RunEngine state.
void toRunEngine(Rig& rig, std::string_view body = R"({"code":"1 + 1;"})") {
  Action a = rig.post(body);
  REQUIRE(a.kind == ActionKind::RunEngine);
}

}  // namespace

// =====================================================================================================================
// protocol §10.1 Runtime Worker: probe and routing
// =====================================================================================================================

TEST_CASE("10.1.1 GET /interpreter with sessions and INTERPRETER bound: contexts true") {
  Rig rig(engineInfo("javascript", true));
  Action a = rig.start(makeHead("GET", "/interpreter"), true);
  REQUIRE(a.kind == ActionKind::Respond);
  CHECK(a.response.status == 200);
  checkJsonHeaders(a.response);
  CHECK(a.response.body == R"({"language":"javascript","engine":"QuickJS test","contexts":true,"protocol":1})");
  json::Value v = parseBody(a.response.body);
  CHECK(keysOf(v) == std::vector<std::string>{"language", "engine", "contexts", "protocol"});
  CHECK(at(v, "contexts").asBool());
  CHECK(at(v, "protocol").asNumber() == 1);
}

TEST_CASE("10.1.1 the probe ignores the method, query string and body") {
  for (const char* method : {"GET", "POST", "DELETE", "HEAD", "PUT"}) {
    INFO(method);
    Rig rig;
    Action a = rig.start(makeHead(method, "/interpreter?x=1", {{"content-type", "text/plain"}}, true), true);
    REQUIRE(a.kind == ActionKind::Respond);
    CHECK(a.response.status == 200);
    CHECK(at(parseBody(a.response.body), "contexts").asBool());
  }
}

TEST_CASE("10.1.2 a Ruby runtime (no sessions) reports contexts false even with a binding") {
  Rig rig(engineInfo("ruby", false));
  Action a = rig.start(makeHead("GET", "/interpreter"), true);
  REQUIRE(a.kind == ActionKind::Respond);
  CHECK(a.response.status == 200);
  CHECK(a.response.body == R"({"language":"ruby","engine":"QuickJS test","contexts":false,"protocol":1})");
}

TEST_CASE("10.1.3 a JS runtime deployed without INTERPRETER reports contexts false") {
  for (bool sessions : {true, false}) {
    INFO("sessions " << sessions);
    Rig rig(engineInfo("javascript", sessions));
    Action a = rig.start(makeHead("GET", "/interpreter"), false);
    REQUIRE(a.kind == ActionKind::Respond);
    CHECK(a.response.status == 200);
    checkJsonHeaders(a.response);
    json::Value v = parseBody(a.response.body);
    CHECK(at(v, "language").asString() == "javascript");
    CHECK_FALSE(at(v, "contexts").asBool());
    CHECK(at(v, "protocol").asNumber() == 1);
  }
  Rig rig(engineInfo("javascript", false));  // sessions off, binding present
  CHECK_FALSE(at(parseBody(rig.start(makeHead("GET", "/interpreter"), true).response.body), "contexts").asBool());
}

TEST_CASE("10.1.4 unknown paths are 404 plain text 'Not found'") {
  for (const char* path : {"/nope", "/", "/execute/", "/EXECUTE", "/interpreters", "/interpreters/", "/interpreter/",
                           "/interpreters//contexts", "/nope?x=/execute"}) {
    for (bool binding : {true, false}) {
      INFO(path << " binding " << binding);
      Rig rig;
      Action a = rig.start(makeHead("GET", path), binding);
      REQUIRE(a.kind == ActionKind::Respond);
      CHECK(a.response.status == 404);
      CHECK(a.response.body == "Not found");
      CHECK(headerOf(a.response, "content-type") == std::optional<std::string>("text/plain;charset=UTF-8"));
      CHECK(headerOf(a.response, "cache-control") == std::optional<std::string>("no-store"));
    }
  }
  Rig rig;  // POST to an unknown path is 404 too, not a validation error
  Action a = rig.start(makeHead("POST", "/nope", {{"content-type", "application/json"}}, true));
  CHECK(a.response.status == 404);
  CHECK(a.response.body == "Not found");
}

TEST_CASE("10.1.5 GET /execute is 405 plain text 'Method not allowed'") {
  for (const char* method : {"GET", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH"}) {
    INFO(method);
    Rig rig;
    Action a = rig.start(makeHead(method, "/execute?x=1", {{"content-type", "application/json"}}, true));
    REQUIRE(a.kind == ActionKind::Respond);
    CHECK(a.response.status == 405);
    CHECK(a.response.body == "Method not allowed");
    CHECK(headerOf(a.response, "content-type") == std::optional<std::string>("text/plain;charset=UTF-8"));
    CHECK(headerOf(a.response, "cache-control") == std::optional<std::string>("no-store"));
  }
}

// =====================================================================================================================
// protocol §10.2 Runtime Worker: POST /execute validation
// =====================================================================================================================

TEST_CASE("10.2.6 a non-JSON Content-Type is 415") {
  for (const char* type : {"text/plain", "application/x-json", "text/json", "", "json", "multipart/form-data"}) {
    INFO(type);
    Rig rig;
    checkValidation(rig.start(postExecute({{"content-type", type}})), 415, "Content-Type must be application/json");
  }
  Rig rig;  // no Content-Type at all
  checkValidation(rig.start(postExecute({})), 415, "Content-Type must be application/json");
}

TEST_CASE("10.2.7 Content-Type is matched case-insensitively, parameters allowed") {
  for (const char* type :
       {"Application/JSON; charset=utf-8", "application/json", "APPLICATION/JSON", "application/json;charset=UTF-8"}) {
    INFO(type);
    Rig rig;
    checkRun(rig.post(R"({"code":"1"})", {{"content-type", type}}), R"({"code":"1"})");
  }
}

TEST_CASE("10.2.8 Content-Length above 98,304 is 413 before the body is read") {
  Rig rig;
  checkValidation(rig.start(postExecute({{"content-type", "application/json"}, {"content-length", "98305"}})), 413,
                  "Request too large");
  Rig ok;
  Action a = ok.start(postExecute({{"content-type", "application/json"}, {"content-length", "98304"}}));
  REQUIRE(a.kind == ActionKind::ReadBody);
  CHECK(a.bodyLimit == 98304);
}

TEST_CASE("10.2.8 Content-Length is read like Number(): numeric forms count, NaN is ignored") {
  struct Case {
    const char* value;
    bool tooLarge;
  };
  for (Case c : std::initializer_list<Case>{{"98305", true},
                                            {"98304", false},
                                            {"0", false},
                                            {"", false},
                                            {" 98305 ", true},
                                            {"+98305", true},
                                            {"9.8305e4", true},
                                            {"98304.5", true},
                                            {"98304.0", false},
                                            {"1e999", true},
                                            {"Infinity", true},
                                            {"-Infinity", false},
                                            {"0x18001", true},
                                            {"0X18000", false},
                                            {"0b11000000000000001", true},
                                            {"0o300001", true},
                                            {"0O300000", false},
                                            {"-1", false},
                                            {"abc", false},
                                            {"98305abc", false},
                                            {"0x", false},
                                            {"0xZZ", false},
                                            {"-0x18001", false},
                                            {"0b2", false},
                                            {"0o9", false},
                                            {"infinity", false},
                                            {"1_000_000", false},
                                            {"1e", false},
                                            {"NaN", false}}) {
    INFO("content-length: '" << c.value << "'");
    Rig rig;
    Action a = rig.start(postExecute({{"content-type", "application/json"}, {"content-length", c.value}}));
    if (c.tooLarge)
      checkValidation(a, 413, "Request too large");
    else
      CHECK(a.kind == ActionKind::ReadBody);
  }
}

TEST_CASE("10.2 validation steps 1-3 run in order") {
  SECTION("415 wins over 413") {
    Rig rig;
    checkValidation(rig.start(postExecute({{"content-type", "text/plain"}, {"content-length", "98305"}})), 415,
                    "Content-Type must be application/json");
  }
  SECTION("413 (Content-Length) wins over a missing body") {
    Rig rig;
    checkValidation(
        rig.start(postExecute({{"content-type", "application/json"}, {"content-length", "98305"}}, false)), 413,
        "Request too large");
  }
  SECTION("no body stream: 400 JSON body required") {
    Rig rig;
    checkValidation(rig.start(postExecute({{"content-type", "application/json"}}, false)), 400, "JSON body required");
  }
  SECTION("415 wins over a missing body") {
    Rig rig;
    checkValidation(rig.start(postExecute({{"content-type", "text/plain"}}, false)), 415,
                    "Content-Type must be application/json");
  }
}

TEST_CASE("10.2.9 a chunked body over 98,304 bytes is 413; exactly 98,304 is read") {
  SECTION("98,305 bytes without Content-Length") {
    Rig rig;
    Action a = rig.start(postExecute());
    REQUIRE(a.kind == ActionKind::ReadBody);
    CHECK(a.bodyLimit == 98304);
    std::string body = codeBody("1", ",\"pad\":\"" + std::string(98305, 'x') + "\"");
    REQUIRE(body.size() > 98305);
    checkValidation(rig.feed(body), 413, "Request too large");
  }
  SECTION("bodyReceived(bodyLimit + 1) means too long, whatever the buffer holds") {
    Rig rig;
    REQUIRE(rig.start(postExecute()).kind == ActionKind::ReadBody);
    std::string body = R"({"code":"1"})";
    std::memcpy(rig.ex->bodyBuffer(), body.data(), body.size());
    checkValidation(rig.ex->bodyReceived(98305), 413, "Request too large");
  }
  SECTION("exactly 98,304 bytes is accepted") {
    std::string prefix = R"({"code":"1","pad":")", suffix = "\"}";
    std::string body = prefix + std::string(98304 - prefix.size() - suffix.size(), 'x') + suffix;
    REQUIRE(body.size() == 98304);
    Rig rig;
    checkRun(rig.post(body), R"({"code":"1"})");
  }
  SECTION("a smaller engine request limit is honoured") {
    auto e = engineInfo();
    e.limits.requestBytes = 100;
    Rig rig(e);
    Action a = rig.start(postExecute({{"content-type", "application/json"}, {"content-length", "101"}}));
    checkValidation(a, 413, "Request too large");
    Rig rig2(e);
    REQUIRE(rig2.start(postExecute()).bodyLimit == 100);
    checkValidation(rig2.feed(codeBody(std::string(100, 'a'))), 413, "Request too large");
  }
}

TEST_CASE("10.2.10 a body that is not JSON is 400 Invalid JSON") {
  for (std::string body : {std::string("{"), std::string(""), std::string("   "), std::string("{\"code\":\"1\""),
                           std::string("{\"code\":\"1\",}"), std::string("{'code':'1'}"), std::string("code=1"),
                           std::string("{\"code\":\"1\"} x"), std::string("{\"code\":\"1\"}{}"),
                           std::string("{\"code\":\"\t\"}"), std::string("{\"code\":\"\\x\"}"),
                           std::string("{\"code\":\"1\"}\0", 13), std::string("\0{\"code\":\"1\"}", 13),
                           std::string("{\"code\":\"1\",\"n\":01}"), std::string("{\"code\":\"1\",\"n\":NaN}")}) {
    INFO("body: " << body);
    Rig rig;
    checkValidation(rig.post(body), 400, "Invalid JSON");
  }
}

TEST_CASE("10.2.10 whitespace around the document is fine") {
  Rig rig;
  checkRun(rig.post(" \r\n\t{\"code\":\"1\"}\n "), R"({"code":"1"})");
}

TEST_CASE("10.2.10 a body that fails midway is 400 Invalid JSON") {
  Rig rig;
  REQUIRE(rig.start(postExecute()).kind == ActionKind::ReadBody);
  checkValidation(rig.ex->bodyFailed(), 400, "Invalid JSON");
}

TEST_CASE("10.2.10 a body with invalid UTF-8 is 400 Invalid JSON") {
  for (std::string body : {codeBody("\xff"), codeBody("caf\xe9"), codeBody("\xed\xa0\x80"), codeBody("\xc0\xaf"),
                           codeBody("\xe4\xb8"), codeBody("\xf4\x90\x80\x80"), std::string("{\"code\":\"1\"}\xff"),
                           std::string("{\"code\":\"1\",\"\xfe\":1}")}) {
    INFO("body: " << body);
    Rig rig;
    checkValidation(rig.post(body), 400, "Invalid JSON");
  }
}

TEST_CASE("10.2.10 nesting deeper than the reader's bound is 400 Invalid JSON") {
  auto nested = [](std::size_t arrays) {
    return std::string(R"({"code":"1","x":)") + std::string(arrays, '[') + std::string(arrays, ']') + "}";
  };
  // The root object is depth 1: kMaxDepth - 1 arrays inside it is the deepest accepted document.
  {
    Rig rig;
    checkRun(rig.post(nested(json::kMaxDepth - 1)), R"({"code":"1"})");
  }
  for (std::size_t arrays : {json::kMaxDepth, std::size_t(600), std::size_t(2000), std::size_t(40000)}) {
    INFO(arrays << " arrays");
    Rig rig;
    checkValidation(rig.post(nested(arrays)), 400, "Invalid JSON");
  }
  Rig rig;  // unbalanced deep nesting too
  checkValidation(rig.post(std::string(50000, '[')), 400, "Invalid JSON");
}

TEST_CASE("10.2.11 a JSON value that is not an object is 400 Expected an object") {
  for (const char* body : {"[1]", "null", "\"x\"", "1", "true", "false", "[]", "[{\"code\":\"1\"}]", " 0 "}) {
    INFO(body);
    Rig rig;
    checkValidation(rig.post(body), 400, "Expected an object");
  }
}

TEST_CASE("10.2.12 any input key is rejected, before every later check") {
  for (const char* body : {R"({"code":"1","input":null})", R"({"code":"1","input":1})", R"({"input":"x"})",
                           R"({"input":null,"language":5})", R"({"language":"python","input":{}})",
                           R"({"code":"","input":[],"envVars":[]})"}) {
    INFO(body);
    Rig rig;
    checkValidation(rig.post(body), 400, "input is no longer supported; pass data with envVars");
  }
}

TEST_CASE("10.2.13 a non-string language is 400 language must be a string") {
  for (const char* body : {R"({"code":"1","language":5})", R"({"code":"1","language":null})",
                           R"({"code":"1","language":["js"]})", R"({"code":"1","language":{}})",
                           R"({"code":"1","language":true})", R"({"language":5})"}) {
    INFO(body);
    Rig rig;
    checkValidation(rig.post(body), 400, "language must be a string");
  }
}

TEST_CASE("10.2.14 a language for another runtime is 400 Unsupported language") {
  Rig rig;
  checkValidation(rig.post(R"({"code":"1","language":"python"})"), 400,
                  "Unsupported language 'python' on this runtime (javascript)");
  Rig echo;  // the value is echoed as sent, not normalized
  checkValidation(echo.post(R"({"code":"1","language":"PyThOn3"})"), 400,
                  "Unsupported language 'PyThOn3' on this runtime (javascript)");
  Rig quote;
  checkValidation(quote.post(R"({"code":"1","language":"ja\"va"})"), 400,
                  "Unsupported language 'ja\"va' on this runtime (javascript)");
  Rig empty;
  checkValidation(empty.post(R"({"code":"1","language":""})"), 400,
                  "Unsupported language '' on this runtime (javascript)");
  Rig beforeCode;  // the language check comes before the code check
  checkValidation(beforeCode.post(R"({"language":"ruby"})"), 400,
                  "Unsupported language 'ruby' on this runtime (javascript)");
}

TEST_CASE("10.2.15 JS runtime accepts its aliases and TypeScript; the language never reaches the engine") {
  for (const char* lang : {"ts", "TypeScript", "js", "NODE", "javascript", "JavaScript", "TS", "Node", "typescript"}) {
    INFO(lang);
    Rig rig;
    checkRun(rig.post(std::string(R"({"code":"1","language":")") + lang + "\"}"), R"({"code":"1"})");
  }
}

TEST_CASE("10.2.16 Python runtime accepts Python3") {
  for (const char* lang : {"Python3", "python", "PYTHON", "python3"}) {
    INFO(lang);
    Rig rig(engineInfo("python"));
    checkRun(rig.post(std::string(R"({"code":"1","language":")") + lang + "\"}"), R"({"code":"1"})");
  }
  for (const char* lang : {"py", "typescript", "js", "python2"}) {
    INFO(lang);
    Rig rig(engineInfo("python"));
    checkValidation(rig.post(std::string(R"({"code":"1","language":")") + lang + "\"}"), 400,
                    std::string("Unsupported language '") + lang + "' on this runtime (python)");
  }
}

TEST_CASE("2.4 language alias table") {
  using server::normalizeLanguage;
  CHECK(normalizeLanguage("python3") == "python");
  CHECK(normalizeLanguage("Python3") == "python");
  CHECK(normalizeLanguage("PYTHON3") == "python");
  CHECK(normalizeLanguage("js") == "javascript");
  CHECK(normalizeLanguage("JS") == "javascript");
  CHECK(normalizeLanguage("node") == "javascript");
  CHECK(normalizeLanguage("NoDe") == "javascript");
  CHECK(normalizeLanguage("ts") == "typescript");
  CHECK(normalizeLanguage("Ts") == "typescript");
  CHECK(normalizeLanguage("TypeScript") == "typescript");
  CHECK(normalizeLanguage("Ruby") == "ruby");
  CHECK(normalizeLanguage("PERL") == "perl");
  CHECK(normalizeLanguage("py") == "py");
  CHECK(normalizeLanguage("nodejs") == "nodejs");
  CHECK(normalizeLanguage("") == "");

  using server::languageMatches;
  for (const char* ok : {"javascript", "JavaScript", "js", "JS", "node", "NODE", "ts", "TS", "typescript", "TypeScript"})
    CHECK(languageMatches(ok, "javascript"));
  for (const char* bad : {"python", "python3", "ecmascript", "", "java", "javascript ", "ruby"})
    CHECK_FALSE(languageMatches(bad, "javascript"));
  for (const char* ok : {"python", "Python3", "PYTHON"}) CHECK(languageMatches(ok, "python"));
  for (const char* bad : {"typescript", "ts", "js", "py"}) CHECK_FALSE(languageMatches(bad, "python"));  // TS is JS-only
  CHECK(languageMatches("RUBY", "ruby"));
  CHECK_FALSE(languageMatches("rb", "ruby"));
  CHECK(languageMatches("Perl", "perl"));
  CHECK_FALSE(languageMatches("typescript", "perl"));
}

TEST_CASE("10.2.17 missing, non-string or blank code is 400 Non-empty code is required") {
  for (const char* body :
       {R"({})", R"({"code":42})", R"({"code":""})", R"({"code":"   \n"})", R"({"code":null})", R"({"code":["1"]})",
        R"({"code":{}})", R"({"code":true})", R"({"code":"\t\r\n\u000b\u000c "})",
        R"({"code":"\u00a0\u3000\ufeff\u2028\u2029\u1680\u2000\u200a\u202f\u205f"})", "{\"code\":\"\xc2\xa0\"}",
        R"({"Code":"1"})", R"({"code":"","envVars":[]})"}) {
    INFO(body);
    Rig rig;
    checkValidation(rig.post(body), 400, "Non-empty code is required");
  }
}

TEST_CASE("10.2.17 code that is not blank under String.prototype.trim is accepted") {
  for (const char* body : {R"({"code":" 1 "})", R"({"code":"\u200b"})", R"({"code":"\u0000"})", R"({"code":"\u180e"})",
                           R"({"code":"\ud800"})"}) {
    INFO(body);
    Rig rig;
    CHECK(rig.post(body).kind == ActionKind::RunEngine);
  }
}

TEST_CASE("10.2.18 code is limited to 65,536 UTF-8 bytes") {
  SECTION("ASCII") {
    Rig ok;
    Action a = ok.post(codeBody(std::string(65536, 'a')));
    REQUIRE(a.kind == ActionKind::RunEngine);
    CHECK(a.payload == codeBody(std::string(65536, 'a')));
    Rig big;
    checkValidation(big.post(codeBody(std::string(65537, 'a'))), 413, "Code exceeds 64 KiB");
  }
  SECTION("two-byte characters") {
    Rig ok;
    CHECK(ok.post(codeBody(repeat("\xc3\xa9", 32768))).kind == ActionKind::RunEngine);
    Rig big;
    checkValidation(big.post(codeBody(repeat("\xc3\xa9", 32768) + "a")), 413, "Code exceeds 64 KiB");
  }
  SECTION("three- and four-byte characters") {
    Rig ok;
    CHECK(ok.post(codeBody(repeat("\xf0\x9f\x98\x80", 16384))).kind == ActionKind::RunEngine);
    Rig big;
    checkValidation(big.post(codeBody(repeat("\xf0\x9f\x98\x80", 16384) + "a")), 413, "Code exceeds 64 KiB");
    Rig ok3;
    CHECK(ok3.post(codeBody(repeat("\xe4\xb8\x96", 21845) + "a")).kind == ActionKind::RunEngine);  // 65,536
    Rig big3;
    checkValidation(big3.post(codeBody(repeat("\xe4\xb8\x96", 21845) + "ab")), 413, "Code exceeds 64 KiB");
  }
  SECTION("escapes count as the characters they decode to") {
    auto e = engineInfo();
    e.limits.requestBytes = 262144;  // room for the 6-byte escapes
    Rig ok(e);  // 32,768 x \u00e9 decode to 65,536 bytes
    CHECK(ok.post(codeBody(repeat("\\u00e9", 32768))).kind == ActionKind::RunEngine);
    Rig big(e);
    checkValidation(big.post(codeBody(repeat("\\u00e9", 32768) + "a")), 413, "Code exceeds 64 KiB");
  }
  SECTION("lone surrogates count as U+FFFD (3 bytes), as TextEncoder does") {
    auto e = engineInfo();
    e.limits.requestBytes = 262144;  // room for the 6-byte escapes
    Rig ok(e);
    CHECK(ok.post(codeBody(repeat("\\ud800", 21845) + "a")).kind == ActionKind::RunEngine);  // 65,536
    Rig big(e);
    checkValidation(big.post(codeBody(repeat("\\ud800", 21845) + "ab")), 413, "Code exceeds 64 KiB");
  }
  SECTION("the code check comes before the envVars checks") {
    Rig big;
    checkValidation(big.post(codeBody(std::string(65537, 'a'), R"(,"envVars":[])")), 413, "Code exceeds 64 KiB");
  }
  SECTION("the message follows the engine's code limit") {
    auto e = engineInfo();
    e.limits.codeBytes = 1024;
    Rig big(e);
    checkValidation(big.post(codeBody(std::string(1025, 'a'))), 413, "Code exceeds 1 KiB");
    Rig ok(e);
    CHECK(ok.post(codeBody(std::string(1024, 'a'))).kind == ActionKind::RunEngine);
    e.limits.codeBytes = 1536;
    Rig half(e);
    checkValidation(half.post(codeBody(std::string(1537, 'a'))), 413, "Code exceeds 1.5 KiB");
  }
}

TEST_CASE("10.2.19 envVars that is not a plain object is 400 envVars must be an object") {
  for (const char* env : {"[]", "null", "\"x\"", "1", "true", "[[\"A\",\"x\"]]"}) {
    INFO(env);
    Rig rig;
    checkValidation(rig.post(std::string(R"({"code":"1","envVars":)") + env + "}"), 400, "envVars must be an object");
  }
}

TEST_CASE("10.2.20 non-string envVars values are 400 envVars values must be strings") {
  for (const char* env : {R"({"A":1})", R"({"A":true})", R"({"A":{}})", R"({"A":["x"]})", R"({"1BAD":1})",
                          R"({"A":null,"B":2})", R"({"OK":"y","A":0})", R"({"A-B":false})"}) {
    INFO(env);
    Rig rig;
    checkValidation(rig.post(std::string(R"({"code":"1","envVars":)") + env + "}"), 400,
                    "envVars values must be strings");
  }
}

TEST_CASE("10.2.21 null envVars values are skipped") {
  Rig rig;
  checkRun(rig.post(R"({"code":"1","envVars":{"A":null}})"), R"({"code":"1","envVars":{}})");
  Rig mixed;
  checkRun(mixed.post(R"({"code":"1","envVars":{"A":null,"B":"b","C":null}})"),
           R"({"code":"1","envVars":{"B":"b"}})");
}

TEST_CASE("10.2.22 envVars keys that are not identifiers are silently dropped") {
  Rig rig;
  checkRun(rig.post(R"({"code":"1","envVars":{"1BAD":"x","OK":"y"}})"), R"({"code":"1","envVars":{"OK":"y"}})");
  Rig many;
  checkRun(many.post(R"({"code":"1","envVars":{"":"e","A-B":"1","A B":"2","é":"3","9":"4","_":"5","_1":"6",)"
                     R"("a_B9":"7","A.B":"8","$A":"9","Z":"10"}})"),
           R"({"code":"1","envVars":{"_":"5","_1":"6","a_B9":"7","Z":"10"}})");
}

TEST_CASE("2.3 the RunEngine payload is {code, envVars?}") {
  SECTION("no envVars key: no envVars in the payload") {
    Rig rig;
    checkRun(rig.post(R"J({"code":"print(1)","language":"js","other":{"x":[1,2]},"context":"c"})J"),
             R"J({"code":"print(1)"})J");
  }
  SECTION("empty envVars object is kept") {
    Rig rig;
    checkRun(rig.post(R"({"envVars":{},"code":"1"})"), R"({"code":"1","envVars":{}})");
  }
  SECTION("values keep their content; strings are re-escaped") {
    Rig rig;
    checkRun(rig.post(R"({"code":"a\nb\"c\\","envVars":{"A":"line1\nline2","B":"\u00e9\ud83d\ude00","C":"\ud800","D":""}})"),
             "{\"code\":\"a\\nb\\\"c\\\\\",\"envVars\":{\"A\":\"line1\\nline2\",\"B\":\"\xc3\xa9\xf0\x9f\x98\x80\","
             "\"C\":\"\\ud800\",\"D\":\"\"}}");
  }
  SECTION("entries keep their order") {
    Rig rig;
    checkRun(rig.post(R"({"code":"1","envVars":{"Z":"1","A":"2","M":"3"}})"),
             R"({"code":"1","envVars":{"Z":"1","A":"2","M":"3"}})");
  }
  SECTION("__proto__ is dropped, as assigning it to a JavaScript object is a no-op") {
    Rig rig;
    checkRun(rig.post(R"({"code":"1","envVars":{"__proto__":"x","OK":"y"}})"), R"({"code":"1","envVars":{"OK":"y"}})");
    Rig nonString;  // but its value is still type-checked
    checkValidation(nonString.post(R"({"code":"1","envVars":{"__proto__":{}}})"), 400,
                    "envVars values must be strings");
  }
  SECTION("the payload is JSON the engine can parse") {
    Rig rig;
    Action a = rig.post(R"({"code":"x = '\u2028'","envVars":{"K":"\u0001"}})");
    REQUIRE(a.kind == ActionKind::RunEngine);
    json::Value p = parseBody(a.payload);
    CHECK(at(p, "code").asString() == "x = '\xe2\x80\xa8'");
    CHECK(at(at(p, "envVars"), "K").asString() == "\x01");
  }
}

TEST_CASE("2.3 duplicate keys: the last value wins") {
  Rig code;
  checkRun(code.post(R"({"code":"","code":"2"})"), R"({"code":"2"})");
  Rig codeBlank;
  checkValidation(codeBlank.post(R"({"code":"2","code":" "})"), 400, "Non-empty code is required");
  Rig lang;
  checkRun(lang.post(R"({"code":"1","language":"python","language":"js"})"), R"({"code":"1"})");
  Rig env;
  checkRun(env.post(R"({"code":"1","envVars":{"A":1,"B":"b","A":"x"}})"), R"({"code":"1","envVars":{"A":"x","B":"b"}})");
  Rig envNull;
  checkRun(envNull.post(R"({"code":"1","envVars":{"A":"x","A":null}})"), R"({"code":"1","envVars":{}})");
  Rig envObj;
  checkRun(envObj.post(R"({"code":"1","envVars":[],"envVars":{"A":"x"}})"), R"({"code":"1","envVars":{"A":"x"}})");
}

TEST_CASE("2.3 lone surrogate escapes in code are accepted and echoed back escaped") {
  Rig rig;
  Action a = rig.post(R"({"code":"'\ud800' + '\udc00x'"})");
  checkRun(a, R"({"code":"'\ud800' + '\udc00x'"})");
  Action r = rig.ex->engineFinished(R"({"logs":{"stdout":[],"stderr":[]},"results":[{"text":"\ud800\udc00x"}]})");
  REQUIRE(r.kind == ActionKind::Respond);
  CHECK(r.response.status == 200);
  CHECK(r.response.body.find(R"("code":"'\ud800' + '\udc00x'")") != std::string::npos);
  // A high surrogate followed by a low one in the same string is one code point: emitted as UTF-8.
  CHECK(r.response.body.find("\"results\":[{\"text\":\"\xf0\x90\x80\x80x\"}]") != std::string::npos);
  json::Value v = parseBody(r.response.body);
  CHECK(at(v, "code").asString() == "'\xed\xa0\x80' + '\xed\xb0\x80x'");

  Rig pair;  // an escaped surrogate pair is one character, echoed as UTF-8
  Action b = pair.post(R"({"code":"'\ud83d\ude00'"})");
  checkRun(b, "{\"code\":\"'\xf0\x9f\x98\x80'\"}");
}

TEST_CASE("10.2.23 every 4xx is an ErrorResponse; the timestamp is the clock's, in ISO form") {
  Rig rig;
  rig.clock.epoch = 951782400000;  // 2000-02-29T00:00:00.000Z
  checkError(rig.post("{"), 400, "Invalid JSON", "VALIDATION_FAILED", "2000-02-29T00:00:00.000Z");
  Rig late;
  late.clock.epoch = 253402300799999;
  checkError(late.start(postExecute({})), 415, "Content-Type must be application/json", "VALIDATION_FAILED",
             "9999-12-31T23:59:59.999Z");
}

// =====================================================================================================================
// protocol §2.5 /interpreters/:key/*
// =====================================================================================================================

TEST_CASE("2.5 a valid key forwards to the Interpreter DO") {
  struct Case {
    const char* method;
    const char* path;
    const char* key;
    const char* forwardPath;
  };
  for (Case c : std::initializer_list<Case>{
           {"POST", "/interpreters/abc/contexts", "abc", "/contexts"},
           {"GET", "/interpreters/abc", "abc", "/"},
           {"DELETE", "/interpreters/K/contexts/c1?force=1", "K", "/contexts/c1"},
           {"POST", "/interpreters/0123456789abcdef/contexts/c-1/execute", "0123456789abcdef", "/contexts/c-1/execute"},
           {"PUT", "/interpreters/a.b_c-D/x/y/z/", "a.b_c-D", "/x/y/z/"},
       }) {
    INFO(c.method << " " << c.path);
    Rig rig;
    Action a = rig.start(makeHead(c.method, c.path, {{"content-type", "application/json"}}, true), true);
    REQUIRE(a.kind == ActionKind::Forward);
    CHECK(a.interpreterKey == c.key);
    CHECK(a.forwardPath == c.forwardPath);
    REQUIRE(a.forwardHeaders.size() == 1);
    CHECK(a.forwardHeaders[0].name == "x-interpreter-key");
    CHECK(a.forwardHeaders[0].value == c.key);
    CHECK(a.bodyLimit == sw::server::kRequestBodyLimit);  // the shim forwards at most bodyLimit + 1 bytes
  }
}

TEST_CASE("2.5 no route changes meaning under URL normalization (issue 23): refused, never forwarded") {
  // What the URL parser makes of /interpreters/K/contexts/%2e%2e (the trailing slash), a scheme-relative rest, and
  // dot segments that reach the core unnormalized.
  for (const char* path : {"/interpreters/K/", "/interpreters/K//evil", "/interpreters/K//evil/contexts"}) {
    INFO(path);
    Rig rig;
    Action a = rig.start(makeHead("DELETE", path, {}, false), true);
    REQUIRE(a.kind == ActionKind::Respond);
    CHECK(a.response.status == 404);
    CHECK(a.response.body == "Not found");  // the plain 404 of any unknown route (protocol §11 item 4 as decided)
  }
  for (const char* path : {"/interpreters/K/contexts/%2e%2e", "/interpreters/K/contexts/..", "/interpreters/K/contexts/.",
                           "/interpreters/K/contexts/%2E", "/interpreters/K/../x"}) {
    INFO(path);
    Rig rig;
    checkValidation(rig.start(makeHead("DELETE", path, {}, false), true), 400, "Context id must not be '.' or '..'");
  }
  for (const char* key : {".", ".."}) {
    Rig rig;
    checkValidation(rig.start(makeHead("DELETE", std::string("/interpreters/") + key + "/contexts/c", {}, false), true),
                    400, "Invalid interpreter key");
  }
}

TEST_CASE("2.5 a forwarded body whose stream fails is 400 Invalid JSON, like POST /execute's") {
  Rig rig;
  REQUIRE(rig.start(makeHead("POST", "/interpreters/k/contexts", {{"content-type", "application/json"}}, true), true)
              .kind == ActionKind::Forward);
  checkValidation(rig.ex->bodyFailed(), 400, "Invalid JSON");
}

TEST_CASE("2.5 a key of 128 characters is valid; 129 is not") {
  std::string key128(128, 'k');
  Rig ok;
  Action a = ok.start(makeHead("GET", "/interpreters/" + key128 + "/contexts"), true);
  REQUIRE(a.kind == ActionKind::Forward);
  CHECK(a.interpreterKey == key128);
  Rig bad;
  checkValidation(bad.start(makeHead("GET", "/interpreters/" + key128 + "k/contexts"), true), 400,
                  "Invalid interpreter key");
}

TEST_CASE("2.5 step 1: an invalid key is 400, checked before sessions and the binding") {
  for (const char* key : {"a%20b", "a:b", "a+b", "%41", "a@b", "\xc3\xa9", "a~b", "a!b", "a*b"}) {
    for (bool sessions : {true, false}) {
      for (bool binding : {true, false}) {
        INFO(key << " sessions " << sessions << " binding " << binding);
        Rig rig(engineInfo("javascript", sessions));
        checkValidation(rig.start(makeHead("POST", std::string("/interpreters/") + key + "/contexts"), binding), 400,
                        "Invalid interpreter key");
      }
    }
  }
}

TEST_CASE("2.5 step 2: an engine without sessions is 400, checked before the binding") {
  for (bool binding : {true, false}) {
    Rig js(engineInfo("javascript", false));
    checkValidation(js.start(makeHead("GET", "/interpreters/abc/contexts"), binding), 400,
                    "Code contexts are not supported for javascript");
    Rig ruby(engineInfo("ruby", false));
    checkValidation(ruby.start(makeHead("GET", "/interpreters/abc"), binding), 400,
                    "Code contexts are not supported for ruby");
  }
}

TEST_CASE("2.5 step 3: no INTERPRETER binding is 400") {
  Rig rig(engineInfo("javascript", true));
  checkValidation(rig.start(makeHead("POST", "/interpreters/abc/contexts"), false), 400,
                  "Code contexts are not supported: this Worker has no INTERPRETER Durable Object binding");
}

TEST_CASE("key and env-var patterns") {
  using server::isValidEnvKey;
  using server::isValidInterpreterKey;
  for (const char* ok : {"a", "Z", "0", "._-", "abc-DEF_1.2", "0123456789abcdef0123456789abcdef"})
    CHECK(isValidInterpreterKey(ok));
  CHECK(isValidInterpreterKey(std::string(128, '9')));
  for (const char* bad : {"", "a/b", "a b", "a%b", "\xc3\xa9", "a\n"}) CHECK_FALSE(isValidInterpreterKey(bad));
  CHECK_FALSE(isValidInterpreterKey(std::string(129, '9')));
  CHECK_FALSE(isValidInterpreterKey(std::string("a\0b", 3)));

  for (const char* ok : {"A", "_", "_1", "a_B9", "PATH", "x1y2"}) CHECK(isValidEnvKey(ok));
  for (const char* bad : {"", "1", "1A", "A-B", "A B", "A.B", "$A", "\xc3\xa9", "A\n"}) CHECK_FALSE(isValidEnvKey(bad));
  CHECK_FALSE(isValidEnvKey(std::string("A\0", 2)));
}

// =====================================================================================================================
// protocol §3.1 ExecutionResult assembly
// =====================================================================================================================

TEST_CASE("3.1 a finished run: {code, language, engine, durationMs, logs, results, usage}") {
  Rig rig;
  toRunEngine(rig);
  rig.clock.mono += 12.5;
  Action r = rig.ex->engineFinished(R"({"logs":{"stdout":["a"],"stderr":["b"]},"results":[{"text":"2"}],)" + kUsage +
                                    "}");
  REQUIRE(r.kind == ActionKind::Respond);
  CHECK(r.response.status == 200);
  checkJsonHeaders(r.response);
  CHECK(r.response.body ==
        R"({"code":"1 + 1;","language":"javascript","engine":"QuickJS test","durationMs":12.5,)"
        R"("logs":{"stdout":["a"],"stderr":["b"]},"results":[{"text":"2"}],)"
        R"("usage":{"fuelConsumed":10,"fuelLimit":50000000,"memoryBytes":65536}})");
}

TEST_CASE("3.1 key order is code, language, engine, durationMs, logs, results, error, usage") {
  Rig rig;
  toRunEngine(rig, R"J({"code":"throw new TypeError('x')","language":"ts"})J");
  rig.clock.mono += 3;
  // the outcome's own key order does not matter
  Action r = rig.ex->engineFinished(
      "{" + kUsage +
      R"(,"error":{"traceback":["at <eval>:1"],"message":"x","name":"TypeError"},"results":[],"logs":{"stderr":[],"stdout":["hi"]}})");
  REQUIRE(r.kind == ActionKind::Respond);
  json::Value v = parseBody(r.response.body);
  CHECK(keysOf(v) ==
        std::vector<std::string>{"code", "language", "engine", "durationMs", "logs", "results", "error", "usage"});
  CHECK(at(v, "language").asString() == "javascript");  // the runtime's, never the request's
  CHECK(at(v, "engine").asString() == kEngineName);
  CHECK(at(v, "durationMs").asNumber() == 3);
  CHECK(keysOf(at(v, "logs")) == std::vector<std::string>{"stdout", "stderr"});
  CHECK(at(at(v, "logs"), "stdout").items().at(0).asString() == "hi");
  const json::Value& e = at(v, "error");
  CHECK(keysOf(e) == std::vector<std::string>{"name", "message", "traceback"});
  CHECK(at(e, "name").asString() == "TypeError");
  CHECK(at(e, "message").asString() == "x");
  CHECK(at(e, "traceback").items().at(0).asString() == "at <eval>:1");
  CHECK(keysOf(at(v, "usage")) == std::vector<std::string>{"fuelConsumed", "fuelLimit", "memoryBytes"});
}

TEST_CASE("3.1 durationMs comes from the monotonic clock around the engine run") {
  struct Case {
    double elapsed;
    double expected;
  };
  for (Case c : std::initializer_list<Case>{{0, 0}, {1.25, 1.25}, {1.23456, 1.235}, {0.0004, 0}, {250, 250}}) {
    INFO(c.elapsed);
    Rig rig;
    toRunEngine(rig);
    rig.clock.mono += c.elapsed;
    json::Value v = parseBody(rig.ex->engineFinished(R"({"logs":{"stdout":[],"stderr":[]},"results":[]})").response.body);
    CHECK(at(v, "durationMs").asNumber() == Approx(c.expected).margin(1e-9));
  }
}

TEST_CASE("3.1 optional outcome parts") {
  SECTION("missing logs and results become empty; null error/usage are absent") {
    Rig rig;
    toRunEngine(rig);
    Action r = rig.ex->engineFinished(R"({"error":null,"usage":null})");
    CHECK(r.response.body ==
          R"({"code":"1 + 1;","language":"javascript","engine":"QuickJS test","durationMs":0,)"
          R"("logs":{"stdout":[],"stderr":[]},"results":[]})");
  }
  SECTION("a json result is relayed as is") {
    json::Value v = assemble(R"({"logs":{"stdout":[],"stderr":[]},"results":[{"json":{"a":[1,2.50,null,"x"],"b":{}}}]})");
    CHECK(server::assembleOutcome(json::parseCopy(R"({"results":[{"json":{"a":[1,2.50,null,"x"],"b":{}}}]})").value) ==
          R"({"logs":{"stdout":[],"stderr":[]},"results":[{"json":{"a":[1,2.50,null,"x"],"b":{}}}]})");
    CHECK(at(at(v, "results").items().at(0), "json").isObject());
  }
  SECTION("lineNumber is kept; extra error keys are dropped; a missing traceback becomes []") {
    json::Value v = assemble(R"({"error":{"name":"SyntaxError","message":"m","lineNumber":3,"extra":1}})");
    const json::Value& e = at(v, "error");
    CHECK(keysOf(e) == std::vector<std::string>{"name", "message", "traceback", "lineNumber"});
    CHECK(at(e, "traceback").items().empty());
    CHECK(at(e, "lineNumber").asNumber() == 3);
  }
  SECTION("a result next to an error is not reported") {
    json::Value v = assemble(R"({"results":[{"text":"1"}],"error":{"name":"Error","message":"m","traceback":[]}})");
    CHECK(at(v, "results").items().empty());
    CHECK(at(at(v, "error"), "name").asString() == "Error");
  }
  SECTION("non-ASCII and control characters survive") {
    json::Value v = assemble("{\"logs\":{\"stdout\":[\"\xc3\xa9\\u0000\\t\"],\"stderr\":[]},\"results\":[{\"text\":\"\\u2028\"}]}");
    CHECK(at(at(v, "logs"), "stdout").items().at(0).asString() == std::string("\xc3\xa9\0\t", 4));
    CHECK(at(at(v, "results").items().at(0), "text").asString() == "\xe2\x80\xa8");
  }
}

TEST_CASE("3.1 the outcome can be handed in through the exchange's padded input buffer") {
  Rig rig;
  toRunEngine(rig);
  std::string outcome = R"({"logs":{"stdout":["x"],"stderr":[]},"results":[{"text":"2"}]})";
  char* buf = rig.ex->inputBuffer(outcome.size());
  std::memcpy(buf, outcome.data(), outcome.size());
  CHECK(rig.ex->input() == outcome);
  Action r = rig.ex->engineFinished(rig.ex->input());
  REQUIRE(r.kind == ActionKind::Respond);
  json::Value v = parseBody(r.response.body);
  CHECK(at(at(v, "results").items().at(0), "text").asString() == "2");
  CHECK(at(at(v, "logs"), "stdout").items().at(0).asString() == "x");
}

// =====================================================================================================================
// protocol §2.3 engine failures (engineThrew)
// =====================================================================================================================

TEST_CASE("2.3 an ExecutionLimitError thrown by the engine") {
  Rig rig;
  toRunEngine(rig);
  rig.clock.mono += 7;
  Action r = rig.ex->engineThrew(true, "Execution fuel exhausted");
  REQUIRE(r.kind == ActionKind::Respond);
  CHECK(r.response.status == 200);
  checkJsonHeaders(r.response);
  CHECK(r.response.body ==
        R"({"code":"1 + 1;","language":"javascript","engine":"QuickJS test","durationMs":7,)"
        R"("logs":{"stdout":[],"stderr":[]},"results":[],)"
        R"("error":{"name":"ExecutionLimitError","message":"Execution fuel exhausted","traceback":[]}})");
}

TEST_CASE("2.3 any other engine failure is an EngineError") {
  SECTION("with a message") {
    Rig rig;
    toRunEngine(rig);
    json::Value v = parseBody(rig.ex->engineThrew(false, "boom").response.body);
    CHECK(keysOf(v) == std::vector<std::string>{"code", "language", "engine", "durationMs", "logs", "results", "error"});
    CHECK(at(at(v, "error"), "name").asString() == "EngineError");
    CHECK(at(at(v, "error"), "message").asString() == "boom");
    CHECK(at(at(v, "error"), "traceback").items().empty());
    CHECK(at(at(v, "logs"), "stdout").items().empty());
    CHECK(at(at(v, "logs"), "stderr").items().empty());
    CHECK(at(v, "results").items().empty());
    CHECK_FALSE(v.has("usage"));
  }
  SECTION("a thrown value that is not an Error: 'Execution failed'") {
    Rig rig;
    toRunEngine(rig);
    json::Value v = parseBody(rig.ex->engineThrew(false, std::nullopt).response.body);
    CHECK(at(at(v, "error"), "name").asString() == "EngineError");
    CHECK(at(at(v, "error"), "message").asString() == "Execution failed");
  }
  SECTION("an Error with an empty message keeps it empty") {
    Rig rig;
    toRunEngine(rig);
    json::Value v = parseBody(rig.ex->engineThrew(false, "").response.body);
    CHECK(at(at(v, "error"), "name").asString() == "EngineError");
    CHECK(at(at(v, "error"), "message").asString() == "");
  }
}

TEST_CASE("2.3 engine failure messages are truncated to 2,048 UTF-16 units") {
  for (bool limit : {false, true}) {
    INFO("limit " << limit);
    {
      Rig rig;
      toRunEngine(rig);
      json::Value v = parseBody(rig.ex->engineThrew(limit, std::string(3000, 'x')).response.body);
      CHECK(at(at(v, "error"), "message").asString() == std::string(2048, 'x'));
      CHECK(at(at(v, "error"), "name").asString() == (limit ? "ExecutionLimitError" : "EngineError"));
    }
    {
      Rig rig;
      toRunEngine(rig);
      json::Value v = parseBody(rig.ex->engineThrew(limit, std::string(2048, 'y')).response.body);
      CHECK(at(at(v, "error"), "message").asString() == std::string(2048, 'y'));
    }
    {
      Rig rig;  // 2,048 two-byte characters are 2,048 units (4,096 bytes): kept whole
      toRunEngine(rig);
      json::Value v = parseBody(rig.ex->engineThrew(limit, repeat("\xc3\xa9", 2100)).response.body);
      CHECK(at(at(v, "error"), "message").asString() == repeat("\xc3\xa9", 2048));
    }
    {
      Rig rig;  // an astral character is two units and is never split
      toRunEngine(rig);
      json::Value v =
          parseBody(rig.ex->engineThrew(limit, std::string(2047, 'z') + "\xf0\x9f\x98\x80" + "tail").response.body);
      CHECK(at(at(v, "error"), "message").asString() == std::string(2047, 'z'));
    }
  }
}

TEST_CASE("2.3 an outcome that is not JSON becomes an EngineError") {
  for (const char* bad : {"", "{", "not json", "{\"logs\":}", "\xff"}) {
    INFO(bad);
    Rig rig;
    toRunEngine(rig);
    Action r = rig.ex->engineFinished(bad);
    REQUIRE(r.kind == ActionKind::Respond);
    CHECK(r.response.status == 200);
    json::Value v = parseBody(r.response.body);
    CHECK(at(at(v, "error"), "name").asString() == "EngineError");
    CHECK(at(at(v, "error"), "message").asString() == "Engine returned an outcome that is not valid JSON");
    CHECK(at(v, "results").items().empty());
    CHECK_FALSE(v.has("usage"));
  }
}

TEST_CASE("2.3 an outcome JSON.stringify refused is an EngineError that says why") {
  Rig rig;
  toRunEngine(rig);
  Action r = rig.ex->engineOutcomeUnserializable("Do not know how to serialize a BigInt");
  REQUIRE(r.kind == ActionKind::Respond);
  json::Value v = parseBody(r.response.body);
  CHECK(at(at(v, "error"), "name").asString() == "EngineError");
  CHECK(at(at(v, "error"), "message").asString() ==
        "Engine returned an outcome that cannot be serialized: Do not know how to serialize a BigInt");
}

// =====================================================================================================================
// protocol §3.2-§3.3 output and result limits (assembleOutcome)
// =====================================================================================================================

TEST_CASE("3.3 more than 200 log lines: Output limit exceeded, the first 200 kept, results dropped") {
  std::vector<std::string> lines;
  for (int i = 0; i < 201; ++i) lines.push_back("line" + std::to_string(i));
  json::Value v = assemble(outcomeJson(lines, {}, R"([{"text":"2"}])", kUsage));
  checkLimitError(v, "Output limit exceeded");
  const auto& out = at(at(v, "logs"), "stdout").items();
  REQUIRE(out.size() == 200);
  CHECK(out.front().asString() == "line0");
  CHECK(out.back().asString() == "line199");
  CHECK(at(v, "results").items().empty());
  CHECK(v.has("usage"));
  CHECK(keysOf(v) == std::vector<std::string>{"logs", "results", "error", "usage"});
}

TEST_CASE("3.3 the 200-line limit counts both streams") {
  SECTION("exactly 200 lines pass") {
    std::vector<std::string> out(100, "o"), err(100, "e");
    json::Value v = assemble(outcomeJson(out, err, R"([{"text":"2"}])"));
    CHECK_FALSE(v.has("error"));
    CHECK(at(at(v, "logs"), "stdout").items().size() == 100);
    CHECK(at(at(v, "logs"), "stderr").items().size() == 100);
    CHECK(at(v, "results").items().size() == 1);
  }
  SECTION("150 + 51: stdout kept, 50 stderr lines kept") {
    std::vector<std::string> out(150, "o"), err(51, "e");
    json::Value v = assemble(outcomeJson(out, err));
    checkLimitError(v, "Output limit exceeded");
    CHECK(at(at(v, "logs"), "stdout").items().size() == 150);
    CHECK(at(at(v, "logs"), "stderr").items().size() == 50);
  }
  SECTION("the limit replaces a guest error") {
    std::vector<std::string> out(201, "o");
    json::Value v = assemble(outcomeJson(out, {}, "[]", R"("error":{"name":"TypeError","message":"m","traceback":[]})"));
    checkLimitError(v, "Output limit exceeded");
  }
  SECTION("empty lines count") {
    std::vector<std::string> out(201, "");
    json::Value v = assemble(outcomeJson(out, {}));
    checkLimitError(v, "Output limit exceeded");
    CHECK(at(at(v, "logs"), "stdout").items().size() == 200);
  }
}

TEST_CASE("3.3 log output is limited to 32,768 UTF-16 units in total") {
  SECTION("one line of exactly 32,768 units passes") {
    json::Value v = assemble(outcomeJson({std::string(32768, 'a')}, {}));
    CHECK_FALSE(v.has("error"));
    CHECK(at(at(v, "logs"), "stdout").items().at(0).asString().size() == 32768);
  }
  SECTION("one line of 32,769 units is dropped") {
    json::Value v = assemble(outcomeJson({std::string(32769, 'a')}, {}, R"([{"text":"2"}])"));
    checkLimitError(v, "Output limit exceeded");
    CHECK(at(at(v, "logs"), "stdout").items().empty());
    CHECK(at(v, "results").items().empty());
  }
  SECTION("the total spans lines and streams") {
    json::Value ok = assemble(outcomeJson({std::string(16384, 'a')}, {std::string(16384, 'b')}));
    CHECK_FALSE(ok.has("error"));
    json::Value over = assemble(outcomeJson({std::string(16384, 'a'), "x"}, {std::string(16384, 'b')}));
    checkLimitError(over, "Output limit exceeded");
    CHECK(at(at(over, "logs"), "stdout").items().size() == 2);
    CHECK(at(at(over, "logs"), "stderr").items().empty());
  }
  SECTION("units, not bytes: 32,768 two-byte characters pass") {
    json::Value v = assemble(outcomeJson({repeat("\xc3\xa9", 32768)}, {}));
    CHECK_FALSE(v.has("error"));
  }
  SECTION("an astral character is two units") {
    json::Value ok = assemble(outcomeJson({repeat("\xf0\x9f\x98\x80", 16384)}, {}));
    CHECK_FALSE(ok.has("error"));
    json::Value over = assemble(outcomeJson({repeat("\xf0\x9f\x98\x80", 16384), "a"}, {}));
    checkLimitError(over, "Output limit exceeded");
    CHECK(at(at(over, "logs"), "stdout").items().size() == 1);
  }
}

TEST_CASE("3.2 results are limited to 65,536 bytes") {
  SECTION("text of exactly 65,536 bytes passes") {
    json::Value v = assemble(outcomeJson({"log"}, {}, "[{\"text\":\"" + std::string(65536, 't') + "\"}]", kUsage));
    CHECK_FALSE(v.has("error"));
    CHECK(at(at(v, "results").items().at(0), "text").asString().size() == 65536);
  }
  SECTION("text of 65,537 bytes: Result limit exceeded, logs and usage kept") {
    json::Value v = assemble(outcomeJson({"log"}, {}, "[{\"text\":\"" + std::string(65537, 't') + "\"}]", kUsage));
    checkLimitError(v, "Result limit exceeded");
    CHECK(at(v, "results").items().empty());
    CHECK(at(at(v, "logs"), "stdout").items().at(0).asString() == "log");
    CHECK(v.has("usage"));
  }
  SECTION("text is measured in UTF-8 bytes") {
    json::Value ok = assemble(outcomeJson({}, {}, "[{\"text\":\"" + repeat("\xc3\xa9", 32768) + "\"}]"));
    CHECK_FALSE(ok.has("error"));
    json::Value over = assemble(outcomeJson({}, {}, "[{\"text\":\"" + repeat("\xc3\xa9", 32768) + "a\"}]"));
    checkLimitError(over, "Result limit exceeded");
  }
  SECTION("json is measured as serialized JSON") {
    // "..." with 65,534 characters serializes to 65,536 bytes
    json::Value ok = assemble(outcomeJson({}, {}, "[{\"json\":\"" + std::string(65534, 'j') + "\"}]"));
    CHECK_FALSE(ok.has("error"));
    CHECK(at(at(ok, "results").items().at(0), "json").asString().size() == 65534);
    json::Value over = assemble(outcomeJson({}, {}, "[{\"json\":\"" + std::string(65535, 'j') + "\"}]"));
    checkLimitError(over, "Result limit exceeded");
    CHECK(at(over, "results").items().empty());
    // an array: [ + 13,107 x "1," ... sized to 65,537 bytes
    std::string arr = "[" + repeat("1,", 32767) + "11]";  // 1 + 65,534 + 3 = 65,538 bytes
    json::Value overArr = assemble(outcomeJson({}, {}, "[{\"json\":" + arr + "}]"));
    checkLimitError(overArr, "Result limit exceeded");
    std::string arrOk = "[" + repeat("1,", 32766) + "11]";  // 65,536 bytes
    REQUIRE(arrOk.size() == 65536);
    CHECK_FALSE(assemble(outcomeJson({}, {}, "[{\"json\":" + arrOk + "}]")).has("error"));
  }
}

TEST_CASE("3.1 outcomes that break the engine contract become an EngineError") {
  for (const char* bad :
       {"[]", "null", "\"x\"", "1", R"({"logs":[]})", R"({"logs":{"stdout":"a"}})", R"({"logs":{"stdout":[1]}})",
        R"({"logs":{"stderr":[null]}})", R"({"results":{}})", R"({"results":[{"text":"1"},{"text":"2"}]})",
        R"({"results":["1"]})", R"({"results":[{"text":1}]})", R"({"error":"x"})", R"({"error":{"name":"E"}})",
        R"({"error":{"message":"m"}})", R"({"error":{"name":1,"message":"m"}})",
        R"({"error":{"name":"E","message":"m","traceback":"t"}})",
        R"({"error":{"name":"E","message":"m","traceback":[1]}})",
        R"({"error":{"name":"E","message":"m","lineNumber":"3"}})", R"({"usage":1})", R"({"usage":{}})",
        R"({"usage":{"fuelConsumed":1,"fuelLimit":2}})", R"({"usage":{"fuelConsumed":"1","fuelLimit":2,"memoryBytes":3}})"}) {
    INFO(bad);
    json::Value v = assemble(bad);
    CHECK(keysOf(v) == std::vector<std::string>{"logs", "results", "error"});
    CHECK(at(at(v, "logs"), "stdout").items().empty());
    CHECK(at(at(v, "logs"), "stderr").items().empty());
    CHECK(at(v, "results").items().empty());
    const json::Value& e = at(v, "error");
    CHECK(at(e, "name").asString() == "EngineError");
    CHECK(at(e, "message").asString().rfind("Engine returned an invalid outcome: ", 0) == 0);
    CHECK(at(e, "traceback").items().empty());
  }
  // and through the exchange, with the envelope around it
  Rig rig;
  toRunEngine(rig);
  json::Value v = parseBody(rig.ex->engineFinished(R"({"results":{}})").response.body);
  CHECK(keysOf(v) == std::vector<std::string>{"code", "language", "engine", "durationMs", "logs", "results", "error"});
  CHECK(at(at(v, "error"), "message").asString() ==
        "Engine returned an invalid outcome: results must be an array of at most one entry");
}

// =====================================================================================================================
// Exchange state machine misuse and the generic fallback
// =====================================================================================================================

TEST_CASE("calls out of order get the generic 502") {
  SECTION("engineFinished before the body") {
    Rig rig;
    REQUIRE(rig.start(postExecute()).kind == ActionKind::ReadBody);
    checkInternal(rig.ex->engineFinished("{}"));
  }
  SECTION("engineThrew after a response") {
    Rig rig;
    REQUIRE(rig.start(makeHead("GET", "/nope")).kind == ActionKind::Respond);
    checkInternal(rig.ex->engineThrew(true, "x"));
  }
  SECTION("bodyReceived without ReadBody") {
    Rig rig;
    REQUIRE(rig.start(makeHead("GET", "/interpreter")).kind == ActionKind::Respond);
    checkInternal(rig.ex->bodyReceived(0));
  }
  SECTION("bodyFailed without ReadBody") {
    Rig rig;
    toRunEngine(rig);
    checkInternal(rig.ex->bodyFailed());
  }
  SECTION("a second engineFinished") {
    Rig rig;
    toRunEngine(rig);
    REQUIRE(rig.ex->engineFinished("{}").response.status == 200);
    checkInternal(rig.ex->engineFinished("{}"));
  }
  SECTION("fail() at any point") {
    Rig rig;
    toRunEngine(rig);
    checkInternal(rig.ex->fail());
    CHECK(rig.ex->action().kind == ActionKind::Respond);
  }
}

TEST_CASE("3.6 errorResponse and internalErrorResponse") {
  FakeClock clock;
  auto r = server::errorResponse(clock, 404, "CONTEXT_NOT_FOUND", "Code context 'c' not found", R"({"contextId":"c"})");
  CHECK(r.status == 404);
  checkJsonHeaders(r);
  CHECK(r.body == R"({"code":"CONTEXT_NOT_FOUND","message":"Code context 'c' not found","context":{"contextId":"c"},)"
                  R"("httpStatus":404,"timestamp":"2023-11-14T22:13:20.123Z"})");
  auto i = server::internalErrorResponse(clock);
  CHECK(i.status == 502);
  CHECK(i.body == R"({"code":"INTERNAL_ERROR","message":"Engine execution failed","context":{},"httpStatus":502,)"
                  R"("timestamp":"2023-11-14T22:13:20.123Z"})");
}

TEST_CASE("isoTime prints Date.prototype.toISOString") {
  using server::isoTime;
  CHECK(isoTime(0) == "1970-01-01T00:00:00.000Z");
  CHECK(isoTime(1) == "1970-01-01T00:00:00.001Z");
  CHECK(isoTime(-1) == "1969-12-31T23:59:59.999Z");
  CHECK(isoTime(1700000000123) == "2023-11-14T22:13:20.123Z");
  CHECK(isoTime(951782400000) == "2000-02-29T00:00:00.000Z");
  CHECK(isoTime(4107542399999) == "2100-02-28T23:59:59.999Z");
  CHECK(isoTime(4107542400000) == "2100-03-01T00:00:00.000Z");  // 2100 is not a leap year
  CHECK(isoTime(253402300799999) == "9999-12-31T23:59:59.999Z");
  CHECK(isoTime(-62167219200000) == "0000-01-01T00:00:00.000Z");
  CHECK(isIsoTimestamp(isoTime(server::systemClock().epochMs())));
}

TEST_CASE("the system clock moves forward") {
  auto& c = server::systemClock();
  double a = c.monotonicMs();
  double b = c.monotonicMs();
  CHECK(b >= a);
  CHECK(c.epochMs() > 1700000000000);
}

TEST_CASE("parseEngineInfo") {
  std::string error;
  SECTION("a complete description") {
    auto e = server::parseEngineInfo(
        R"({"language":"javascript","engineName":"QuickJS","build":"b1",)"
        R"("limits":{"fuel":50000000,"memoryBytes":67108864,"codeBytes":65536,"requestBytes":98304},"sessions":true})",
        error);
    REQUIRE(e);
    CHECK(e->language == "javascript");
    CHECK(e->engineName == "QuickJS");
    CHECK(e->build == "b1");
    CHECK(e->limits.fuel == 50000000);
    CHECK(e->limits.memoryBytes == 67108864);
    CHECK(e->limits.codeBytes == 65536);
    CHECK(e->limits.requestBytes == 98304);
    CHECK(e->sessions);
  }
  SECTION("sessions defaults to false and must be a boolean") {
    for (const char* sessions : {"", R"(,"sessions":"yes")", R"(,"sessions":1)", R"(,"sessions":false)"}) {
      INFO(sessions);
      auto e = server::parseEngineInfo(std::string(R"({"language":"ruby","engineName":"R","build":"b",)"
                                                   R"("limits":{"fuel":1,"memoryBytes":1,"codeBytes":1,"requestBytes":1})") +
                                           sessions + "}",
                                       error);
      REQUIRE(e);
      CHECK_FALSE(e->sessions);
    }
  }
  SECTION("bad descriptions") {
    struct Case {
      const char* json;
      const char* error;
    };
    for (Case c : std::initializer_list<Case>{
             {"", "engine description is not a JSON object"},
             {"[]", "engine description is not a JSON object"},
             {R"({"engineName":"x","build":"b","limits":{}})", "engine.language must be a non-empty string"},
             {R"({"language":"","engineName":"x","build":"b","limits":{}})", "engine.language must be a non-empty string"},
             {R"({"language":"js","engineName":1,"build":"b","limits":{}})",
              "engine.engineName must be a non-empty string"},
             {R"({"language":"js","engineName":"x","limits":{}})", "engine.build must be a non-empty string"},
             {R"({"language":"js","engineName":"x","build":"b"})", "engine.limits must be an object"},
             {R"({"language":"js","engineName":"x","build":"b","limits":{"memoryBytes":1,"codeBytes":1,"requestBytes":1}})",
              "engine.limits.fuel must be a finite number >= 0"},
             {R"({"language":"js","engineName":"x","build":"b","limits":{"fuel":-1,"memoryBytes":1,"codeBytes":1,"requestBytes":1}})",
              "engine.limits.fuel must be a finite number >= 0"},
             {R"({"language":"js","engineName":"x","build":"b","limits":{"fuel":1e400,"memoryBytes":1,"codeBytes":1,"requestBytes":1}})",
              "engine.limits.fuel must be a finite number >= 0"},
             {R"({"language":"js","engineName":"x","build":"b","limits":{"fuel":1,"memoryBytes":1,"codeBytes":0,"requestBytes":1}})",
              "engine.limits.codeBytes and requestBytes must be positive (requestBytes at most 64 MiB)"},
             {R"({"language":"js","engineName":"x","build":"b","limits":{"fuel":1,"memoryBytes":1,"codeBytes":1,"requestBytes":67108865}})",
              "engine.limits.codeBytes and requestBytes must be positive (requestBytes at most 64 MiB)"},
         }) {
      INFO(c.json);
      error.clear();
      CHECK_FALSE(server::parseEngineInfo(c.json, error));
      CHECK(error == c.error);
    }
  }
}

TEST_CASE("exchanges are independent") {
  FakeClock clock;
  server::InterpreterServer srv(engineInfo());
  auto a = srv.newExchange(clock);
  auto b = srv.newExchange(clock);
  REQUIRE(a->start(postExecute(), true).kind == ActionKind::ReadBody);
  REQUIRE(b->start(postExecute(), true).kind == ActionKind::ReadBody);
  std::string ba = R"({"code":"a"})", bb = R"({"code":"b","envVars":{"X":"1"}})";
  std::memcpy(a->bodyBuffer(), ba.data(), ba.size());
  std::memcpy(b->bodyBuffer(), bb.data(), bb.size());
  CHECK(b->bodyReceived(bb.size()).payload == bb);
  CHECK(a->bodyReceived(ba.size()).payload == ba);
  CHECK(parseBody(a->engineThrew(false, "x").response.body).find("code")->asString() == "a");
  CHECK(parseBody(b->engineFinished("{}").response.body).find("code")->asString() == "b");
}
