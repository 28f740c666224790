// cpp/server's rules that the Worker's exchange, the Interpreter, wasmify and the core share (errors.cpp): each is
// checked once here, with the exact bytes its callers put on the wire.
#include <catch2/catch.hpp>

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
