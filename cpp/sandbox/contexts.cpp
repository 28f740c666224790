// cpp/sandbox: the context registry's routes (protocol §7.4): POST /contexts with its binding probe, GET /contexts,
// DELETE /contexts/:id.
#include "internal.h"

#include <algorithm>

namespace sw::sandbox {

namespace {

bool is2xx(int status) { return status >= 200 && status <= 299; }

}  // namespace

// --- contexts (protocol §7.4) ------------------------------------------------------------------------------------------

const Action& Sandbox::Exchange::createContext(const Value& body) {
  const Value* binding = body.find("binding");
  if (!binding || !binding->isString() || binding->asString().empty()) return invalid(400, "binding is required");
  std::string cwd;
  if (auto message = durable::readContextCwd(body, cwd)) return invalid(400, *message);
  EnvEntries env;
  if (const Value* e = body.find("envVars")) {
    if (auto message = readStrictEnv(*e, false, env)) return invalid(400, *message);
  }
  if (owner_.contexts_.size() >= durable::kMaxContexts) return invalid(400, durable::kTooManyContextsMessage);
  pending_->binding = binding->asString();
  pending_->cwd = cwd;
  pending_->contextEnvJson = envJson(env);
  if (!isBindingName(pending_->binding)) return invalid(400, "Unknown binding '" + pending_->binding + "'");
  return fetch(Stage::ProbeCreate, pending_->binding, "GET", "/interpreter", "", kProbeAnswerLimit);
}

std::optional<std::string> Sandbox::Exchange::judgeProbe(const FetchAnswer& answer, bool requireContexts) {
  const std::string& name = pending_->binding;
  if (answer.kind == FetchAnswer::Kind::NoBinding) return "Unknown binding '" + name + "'";
  const std::string notRuntime = "Binding '" + name + "' is not a sandbox-workers runtime Worker";
  if (answer.kind != FetchAnswer::Kind::Response || !is2xx(answer.status) || answer.body.size() > kProbeAnswerLimit)
    return notRuntime;
  auto parsed = json::parseCopy(answer.body);
  if (!parsed.ok() || !parsed.value.isObject()) return notRuntime;
  const Value& v = parsed.value;
  const Value* language = v.find("language");
  const Value* engine = v.find("engine");
  const Value* contexts = v.find("contexts");
  const Value* protocol = v.find("protocol");
  if (!language || !language->isString() || !engine || !engine->isString() || !contexts || !contexts->isBool())
    return notRuntime;
  if (protocol && !protocol->isNumber()) return notRuntime;
  if (protocol && protocol->asNumber() != 1) {
    return "Binding '" + name + "' speaks interpreter protocol " + json::formatNumber(protocol->asNumber()) +
           "; this caller supports 1";
  }
  pending_->language = language->asString();
  pending_->engine = engine->asString();
  pending_->contexts = contexts->asBool();
  if (requireContexts && !pending_->contexts)
    return "Code contexts are not supported by binding '" + name + "' (" + language->asString() + ")";
  return std::nullopt;
}

const Action& Sandbox::Exchange::remoteCreate(Stage stage) {
  pending_->newId = owner_.randomUuid();
  std::string body;
  Writer w(body);
  w.beginObject();
  w.key("id").string(pending_->newId);
  w.key("cwd").string(pending_->cwd);
  w.endObject();
  return fetch(stage, pending_->binding, "POST", "/interpreters/" + http::percentEncode(owner_.config_.objectId) + "/contexts",
               std::move(body), kProbeAnswerLimit);
}

const Action& Sandbox::Exchange::bindingFailed(std::string_view message) {
  return error(502, "INTERNAL_ERROR", "Binding '" + pending_->binding + "' failed: " + std::string(message));
}

// POST /interpreters/<key>/contexts answered: false when the exchange responded instead (a failure, relayed).
bool Sandbox::Exchange::remoteCreated(const FetchAnswer& answer) {
  if (answer.kind == FetchAnswer::Kind::NoBinding) return bindingFailed("no fetch function on this binding"), false;
  if (answer.kind == FetchAnswer::Kind::Threw) return bindingFailed(answer.message), false;
  if (answer.body.size() > kProbeAnswerLimit) return bindingFailed("answer exceeds 64 KiB"), false;
  if (!is2xx(answer.status)) {
    // Relayed with the same status and body (protocol §7.4 step 6).
    return respond(http::Response::json(answer.status, answer.body)), false;
  }
  Context c;
  c.id = pending_->newId;
  c.binding = pending_->binding;
  c.language = pending_->language;
  c.engine = pending_->engine;
  c.cwd = pending_->cwd;
  c.envJson = pending_->contextEnvJson;
  c.createdAt = owner_.nowIso();
  c.lastUsed = c.createdAt;
  owner_.saveContext(c);
  owner_.contexts_.push_back(std::move(c));
  return true;
}

const Action& Sandbox::Exchange::listContexts() {
  owner_.touch();
  std::string out;
  Writer w(out);
  w.beginObject();
  w.key("contexts").beginArray();
  for (const auto& c : owner_.contexts_) c.writeSummary(w);
  w.endArray();
  w.endObject();
  return respond(http::Response::json(200, std::move(out)));
}

const Action& Sandbox::Exchange::deleteContext(std::string id) {
  auto& list = owner_.contexts_;
  auto it = std::find_if(list.begin(), list.end(), [&](const Context& c) { return c.id == id; });
  if (it == list.end()) return respond(durable::contextNotFound(clock_, id));
  pending_->binding = it->binding;
  owner_.deleteContextRow(id);
  list.erase(it);
  return fetch(Stage::DeleteRemote, pending_->binding, "DELETE",
               "/interpreters/" + http::percentEncode(owner_.config_.objectId) + "/contexts/" + http::percentEncode(id), "",
               kProbeAnswerLimit);
}

}  // namespace sw::sandbox
