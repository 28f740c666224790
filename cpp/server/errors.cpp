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

// Both from abi.def's SW_ABI_ERROR_CODE rows, which the caller's client reads too.
std::string errnoCode(std::string_view errnoName) {
  for (const abi::ErrorCodeRow& row : abi::ERROR_CODES)
    if (!row.errnoName.empty() && row.errnoName == errnoName) return std::string(row.code);
  return "FILESYSTEM_ERROR";
}

int codeStatus(std::string_view code) {
  for (const abi::ErrorCodeRow& row : abi::ERROR_CODES)
    if (row.code == code) return int(row.status);
  return 500;
}

std::optional<std::string> sandboxIdError(std::string_view id) {
  const std::string quoted = "Invalid sandbox id \"" + std::string(id) + "\": ";
  bool ok = !id.empty() && id.size() <= abi::SANDBOX_ID_MAX_CHARS;
  for (char c : id)
    ok = ok && ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
                c == '-');
  if (!ok) return quoted + "must match " + std::string(abi::SANDBOX_ID_PATTERN);
  if (id.front() == '-' || id.back() == '-') return quoted + "cannot start or end with a hyphen";
  const std::string lower = http::asciiLower(id);
  for (std::string_view rest = abi::SANDBOX_ID_RESERVED; !rest.empty();) {
    const std::size_t space = rest.find(' ');
    if (lower == rest.substr(0, space)) return quoted + "'" + std::string(id) + "' is a reserved name";
    rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
  }
  return std::nullopt;
}

}  // namespace sw::server
