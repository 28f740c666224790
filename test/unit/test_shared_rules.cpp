// cpp/server's rules that the Worker's exchange, the Interpreter, wasmify and the core share (errors.cpp,
// request.cpp): each is checked once here, with the exact bytes its callers put on the wire.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>

#include "server/server.h"

using namespace sw;

namespace {

class FixedClock final : public server::Clock {
 public:
  double monotonicMs() override { return 0; }
  int64_t epochMs() override { return 1700000000123; }  // 2023-11-14T22:13:20.123Z
};

json::Value parse(const std::string& text) {
  auto r = json::parseCopy(text);
  REQUIRE(r.ok());
  return r.value;
}

}  // namespace

TEST_CASE("a run the host failed is one outcome shape, with a session's cwd when given") {
  CHECK(server::failedOutcomeJson("EngineError", "x") ==
        R"({"logs":{"stdout":[],"stderr":[]},"results":[],"error":{"name":"EngineError","message":"x","traceback":[]}})");
  CHECK(server::failedOutcomeJson("ExecutionLimitError", "Output limit exceeded", "/workspace/t") ==
        R"({"logs":{"stdout":[],"stderr":[]},"results":[],"error":{"name":"ExecutionLimitError",)"
        R"("message":"Output limit exceeded","traceback":[]},"cwd":"/workspace/t"})");
  // A host message is cut to 2,048 UTF-16 units.
  json::Value long_ = parse(server::failedOutcomeJson("EngineError", std::string(3000, 'x')));
  CHECK(long_.find("error")->find("message")->asString() == std::string(server::kMaxHostMessageUnits, 'x'));
}

TEST_CASE("an RPC error is {ok:false,status,body} around the ErrorResponse") {
  FixedClock clock;
  CHECK(server::rpcErrorJson(server::errorResponse(clock, 404, "CONTEXT_NOT_FOUND", "gone", R"({"contextId":"c"})")) ==
        R"({"ok":false,"status":404,"body":{"code":"CONTEXT_NOT_FOUND","message":"gone","context":{"contextId":"c"},)"
        R"("httpStatus":404,"timestamp":"2023-11-14T22:13:20.123Z"}})");
  CHECK(server::rpcErrorJson(server::internalErrorResponse(clock)) ==
        R"({"ok":false,"status":502,"body":{"code":"INTERNAL_ERROR","message":"Engine execution failed","context":{},)"
        R"("httpStatus":502,"timestamp":"2023-11-14T22:13:20.123Z"}})");
}

TEST_CASE("code must be a non-blank string within codeBytes") {
  server::Limits limits;
  limits.codeBytes = 2048;
  const json::Value blank = parse(R"(" \n\t")"), number = parse("1");
  for (const json::Value* v : {static_cast<const json::Value*>(nullptr), &blank, &number}) {
    auto invalid = server::checkCode(v, limits);
    REQUIRE(invalid);
    CHECK(invalid->status == 400);
    CHECK(invalid->message == "Non-empty code is required");
  }
  const json::Value exact = json::Value::string(std::string(2048, 'a'));
  CHECK_FALSE(server::checkCode(&exact, limits));
  const json::Value over = json::Value::string(std::string(1024, 'a') + std::string(512, 'b') + "\xc3\xa9" +
                                               std::string(511, 'c'));  // 2,049 UTF-8 bytes
  auto invalid = server::checkCode(&over, limits);
  REQUIRE(invalid);
  CHECK(invalid->status == 413);
  CHECK(invalid->message == "Code exceeds 2 KiB");
}

TEST_CASE("envVars: POST /execute skips nulls and unusable keys; executeInContext takes strings only") {
  std::string env;
  const json::Value mixed = parse(R"({"A":"1","B":null,"1x":"y","__proto__":"p","_ok":"2"})");
  CHECK_FALSE(server::readEnvVars(mixed, server::EnvVarsRule::Execute, env));
  CHECK(env == R"({"A":"1","_ok":"2"})");
  auto refused = server::readEnvVars(mixed, server::EnvVarsRule::Context, env);
  REQUIRE(refused);
  CHECK(refused->status == 400);
  CHECK(refused->message == "envVars values must be strings");
  const json::Value strings = parse(R"({"A":"1","1x":"y"})");
  CHECK_FALSE(server::readEnvVars(strings, server::EnvVarsRule::Context, env));
  CHECK(env == R"({"A":"1","1x":"y"})");
  for (auto rule : {server::EnvVarsRule::Execute, server::EnvVarsRule::Context}) {
    auto notObject = server::readEnvVars(parse("[]"), rule, env);
    REQUIRE(notObject);
    CHECK(notObject->message == "envVars must be an object");
    auto number = server::readEnvVars(parse(R"({"A":1})"), rule, env);
    REQUIRE(number);
    CHECK(number->message == "envVars values must be strings");
  }
}

TEST_CASE("a body is read to its limit + 1 and parsed without a byte-order mark") {
  server::BodyBuffer body;
  body.allocate(10);
  CHECK(body.capacity() == server::bodyReadBound(10));
  CHECK(server::bodyReadBound(10) == 11);
  CHECK_FALSE(body.tooLarge(10));
  CHECK(body.tooLarge(11));
  std::memcpy(body.data(), "\xEF\xBB\xBF{\"a\":1}", 10);
  auto parsed = body.parse(10);
  REQUIRE(parsed.ok());
  CHECK(json::stringify(parsed.value) == R"({"a":1})");

  http::RequestHead head;
  head.headers = {{"content-length", "9"}};
  CHECK(server::declaredTooLarge(head, 8));
  CHECK_FALSE(server::declaredTooLarge(head, 9));
  head.headers = {{"content-length", "nope"}};
  CHECK_FALSE(server::declaredTooLarge(head, 8));  // not a number: the read decides
}

TEST_CASE("an interpreter key is 1-128 characters of [A-Za-z0-9._-]") {
  for (const std::string& ok : {std::string("k"), std::string("a.b_c-D9"), std::string(128, 'x')})
    CHECK_FALSE(server::checkInterpreterKey(ok));
  for (const std::string& bad : {std::string(), std::string("a b"), std::string("a/b"), std::string(129, 'x')}) {
    auto invalid = server::checkInterpreterKey(bad);
    REQUIRE(invalid);
    CHECK(invalid->status == 400);
    CHECK(invalid->message == "Invalid interpreter key");
  }
}

TEST_CASE("code contexts need a valid key, an engine with sessions and the INTERPRETER binding, in that order") {
  server::EngineInfo engine;
  engine.language = "calc";
  CHECK(server::contextsUnavailable(engine, "bad key!", true) == "Invalid interpreter key");
  CHECK(server::contextsUnavailable(engine, "k", true) == "Code contexts are not supported for calc");
  engine.sessions = true;
  CHECK(server::contextsUnavailable(engine, "k", false) ==
        "Code contexts are not supported: this Worker has no INTERPRETER Durable Object binding");
  CHECK_FALSE(server::contextsUnavailable(engine, "k", true));
}

TEST_CASE("an ExecutionResult starts with code, language, engine and durationMs, then the outcome") {
  server::EngineInfo engine;
  engine.language = "javascript";
  engine.engineName = "QuickJS";
  std::string out;
  json::Writer w(out);
  w.beginObject();
  server::writeExecutionResult(w, engine, "1", 2.5, R"({"logs":{"stdout":[],"stderr":[]},"results":[]})");
  w.key("executionCount").integer(1);
  w.endObject();
  CHECK(out == R"({"code":"1","language":"javascript","engine":"QuickJS","durationMs":2.5,)"
               R"("logs":{"stdout":[],"stderr":[]},"results":[],"executionCount":1})");
}

TEST_CASE("the sandbox id rule (abi.def): its pattern text states SANDBOX_ID_MAX_CHARS, and each refusal's message") {
  CHECK(abi::SANDBOX_ID_PATTERN == "/^[A-Za-z0-9._-]{1," + std::to_string(abi::SANDBOX_ID_MAX_CHARS) + "}$/");
  CHECK_FALSE(server::sandboxIdError("my-box_1.2"));
  CHECK_FALSE(server::sandboxIdError(std::string(63, 'a')));
  CHECK_FALSE(server::sandboxIdError("."));  // the gateway refuses dot segments itself (gateway::sandboxIdError)
  CHECK(*server::sandboxIdError(std::string(64, 'a')) ==
        "Invalid sandbox id \"" + std::string(64, 'a') + "\": must match /^[A-Za-z0-9._-]{1,63}$/");
  CHECK(*server::sandboxIdError("") == "Invalid sandbox id \"\": must match /^[A-Za-z0-9._-]{1,63}$/");
  CHECK(*server::sandboxIdError("a-") == "Invalid sandbox id \"a-\": cannot start or end with a hyphen");
  CHECK(*server::sandboxIdError("Workers") == "Invalid sandbox id \"Workers\": 'Workers' is a reserved name");
  CHECK(*server::sandboxIdError("www") == "Invalid sandbox id \"www\": 'www' is a reserved name");
  CHECK_FALSE(server::sandboxIdError("wwww"));
  CHECK_FALSE(server::sandboxIdError("ww"));
}

TEST_CASE("error codes (abi.def): each code's canonical status, and each workspace errno's code") {
  CHECK(server::codeStatus("FILE_NOT_FOUND") == 404);
  CHECK(server::codeStatus("FILE_EXISTS") == 409);
  CHECK(server::codeStatus("NOT_DIRECTORY") == 400);
  CHECK(server::codeStatus("FILE_TOO_LARGE") == 413);
  CHECK(server::codeStatus("NO_SPACE") == 500);
  CHECK(server::codeStatus("CONTEXT_NOT_FOUND") == 404);
  CHECK(server::codeStatus("NOT_SUPPORTED") == 403);
  CHECK(server::codeStatus("SOMETHING_ELSE") == 500);
  CHECK(server::errnoCode("ENOENT") == "FILE_NOT_FOUND");
  CHECK(server::errnoCode("ENOSPC") == "NO_SPACE");
  CHECK(server::errnoCode("ENOTEMPTY") == "FILESYSTEM_ERROR");
  CHECK(server::errnoCode("") == "FILESYSTEM_ERROR");
}
