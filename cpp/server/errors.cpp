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

std::string errnoCode(std::string_view errnoName) {
  if (errnoName == "ENOENT") return "FILE_NOT_FOUND";
  if (errnoName == "EEXIST") return "FILE_EXISTS";
  if (errnoName == "EACCES") return "PERMISSION_DENIED";
  if (errnoName == "EISDIR") return "IS_DIRECTORY";
  if (errnoName == "ENOTDIR") return "NOT_DIRECTORY";
  if (errnoName == "EFBIG") return "FILE_TOO_LARGE";
  if (errnoName == "ENOSPC") return "NO_SPACE";
  return "FILESYSTEM_ERROR";
}

int codeStatus(std::string_view code) {
  if (code == "FILE_NOT_FOUND") return 404;
  if (code == "FILE_EXISTS") return 409;
  if (code == "PERMISSION_DENIED") return 403;
  if (code == "IS_DIRECTORY" || code == "NOT_DIRECTORY") return 400;
  if (code == "FILE_TOO_LARGE") return 413;
  return 500;
}

}  // namespace sw::server
