#include "gateway.h"

#include <cstring>

#include "../json/json.h"

#ifndef SW_PACKAGE_VERSION
#define SW_PACKAGE_VERSION "0.0.0"
#endif

namespace sw::gateway {

namespace {

// The runtime Worker's validation of POST /execute (cpp/server), once per language: the gateway validates a body
// exactly as that runtime would (protocol §8: "body validated with §2.3, with runtimeLanguage = <language>").
const server::InterpreterServer& validatorFor(const Language& language) {
  static std::vector<std::unique_ptr<server::InterpreterServer>> servers;
  for (const auto& s : servers)
    if (s->engine().language == language.id) return *s;
  server::EngineInfo info;
  info.language = std::string(language.id);
  info.engineName = "gateway";
  info.build = "gateway";
  info.limits.fuel = language.fuel;
  info.limits.memoryBytes = language.memoryBytes;
  servers.push_back(std::make_unique<server::InterpreterServer>(std::move(info)));
  return *servers.back();
}

}  // namespace

std::optional<std::vector<Language>> parseLanguages(std::string_view varsJson, std::string& error) {
  auto vars = json::parseCopy(varsJson);
  const json::Value* text = vars.ok() && vars.value.isObject() ? vars.value.find("PLAYGROUND_LANGUAGES") : nullptr;
  if (!text || !text->isString()) {
    error = "PLAYGROUND_LANGUAGES is not set (build the config: node scripts/languages.mjs write)";
    return std::nullopt;
  }
  auto rows = json::parseCopy(text->asString());
  if (!rows.ok() || !rows.value.isArray() || rows.value.items().empty()) {
    error = "PLAYGROUND_LANGUAGES must be a non-empty JSON array";
    return std::nullopt;
  }
  std::vector<Language> out;
  for (const json::Value& row : rows.value.items()) {
    const json::Value* id = row.isObject() ? row.find("id") : nullptr;
    const json::Value* name = row.isObject() ? row.find("name") : nullptr;
    const json::Value* binding = row.isObject() ? row.find("binding") : nullptr;
    const json::Value* package = row.isObject() ? row.find("package") : nullptr;
    const json::Value* fuel = row.isObject() ? row.find("fuel") : nullptr;
    const json::Value* memory = row.isObject() ? row.find("memoryBytes") : nullptr;
    const json::Value* isDefault = row.isObject() ? row.find("default") : nullptr;
    if (!id || !id->isString() || id->asString().empty() || !name || !name->isString() || !binding ||
        !binding->isString() || !package || !package->isString() || !fuel || !fuel->isNumber() || !memory ||
        !memory->isNumber() || (isDefault && !isDefault->isBool())) {
      error = "PLAYGROUND_LANGUAGES: each entry needs string id, name, binding, package and numeric fuel, memoryBytes";
      return std::nullopt;
    }
    out.push_back({id->asString(), binding->asString(), name->asString(), package->asString(), fuel->asNumber(),
                   memory->asNumber(), isDefault && isDefault->asBool()});
  }
  return out;
}

const Language* Exchange::findLanguage(std::string_view id) const {
  for (const auto& l : languages_)
    if (l.id == id) return &l;
  return nullptr;
}

std::string_view packageVersion() { return SW_PACKAGE_VERSION; }

std::optional<std::string> sandboxIdError(std::string_view id) {
  // "." and ".." match the rule's pattern but would name no path segment in /languages/<id>/sandboxes/<id>/...
  if (server::isDotSegment(id)) return "Invalid sandbox id \"" + std::string(id) + "\": cannot be '.' or '..'";
  return server::sandboxIdError(id);
}

std::string languagesJson(const std::vector<Language>& all, const std::vector<std::optional<std::string>>& probeAnswers) {
  std::string out;
  json::Writer w(out);
  w.beginObject();
  w.key("languages").beginArray();
  for (std::size_t i = 0; i < all.size(); ++i) {
    const Language& l = all[i];
    // A usable probe (protocol §2.2, as the caller checks it, §7.4 step 5): an object with string language (this one),
    // string engine and boolean contexts.
    std::optional<std::string> engine;
    bool contexts = false;
    if (i < probeAnswers.size() && probeAnswers[i]) {
      auto parsed = json::parseCopy(*probeAnswers[i]);
      const json::Value* language = parsed.ok() && parsed.value.isObject() ? parsed.value.find("language") : nullptr;
      const json::Value* e = parsed.ok() && parsed.value.isObject() ? parsed.value.find("engine") : nullptr;
      const json::Value* c = parsed.ok() && parsed.value.isObject() ? parsed.value.find("contexts") : nullptr;
      if (language && language->isString() && language->asString() == l.id && e && e->isString() && c &&
          c->isBool()) {
        engine = e->asString();
        contexts = c->asBool();
      }
    }
    w.beginObject();
    w.key("id").string(l.id);
    w.key("name").string(l.name);
    w.key("package").string(l.package);
    w.key("version").string(packageVersion());
    w.key("binding").string(l.binding);
    if (engine) w.key("engine").string(*engine);
    else w.key("engine").null();
    w.key("enabled").boolean(engine.has_value());
    // "both": stateless runs and code contexts; "stateless": POST /execute only (Ruby).
    if (engine) w.key("mode").string(contexts ? "both" : "stateless");
    else w.key("mode").null();
    w.key("contexts").boolean(contexts);
    w.key("capabilities").beginArray();
    if (engine) {
      w.string("execute");
      if (contexts) w.string("contexts");
      w.string("files");
    }
    w.endArray();
    w.key("limits").beginObject();
    w.key("codeBytes").integer(int64_t(server::kCodeBytesLimit));
    w.key("requestBytes").integer(int64_t(server::kRequestBodyLimit));
    w.key("fuel").number(l.fuel);
    w.key("memoryBytes").number(l.memoryBytes);
    w.endObject();
    if (!engine)
      w.key("error").string("Binding '" + std::string(l.binding) + "' is not a sandbox-workers runtime Worker");
    w.endObject();
  }
  w.endArray();
  w.endObject();
  return out;
}

// ---------------------------------------------------------------------------------------------------------------

Exchange::Exchange(server::Clock& clock) : clock_(clock) {}
Exchange::~Exchange() = default;

const Action& Exchange::respond(http::Response r) {
  action_ = Action{};
  action_.kind = ActionKind::Respond;
  action_.response = std::move(r);
  state_ = State::Done;
  body_.release();
  execute_.reset();
  pending_ = Action{};
  input_ = {};
  return action_;
}

const Action& Exchange::error(int status, std::string_view code, std::string_view message) {
  return respond(server::errorResponse(clock_, status, code, message));
}

const Action& Exchange::methodNotAllowed(std::string_view message, std::string_view allow) {
  http::Response r = server::errorResponse(clock_, 405, "VALIDATION_FAILED", message);
  r.headers.push_back({"allow", std::string(allow)});
  return respond(std::move(r));
}

const Action& Exchange::fail() { return respond(server::internalErrorResponse(clock_)); }

void Exchange::configure(std::string_view varsJson) {
  std::string error;
  if (auto parsed = parseLanguages(varsJson, error)) {
    languages_ = std::move(*parsed);
    languagesError_.reset();
  } else {
    languages_.clear();
    languagesError_ = "Invalid gateway configuration: " + error;
    error.clear();
  }
  if (auto parsed = parseLimits(varsJson, error)) {
    limits_ = *parsed;
    configError_.reset();
  } else {
    limits_ = Limits{};
    configError_ = std::move(error);
  }
}

const Action& Exchange::gate() {
  // A misconfigured limit fails closed, naming the variable, rather than serving without limits.
  if (configError_)
    return respond(server::errorResponse(clock_, 500, "INTERNAL_ERROR", "Invalid gateway configuration: " + *configError_));
  if (!limits_.any()) return action_;
  pending_ = std::move(action_);
  return askLimiter(client_,
                    admitRequestJson(limits_, pending_.kind == ActionKind::Sandbox ? std::string_view(sandboxId_) : ""),
                    State::Limiting);
}

const Action& Exchange::askLimiter(std::string_view key, std::string body, State next) {
  action_ = Action{};
  action_.kind = ActionKind::Limit;
  action_.target = std::string(key);
  action_.method = "POST";
  action_.path = "/admit";
  action_.headers = {{"content-type", "application/json"}};
  action_.body = std::move(body);
  action_.answerLimit = kProbeAnswerLimit;
  state_ = next;
  return action_;
}

// The client's Limiter, then (sandbox routes, with a total cap) the all-clients one; a refusal by the second takes back
// what the first recorded, so the client is not charged for it. Anything but a well-formed answer fails closed (502).
const Action& Exchange::limiterAnswered(int status, std::string_view body) {
  if (state_ == State::Undoing) return respond(std::move(*refused_));  // refused either way; the undo is best effort
  auto admission = status == 200 && body.size() <= kProbeAnswerLimit ? parseAdmission(body) : std::nullopt;
  if (!admission) return fail();
  if (state_ == State::Limiting) {
    if (!admission->allowed) return respond(refusal(clock_, limits_, *admission));
    if (pending_.kind == ActionKind::Sandbox && limits_.totalSandboxes > 0) {
      clientAdded_ = admission->added;
      return askLimiter(kTotalKey, admitTotalRequestJson(limits_, sandboxId_), State::LimitingTotal);
    }
  } else if (!admission->allowed) {
    Admission total = *admission;
    total.limit = "totalSandboxes";
    refused_ = refusal(clock_, limits_, total);
    if (limits_.requests <= 0 && !clientAdded_) return respond(std::move(*refused_));
    return askLimiter(client_, undoRequestJson(limits_.requests > 0, clientAdded_ ? sandboxId_ : ""), State::Undoing);
  }
  action_ = std::move(pending_);
  pending_ = Action{};
  state_ = State::Forwarded;
  return action_;
}

char* Exchange::inputBuffer(std::size_t len) {
  input_.assign(len + json::kPadding, '\0');
  inputLen_ = len;
  return input_.data();
}

const Action& Exchange::start(const http::RequestHead& head, bool hasAssets) {
  if (state_ != State::Idle) return fail();
  const std::string path = http::urlPath(head.url);
  const std::string& method = head.method;
  client_ = clientKey(head);
  // Without its table of languages the gateway serves nothing but the page's 500 (fails closed, naming the var).
  if (languages_.empty())
    return respond(server::errorResponse(
        clock_, 500, "INTERNAL_ERROR",
        languagesError_.value_or("Invalid gateway configuration: PLAYGROUND_LANGUAGES is not set")));

  // GET /languages.
  if (path == "/languages") {
    if (method != "GET") return methodNotAllowed("Method not allowed", "GET");
    state_ = State::Probing;
    return nextProbe();
  }

  // POST /execute (JavaScript) and POST /execute/<language>.
  if (path == "/execute" || path.rfind("/execute/", 0) == 0) {
    if (method != "POST") return methodNotAllowed("Use POST", "POST");
    std::string requested;
    if (path == "/execute") {
      // The manifest that says default: true (JavaScript), else the first language.
      language_ = &languages_.front();
      for (const auto& l : languages_)
        if (l.isDefault) language_ = &l;
      requested = language_->id;
    } else {
      requested = path.substr(std::strlen("/execute/"));
      language_ = findLanguage(requested);
    }
    if (!language_) return error(400, "VALIDATION_FAILED", "Unsupported language: " + requested);
    // The runtime Worker's POST /execute validation, as that runtime would apply it.
    http::RequestHead inner = head;
    inner.url = "https://gateway.internal/execute";
    execute_ = validatorFor(*language_).newExchange(clock_);
    state_ = State::Execute;
    return fromExecute(execute_->start(inner, false));
  }

  // /languages/:language/sandboxes/:id[/sub] -> the gateway's own Sandbox Durable Object.
  constexpr std::string_view kPrefix = "/languages/";
  if (path.rfind(kPrefix, 0) == 0) {
    std::string_view rest = std::string_view(path).substr(kPrefix.size());
    auto slash = rest.find('/');
    std::string_view languageSegment = rest.substr(0, slash);
    std::string_view afterLanguage = slash == std::string_view::npos ? "" : rest.substr(slash);
    constexpr std::string_view kSandboxes = "/sandboxes/";
    if (!languageSegment.empty() && afterLanguage.rfind(kSandboxes, 0) == 0 &&
        afterLanguage.size() > kSandboxes.size() && afterLanguage[kSandboxes.size()] != '/') {
      std::string_view idAndSub = afterLanguage.substr(kSandboxes.size());
      auto idEnd = idAndSub.find('/');
      std::string_view rawId = idAndSub.substr(0, idEnd);
      sub_ = idEnd == std::string_view::npos ? "/" : std::string(idAndSub.substr(idEnd));
      // The URL parser turns .../sandboxes/ID/contexts/%2e%2e into .../sandboxes/ID/: the sandbox route is
      // .../sandboxes/ID only, so no normalized dot segment reaches DELETE / (the whole sandbox).
      if (idEnd != std::string_view::npos && sub_ == "/") return error(404, "VALIDATION_FAILED", "Not found");
      if (method != "GET" && method != "POST" && method != "DELETE")
        return methodNotAllowed("Method not allowed", "GET, POST, DELETE");
      language_ = findLanguage(languageSegment);
      if (!language_) return error(400, "VALIDATION_FAILED", "Unsupported language: " + std::string(languageSegment));
      // The id is a path segment: percent-decoded first (an escape that is not UTF-8 is checked as sent).
      if (!http::percentDecode(rawId, sandboxId_)) sandboxId_ = std::string(rawId);
      if (auto invalid = sandboxIdError(sandboxId_)) return error(400, "VALIDATION_FAILED", *invalid);
      method_ = method;
      if (method != "POST") return forwardSandbox("", false, false);
      const std::size_t limit = sub_ == "/files" ? kFilesBodyLimit : kSandboxBodyLimit;
      if (server::declaredTooLarge(head, double(limit))) return error(413, "VALIDATION_FAILED", "Request too large");
      const bool rewrites = sub_ == "/contexts" || sub_ == "/execute";
      if (!head.hasBody) {
        if (rewrites) return error(400, "VALIDATION_FAILED", "Invalid JSON");
        return forwardSandbox("", false, false);
      }
      state_ = State::SandboxBody;
      body_.allocate(limit);
      action_ = Action{};
      action_.kind = ActionKind::ReadBody;
      action_.buffer = body_.data();
      action_.capacity = body_.capacity();
      return action_;
    }
  }

  // Anything else: the page.
  if (!hasAssets) return respond(http::Response::text(404, "Not found"));
  action_ = Action{};
  action_.kind = ActionKind::Asset;
  state_ = State::Forwarded;
  return action_;
}

const Action& Exchange::fromExecute(const server::Action& inner) {
  switch (inner.kind) {
    case server::ActionKind::Respond:
      return respond(inner.response);
    case server::ActionKind::ReadBody:
      action_ = Action{};
      action_.kind = ActionKind::ReadBody;
      action_.buffer = execute_->bodyBuffer();
      action_.capacity = execute_->bodyCapacity();
      return action_;
    case server::ActionKind::RunEngine: {
      // Validated: re-post the payload the runtime's engine would get ({ code, envVars? }) to that runtime.
      action_ = Action{};
      action_.kind = ActionKind::Relay;
      action_.target = std::string(language_->binding);
      action_.method = "POST";
      action_.path = "/execute";
      action_.headers = {{"content-type", "application/json"}};
      action_.body = inner.payload;
      execute_.reset();
      state_ = State::Forwarded;
      return gate();
    }
    case server::ActionKind::Forward:
      break;  // never for /execute
  }
  return fail();
}

const Action& Exchange::nextProbe() {
  const auto& all = languages_;
  if (probes_.size() == all.size()) {
    std::string body = languagesJson(all, probes_);
    probes_.clear();
    return respond(http::Response::json(200, std::move(body)));
  }
  action_ = Action{};
  action_.kind = ActionKind::Fetch;
  action_.target = std::string(all[probes_.size()].binding);
  action_.method = "GET";
  action_.path = "/interpreter";
  action_.answerLimit = kProbeAnswerLimit;
  return action_;
}

const Action& Exchange::forwardSandbox(std::string body, bool hasBody, bool jsonBody) {
  action_ = Action{};
  action_.kind = ActionKind::Sandbox;
  action_.target = sandboxId_;
  action_.method = method_;
  action_.path = sub_;
  action_.headers = {{"x-sandbox-id", sandboxId_}};
  if (jsonBody) action_.headers.push_back({"content-type", "application/json"});
  if (hasBody) action_.body = std::move(body);
  body_.release();
  state_ = State::Forwarded;
  return gate();
}

const Action& Exchange::bodyReceived(std::size_t n) {
  if (state_ == State::Execute && execute_ && action_.kind == ActionKind::ReadBody)
    return fromExecute(execute_->bodyReceived(n));
  if (state_ != State::SandboxBody) return fail();
  if (body_.tooLarge(n)) return error(413, "VALIDATION_FAILED", "Request too large");
  if (sub_ != "/contexts" && sub_ != "/execute") return forwardSandbox(std::string(body_.data(), n), true, false);
  // POST /contexts and /execute: the runtime is the URL's, whatever binding the client named (protocol §8).
  json::ParseResult parsed = body_.parse(n);
  if (!parsed.ok()) return error(400, "VALIDATION_FAILED", "Invalid JSON");
  if (!parsed.value.isObject()) return error(400, "VALIDATION_FAILED", "Expected an object");
  parsed.value.set("binding", json::Value::string(language_->binding));
  return forwardSandbox(json::stringify(parsed.value), true, true);
}

const Action& Exchange::bodyFailed() {
  if (state_ == State::Execute && execute_) return fromExecute(execute_->bodyFailed());
  if (state_ != State::SandboxBody) return fail();
  return error(400, "VALIDATION_FAILED", "Invalid JSON");
}

const Action& Exchange::fetched(int status, std::string_view body) {
  if ((state_ == State::Limiting || state_ == State::LimitingTotal || state_ == State::Undoing) &&
      action_.kind == ActionKind::Limit)
    return limiterAnswered(status, body);
  if (state_ != State::Probing || action_.kind != ActionKind::Fetch) return fail();
  if (status == 200 && body.size() <= kProbeAnswerLimit) probes_.emplace_back(std::string(body));
  else probes_.emplace_back(std::nullopt);
  return nextProbe();
}

const Action& Exchange::fetchFailed() {
  if (state_ == State::Probing && action_.kind == ActionKind::Fetch) {
    probes_.emplace_back(std::nullopt);
    return nextProbe();
  }
  if (state_ == State::Undoing && refused_) return respond(std::move(*refused_));
  // A runtime or the Sandbox could not be reached (protocol §8: binding failure -> 502).
  return fail();
}

}  // namespace sw::gateway
