// cpp/sandbox: the Sandbox's exchange: the id check, routing and dispatch of each step's answer, and the routes of the
// sandbox as a whole (POST /env, GET /, DELETE /, the alarm). The other routes: contexts.cpp, execute.cpp,
// files_route.cpp; storage: storage.cpp.
#include "internal.h"

#include <algorithm>
#include <cmath>

namespace sw::sandbox {

bool fileApiDisabledBy(std::optional<std::string_view> value) { return value && *value == "disabled"; }

// --- the exchange --------------------------------------------------------------------------------------------------

Sandbox::Exchange::Exchange(Sandbox& owner) : durable::Exchange<Action>(owner.clock_), owner_(owner) {}
Sandbox::Exchange::~Exchange() = default;

void Sandbox::Exchange::responded() {
  pending_.reset();
  stage_ = Stage::Done;
}

const Action& Sandbox::Exchange::readBody(const http::RequestHead& head, Route route, std::size_t limit) {
  route_ = route;
  stage_ = Stage::Body;
  return durable::Exchange<Action>::readBody(head, limit);
}

const Action& Sandbox::Exchange::fetch(Stage stage, std::string binding, std::string method, std::string path,
                                       std::string body, std::size_t limit) {
  stage_ = stage;
  action_ = Action{};
  action_.kind = ActionKind::Fetch;
  action_.binding = std::move(binding);
  action_.method = std::move(method);
  action_.path = std::move(path);
  action_.body = std::move(body);
  action_.bodyLimit = limit;
  return action_;
}

const Action& Sandbox::Exchange::start(const http::RequestHead& head) {
  if (stage_ != Stage::Idle) return fail();
  pending_ = std::make_unique<Pending>();
  const std::string id(head.header("x-sandbox-id").value_or(""));
  if (auto message = server::sandboxIdError(id)) return invalid(400, *message);
  const std::string path = http::urlPath(head.url);
  const std::string& method = head.method;
  if (path == "/" && method == "DELETE") return destroy(true);
  owner_.ensureMeta(id);
  if (path == "/" && method == "GET") return info();
  if (path == "/execute" && method == "POST") return readBody(head, Route::Execute, kJsonBodyLimit);
  if (path == "/contexts" && method == "POST") return readBody(head, Route::CreateContext, kJsonBodyLimit);
  if (path == "/contexts" && method == "GET") return listContexts();
  if (path == "/env" && method == "POST") return readBody(head, Route::SetEnv, kJsonBodyLimit);
  if (path == "/files" && method == "POST") {
    // Before the body is read (protocol §7.7 pre-check 1).
    if (owner_.config_.fileApiDisabled)
      return error(403, "NOT_SUPPORTED", "The File API is disabled for this sandbox (SANDBOX_FILE_API=disabled)",
                   R"({"feature":"files"})");
    return readBody(head, Route::Files, kFilesBodyLimit);
  }
  if (auto contextId = durable::deletedContextId(head, path)) {
    if (server::isDotSegment(*contextId)) return invalid(400, server::kDotSegmentIdMessage);
    return deleteContext(std::move(*contextId));
  }
  return invalid(404, "Not found");
}

const Action& Sandbox::Exchange::bodyFailed() {
  if (stage_ != Stage::Body) return fail();
  return invalid(400, "Invalid JSON");
}

const Action& Sandbox::Exchange::bodyReceived(std::size_t n) {
  if (stage_ != Stage::Body) return fail();
  auto parsed = bodyObject(n);
  if (!parsed) return action_;
  switch (route_) {
    case Route::Execute: return execute(*parsed);
    case Route::CreateContext: return createContext(*parsed);
    case Route::SetEnv: return setEnv(*parsed);
    case Route::Files: return files(*parsed);
    case Route::None: break;
  }
  return fail();
}

// --- POST /env, GET / and DELETE / (protocol §7.3, §7.8, §7.9) ---------------------------------------------------------

const Action& Sandbox::Exchange::setEnv(const Value& body) {
  const Value* env = body.find("envVars");
  if (!env) return invalid(400, "envVars is required");
  EnvEntries entries;
  if (auto message = readStrictEnv(*env, true, entries)) return invalid(400, *message);
  EnvEntries merged = owner_.meta_->env;
  layer(merged, entries);
  // The sandbox env rides along on every execute, and a stateless POST /execute carries at most 96 KiB in all: an env
  // that could never be sent is refused here, where the caller can still fix it, not on every later execute.
  if (envJson(merged).size() > kJsonBodyLimit) return invalid(413, "Sandbox envVars would exceed 96 KiB");
  owner_.meta_->env = std::move(merged);
  owner_.writeMeta();
  owner_.touch(true);
  return respond(http::Response::json(200, R"({"success":true})"));
}

const Action& Sandbox::Exchange::info() {
  const double deadline = owner_.touch();
  const Meta& m = *owner_.meta_;
  std::string out;
  Writer w(out);
  w.beginObject();
  w.key("id").string(m.id);
  w.key("createdAt").string(m.createdAt);
  w.key("lastUsed").string(m.lastUsed);
  w.key("envVars").raw(envJson(m.env));
  w.key("contexts").beginArray();
  for (const auto& c : owner_.contexts_) {
    w.beginObject();
    w.key("id").string(c.id);
    w.key("binding").string(c.binding);
    w.key("language").string(c.language);
    w.key("engine").string(c.engine);
    w.key("cwd").string(c.cwd);
    w.key("createdAt").string(c.createdAt);
    w.key("lastUsed").string(c.lastUsed);
    w.key("executions").number(c.executions);
    w.key("snapshot").raw(c.snapshotJson);
    if (!c.restoreErrorJson.empty()) w.key("restoreError").raw(c.restoreErrorJson);
    w.endObject();
  }
  w.endArray();
  const bool enabled = !owner_.config_.fileApiDisabled;
  w.key("fileApi").boolean(enabled);
  w.key("workspace").beginObject();
  w.key("files").number(enabled ? double(owner_.files_.entryCount()) : 0);
  w.key("bytes").number(enabled ? double(owner_.files_.totalBytes()) : 0);
  w.endObject();
  w.key("expiresAt");
  if (std::isnan(deadline)) w.null();
  else w.number(deadline);
  w.endObject();
  return respond(http::Response::json(200, std::move(out)));
}

const Action& Sandbox::Exchange::destroy(bool respondWhenDone) {
  std::vector<std::string> bindings;
  for (const auto& c : owner_.contexts_)
    if (std::find(bindings.begin(), bindings.end(), c.binding) == bindings.end()) bindings.push_back(c.binding);
  pending_->bindings = std::move(bindings);
  pending_->nextBinding = 0;
  pending_->respondWhenDone = respondWhenDone;
  return nextDestroyStep();
}

const Action& Sandbox::Exchange::nextDestroyStep() {
  if (pending_->nextBinding < pending_->bindings.size()) {
    const std::string binding = pending_->bindings[pending_->nextBinding++];
    return fetch(Stage::Destroy, binding, "DELETE", "/interpreters/" + http::percentEncode(owner_.config_.objectId), "",
                 kProbeAnswerLimit);
  }
  owner_.wipe();
  return respond(http::Response::json(200, R"({"success":true})"));
}

const Action& Sandbox::Exchange::startAlarm() {
  if (stage_ != Stage::Idle) return fail();
  pending_ = std::make_unique<Pending>();
  std::optional<std::string_view> lastUsed;
  if (owner_.meta_) lastUsed = owner_.meta_->lastUsed;
  if (owner_.alarmExpired(lastUsed)) return destroy(false);
  return respond(http::Response::json(200, R"({"success":true})"));
}

const Action& Sandbox::Exchange::fetched(FetchAnswer answer) {
  switch (stage_) {
    case Stage::ProbeCreate: {
      if (auto message = judgeProbe(answer, true)) return invalid(400, *message);
      return remoteCreate(Stage::RemoteCreate);
    }
    case Stage::RemoteCreate: {
      if (!remoteCreated(answer)) return action_;
      owner_.touch();
      std::string out;
      Writer w(out);
      owner_.contexts_.back().writeSummary(w);
      return respond(http::Response::json(201, std::move(out)));
    }
    case Stage::ProbeDefault: {
      if (auto message = judgeProbe(answer, false)) return invalid(400, *message);
      if (!pending_->contexts) {
        // The stateless path (protocol §7.5 step 6): sandbox env + call env, no context layer.
        EnvEntries env = owner_.meta_ ? owner_.meta_->env : EnvEntries{};
        layer(env, pending_->callEnv);
        std::string body;
        Writer w(body);
        w.beginObject();
        w.key("code").string(pending_->code);
        w.key("envVars").raw(envJson(env));
        w.endObject();
        return fetch(Stage::Stateless, pending_->binding, "POST", "/execute", std::move(body), kRelayAnswerLimit);
      }
      // A new default context: cwd /workspace, no env vars; the cap applies as for POST /contexts.
      if (owner_.contexts_.size() >= durable::kMaxContexts) return invalid(400, durable::kTooManyContextsMessage);
      pending_->cwd = "/workspace";
      pending_->contextEnvJson = "{}";
      return remoteCreate(Stage::RemoteDefault);
    }
    case Stage::RemoteDefault: {
      if (!remoteCreated(answer)) return action_;
      pending_->contextId = pending_->newId;
      return callExecute();
    }
    case Stage::Stateless: {
      if (answer.kind == FetchAnswer::Kind::NoBinding) return bindingFailed("no fetch function on this binding");
      if (answer.kind == FetchAnswer::Kind::Threw) return bindingFailed(answer.message);
      if (answer.body.size() > kRelayAnswerLimit)
        return bindingFailed("answer exceeds " + server::kibLabel(double(kRelayAnswerLimit)));
      owner_.touch();
      // Relayed unchanged (protocol §7.5 step 6).
      return respond(http::Response::json(answer.status, std::move(answer.body)));
    }
    case Stage::DeleteRemote:
      // Best effort: the interpreter's answer does not matter (protocol §7.3).
      owner_.touch();
      return respond(http::Response::json(200, R"({"success":true})"));
    case Stage::Destroy:
      return nextDestroyStep();  // errors ignored (protocol §7.9)
    default:
      return fail();
  }
}

}  // namespace sw::sandbox
