#include "sandbox.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "../workspace/workspace.h"

namespace sw::sandbox {

namespace {

using durable::SqlArg;
using durable::SqlRow;
using durable::SqlValue;
using json::member;
using json::numberOr;
using json::stringOr;
using json::Value;
using json::Writer;

// An env map with JavaScript object order; nullopt values (protocol §7.6 `null`) remove a key when layered.
using EnvEntries = std::vector<std::pair<std::string, std::optional<std::string>>>;


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

// JavaScript truthiness of a JSON value (recursive?, force?, includeHidden?).
bool truthy(const Value* v) {
  if (!v) return false;
  switch (v->type()) {
    case json::Type::Null: return false;
    case json::Type::Bool: return v->asBool();
    case json::Type::Number: return v->asNumber() != 0 && !std::isnan(v->asNumber());
    case json::Type::String: return !v->asString().empty();
    default: return true;
  }
}

bool isBindingName(std::string_view name) { return server::isValidEnvKey(name); }

// protocol §7.3: strict env validation; `allowNull` for /execute and /env.
std::optional<std::string> readStrictEnv(const Value& v, bool allowNull, EnvEntries& out) {
  if (!v.isObject()) return "envVars must be an object";
  out.clear();
  for (const auto& [key, value] : v.members()) {
    if (!server::isValidEnvKey(key)) return "Invalid envVars key: " + key;
    if (value.isNull() && allowNull) {
      out.emplace_back(key, std::nullopt);
      continue;
    }
    if (!value.isString()) return "envVars values must be strings";
    out.emplace_back(key, value.asString());
  }
  return std::nullopt;
}

// Sets (or, for nullopt, removes) `key` keeping JavaScript object order. Indexed, so layering n keys over m costs
// O((n + m) log m), not O(n * m): a 96 KiB env body holds ~10,000 keys.
void layer(EnvEntries& into, const EnvEntries& over) {
  std::map<std::string, std::size_t, std::less<>> at;  // owning keys: `into` may reallocate below
  for (std::size_t i = 0; i < into.size(); ++i) at.emplace(into[i].first, i);
  std::vector<bool> removed(into.size(), false);
  bool anyRemoved = false;
  for (const auto& entry : over) {
    auto it = at.find(entry.first);
    if (!entry.second) {
      if (it != at.end() && !removed[it->second]) {
        removed[it->second] = true;
        anyRemoved = true;
      }
    } else if (it != at.end() && !removed[it->second]) {
      into[it->second].second = entry.second;
    } else {
      // A key removed earlier in this same layer and set again goes to the end, as delete + set does in JavaScript.
      if (it != at.end()) at.erase(it);
      into.emplace_back(entry.first, entry.second);
      removed.push_back(false);
      at.emplace(into.back().first, into.size() - 1);
    }
  }
  if (!anyRemoved) return;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < into.size(); ++i) {
    if (removed[i]) continue;
    if (kept != i) into[kept] = std::move(into[i]);  // never a self-move: it would empty the strings
    ++kept;
  }
  into.resize(kept);
}

std::string envJson(const EnvEntries& env) {
  std::string out;
  Writer w(out);
  w.beginObject();
  for (const auto& [key, value] : env)
    if (value) w.key(key).string(*value);
  w.endObject();
  return out;
}

EnvEntries envFromJson(std::string_view text) {
  EnvEntries out;
  auto parsed = json::parseCopy(text);
  if (!parsed.ok() || !parsed.value.isObject()) return out;
  for (const auto& [key, value] : parsed.value.members())
    if (value.isString()) out.emplace_back(key, value.asString());
  return out;
}

// --- bytes <-> the files API's text forms ---------------------------------------------------------------------------

const char* kBase64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64Encode(std::string_view in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const uint32_t v = uint32_t(uint8_t(in[i])) << 16 | uint32_t(uint8_t(in[i + 1])) << 8 | uint8_t(in[i + 2]);
    out += kBase64[v >> 18];
    out += kBase64[(v >> 12) & 63];
    out += kBase64[(v >> 6) & 63];
    out += kBase64[v & 63];
  }
  if (i < in.size()) {
    uint32_t v = uint32_t(uint8_t(in[i])) << 16;
    if (i + 1 < in.size()) v |= uint32_t(uint8_t(in[i + 1])) << 8;
    out += kBase64[v >> 18];
    out += kBase64[(v >> 12) & 63];
    out += i + 1 < in.size() ? kBase64[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

// Standard or URL-safe alphabet, ASCII whitespace ignored, '=' padding only at the end; false when not base64.
bool base64Decode(std::string_view in, std::string& out) {
  out.clear();
  uint32_t acc = 0;
  int bits = 0;
  std::size_t digits = 0, padding = 0;
  for (char c : in) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') continue;
    if (c == '=') {
      ++padding;
      continue;
    }
    if (padding > 0) return false;
    int v;
    if (c >= 'A' && c <= 'Z') v = c - 'A';
    else if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
    else if (c >= '0' && c <= '9') v = c - '0' + 52;
    else if (c == '+' || c == '-') v = 62;
    else if (c == '/' || c == '_') v = 63;
    else return false;
    ++digits;
    acc = (acc << 6) | uint32_t(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += char((acc >> bits) & 0xff);
    }
  }
  if (digits % 4 == 1 || padding > 2) return false;
  if (padding > 0 && (digits + padding) % 4 != 0) return false;
  return true;
}

// TextDecoder("utf-8") semantics: every maximal invalid subpart becomes one U+FFFD.
std::string decodeLossy(std::string_view s) {
  if (json::isValidUtf8(s)) return std::string(s);
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    const uint8_t c = uint8_t(s[i]);
    if (c < 0x80) {
      out += char(c);
      ++i;
      continue;
    }
    int need = 0;
    uint8_t lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) need = 1;
    else if (c >= 0xE0 && c <= 0xEF) {
      need = 2;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      need = 3;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    }
    if (need == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    int got = 0;
    while (got < need && j < s.size()) {
      const uint8_t d = uint8_t(s[j]);
      if (d < lo || d > hi) break;
      lo = 0x80;
      hi = 0xBF;
      ++j;
      ++got;
    }
    if (got == need) out.append(s.data() + i, j - i);
    else out += "\xEF\xBF\xBD";
    i = j;
  }
  return out;
}

// A JSON string (WTF-8) as TextEncoder encodes it: a lone surrogate becomes U+FFFD.
std::string toUtf8(std::string_view wtf8) {
  if (json::isValidUtf8(wtf8)) return std::string(wtf8);
  std::string out;
  out.reserve(wtf8.size());
  for (std::size_t i = 0; i < wtf8.size(); ++i) {
    const uint8_t c = uint8_t(wtf8[i]);
    if (c == 0xED && i + 2 < wtf8.size() && (uint8_t(wtf8[i + 1]) & 0xE0) == 0xA0) {
      // A surrogate (ED A0..BF xx): a high one followed by a low one is one code point (JSON.parse would have joined
      // them), otherwise U+FFFD.
      const uint32_t cp = 0xD000 | (uint32_t(uint8_t(wtf8[i + 1]) & 0x3F) << 6) | (uint8_t(wtf8[i + 2]) & 0x3F);
      if (cp <= 0xDBFF && i + 5 < wtf8.size() && uint8_t(wtf8[i + 3]) == 0xED &&
          (uint8_t(wtf8[i + 4]) & 0xF0) == 0xB0) {
        const uint32_t low = 0xD000 | (uint32_t(uint8_t(wtf8[i + 4]) & 0x3F) << 6) | (uint8_t(wtf8[i + 5]) & 0x3F);
        json::appendCodePoint(out, 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00));
        i += 5;
      } else {
        out += "\xEF\xBF\xBD";
        i += 2;
      }
      continue;
    }
    out += char(c);
  }
  return out;
}

std::string_view operationOf(std::string_view op) {
  if (op == "read") return "file.read";
  if (op == "write") return "file.write";
  if (op == "mkdir") return "directory.create";
  if (op == "delete") return "file.delete";
  if (op == "rename") return "file.rename";
  if (op == "move") return "file.move";
  if (op == "list") return "directory.list";
  if (op == "exists") return "file.stat";
  return {};
}

bool is2xx(int status) { return status >= 200 && status <= 299; }

}  // namespace

std::optional<std::string> checkSandboxId(std::string_view id) {
  const std::string quoted = "Invalid sandbox id \"" + std::string(id) + "\": ";
  bool ok = !id.empty() && id.size() <= 63;
  for (char c : id)
    ok = ok && ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
                c == '-');
  if (!ok) return quoted + "must match /^[A-Za-z0-9._-]{1,63}$/";
  if (id.front() == '-' || id.back() == '-') return quoted + "cannot start or end with a hyphen";
  const std::string lower = http::asciiLower(id);
  for (const char* reserved : {"www", "api", "admin", "root", "system", "cloudflare", "workers"})
    if (lower == reserved) return quoted + "'" + std::string(id) + "' is a reserved name";
  return std::nullopt;
}

bool fileApiDisabledBy(std::optional<std::string_view> value) { return value && *value == "disabled"; }

// --- state ---------------------------------------------------------------------------------------------------------

// The meta row (protocol §7.10): { format: 1, id, createdAt, lastUsed, envVars, lifetime }.
struct Sandbox::Meta {
  std::string id;
  std::string createdAt;
  std::string lastUsed;
  EnvEntries env;  // values always set
  std::string lifetime;

  std::string toJson() const {
    std::string out;
    Writer w(out);
    w.beginObject();
    w.key("format").integer(kStorageFormat);
    w.key("id").string(id);
    w.key("createdAt").string(createdAt);
    w.key("lastUsed").string(lastUsed);
    w.key("envVars").raw(envJson(env));
    w.key("lifetime").string(lifetime);
    w.endObject();
    return out;
  }
  static Meta fromJson(const Value& v) {
    Meta m;
    m.id = stringOr(member(v, "id"), "");
    m.createdAt = stringOr(member(v, "createdAt"), "");
    m.lastUsed = stringOr(member(v, "lastUsed"), m.createdAt);
    if (const Value* env = member(v, "envVars"); env && env->isObject())
      for (const auto& [key, value] : env->members())
        if (value.isString()) m.env.emplace_back(key, value.asString());
    m.lifetime = stringOr(member(v, "lifetime"), "");
    return m;
  }
};

// A context row (protocol §7.10): { id, binding, language, engine, cwd, envVars, createdAt, lastUsed, executions,
// snapshot }.
struct Sandbox::Context : durable::ContextRow {
  std::string binding;
  std::string language;
  std::string engine;
  std::string envJson = "{}";
  std::string snapshotJson = "null";  // exactly what the interpreter last returned
  // The last execute whose state was not restored (docs/snapshots.md): {code, message, at}; empty = none yet.
  std::string restoreErrorJson;

  std::string toJson() const {
    std::string out;
    Writer w(out);
    w.beginObject();
    w.key("id").string(id);
    w.key("binding").string(binding);
    w.key("language").string(language);
    w.key("engine").string(engine);
    w.key("cwd").string(cwd);
    w.key("envVars").raw(envJson);
    writeUsage(w);
    w.key("snapshot").raw(snapshotJson);
    if (!restoreErrorJson.empty()) w.key("restoreError").raw(restoreErrorJson);
    w.endObject();
    return out;
  }
  static std::optional<Context> fromJson(std::string_view text) { return read<Context>(text); }
  bool readOwn(const Value& v) {
    binding = stringOr(member(v, "binding"), "");
    language = stringOr(member(v, "language"), "");
    engine = stringOr(member(v, "engine"), "");
    if (const Value* env = member(v, "envVars"); env && env->isObject()) envJson = sandbox::envJson(envFromJson(json::stringify(*env)));
    if (const Value* s = member(v, "snapshot")) snapshotJson = json::stringify(*s);
    if (const Value* e = member(v, "restoreError"); e && e->isObject()) restoreErrorJson = json::stringify(*e);
    return !id.empty() && !binding.empty();
  }
  // The listing entry of GET /contexts and POST /contexts' answer.
  void writeSummary(Writer& w) const {
    w.beginObject();
    w.key("id").string(id);
    w.key("binding").string(binding);
    w.key("language").string(language);
    w.key("cwd").string(cwd);
    w.key("createdAt").string(createdAt);
    w.key("lastUsed").string(lastUsed);
    w.endObject();
  }
};

// What an exchange carries across its asynchronous steps.
struct Sandbox::Exchange::Pending {
  // POST /contexts and the default context
  std::string binding;
  std::string cwd = "/workspace";
  std::string contextEnvJson = "{}";
  std::string language, engine;
  bool contexts = false;
  std::string newId;
  // POST /execute
  std::string code;
  EnvEntries callEnv;
  std::string contextId;
  // DELETE / and the alarm
  std::vector<std::string> bindings;
  std::size_t nextBinding = 0;
  bool respondWhenDone = true;
};

namespace {

// The layout of protocol §7.10 (format 1). An Interpreter's rows, or meta rows none of which is the Sandbox's, are
// another layout: wiped, never migrated.
durable::Layout sandboxLayout(const Config& config) {
  durable::Layout layout;
  layout.metaKey = "sandbox";
  layout.format = kStorageFormat;
  // While the File API is disabled the files table is left alone (protocol §7.10): it is created once it is enabled.
  if (!config.fileApiDisabled)
    layout.ownTables = {"CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, data BLOB, updated_at INTEGER)"};
  layout.foreignTables = {"chunks", "pages"};
  layout.foreignWithoutOwnRow = true;
  return layout;
}

}  // namespace

Sandbox::Sandbox(durable::Sql& sql, durable::Alarm& alarm, server::Clock& clock, Config config, double armedAlarm,
                 wasi::RandomSource random)
    : durable::Object(sql, alarm, clock, sandboxLayout(config), config.idleTtlMs, armedAlarm, std::move(random)),
      config_(std::move(config)) {
  openStorage();  // its meta row is read by load()
  load();
}

Sandbox::~Sandbox() = default;

std::size_t Sandbox::contextCount() const { return contexts_.size(); }

// --- storage (protocol §7.10) ------------------------------------------------------------------------------------------

void Sandbox::load() {
  meta_.reset();
  contexts_.clear();
  files_.clear();
  std::vector<SqlRow> rows;
  sql_.exec("SELECT value FROM meta WHERE key = 'sandbox'", {}, &rows);
  if (!rows.empty() && !rows[0].empty() && rows[0][0].type == SqlValue::Type::Text) {
    auto parsed = json::parseCopy(rows[0][0].bytes);
    if (parsed.ok() && parsed.value.isObject()) meta_ = std::make_unique<Meta>(Meta::fromJson(parsed.value));
  }
  rows.clear();
  sql_.exec("SELECT value FROM contexts ORDER BY rowid", {}, &rows);
  for (const auto& row : rows) {
    if (row.empty() || row[0].type != SqlValue::Type::Text) continue;
    if (auto c = Context::fromJson(row[0].bytes)) contexts_.push_back(std::move(*c));
  }
  std::stable_sort(contexts_.begin(), contexts_.end(),
                   [](const Context& a, const Context& b) { return a.createdAt < b.createdAt; });
  if (config_.fileApiDisabled) return;
  rows.clear();
  sql_.exec("SELECT path, data, updated_at FROM files", {}, &rows);
  std::vector<Row> tree;
  tree.reserve(rows.size());
  for (auto& row : rows) {
    if (row.size() < 3 || row[0].type != SqlValue::Type::Text) continue;
    Row r;
    r.path = std::move(row[0].bytes);
    r.directory = row[1].isNull();
    r.data = std::move(row[1].bytes);
    r.updatedAt = row[2].type == SqlValue::Type::Number ? row[2].number : 0;
    tree.push_back(std::move(r));
  }
  FileError err;
  if (!files_.load(tree, err)) files_.clear();  // rows no tree can hold: nothing else to do with them
}

void Sandbox::ensureMeta(std::string_view id) {
  if (meta_) return;
  meta_ = std::make_unique<Meta>();
  meta_->id = std::string(id);
  meta_->createdAt = nowIso();
  meta_->lastUsed = meta_->createdAt;
  meta_->lifetime = randomUuid();
  writeMeta();
}

void Sandbox::writeMeta() { writeMetaRow(meta_->toJson()); }

void Sandbox::saveContext(const Context& c) { saveContextRow(c.id, c.toJson()); }

void Sandbox::persist(const Changes& changes) {
  if (config_.fileApiDisabled) return;
  for (const auto& row : changes.upserts) {
    sql_.exec(
        "INSERT INTO files (path, data, updated_at) VALUES (?, ?, ?) ON CONFLICT(path) DO UPDATE SET data = "
        "excluded.data, updated_at = excluded.updated_at",
        {SqlArg::text(row.path), row.directory ? SqlArg::null() : SqlArg::blob(row.data),
         SqlArg::num(row.directory ? 0 : row.updatedAt)});
  }
  for (const auto& path : changes.deletes) sql_.exec("DELETE FROM files WHERE path = ?", {SqlArg::text(path)});
}

void Sandbox::wipe() {
  wipeStorageAndAlarm();
  meta_.reset();
  contexts_.clear();
  files_.clear();
}

void Sandbox::recordLastUsed(const std::string& iso) {
  if (!meta_) return;
  meta_->lastUsed = iso;
  writeMeta();
}

std::vector<workspace::File> Sandbox::filesFor(std::string_view pathsJson) const {
  if (config_.fileApiDisabled) return {};
  auto parsed = json::parseCopy(pathsJson);
  if (!parsed.ok() || !parsed.value.isArray()) return {};
  std::vector<std::string> paths;
  for (const auto& p : parsed.value.items())
    if (p.isString()) paths.push_back(p.asString());
  return files_.filesFor(paths);
}

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
  if (auto message = checkSandboxId(id)) return invalid(400, *message);
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

// --- POST /files (protocol §7.7) ---------------------------------------------------------------------------------------

const Action& Sandbox::Exchange::files(const Value& body) {
  const Value* opValue = body.find("op");
  const std::string op = opValue && opValue->isString() ? opValue->asString() : "";
  const std::string_view operation = operationOf(op);
  if (operation.empty()) return invalid(400, "Unknown op");
  const Value* pathValue = body.find("path");
  if (!pathValue || !pathValue->isString() || pathValue->asString().empty()) return invalid(400, "path is required");
  const std::string& path = pathValue->asString();
  const Value* newPathValue = body.find("newPath");
  if ((op == "rename" || op == "move") &&
      (!newPathValue || !newPathValue->isString() || newPathValue->asString().empty()))
    return invalid(400, "newPath is required for " + op);
  const Value* encodingValue = body.find("encoding");
  std::string encoding = "utf-8";
  if (encodingValue) {
    if (!encodingValue->isString() || (encodingValue->asString() != "utf-8" && encodingValue->asString() != "base64"))
      return invalid(400, "encoding must be utf-8 or base64");
    encoding = encodingValue->asString();
  }
  const bool recursive = truthy(body.find("recursive"));

  Files& tree = owner_.files_;
  std::string normalized;
  FileError err;
  auto failed = [&]() -> const Action& {
    std::string code = server::errnoCode(err.errnoName);
    if (op == "mkdir" && err.errnoName != "EACCES" && err.errnoName != "ENOSPC") code = "FILESYSTEM_ERROR";
    std::string context;
    Writer w(context);
    w.beginObject();
    w.key("path").string(path);
    w.key("operation").string(operation);
    w.key("errno").string(err.errnoName);
    if (err.errnoName == "EFBIG") {
      w.key("maxSize").number(double(err.maxSize));
      w.key("actualSize").number(double(err.actualSize));
    }
    w.endObject();
    return respond(server::errorResponse(owner_.clock_, server::codeStatus(code), code, err.message, context, operation));
  };
  std::string out;
  Writer w(out);
  auto succeed = [&](Changes* changes) -> const Action& {
    if (changes && !changes->empty()) owner_.sql_.transaction([&] { owner_.persist(*changes); });
    owner_.touch();
    w.key("timestamp").string(owner_.nowIso());
    w.endObject();
    return respond(http::Response::json(200, std::move(out)));
  };
  w.beginObject();
  w.key("success").boolean(true);

  if (op == "read") {
    std::string bytes;
    if (!tree.read(path, normalized, bytes, err)) return failed();
    const bool binary = isBinary(bytes);
    w.key("path").string(normalized);
    if (encoding == "base64") w.key("content").string(base64Encode(bytes));
    else w.key("content").string(decodeLossy(bytes));
    w.key("encoding").string(encoding);
    w.key("isBinary").boolean(binary);
    w.key("mimeType").string(mimeTypeOf(normalized, binary));
    w.key("size").number(double(bytes.size()));
    return succeed(nullptr);
  }
  if (op == "write") {
    const Value* content = body.find("content");
    if (content && !content->isString()) return invalid(400, "content must be a string");
    std::string bytes;
    if (content) {
      if (encoding == "base64") {
        if (!base64Decode(content->asString(), bytes)) {
          err.errnoName = "EINVAL";
          err.message = "Invalid base64 content";
          return failed();
        }
      } else {
        bytes = toUtf8(content->asString());
      }
    }
    Changes changes;
    if (!tree.write(path, bytes, owner_.now(), normalized, changes, err)) return failed();
    w.key("path").string(normalized);
    return succeed(&changes);
  }
  if (op == "mkdir") {
    Changes changes;
    if (!tree.mkdir(path, recursive, normalized, changes, err)) return failed();
    w.key("path").string(normalized);
    w.key("recursive").boolean(recursive);
    return succeed(&changes);
  }
  if (op == "delete") {
    Changes changes;
    if (!tree.remove(path, recursive, truthy(body.find("force")), normalized, changes, err)) return failed();
    w.key("path").string(normalized);
    return succeed(&changes);
  }
  if (op == "rename" || op == "move") {
    Changes changes;
    std::string newNormalized;
    if (!tree.rename(path, newPathValue->asString(), normalized, newNormalized, changes, err)) return failed();
    w.key("path").string(normalized);
    w.key("newPath").string(newNormalized);
    return succeed(&changes);
  }
  if (op == "list") {
    std::vector<ListEntry> entries;
    if (!tree.list(path, recursive, truthy(body.find("includeHidden")), normalized, entries, err)) return failed();
    w.key("path").string(normalized);
    w.key("files").beginArray();
    for (const auto& e : entries) {
      w.beginObject();
      w.key("name").string(e.name);
      w.key("absolutePath").string(e.absolutePath);
      w.key("relativePath").string(e.relativePath);
      w.key("type").string(e.directory ? "directory" : "file");
      w.key("size").number(e.directory ? 0 : double(e.size));
      w.key("modifiedAt").string(e.directory ? owner_.meta_->createdAt : server::isoTime(int64_t(e.updatedAt)));
      w.key("mode").string(e.directory ? "drwxr-xr-x" : "-rw-r--r--");
      w.key("permissions").beginObject();
      w.key("readable").boolean(true);
      w.key("writable").boolean(true);
      w.key("executable").boolean(e.directory);
      w.endObject();
      w.endObject();
    }
    w.endArray();
    w.key("count").number(double(entries.size()));
    return succeed(nullptr);
  }
  // exists: never fails; the path is normalized where it can be.
  workspace::Error normErr;
  if (!workspace::normalizePath("/workspace", path, normalized, normErr)) normalized = path;
  w.key("path").string(normalized);
  w.key("exists").boolean(tree.exists(path));
  return succeed(nullptr);
}

}  // namespace sw::sandbox
