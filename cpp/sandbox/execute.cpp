// cpp/sandbox: POST /execute (protocol §7.5): the context it runs in, the executeInContext call, and its result applied
// to the registry and the workspace.
#include "internal.h"

#include <algorithm>
#include <cmath>

#include "../workspace/workspace.h"

namespace sw::sandbox {

namespace {

// An execute result's context.restored:false + restoreError {code, message} (docs/snapshots.md), as canonical JSON
// {code, message}; "" when absent or malformed (an optional field from another party never fails the call).
std::string restoreErrorOf(const Value& context) {
  const Value* restored = context.find("restored");
  const Value* error = context.find("restoreError");
  if (!restored || !restored->isBool() || restored->asBool() || !error || !error->isObject()) return "";
  const Value* code = error->find("code");
  const Value* message = error->find("message");
  if (!code || !code->isString() || !message || !message->isString()) return "";
  const std::string& c = code->asString();
  if (c.empty() || c.size() > 64) return "";
  for (char ch : c)
    if (!((ch >= 'A' && ch <= 'Z') || ch == '_')) return "";
  std::string out;
  Writer w(out);
  w.beginObject();
  w.key("code").string(c);
  w.key("message").string(json::truncateUtf16(message->asString(), 1024));
  w.endObject();
  return out;
}

}  // namespace

// --- POST /execute (protocol §7.5) -------------------------------------------------------------------------------------

const Action& Sandbox::Exchange::execute(const Value& body) {
  if (body.find("cwd")) return invalid(400, "cwd is a context property; pass it to createCodeContext");
  server::Limits limits;  // code: non-blank, at most 64 KiB of UTF-8
  if (auto bad = server::checkCode(body.find("code"), limits)) return invalid(bad->status, bad->message);
  pending_->code = body.find("code")->asString();
  if (const Value* e = body.find("envVars")) {
    if (auto message = readStrictEnv(*e, true, pending_->callEnv)) return invalid(400, *message);
  }
  const Value* contextId = body.find("contextId");
  if (contextId && (!contextId->isString() || contextId->asString().empty()))
    return invalid(400, "contextId must be a non-empty string");
  if (contextId && server::isDotSegment(contextId->asString())) return invalid(400, server::kDotSegmentIdMessage);
  const Value* binding = body.find("binding");
  if (binding && (!binding->isString() || binding->asString().empty()))
    return invalid(400, "binding must be a non-empty string");

  auto& list = owner_.contexts_;
  if (contextId) {
    const std::string& id = contextId->asString();
    auto it = std::find_if(list.begin(), list.end(), [&](const Context& c) { return c.id == id; });
    if (it == list.end()) return respond(durable::contextNotFound(clock_, id));
    pending_->contextId = id;
    pending_->binding = it->binding;
    return callExecute();
  }
  if (!binding) return invalid(400, "Pass a context or a binding");
  pending_->binding = binding->asString();
  // The default context: the oldest one with this binding (contexts_ is in createdAt order).
  auto it = std::find_if(list.begin(), list.end(), [&](const Context& c) { return c.binding == pending_->binding; });
  if (it != list.end()) {
    pending_->contextId = it->id;
    return callExecute();
  }
  if (!isBindingName(pending_->binding)) return invalid(400, "Unknown binding '" + pending_->binding + "'");
  return fetch(Stage::ProbeDefault, pending_->binding, "GET", "/interpreter", "", kProbeAnswerLimit);
}

const Action& Sandbox::Exchange::callExecute() {
  stage_ = Stage::Execute;
  auto& list = owner_.contexts_;
  auto it = std::find_if(list.begin(), list.end(), [&](const Context& c) { return c.id == pending_->contextId; });
  if (it == list.end()) return fail();
  // protocol §7.6: sandbox env, then the context's, then the call's; null removes.
  EnvEntries env = owner_.meta_ ? owner_.meta_->env : EnvEntries{};
  layer(env, envFromJson(it->envJson));
  layer(env, pending_->callEnv);

  std::string args;
  Writer w(args);
  w.beginObject();
  w.key("contextId").string(it->id);
  w.key("code").string(pending_->code);
  w.key("envVars").raw(envJson(env));
  w.key("workspace").beginObject();
  if (owner_.config_.fileApiDisabled) {
    w.key("dirs").beginArray().endArray();
    w.key("manifest").beginObject().endObject();
    w.key("disabled").boolean(true);
  } else {
    w.key("dirs").beginArray();
    for (const auto& d : owner_.files_.dirs()) w.string(d);
    w.endArray();
    w.key("manifest").beginObject();
    for (const auto& [path, hash] : owner_.files_.manifest()) w.key(path).string(hash);
    w.endObject();
  }
  w.endObject();
  w.endObject();

  action_ = Action{};
  action_.kind = ActionKind::Call;
  action_.binding = it->binding;
  action_.path = owner_.config_.objectId;
  action_.body = std::move(args);
  return action_;
}

const Action& Sandbox::Exchange::executed(CallAnswer answer) {
  switch (answer.kind) {
    case CallAnswer::Kind::NoBinding: return bindingFailed("no executeInContext method on this binding");
    case CallAnswer::Kind::Threw: return bindingFailed(answer.message);
    case CallAnswer::Kind::TooLarge:
      return bindingFailed("executeInContext result exceeds " + server::kibLabel(double(kMaxCallResultBytes)));
    case CallAnswer::Kind::Result: break;
  }
  const std::string invalidResult = "invalid executeInContext result";
  auto parsed = json::parseCopy(answer.json);
  if (!parsed.ok() || !parsed.value.isObject()) return bindingFailed(invalidResult);
  const Value& rpc = parsed.value;
  const Value* ok = rpc.find("ok");
  if (!ok || !ok->isBool()) return bindingFailed(invalidResult);
  auto& list = owner_.contexts_;
  const std::string id = pending_->contextId;
  if (!ok->asBool()) {
    const Value* status = rpc.find("status");
    const Value* body = rpc.find("body");
    if (!status || !status->isNumber() || status->asNumber() != std::floor(status->asNumber()) ||
        status->asNumber() < 200 || status->asNumber() > 599 || !body || !body->isObject())
      return bindingFailed(invalidResult);
    if (const Value* code = body->find("code"); code && code->isString() && code->asString() == "CONTEXT_NOT_FOUND") {
      // The interpreter forgot it (its idle expiry, or a wipe): so does the registry (protocol §7.5 step 7).
      owner_.deleteContextRow(id);
      list.erase(std::remove_if(list.begin(), list.end(), [&](const Context& c) { return c.id == id; }), list.end());
      return respond(durable::contextNotFound(clock_, id));
    }
    return respond(http::Response::json(int(status->asNumber()), json::stringify(*body)));
  }

  const Value* result = rpc.find("result");
  if (!result || !result->isObject()) return bindingFailed(invalidResult);
  const Value* ws = result->find("workspace");
  const Value* rctx = result->find("context");
  if (!rctx || !rctx->isObject()) return bindingFailed(invalidResult);

  // The diff (protocol §2.9): dirs, files (bytes beside the JSON), deleted.
  std::vector<std::string> dirs, deleted;
  std::vector<workspace::File> files;
  if (ws) {
    const Value* d = member(*ws, "dirs");
    const Value* f = member(*ws, "files");
    const Value* del = member(*ws, "deleted");
    if (!d || !d->isArray() || !f || !f->isArray() || !del || !del->isArray()) return bindingFailed(invalidResult);
    for (const auto& e : d->items()) {
      if (!e.isString()) return bindingFailed(invalidResult);
      dirs.push_back(e.asString());
    }
    for (const auto& e : del->items()) {
      if (!e.isString()) return bindingFailed(invalidResult);
      deleted.push_back(e.asString());
    }
    const auto& items = f->items();
    if (items.size() > answer.files.size()) return bindingFailed(invalidResult);
    for (std::size_t i = 0; i < items.size(); ++i) {
      const Value* path = member(items[i], "path");
      const Value* data = member(items[i], "data");
      const Value* updatedAt = member(items[i], "updatedAt");
      if (!path || !path->isString() || !data || !data->isNull() || !answer.files[i] || !updatedAt ||
          !updatedAt->isNumber())
        return bindingFailed(invalidResult);
      files.push_back(workspace::File{path->asString(), std::move(*answer.files[i]), updatedAt->asNumber()});
    }
  } else if (!owner_.config_.fileApiDisabled) {
    return bindingFailed(invalidResult);
  }

  auto it = std::find_if(list.begin(), list.end(), [&](const Context& c) { return c.id == id; });
  if (it == list.end()) return fail();

  Changes changes;
  if (!owner_.config_.fileApiDisabled) {
    FileError err;
    if (!owner_.files_.apply(dirs, files, deleted, changes, err)) {
      // A workspace error outside the files API: context is just { errno } (protocol §3.7).
      const std::string code = server::errnoCode(err.errnoName);
      return error(server::codeStatus(code), code, err.message, "{\"errno\":" + json::quote(err.errnoName) + "}");
    }
  }
  Context updated = *it;
  updated.executions += 1;
  updated.lastUsed = owner_.nowIso();
  // The runtime Worker is another party: its cwd is stored only when it normalizes under /workspace (a forged one,
  // e.g. "/etc/../..", leaves the registry's cwd as it was).
  if (const Value* cwd = rctx->find("cwd"); cwd && cwd->isString()) {
    if (auto checked = workspace::contextCwd(cwd->asString())) updated.cwd = *checked;
  }
  if (const Value* snap = rctx->find("snapshot")) updated.snapshotJson = json::stringify(*snap);
  const std::string restoreError = restoreErrorOf(*rctx);
  if (!restoreError.empty()) {
    updated.restoreErrorJson = restoreError;
    updated.restoreErrorJson.insert(updated.restoreErrorJson.size() - 1, ",\"at\":" + json::quote(updated.lastUsed));
  }
  owner_.sql_.transaction([&] {
    owner_.persist(changes);
    owner_.saveContext(updated);
  });
  *it = updated;
  const double deadline = owner_.touch();

  // The interpreter's result minus `workspace`, with the registry's executionCount and context (protocol §7.5 step 9).
  std::string out;
  Writer w(out);
  w.beginObject();
  auto writeCount = [&] { w.key("executionCount").number(updated.executions); };
  auto writeContext = [&] {
    w.key("context").beginObject();
    w.key("id").string(updated.id);
    w.key("cwd").string(updated.cwd);
    w.key("executions").number(updated.executions);
    if (const Value* ms = rctx->find("snapshotMs"); ms && ms->isNumber()) w.key("snapshotMs").value(*ms);
    if (!std::isnan(deadline)) w.key("expiresAt").number(deadline);
    if (!restoreError.empty()) w.key("restored").boolean(false).key("restoreError").raw(restoreError);
    w.endObject();
  };
  bool wroteCount = false, wroteContext = false;
  for (const auto& [key, value] : result->members()) {
    if (key == "workspace") continue;
    if (key == "executionCount") {
      writeCount();
      wroteCount = true;
    } else if (key == "context") {
      writeContext();
      wroteContext = true;
    } else {
      w.key(key).value(value);
    }
  }
  if (!wroteCount) writeCount();
  if (!wroteContext) writeContext();
  w.endObject();
  return respond(http::Response::json(200, std::move(out)));
}

const Action& Sandbox::Exchange::called(CallAnswer answer) {
  if (stage_ != Stage::Execute) return fail();
  return executed(std::move(answer));
}

}  // namespace sw::sandbox
