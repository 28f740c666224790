// libFuzzer target: one whole request through sw::server::Exchange, plus JSON / header / URL invariants.
//
// Input layout (text, so the seed corpus stays readable; everything is optional):
//
//   METHOD URL [FLAGS]\n          request line; FLAGS is a run of letters, see below
//   Name: value\n ...             header lines
//   \n                            blank line: end of the head
//   BODY                          request body, up to the separator
//   \n---\n
//   OUTCOME                       the engine's outcome JSON (or the thrown message with flag 't')
//
// FLAGS: b = INTERPRETER binding present, s = no body stream, r = Ruby engine (no sessions), n = JavaScript without
// sessions, l = small limits (requestBytes 512, codeBytes 128), f = body read fails, t = engine threw, L = the throw
// is an ExecutionLimitError, i = hand the outcome in through the exchange's padded input buffer.
//
// Any violated invariant traps (__builtin_trap), so the fuzzer reports it as a crash.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "http/http.h"
#include "json/json.h"
#include "server/server.h"

using namespace sw;

namespace {

#define EXPECT(cond)                   \
  do {                                 \
    if (!(cond)) __builtin_trap();     \
  } while (0)

class FuzzClock final : public server::Clock {
 public:
  double monotonicMs() override { return now_ += 0.25; }
  int64_t epochMs() override { return 1700000000123; }

 private:
  double now_ = 1000;
};

server::EngineInfo makeEngine(std::string language, bool sessions, double requestBytes, double codeBytes) {
  server::EngineInfo e;
  e.language = std::move(language);
  e.engineName = "fuzz engine";
  e.build = "fuzz";
  e.limits.fuel = 50000000;
  e.limits.memoryBytes = 67108864;
  e.limits.requestBytes = requestBytes;
  e.limits.codeBytes = codeBytes;
  e.sessions = sessions;
  return e;
}

const server::InterpreterServer& serverFor(std::string_view flags) {
  static const server::InterpreterServer js(makeEngine("javascript", true, 98304, 65536));
  static const server::InterpreterServer jsNoSessions(makeEngine("javascript", false, 98304, 65536));
  static const server::InterpreterServer ruby(makeEngine("ruby", false, 98304, 65536));
  static const server::InterpreterServer small(makeEngine("python", true, 512, 128));
  if (flags.find('l') != std::string_view::npos) return small;
  if (flags.find('r') != std::string_view::npos) return ruby;
  if (flags.find('n') != std::string_view::npos) return jsNoSessions;
  return js;
}

bool has(std::string_view flags, char f) { return flags.find(f) != std::string_view::npos; }

// --- JSON ----------------------------------------------------------------------------------------------------------

// parse -> stringify must give valid UTF-8 JSON that re-parses and is a fixed point of parse+stringify.
void jsonRoundTrip(std::string_view text) {
  auto first = json::parseCopy(text);
  if (!first.ok()) return;
  std::string out = json::stringify(first.value);
  EXPECT(json::isValidUtf8(out));
  auto second = json::parseCopy(out);
  EXPECT(second.ok());
  EXPECT(second.value.type() == first.value.type());
  EXPECT(json::stringify(second.value) == out);
}

void utf8Helpers(std::string_view s) {
  std::size_t units = json::utf16Length(s);
  std::size_t bytes = json::utf8EncodedLength(s);
  EXPECT(units <= s.size());
  EXPECT(bytes >= units);  // every UTF-16 unit costs at least one UTF-8 byte
  std::size_t max = s.size() / 2;
  std::string t = json::truncateUtf16(s, max);
  EXPECT(t.size() <= s.size());
  EXPECT(s.substr(0, t.size()) == t);
  EXPECT(json::utf16Length(t) <= max);
  std::string escaped;
  json::appendEscaped(escaped, s);
  EXPECT(json::isValidUtf8(escaped));
  // Escaping yields the contents of a JSON string literal.
  std::string literal = "\"" + escaped + "\"";
  auto parsed = json::parseCopy(literal);
  EXPECT(parsed.ok());
  EXPECT(parsed.value.isString());
  if (json::isValidUtf8(s)) EXPECT(parsed.value.asString() == s);
}

json::Value parseOrTrap(std::string_view text) {
  auto r = json::parseCopy(text);
  EXPECT(r.ok());
  return std::move(r.value);
}

const json::Value& field(const json::Value& v, std::string_view key) {
  const json::Value* p = v.find(key);
  EXPECT(p != nullptr);
  return *p;
}

bool stringArray(const json::Value& v) {
  if (!v.isArray()) return false;
  for (const auto& item : v.items())
    if (!item.isString()) return false;
  return true;
}

// --- HTTP -----------------------------------------------------------------------------------------------------------

void headerInvariants(std::string_view block) {
  auto headers = http::parseHeaderBlock(block);
  for (const auto& h : headers) {
    EXPECT(!h.name.empty());
    EXPECT(http::asciiLower(h.name) == h.name);
  }
  auto again = http::parseHeaderBlock(http::serializeHeaderBlock(headers));
  EXPECT(again.size() == headers.size());
  for (std::size_t i = 0; i < headers.size(); ++i) {
    EXPECT(again[i].name == headers[i].name);
    EXPECT(again[i].value == headers[i].value);
  }
}

void urlInvariants(std::string_view url, std::string_view method) {
  std::string path = http::urlPath(url);
  EXPECT(path.find_first_of("?#") == std::string::npos);
  // urlPath's contract covers absolute URLs (what Request.url always is) and absolute paths.
  if (url.rfind("https://", 0) == 0 || url.rfind("http://", 0) == 0 || url.rfind("/", 0) == 0)
    EXPECT(!path.empty() && path[0] == '/');
  auto m = http::route(method, path);
  if (m.route == http::Route::Interpreters) {
    EXPECT(!m.interpreterKey.empty());
    EXPECT(m.interpreterKey.find('/') == std::string::npos);
    EXPECT(!m.interpreterRest.empty() && m.interpreterRest[0] == '/');
  } else if (m.route == http::Route::Probe) {
    EXPECT(path == "/interpreter");
  } else if (m.route == http::Route::Execute || m.route == http::Route::MethodNotAllowed) {
    EXPECT(path == "/execute");
  }
}

// --- Actions --------------------------------------------------------------------------------------------------------

std::optional<std::string> headerOf(const http::Response& r, std::string_view name) {
  for (const auto& h : r.headers)
    if (h.name == name) return h.value;
  return std::nullopt;
}

void checkRespond(const server::Action& a) {
  EXPECT(a.kind == server::ActionKind::Respond);
  const auto& r = a.response;
  EXPECT(headerOf(r, "cache-control") == std::optional<std::string>("no-store"));
  auto type = headerOf(r, "content-type");
  EXPECT(type.has_value());
  if (*type != "application/json") {
    EXPECT(*type == "text/plain;charset=UTF-8");
    EXPECT((r.status == 404 && r.body == "Not found") || (r.status == 405 && r.body == "Method not allowed"));
    return;
  }
  json::Value v = parseOrTrap(r.body);
  EXPECT(v.isObject());
  if (r.status == 200) return;  // probe or ExecutionResult, checked by the caller
  EXPECT(r.status == 400 || r.status == 413 || r.status == 415 || r.status == 502);
  EXPECT(field(v, "code").isString());
  EXPECT(field(v, "code").asString() == (r.status == 502 ? "INTERNAL_ERROR" : "VALIDATION_FAILED"));
  EXPECT(field(v, "message").isString() && !field(v, "message").asString().empty());
  EXPECT(field(v, "context").isObject());
  EXPECT(field(v, "httpStatus").isNumber() && field(v, "httpStatus").asNumber() == r.status);
  EXPECT(field(v, "timestamp").isString() && field(v, "timestamp").asString() == "2023-11-14T22:13:20.123Z");
}

void checkProbe(const server::Action& a, const server::EngineInfo& engine, bool binding) {
  checkRespond(a);
  EXPECT(a.response.status == 200);
  json::Value v = parseOrTrap(a.response.body);
  EXPECT(field(v, "language").asString() == engine.language);
  EXPECT(field(v, "contexts").isBool() && field(v, "contexts").asBool() == (engine.sessions && binding));
  EXPECT(field(v, "protocol").isNumber() && field(v, "protocol").asNumber() == 1);
}

void checkForward(const server::Action& a, const server::EngineInfo& engine, bool binding) {
  EXPECT(engine.sessions && binding);
  EXPECT(server::isValidInterpreterKey(a.interpreterKey));
  EXPECT(!a.forwardPath.empty() && a.forwardPath[0] == '/');
  EXPECT(a.forwardPath.find_first_of("?#") == std::string::npos);
  EXPECT(a.forwardHeaders.size() == 1);
  EXPECT(a.forwardHeaders[0].name == "x-interpreter-key");
  EXPECT(a.forwardHeaders[0].value == a.interpreterKey);
}

// The validated payload {code, envVars?}; returns the code.
std::string checkPayload(const server::Action& a, const server::EngineInfo& engine) {
  EXPECT(a.kind == server::ActionKind::RunEngine);
  json::Value p = parseOrTrap(a.payload);
  EXPECT(p.isObject());
  const auto& members = p.members();
  EXPECT(members.size() == 1 || members.size() == 2);
  EXPECT(members[0].first == "code");
  const json::Value& code = members[0].second;
  EXPECT(code.isString());
  EXPECT(!json::isBlankJs(code.asString()));
  EXPECT(double(json::utf8EncodedLength(code.asString())) <= engine.limits.codeBytes);
  if (members.size() == 2) {
    EXPECT(members[1].first == "envVars");
    const json::Value& env = members[1].second;
    EXPECT(env.isObject());
    for (const auto& [key, value] : env.members()) {
      EXPECT(server::isValidEnvKey(key) && key != "__proto__");
      EXPECT(value.isString());
    }
  }
  return code.asString();
}

void checkExecutionResult(const server::Action& a, const server::EngineInfo& engine, const std::string& code,
                          bool threw, bool limit) {
  checkRespond(a);
  EXPECT(a.response.status == 200);
  json::Value v = parseOrTrap(a.response.body);
  const auto& m = v.members();
  EXPECT(m.size() >= 6 && m.size() <= 8);
  EXPECT(m[0].first == "code" && m[0].second.isString() && m[0].second.asString() == code);
  EXPECT(m[1].first == "language" && m[1].second.asString() == engine.language);
  EXPECT(m[2].first == "engine" && m[2].second.asString() == engine.engineName);
  EXPECT(m[3].first == "durationMs" && m[3].second.isNumber() && m[3].second.asNumber() >= 0);
  EXPECT(m[4].first == "logs" && m[4].second.isObject());
  EXPECT(m[5].first == "results" && m[5].second.isArray());
  std::size_t next = 6;
  const json::Value* error = nullptr;
  const json::Value* usage = nullptr;
  if (next < m.size() && m[next].first == "error") error = &m[next++].second;
  if (next < m.size() && m[next].first == "usage") usage = &m[next++].second;
  EXPECT(next == m.size());

  // logs: within 200 entries and 32,768 UTF-16 units
  const json::Value& logs = m[4].second;
  EXPECT(logs.members().size() == 2);
  const json::Value& out = field(logs, "stdout");
  const json::Value& err = field(logs, "stderr");
  EXPECT(stringArray(out) && stringArray(err));
  std::size_t entries = out.items().size() + err.items().size(), units = 0;
  for (const auto& l : out.items()) units += json::utf16Length(l.asString());
  for (const auto& l : err.items()) units += json::utf16Length(l.asString());
  EXPECT(entries <= server::kMaxLogEntries);
  EXPECT(units <= server::kMaxLogUnits);

  // results: at most one, never next to an error, within 64 KiB
  const auto& results = m[5].second.items();
  EXPECT(results.size() <= 1);
  if (!results.empty()) {
    EXPECT(error == nullptr);
    EXPECT(results[0].isObject());
    if (const json::Value* text = results[0].find("text")) {
      EXPECT(text->isString());
      EXPECT(json::utf8EncodedLength(text->asString()) <= server::kMaxResultBytes);
    }
    if (const json::Value* j = results[0].find("json")) EXPECT(json::stringify(*j).size() <= server::kMaxResultBytes);
  }

  if (error) {
    EXPECT(error->isObject());
    EXPECT(field(*error, "name").isString());
    EXPECT(field(*error, "message").isString());
    EXPECT(stringArray(field(*error, "traceback")));
  }
  if (usage) {
    EXPECT(usage->isObject());
    EXPECT(usage->members().size() == 3);
  }
  if (threw) {
    EXPECT(error != nullptr && usage == nullptr && entries == 0 && results.empty());
    EXPECT(field(*error, "name").asString() == (limit ? "ExecutionLimitError" : "EngineError"));
    EXPECT(json::utf16Length(field(*error, "message").asString()) <= server::kMaxHostMessageUnits);
    EXPECT(field(*error, "traceback").items().empty());
  }
}

std::vector<http::Header> headerLines(std::string_view text) {
  std::string block;
  while (!text.empty()) {
    auto eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    block.append(line);
    block += "\r\n";
  }
  return http::parseHeaderBlock(block);
}

void driveExchange(std::string_view input) {
  // head / body / outcome
  auto headEnd = input.find("\n\n");
  std::string_view headText = input.substr(0, headEnd);
  std::string_view rest = headEnd == std::string_view::npos ? std::string_view() : input.substr(headEnd + 2);
  auto sep = rest.find("\n---\n");
  std::string_view body = rest.substr(0, sep);
  std::string_view outcome = sep == std::string_view::npos ? std::string_view() : rest.substr(sep + 5);

  auto eol = headText.find('\n');
  std::string_view requestLine = headText.substr(0, eol);
  std::string_view headerText = eol == std::string_view::npos ? std::string_view() : headText.substr(eol + 1);
  if (!requestLine.empty() && requestLine.back() == '\r') requestLine.remove_suffix(1);
  auto sp1 = requestLine.find(' ');
  std::string_view method = requestLine.substr(0, sp1);
  std::string_view afterMethod = sp1 == std::string_view::npos ? std::string_view() : requestLine.substr(sp1 + 1);
  auto sp2 = afterMethod.find(' ');
  std::string_view url = afterMethod.substr(0, sp2);
  std::string_view flags = sp2 == std::string_view::npos ? std::string_view() : afterMethod.substr(sp2 + 1);

  headerInvariants(headerText);
  urlInvariants(url, method);

  http::RequestHead head;
  head.method = std::string(method);
  head.url = std::string(url);
  head.headers = headerLines(headerText);
  head.hasBody = !has(flags, 's');
  const bool binding = has(flags, 'b');

  const server::InterpreterServer& srv = serverFor(flags);
  const server::EngineInfo& engine = srv.engine();
  FuzzClock clock;
  auto ex = srv.newExchange(clock);

  server::Action a = ex->start(head, binding);
  const http::Route route = http::route(head.method, http::urlPath(head.url)).route;
  switch (a.kind) {
    case server::ActionKind::Respond:
      if (route == http::Route::Probe) checkProbe(a, engine, binding);
      else checkRespond(a);
      EXPECT(route != http::Route::Execute || a.response.status != 200);
      // Anything after a response is a protocol violation: the generic 502.
      checkRespond(ex->engineFinished(outcome));
      EXPECT(ex->action().response.status == 502);
      return;
    case server::ActionKind::Forward:
      EXPECT(route == http::Route::Interpreters);
      checkForward(a, engine, binding);
      return;
    case server::ActionKind::RunEngine:
      __builtin_trap();  // the body must be read first
    case server::ActionKind::ReadBody:
      break;
  }

  EXPECT(route == http::Route::Execute);
  EXPECT(double(a.bodyLimit) == engine.limits.requestBytes);
  EXPECT(ex->bodyCapacity() == a.bodyLimit + 1);
  if (has(flags, 'f')) {
    a = ex->bodyFailed();
    checkRespond(a);
    EXPECT(a.response.status == 400);
    return;
  }
  const std::size_t bodyLimit = a.bodyLimit;
  std::size_t n = body.size() < bodyLimit + 1 ? body.size() : bodyLimit + 1;
  if (n) std::memcpy(ex->bodyBuffer(), body.data(), n);
  a = ex->bodyReceived(n);
  if (a.kind == server::ActionKind::Respond) {
    checkRespond(a);
    EXPECT(a.response.status == 400 || a.response.status == 413);
    if (n > bodyLimit) EXPECT(a.response.status == 413);
    return;
  }
  EXPECT(n <= bodyLimit);
  std::string code = checkPayload(a, engine);
  // The payload's code is the request's code: re-validating the payload as a body must give the same payload.
  {
    FuzzClock clock2;
    auto again = srv.newExchange(clock2);
    http::RequestHead h2 = head;
    h2.headers = {{"content-type", "application/json"}};
    if (again->start(h2, binding).kind == server::ActionKind::ReadBody && a.payload.size() <= again->action().bodyLimit) {
      std::memcpy(again->bodyBuffer(), a.payload.data(), a.payload.size());
      const server::Action& b = again->bodyReceived(a.payload.size());
      EXPECT(b.kind == server::ActionKind::RunEngine);
      EXPECT(b.payload == a.payload);
    }
  }

  const bool threw = has(flags, 't');
  const bool limit = has(flags, 'L');
  if (threw) {
    a = ex->engineThrew(limit, outcome);
  } else if (has(flags, 'i')) {
    char* buf = ex->inputBuffer(outcome.size());
    if (!outcome.empty()) std::memcpy(buf, outcome.data(), outcome.size());
    EXPECT(ex->input() == outcome);
    a = ex->engineFinished(ex->input());
  } else {
    a = ex->engineFinished(outcome);
  }
  checkExecutionResult(a, engine, code, threw, limit);

  // assembleOutcome on its own must always produce an object that re-parses.
  auto parsed = json::parseCopy(outcome);
  if (parsed.ok()) {
    json::Value rest2 = parseOrTrap(server::assembleOutcome(parsed.value));
    EXPECT(rest2.isObject());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  jsonRoundTrip(input);
  utf8Helpers(input);
  driveExchange(input);
  // Also the pieces on their own: the body and the outcome slices are JSON-ish text.
  if (auto blank = input.find("\n\n"); blank != std::string_view::npos) {
    std::string_view rest = input.substr(blank + 2);
    auto sep = rest.find("\n---\n");
    jsonRoundTrip(rest.substr(0, sep));
    if (sep != std::string_view::npos) jsonRoundTrip(rest.substr(sep + 5));
  }
  return 0;
}
