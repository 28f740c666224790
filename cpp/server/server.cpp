#include "server.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace sw::server {

namespace {

class SystemClock final : public Clock {
 public:
  double monotonicMs() override {
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
  }
  int64_t epochMs() override {
    using namespace std::chrono;
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
  }
};

bool getNumber(const json::Value& obj, std::string_view key, double& out) {
  const json::Value* v = obj.find(key);
  if (!v || !v->isNumber()) return false;
  out = v->asNumber();
  return true;
}

}  // namespace

// Number(value), as far as it matters here: decimal, exponent and hex forms; nullopt if NaN.
std::optional<double> jsNumber(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  if (s.empty()) return 0.0;
  std::string text(s);
  const char radix = text.size() > 2 && text[0] == '0' ? char(text[1] | 0x20) : 0;
  if (radix == 'x' || radix == 'b' || radix == 'o') {  // 0x / 0b / 0o, any case, no sign (Number("-0x1") is NaN)
    const int base = radix == 'x' ? 16 : radix == 'b' ? 2 : 8;
    double v = 0;
    for (std::size_t i = 2; i < text.size(); ++i) {
      char c = text[i];
      int d = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                                                : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
      if (d < 0 || d >= base) return std::nullopt;
      v = v * base + d;
    }
    return v;
  }
  for (char c : text)  // strtod also accepts "inf", "nan" and hex floats; Number() does not (except Infinity)
    if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')) {
      if (text == "Infinity" || text == "+Infinity") return HUGE_VAL;
      if (text == "-Infinity") return -HUGE_VAL;
      return std::nullopt;
    }
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  return v;
}

std::string kibLabel(double bytes) {
  double kib = bytes / 1024;
  return json::formatNumber(kib) + " KiB";
}

double roundMs(double ms) { return std::round(ms * 1000) / 1000; }


Clock& systemClock() {
  static SystemClock clock;
  return clock;
}

std::string isoTime(int64_t epochMs) {
  int64_t days = epochMs >= 0 ? epochMs / 86400000 : (epochMs - 86399999) / 86400000;
  int64_t msOfDay = epochMs - days * 86400000;
  // civil_from_days (Howard Hinnant's algorithm)
  int64_t z = days + 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t y = yoe + era * 400;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  int64_t d = doy - (153 * mp + 2) / 5 + 1;
  int64_t m = mp < 10 ? mp + 3 : mp - 9;
  if (m <= 2) ++y;
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld.%03lldZ", (long long)y, (long long)m,
                (long long)d, (long long)(msOfDay / 3600000), (long long)(msOfDay / 60000 % 60),
                (long long)(msOfDay / 1000 % 60), (long long)(msOfDay % 1000));
  return buf;
}

namespace {
struct LanguageAlias {
  std::string_view from, to;
};
// From the manifests' `aliases` and `dialects` (engines/*/engine.json; cpp/languages/gen_languages.py).
#include "language_aliases.gen.inc"
}  // namespace

std::string normalizeLanguage(std::string_view requested) {
  std::string lower = http::asciiLower(requested);
  for (const LanguageAlias& a : kLanguageAliases)
    if (!a.from.empty() && lower == a.from) return std::string(a.to);
  return lower;
}

bool languageMatches(std::string_view requested, std::string_view runtimeLanguage) {
  std::string n = normalizeLanguage(requested);
  if (n == runtimeLanguage) return true;
  for (const LanguageAlias& d : kLanguageDialects)
    if (!d.from.empty() && n == d.from && runtimeLanguage == d.to) return true;
  return false;
}

bool isDotSegment(std::string_view id) { return id == "." || id == ".."; }

bool isValidInterpreterKey(std::string_view key) {
  if (key.empty() || key.size() > 128 || isDotSegment(key)) return false;
  for (char c : key) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
              c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

bool isValidEnvKey(std::string_view key) {
  if (key.empty()) return false;
  for (std::size_t i = 0; i < key.size(); ++i) {
    char c = key[i];
    bool alpha = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
    bool digit = c >= '0' && c <= '9';
    if (!(alpha || (i > 0 && digit))) return false;
  }
  return true;
}

std::optional<EngineInfo> parseEngineInfo(std::string_view text, std::string& error) {
  auto parsed = json::parseCopy(text);
  if (!parsed.ok() || !parsed.value.isObject()) {
    error = "engine description is not a JSON object";
    return std::nullopt;
  }
  const auto& v = parsed.value;
  EngineInfo info;
  for (auto [key, field] : {std::pair{"language", &info.language}, std::pair{"engineName", &info.engineName},
                            std::pair{"build", &info.build}}) {
    const json::Value* s = v.find(key);
    if (!s || !s->isString() || s->asString().empty()) {
      error = std::string("engine.") + key + " must be a non-empty string";
      return std::nullopt;
    }
    *field = s->asString();
  }
  const json::Value* limits = v.find("limits");
  if (!limits || !limits->isObject()) {
    error = "engine.limits must be an object";
    return std::nullopt;
  }
  for (auto [key, field] : {std::pair{"fuel", &info.limits.fuel}, std::pair{"memoryBytes", &info.limits.memoryBytes},
                            std::pair{"codeBytes", &info.limits.codeBytes},
                            std::pair{"requestBytes", &info.limits.requestBytes}}) {
    if (!getNumber(*limits, key, *field) || !(*field >= 0) || !std::isfinite(*field)) {
      error = std::string("engine.limits.") + key + " must be a finite number >= 0";
      return std::nullopt;
    }
  }
  if (info.limits.codeBytes < 1 || info.limits.requestBytes < 1 || info.limits.requestBytes > 64 * 1048576.0) {
    error = "engine.limits.codeBytes and requestBytes must be positive (requestBytes at most 64 MiB)";
    return std::nullopt;
  }
  if (const json::Value* s = v.find("sessions")) info.sessions = s->isBool() && s->asBool();
  if (const json::Value* b = v.find("builtin"); b && !b->isNull()) {
    // Which names exist is the core's registry (cpp/wasmify/registry.cpp), checked where the server is created.
    if (!b->isString() || b->asString().empty()) {
      error = "engine.builtin must be a non-empty string when present";
      return std::nullopt;
    }
    info.builtin = b->asString();
  }
  return info;
}

// ---------------------------------------------------------------------------------------------------------------

Exchange::Exchange(const InterpreterServer& server, Clock& clock) : server_(server), clock_(clock) {}

const Action& Exchange::respond(http::Response r) {
  action_ = Action{};
  action_.kind = ActionKind::Respond;
  action_.response = std::move(r);
  body_.release();
  input_ = {};
  return action_;
}

const Action& Exchange::validationError(int status, std::string_view message) {
  return respond(errorResponse(clock_, status, "VALIDATION_FAILED", message));
}

const Action& Exchange::fail() { return respond(internalErrorResponse(clock_)); }

const Action& Exchange::start(const http::RequestHead& head, bool hasInterpreterBinding) {
  const EngineInfo& engine = server_.engine();
  const std::string path = http::urlPath(head.url);
  http::RouteMatch m = http::route(head.method, path);
  switch (m.route) {
    case http::Route::Probe: {
      std::string body;
      json::Writer w(body);
      w.beginObject();
      w.key("language").string(engine.language);
      w.key("engine").string(engine.engineName);
      w.key("contexts").boolean(engine.sessions && hasInterpreterBinding);
      w.key("protocol").integer(1);
      w.endObject();
      return respond(http::Response::json(200, std::move(body)));
    }
    case http::Route::Interpreters: {
      if (auto refused = contextsUnavailable(engine, m.interpreterKey, hasInterpreterBinding))
        return validationError(400, *refused);
      // No route may change meaning under URL normalization: the URL parser turns /interpreters/K/contexts/%2e%2e
      // into /interpreters/K/, so the whole-Interpreter route is /interpreters/K only, and a dot segment that
      // survived to here (raw or percent-encoded) is refused rather than forwarded to be normalized away.
      if (m.interpreterRest == "/" && path.back() == '/')
        return respond(http::Response::text(404, "Not found"));  // as any unknown route (plain text)
      for (std::size_t at = 1; at <= m.interpreterRest.size();) {
        std::size_t end = m.interpreterRest.find('/', at);
        if (end == std::string::npos) end = m.interpreterRest.size();
        std::string segment;
        if (!http::percentDecode(std::string_view(m.interpreterRest).substr(at, end - at), segment))
          segment.clear();
        if (isDotSegment(segment)) return validationError(400, kDotSegmentIdMessage);
        at = end + 1;
      }
      // The reference forwards to new URL(rest, request.url), where a rest starting with "//" is scheme-relative:
      // /interpreters/K//x/contexts would become /contexts, and /interpreters/K//x the wipe. Refused instead.
      if (m.interpreterRest.rfind("//", 0) == 0)
        return respond(http::Response::text(404, "Not found"));
      action_ = Action{};
      action_.kind = ActionKind::Forward;
      action_.interpreterKey = m.interpreterKey;
      action_.forwardPath = m.interpreterRest;
      action_.forwardHeaders = {{"x-interpreter-key", m.interpreterKey}};
      // The Interpreter reads at most this much of a body (POST /contexts, protocol §2.6 step 1): the forward buffers one
      // byte more, enough for the Interpreter to answer 413, never a hostile body of any size.
      action_.bodyLimit = kRequestBodyLimit;
      return action_;
    }
    case http::Route::NotFound:
      return respond(http::Response::text(404, "Not found"));
    case http::Route::MethodNotAllowed:
      return respond(http::Response::text(405, "Method not allowed"));
    case http::Route::Execute:
      break;
  }

  // POST /execute: validation steps 1-3 (protocol §2.3); the body is read next.
  auto contentType = head.header("content-type");
  if (!contentType || http::asciiLower(*contentType).rfind("application/json", 0) != 0)
    return validationError(415, "Content-Type must be application/json");
  const double requestLimit = engine.limits.requestBytes;
  if (declaredTooLarge(head, requestLimit)) return validationError(413, "Request too large");
  if (!head.hasBody) return validationError(400, "JSON body required");
  action_ = Action{};
  action_.kind = ActionKind::ReadBody;
  action_.bodyLimit = std::size_t(requestLimit);
  body_.allocate(action_.bodyLimit);
  return action_;
}

const Action& Exchange::bodyReceived(std::size_t n) {
  if (action_.kind != ActionKind::ReadBody) return fail();
  if (body_.tooLarge(n)) return validationError(413, "Request too large");
  return validateExecute(body_.parse(n));
}

const Action& Exchange::bodyFailed() {
  if (action_.kind != ActionKind::ReadBody && action_.kind != ActionKind::Forward) return fail();
  // A body that ends short of its Content-Length or whose stream errors is not a JSON document (also while it is
  // being read for forwarding to the Interpreter).
  return validationError(400, "Invalid JSON");
}

const Action& Exchange::validateExecute(const json::ParseResult& parsed) {
  const EngineInfo& engine = server_.engine();
  if (!parsed.ok()) return validationError(400, "Invalid JSON");
  const json::Value& body = parsed.value;
  if (!body.isObject()) return validationError(400, "Expected an object");
  if (body.has("input")) return validationError(400, "input is no longer supported; pass data with envVars");
  if (const json::Value* language = body.find("language")) {
    if (!language->isString()) return validationError(400, "language must be a string");
    if (!languageMatches(language->asString(), engine.language))
      return validationError(400, "Unsupported language '" + language->asString() + "' on this runtime (" +
                                      engine.language + ")");
  }
  const json::Value* code = body.find("code");
  if (auto invalid = checkCode(code, engine.limits)) return validationError(invalid->status, invalid->message);

  std::string payload;
  json::Writer w(payload);
  w.beginObject();
  w.key("code").string(code->asString());
  if (const json::Value* env = body.find("envVars")) {
    std::string envJson;
    if (auto invalid = readEnvVars(*env, EnvVarsRule::Execute, envJson))
      return validationError(invalid->status, invalid->message);
    w.key("envVars").raw(envJson);
  }
  w.endObject();

  code_ = code->asString();
  body_.release();
  action_ = Action{};
  action_.kind = ActionKind::RunEngine;
  action_.payload = std::move(payload);
  startedMs_ = clock_.monotonicMs();
  return action_;
}

char* Exchange::inputBuffer(std::size_t len) {
  input_.assign(len + json::kPadding, '\0');
  inputLen_ = len;
  return input_.data();
}

const Action& Exchange::finishExecution(std::string rest) {
  const double durationMs = roundMs(clock_.monotonicMs() - startedMs_);
  std::string body;
  body.reserve(rest.size() + code_.size() + 128);
  json::Writer w(body);
  w.beginObject();
  writeExecutionResult(w, server_.engine(), code_, durationMs, rest);
  w.endObject();
  return respond(http::Response::json(200, std::move(body)));
}

const Action& Exchange::engineFinished(std::string_view outcomeJson) {
  if (action_.kind != ActionKind::RunEngine) return fail();
  json::ParseResult parsed;
  if (!input_.empty() && outcomeJson.data() >= input_.data() &&
      outcomeJson.data() + outcomeJson.size() <= input_.data() + inputLen_)
    parsed = json::parsePadded(outcomeJson.data(), outcomeJson.size());  // already padded
  else
    parsed = json::parseCopy(outcomeJson);
  input_ = {};
  if (!parsed.ok()) return engineThrew(false, "Engine returned an outcome that is not valid JSON");
  return finishExecution(assembleOutcome(parsed.value));
}

const Action& Exchange::engineOutcomeUnserializable(std::string_view reason) {
  return engineThrew(false, "Engine returned an outcome that cannot be serialized: " + std::string(reason));
}

const Action& Exchange::engineThrew(bool limit, std::optional<std::string_view> message) {
  if (action_.kind != ActionKind::RunEngine) return fail();
  return finishExecution(
      failedOutcomeJson(limit ? "ExecutionLimitError" : "EngineError", message.value_or("Execution failed")));
}

// ---------------------------------------------------------------------------------------------------------------

namespace {

// The engine broke the outcome contract: report it as an engine failure rather than relaying garbage.
std::string invalidOutcome(std::string_view what) {
  return failedOutcomeJson("EngineError", std::string("Engine returned an invalid outcome: ") + std::string(what));
}

bool stringArray(const json::Value* v) {
  if (!v || !v->isArray()) return false;
  for (const auto& item : v->items())
    if (!item.isString()) return false;
  return true;
}

}  // namespace

json::Value usageJson(const Usage& usage) {
  json::Value v = json::Value::object();
  v.set("fuelConsumed", json::Value::number(usage.fuelConsumed, ""));
  v.set("fuelLimit", json::Value::number(usage.fuelLimit, ""));
  v.set("memoryBytes", json::Value::number(usage.memoryBytes, ""));
  return v;
}

std::optional<Usage> parseUsage(const json::Value& v) {
  Usage usage;
  if (!v.isObject() || !getNumber(v, "fuelConsumed", usage.fuelConsumed) ||
      !getNumber(v, "fuelLimit", usage.fuelLimit) || !getNumber(v, "memoryBytes", usage.memoryBytes))
    return std::nullopt;
  return usage;
}

std::string assembleOutcome(const json::Value& outcome) {
  if (!outcome.isObject()) return invalidOutcome("not an object");

  // logs
  const json::Value* logs = outcome.find("logs");
  const json::Value* stdoutLines = nullptr;
  const json::Value* stderrLines = nullptr;
  if (logs) {
    if (!logs->isObject()) return invalidOutcome("logs must be an object");
    stdoutLines = logs->find("stdout");
    stderrLines = logs->find("stderr");
    if ((stdoutLines && !stringArray(stdoutLines)) || (stderrLines && !stringArray(stderrLines)))
      return invalidOutcome("logs.stdout and logs.stderr must be arrays of strings");
  }

  // results: at most one {text?: string, json?: value}
  const json::Value* results = outcome.find("results");
  if (results && (!results->isArray() || results->items().size() > 1))
    return invalidOutcome("results must be an array of at most one entry");
  const json::Value* entry = results && !results->items().empty() ? &results->items()[0] : nullptr;
  if (entry) {
    if (!entry->isObject()) return invalidOutcome("a result must be an object");
    const json::Value* text = entry->find("text");
    if (text && !text->isString()) return invalidOutcome("result.text must be a string");
  }

  // error
  const json::Value* error = outcome.find("error");
  if (error && error->isNull()) error = nullptr;
  if (error) {
    if (!error->isObject()) return invalidOutcome("error must be an object");
    const json::Value* name = error->find("name");
    const json::Value* message = error->find("message");
    const json::Value* traceback = error->find("traceback");
    const json::Value* line = error->find("lineNumber");
    if (!name || !name->isString() || !message || !message->isString())
      return invalidOutcome("error.name and error.message must be strings");
    if (traceback && !stringArray(traceback)) return invalidOutcome("error.traceback must be an array of strings");
    if (line && !line->isNumber()) return invalidOutcome("error.lineNumber must be a number");
  }

  // usage
  const json::Value* usageValue = outcome.find("usage");
  std::optional<Usage> usage;
  if (usageValue && !usageValue->isNull() && !(usage = parseUsage(*usageValue)))
    return invalidOutcome("usage must carry numeric fuelConsumed, fuelLimit and memoryBytes");

  // Output limit: 200 entries / 32,768 UTF-16 code units across both streams; keep what fits.
  bool outputLimited = false;
  std::size_t entries = 0, units = 0;
  auto keptLines = [&](const json::Value* lines) {
    std::vector<const std::string*> kept;
    if (!lines) return kept;
    for (const auto& line : lines->items()) {
      if (outputLimited) break;
      std::size_t u = json::utf16Length(line.asString());
      if (entries + 1 > kMaxLogEntries || units + u > kMaxLogUnits) {
        outputLimited = true;
        break;
      }
      ++entries;
      units += u;
      kept.push_back(&line.asString());
    }
    return kept;
  };
  auto keptStdout = keptLines(stdoutLines);
  auto keptStderr = keptLines(stderrLines);

  // Result limit: the serialized result must fit 64 KiB.
  std::string resultJson;
  bool resultLimited = false;
  if (entry && !outputLimited) {
    json::Writer rw(resultJson);
    rw.beginObject();
    std::size_t payloadBytes = 0;
    if (const json::Value* text = entry->find("text")) {
      rw.key("text").string(text->asString());
      payloadBytes += json::utf8EncodedLength(text->asString());
    }
    if (const json::Value* value = entry->find("json")) {
      std::string before = resultJson;
      rw.key("json").value(*value);
      payloadBytes += resultJson.size() - before.size() - 7;  // minus `"json":`
    }
    rw.endObject();
    if (payloadBytes > kMaxResultBytes) {
      resultLimited = true;
      resultJson.clear();
    }
  }

  std::string rest;
  json::Writer w(rest);
  w.beginObject();
  w.key("logs").beginObject();
  w.key("stdout").beginArray();
  for (const auto* line : keptStdout) w.string(*line);
  w.endArray();
  w.key("stderr").beginArray();
  for (const auto* line : keptStderr) w.string(*line);
  w.endArray();
  w.endObject();
  w.key("results").beginArray();
  if (!resultJson.empty() && !error) w.raw(resultJson);
  w.endArray();
  if (error && !(outputLimited || resultLimited)) {
    w.key("error").beginObject();
    w.key("name").string(error->find("name")->asString());
    w.key("message").string(error->find("message")->asString());
    w.key("traceback");
    if (const json::Value* tb = error->find("traceback"))
      w.value(*tb);
    else
      w.beginArray().endArray();
    if (const json::Value* line = error->find("lineNumber")) w.key("lineNumber").value(*line);
    w.endObject();
  } else if (outputLimited || resultLimited) {
    writeHostError(w, "ExecutionLimitError", outputLimited ? "Output limit exceeded" : "Result limit exceeded");
  }
  if (usage) w.key("usage").value(usageJson(*usage));
  w.endObject();
  return rest;
}

void writeExecutionResult(json::Writer& w, const EngineInfo& engine, std::string_view code, double durationMs,
                          std::string_view outcome) {
  w.key("code").string(code);
  w.key("language").string(engine.language);
  w.key("engine").string(engine.engineName);
  w.key("durationMs").number(durationMs);
  w.members(outcome);
}

}  // namespace sw::server
