// What a request must be, wherever it arrives: the Worker's POST /execute (server.cpp), the Interpreter's routes
// and executeInContext (cpp/interp), and the Worker's checks before it forwards to the Interpreter (cpp/core).
#include <cstring>

#include "server.h"

namespace sw::server {

bool declaredTooLarge(const http::RequestHead& head, double limit) {
  auto length = head.header("content-length");
  if (!length) return false;
  auto n = jsNumber(*length);
  return n && *n > limit;
}

void BodyBuffer::allocate(std::size_t limit) {
  limit_ = limit;
  bytes_.reset(new char[capacity() + json::kPadding]);
}

json::ParseResult BodyBuffer::parse(std::size_t received) {
  const char* data = bytes_.get();
  std::memset(bytes_.get() + received, 0, json::kPadding);  // simdjson reads (and ignores) the padding
  // A leading UTF-8 byte-order mark is not part of the document (Request.text() drops it too).
  if (received >= 3 && std::string_view(data, 3) == "\xEF\xBB\xBF") {
    data += 3;
    received -= 3;
  }
  return json::parsePadded(data, received);
}

std::optional<Invalid> checkCode(const json::Value* code, const Limits& limits) {
  if (!code || !code->isString() || json::isBlankJs(code->asString()))
    return Invalid{400, "Non-empty code is required"};
  if (double(json::utf8EncodedLength(code->asString())) > limits.codeBytes)
    return Invalid{413, "Code exceeds " + kibLabel(limits.codeBytes)};
  return std::nullopt;
}

std::optional<Invalid> readEnvVars(const json::Value& envVars, EnvVarsRule rule, std::string& envJson) {
  if (!envVars.isObject()) return Invalid{400, "envVars must be an object"};
  envJson.clear();
  json::Writer w(envJson);
  w.beginObject();
  for (const auto& [key, value] : envVars.members()) {
    if (rule == EnvVarsRule::Execute && value.isNull()) continue;
    if (!value.isString()) return Invalid{400, "envVars values must be strings"};
    // Silently dropped (protocol §2.3 step 12). "__proto__" too: the reference assigns envVars[key] = value on a plain
    // object, which for "__proto__" hits the prototype setter and stores nothing.
    if (rule == EnvVarsRule::Execute && (!isValidEnvKey(key) || key == "__proto__")) continue;
    w.key(key).string(value.asString());
  }
  w.endObject();
  return std::nullopt;
}

std::optional<Invalid> checkInterpreterKey(std::string_view key) {
  if (!isValidInterpreterKey(key)) return Invalid{400, "Invalid interpreter key"};
  return std::nullopt;
}

std::optional<std::string> contextsUnavailable(const EngineInfo& engine, std::string_view key, bool hasBinding) {
  if (auto invalid = checkInterpreterKey(key)) return invalid->message;
  if (!engine.sessions) return "Code contexts are not supported for " + engine.language;
  if (!hasBinding) return "Code contexts are not supported: this Worker has no INTERPRETER Durable Object binding";
  return std::nullopt;
}

}  // namespace sw::server
