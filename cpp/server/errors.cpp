// How errors are reported: the ErrorResponse of every route, the executeInContext RPC's error envelope, and the
// outcome of an engine run the host failed itself. The Worker's exchange, the Interpreter and the core all build
// them here.
#include "server.h"

namespace sw::server {

http::Response errorResponse(Clock& clock, int status, std::string_view code, std::string_view message,
                             std::string_view contextJson, std::string_view operation) {
  std::string body;
  json::Writer w(body);
  w.beginObject();
  w.key("code").string(code);
  w.key("message").string(message);
  w.key("context").raw(contextJson);
  w.key("httpStatus").integer(status);
  w.key("timestamp").string(isoTime(clock.epochMs()));
  if (!operation.empty()) w.key("operation").string(operation);
  w.endObject();
  return http::Response::json(status, std::move(body));
}

http::Response internalErrorResponse(Clock& clock) {
  return errorResponse(clock, abi::FAILURE_STATUS, abi::FAILURE_CODE, abi::FAILURE_MESSAGE);
}

std::string rpcErrorJson(const http::Response& error) {
  std::string out;
  json::Writer w(out);
  w.beginObject();
  w.key("ok").boolean(false);
  w.key("status").integer(error.status);
  w.key("body").raw(error.body);
  w.endObject();
  return out;
}

void writeHostError(json::Writer& w, std::string_view name, std::string_view message) {
  w.key("error").beginObject();
  w.key("name").string(name);
  w.key("message").string(json::truncateUtf16(message, kMaxHostMessageUnits));
  w.key("traceback").beginArray().endArray();
  w.endObject();
}

std::string failedOutcomeJson(std::string_view errorName, std::string_view message,
                              std::optional<std::string_view> cwd) {
  std::string out;
  json::Writer w(out);
  w.beginObject();
  w.key("logs").raw(R"({"stdout":[],"stderr":[]})");
  w.key("results").raw("[]");
  writeHostError(w, errorName, message);
  if (cwd) w.key("cwd").string(*cwd);
  w.endObject();
  return out;
}

}  // namespace sw::server
