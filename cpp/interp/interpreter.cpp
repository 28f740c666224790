#include "interpreter.h"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <limits>
#include <map>

#include "../json/json.h"
#include "../snapshot/snapshot.h"

namespace sw::interp {

namespace {

constexpr std::size_t kMaxIdUnits = 128;
// A restoreError message is the engine's text too: bounded like an outcome's error message.
constexpr std::size_t kMaxRestoreMessageUnits = 1024;

// A round's snapshot would store more than INTERPRETER_MAX_SNAPSHOT_BYTES: thrown inside the snapshot's transaction,
// so its rows roll back; the round then counts as one that could not be snapshotted (the record goes stale).
struct SnapshotOverCap : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Why a restore did not happen (docs/snapshots.md): its code and message go into the round's result.
struct RestoreFailure : std::runtime_error {
  RestoreFailure(std::string c, const std::string& message) : std::runtime_error(message), code(std::move(c)) {}
  std::string code;
};

using json::member;
using json::numberOr;
using json::stringOr;
using json::Value;
using json::Writer;

bool parseU64(std::string_view s, uint64_t& out) {
  if (s.empty() || s.size() > 20) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    uint64_t d = uint64_t(c - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - d) / 10) return false;
    v = v * 10 + d;
  }
  out = v;
  return true;
}

}  // namespace

double parseMaxSnapshotBytes(std::optional<std::string_view> value) {
  if (!value || value->empty()) return 0;
  auto n = server::jsNumber(*value);
  if (!n || !std::isfinite(*n) || *n <= 0) return 0;
  return *n;
}

double parseEngineWait(std::optional<std::string_view> value) {
  if (!value || value->empty()) return kDefaultEngineWaitMs;
  auto n = server::jsNumber(*value);
  if (!n || !std::isfinite(*n) || *n <= 0) return kDefaultEngineWaitMs;
  return *n;
}

// --- records -----------------------------------------------------------------------------------------------------

// The snapshot record of protocol §4.5, in our storage format (docs/snapshots.md): the rows of the context are
// cpp/snapshot segments (compressed 4 KiB blocks), described by the manifest string stored here.
struct Interpreter::SnapshotRecord {
  std::string build;
  uint32_t memoryPages = 0;
  uint32_t pageCount = 0;
  uint32_t chunkCount = 0;   // rows (segments) stored for the context
  double storedBytes = 0;    // their total length
  std::string handle = "0";  // decimal: JSON cannot carry a 64-bit integer
  std::string extraJson = "{}";
  double takenAt = 0;
  bool stale = false;
  std::string manifest;      // snapshot::Manifest::encode(); empty = not restorable (another format)
  // The manifest's format (snapshot::Manifest::format): 1 every non-zero block, 2 relative to the engine's boot image.
  uint32_t format = snapshot::kManifestFormatAbsolute;
  // `check`: hash64 of every field a restore uses (checkText), so a damaged or edited context row is refused like a
  // damaged chunk row. `verified`: read() found every field well-formed and the check matching (or this record was
  // just taken); only a verified record is restored, and an unverified one keeps its stored check when rewritten.
  std::string check;
  bool verified = true;

  std::string checkText() const {
    return build + '\n' + std::to_string(memoryPages) + '\n' + std::to_string(pageCount) + '\n' +
           std::to_string(chunkCount) + '\n' + json::formatNumber(storedBytes) + '\n' + handle + '\n' + extraJson +
           '\n' + manifest;
  }
  std::string computeCheck() const {
    const std::string text = checkText();
    const uint64_t h = snapshot::hash64(reinterpret_cast<const uint8_t*>(text.data()), text.size(), kRecordSeed);
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
  }
  static constexpr uint64_t kRecordSeed = 0x5357524543524431ull;  // "SWRECRD1"

  void write(Writer& w) const {
    w.beginObject();
    w.key("build").string(build);
    w.key("memoryPages").integer(memoryPages);
    w.key("pageCount").integer(pageCount);
    w.key("bytes").number(double(pageCount) * snapshot::kPageBytes);
    w.key("chunkCount").integer(chunkCount);
    w.key("storedBytes").number(storedBytes);
    w.key("handle").string(handle);
    w.key("extra").raw(extraJson);
    w.key("takenAt").number(takenAt);
    w.key("stale").boolean(stale);
    w.key("format").integer(format);
    w.key("manifest").string(manifest);
    w.key("check").string(verified ? computeCheck() : check);
    w.endObject();
  }
  // SnapshotInfo (protocol §2.7); storedBytes is what the rows really hold (compressed), see docs/snapshots.md.
  void writeInfo(Writer& w) const {
    w.beginObject();
    w.key("build").string(build);
    w.key("pages").integer(pageCount);
    w.key("bytes").number(double(pageCount) * snapshot::kPageBytes);
    w.key("storedBytes").number(storedBytes);
    w.key("takenAt").number(takenAt);
    w.key("stale").boolean(stale);
    w.endObject();
  }
  static std::optional<SnapshotRecord> read(const Value& v) {
    if (!v.isObject()) return std::nullopt;
    SnapshotRecord r;
    bool ok = true;
    auto integer = [&](const char* key, uint32_t max) -> uint32_t {
      const Value* n = member(v, key);
      if (!n || !n->isNumber() || !(n->asNumber() >= 0) || n->asNumber() > max ||
          n->asNumber() != std::floor(n->asNumber())) {
        ok = false;
        return 0;
      }
      return uint32_t(n->asNumber());
    };
    const Value* build = member(v, "build");
    ok = ok && build && build->isString();
    r.build = stringOr(build, "");
    r.memoryPages = integer("memoryPages", snapshot::kMaxPages);
    r.pageCount = integer("pageCount", r.memoryPages);
    r.chunkCount = integer("chunkCount", UINT32_MAX);
    const Value* stored = member(v, "storedBytes");
    ok = ok && stored && stored->isNumber() && stored->asNumber() >= 0;
    r.storedBytes = numberOr(stored, 0);
    // Any u64 in canonical decimal: the handle is the engine's (protocol §4.5), 0 and 2^64-1 included. What a handle
    // must point at is the engine's business, checked by its restore (a built-in engine's, cpp/core/sessions.cpp).
    const Value* handle = member(v, "handle");
    uint64_t handleValue = 0;
    ok = ok && handle && handle->isString() && parseU64(handle->asString(), handleValue) &&
         std::to_string(handleValue) == handle->asString();
    r.handle = stringOr(handle, "0");
    const Value* e = member(v, "extra");
    ok = ok && e && validExtra(*e);
    if (e && e->isObject()) r.extraJson = json::stringify(*e);
    r.takenAt = numberOr(member(v, "takenAt"), 0);
    const Value* stale = member(v, "stale");
    r.stale = stale && stale->isBool() && stale->asBool();
    // A record of another format keeps its build (so it is reported) but is never restored. Format 1 records (every
    // non-zero block) are still read: written before snapshots were relative to the boot image, or without one.
    const double format = numberOr(member(v, "format"), -1);
    if (format == snapshot::kManifestFormatAbsolute || format == snapshot::kManifestFormatRelative) {
      r.format = uint32_t(format);
      r.manifest = stringOr(member(v, "manifest"), "");
    }
    r.check = stringOr(member(v, "check"), "");
    r.verified = ok && !r.manifest.empty() && r.check == r.computeCheck();
    return r;
  }
  // An object (protocol §4.5: engine-defined), at most kMaxExtraBytes as JSON. Its "globals" member, when present, is
  // what the built-in engines restore from (Session::extraJson): {name: integer or decimal string}. Other members
  // belong to an Engine written in JavaScript (its snapshot().extra), handed back to its restore as they were.
  static constexpr std::size_t kMaxExtraBytes = 65536;
  static bool validExtra(const Value& e) {
    if (!e.isObject() || json::stringify(e).size() > kMaxExtraBytes) return false;
    for (const auto& [key, value] : e.members()) {
      if (key != "globals") continue;
      if (!value.isObject() || value.members().size() > 64) return false;
      for (const auto& [name, g] : value.members()) {
        if (name.empty()) return false;
        if (g.isNumber() ? !std::isfinite(g.asNumber()) : !g.isString()) return false;
        if (g.isString()) {
          std::string_view t = g.asString();
          if (!t.empty() && t.front() == '-') t.remove_prefix(1);
          uint64_t ignored;
          if (!parseU64(t, ignored)) return false;
        }
      }
    }
    return true;
  }
};

struct Interpreter::Context : durable::ContextRow {
  std::optional<SnapshotRecord> snapshot;
  // Not stored: the row (or its snapshot member) could not be read, so whatever state it held is lost.
  bool damaged = false;

  std::string toJson() const {
    std::string out;
    Writer w(out);
    w.beginObject();
    w.key("id").string(id);
    w.key("cwd").string(cwd);
    writeUsage(w);
    w.key("snapshot");
    if (snapshot) snapshot->write(w);
    else w.null();
    w.endObject();
    return out;
  }
  static std::optional<Context> fromJson(std::string_view text) { return read<Context>(text); }
  bool readOwn(const Value& v) {
    if (const Value* s = member(v, "snapshot"); s && !s->isNull()) {
      snapshot = SnapshotRecord::read(*s);
      damaged = !snapshot;
    }
    return true;
  }
};

// An execute waiting for the caller's getFiles answer.
struct Interpreter::Pending {
  Context context;
  std::string code;
  std::string envJson;
  std::vector<std::string> dirs;
  std::vector<std::pair<std::string, std::string>> manifest;
  std::vector<std::string> requested;  // sorted
  // The round in progress (run() on): where it waits, and what it carries across an AwaitEngine step.
  enum Phase : int { kFiles, kOpening, kExecuting };
  int phase = kFiles;
  double started = 0;
  std::optional<workspace::Mirror::Checkpoint> checkpoint;
  std::unique_ptr<Session> opening;  // kOpening: the instance being booted or restored
  bool restoring = false;            // ... by a restore (a failure boots fresh) rather than a boot
  snapshot::Tracker restoredTracker;
  double restoreStarted = 0;
  // This round's state was not restored (docs/snapshots.md "A failed restore"): the context's
  // restored:false / restoreError {code, message}. Empty code: nothing to report.
  std::string restoreCode;
  std::string restoreMessage;
};

// --- construction and storage --------------------------------------------------------------------------------------

namespace {

// The layout of protocol §4.6 (format 4). A Sandbox's rows or an older format's are wiped, never migrated (§10.4 item
// 104).
durable::Layout interpreterLayout() {
  durable::Layout layout;
  layout.metaKey = "interpreter";
  layout.format = kStorageFormat;
  layout.ownTables = {
      "CREATE TABLE IF NOT EXISTS chunks (context_id TEXT, chunk INTEGER, data BLOB, PRIMARY KEY (context_id, chunk)) "
      "WITHOUT ROWID"};
  layout.foreignTables = {"files", "pages"};
  layout.foreignMetaKeys = {"sandbox", "session"};
  return layout;
}

}  // namespace

Interpreter::Interpreter(const server::EngineInfo& engine, Sql& sql, Alarm& alarm, SessionFactory& sessions,
                         server::Clock& clock, double idleTtlMs, double armedAlarm)
    : durable::Object(sql, alarm, clock, interpreterLayout(), idleTtlMs, armedAlarm), engine_(engine),
      sessions_(sessions) {
  metaJson_ = openStorage();
}

Interpreter::~Interpreter() = default;

void Interpreter::wipe() {
  dropResident();
  pending_.reset();
  wipeStorageAndAlarm();
  metaJson_.clear();
  mirror_.clear();
}

void Interpreter::ensureMeta(std::string_view key) {
  if (!metaJson_.empty()) return;
  const std::string at = server::isoTime(clock_.epochMs());
  std::string out;
  Writer w(out);
  w.beginObject();
  w.key("format").integer(kStorageFormat);
  w.key("key").string(key);
  w.key("build").string(engine_.build);
  w.key("createdAt").string(at);
  w.key("lastUsed").string(at);
  w.key("lifetime").string(randomUuid());
  w.endObject();
  metaJson_ = std::move(out);
  writeMeta();
}

void Interpreter::writeMeta() { writeMetaRow(metaJson_); }

std::optional<Interpreter::Context> Interpreter::loadContext(std::string_view id) {
  std::vector<SqlRow> rows;
  sql_.exec("SELECT value FROM contexts WHERE id = ?", {SqlArg::text(id)}, &rows);
  if (rows.empty()) return std::nullopt;
  std::optional<Context> c;
  if (!rows[0].empty() && rows[0][0].type == SqlValue::Type::Text) c = Context::fromJson(rows[0][0].bytes);
  if (!c) {
    // The row exists but its value is damaged (truncated, not JSON, not an object): the context still exists -- it
    // is not 404, and its id is not stuck counting toward the cap -- and it boots fresh, like an unusable snapshot.
    c.emplace();
    c->createdAt = server::isoTime(clock_.epochMs());
    c->lastUsed = c->createdAt;
    c->damaged = true;
  }
  c->id = std::string(id);
  return c;
}

std::size_t Interpreter::contextCount() {
  std::vector<SqlRow> rows;
  sql_.exec("SELECT COUNT(*) FROM contexts", {}, &rows);
  return rows.empty() || rows[0].empty() ? 0 : std::size_t(rows[0][0].number);
}

void Interpreter::saveContext(const Context& c) { saveContextRow(c.id, c.toJson()); }

void Interpreter::deleteContextRows(std::string_view id) {
  deleteContextRow(id);
  sql_.exec("DELETE FROM chunks WHERE context_id = ?", {SqlArg::text(id)});
}

void Interpreter::recordLastUsed(const std::string& iso) {
  if (metaJson_.empty()) return;
  auto parsed = json::parseCopy(metaJson_);
  if (parsed.ok() && parsed.value.isObject()) {
    parsed.value.set("lastUsed", Value::string(iso));
    metaJson_ = json::stringify(parsed.value);
    writeMeta();
  }
}

void Interpreter::alarm() {
  std::optional<std::string> lastUsed;  // a damaged or missing lastUsed ("") counts as long past
  if (!metaJson_.empty()) {
    auto parsed = json::parseCopy(metaJson_);
    lastUsed = stringOr(parsed.ok() ? member(parsed.value, "lastUsed") : nullptr, "");
  }
  if (alarmExpired(lastUsed)) wipe();
}

// --- HTTP ------------------------------------------------------------------------------------------------------------

const server::Action& Interpreter::HttpExchange::start(const http::RequestHead& head) {
  auto key = head.header("x-interpreter-key");
  if (auto invalid = server::checkInterpreterKey(key.value_or("")))  // absent is empty, which is invalid
    return error(invalid->status, "VALIDATION_FAILED", invalid->message);
  key_ = std::string(*key);
  const std::string path = http::urlPath(head.url);
  if (head.method == "DELETE" && path == "/") {
    owner_.wipe();
    return respond(http::Response::json(200, R"({"success":true})"));
  }
  if (head.method == "POST" && path == "/contexts") return readBody(head, server::kRequestBodyLimit);
  if (auto deleted = durable::deletedContextId(head, path)) {
    const std::string& id = *deleted;
    if (server::isDotSegment(id)) return error(400, "VALIDATION_FAILED", server::kDotSegmentIdMessage);
    owner_.ensureMeta(key_);
    if (!owner_.loadContext(id)) return respond(durable::contextNotFound(clock_, id));
    if (owner_.residentContext_ == id) owner_.dropResident();
    owner_.sql_.transaction([&] { owner_.deleteContextRows(id); });
    owner_.touch();
    return respond(http::Response::json(200, R"({"success":true})"));
  }
  return error(404, "VALIDATION_FAILED", "Not found");
}

const server::Action& Interpreter::HttpExchange::bodyFailed() {
  if (action_.kind != server::ActionKind::ReadBody) return fail();
  return error(400, "VALIDATION_FAILED", "Invalid JSON");
}

const server::Action& Interpreter::HttpExchange::bodyReceived(std::size_t n) {
  if (action_.kind != server::ActionKind::ReadBody) return fail();
  auto parsed = bodyObject(n);
  if (!parsed) return action_;
  const Value& body = *parsed;
  const Value* id = body.find("id");
  if (!id || !id->isString() || id->asString().empty() || json::utf16Length(id->asString()) > kMaxIdUnits)
    return error(400, "VALIDATION_FAILED", "id must be a non-empty string of at most 128 characters");
  // Such a context could never be deleted by URL (DELETE /contexts/.. is DELETE / once normalized).
  if (server::isDotSegment(id->asString())) return error(400, "VALIDATION_FAILED", server::kDotSegmentIdMessage);
  std::string cwd;
  if (auto message = durable::readContextCwd(body, cwd)) return error(400, "VALIDATION_FAILED", *message);
  owner_.ensureMeta(key_);
  if (owner_.contextCount() >= durable::kMaxContexts)
    return error(400, "VALIDATION_FAILED", durable::kTooManyContextsMessage);
  if (owner_.loadContext(id->asString()))
    return error(400, "VALIDATION_FAILED", "Code context '" + id->asString() + "' already exists");
  Context ctx;
  ctx.id = id->asString();
  ctx.cwd = cwd;
  ctx.createdAt = owner_.nowIso();
  ctx.lastUsed = ctx.createdAt;
  owner_.saveContext(ctx);
  owner_.touch();
  std::string out;
  Writer w(out);
  w.beginObject();
  w.key("id").string(ctx.id);
  w.key("cwd").string(ctx.cwd);
  w.key("createdAt").string(ctx.createdAt);
  w.endObject();
  return respond(http::Response::json(201, std::move(out)));
}

// --- executeInContext ------------------------------------------------------------------------------------------------

Step Interpreter::failure(int status, std::string_view code, std::string_view message, std::string_view context) {
  return failure(server::errorResponse(clock_, status, code, message, context));
}

Step Interpreter::failure(const http::Response& error) {
  pending_.reset();
  Step s;
  s.json = server::rpcErrorJson(error);
  return s;
}

Step Interpreter::internalFailure() { return failure(server::internalErrorResponse(clock_)); }

Step Interpreter::workspaceFailure(const workspace::Error& err) {
  const std::string code = server::errnoCode(err.errnoName);
  return failure(server::codeStatus(code), code, err.message, "{\"errno\":" + json::quote(err.errnoName) + "}");
}

Step Interpreter::executeStart(std::string_view key, std::string_view argsJson) {
  pending_.reset();
  counters_ = {};
  if (auto invalid = server::checkInterpreterKey(key))
    return failure(invalid->status, "VALIDATION_FAILED", invalid->message);
  // Before anything is parsed (docs/limits.md).
  if (argsJson.size() > server::kMaxRpcArgsBytes) return failure(413, "VALIDATION_FAILED", "Request too large");
  ensureMeta(key);

  auto parsed = json::parseCopy(argsJson.empty() ? std::string_view("null") : argsJson);
  static const Value kEmpty = Value::object();
  const Value& args = parsed.ok() && parsed.value.isObject() ? parsed.value : kEmpty;

  const Value* code = args.find("code");
  if (auto invalid = server::checkCode(code, engine_.limits))
    return failure(invalid->status, "VALIDATION_FAILED", invalid->message);

  std::string envJson = "{}";
  if (const Value* env = args.find("envVars")) {
    if (auto invalid = server::readEnvVars(*env, server::EnvVarsRule::Context, envJson))
      return failure(invalid->status, "VALIDATION_FAILED", invalid->message);
  }

  const Value* contextId = args.find("contextId");
  if (!contextId || !contextId->isString() || contextId->asString().empty())
    return failure(400, "VALIDATION_FAILED", "contextId must be a non-empty string");
  if (server::isDotSegment(contextId->asString()))
    return failure(400, "VALIDATION_FAILED", server::kDotSegmentIdMessage);

  const Value* ws = args.find("workspace");
  if (!ws || !ws->isObject()) return failure(400, "VALIDATION_FAILED", "workspace is required");
  const Value* dirs = ws->find("dirs");
  bool dirsOk = dirs && dirs->isArray();
  if (dirsOk)
    for (const auto& d : dirs->items()) dirsOk = dirsOk && d.isString();
  if (!dirsOk) return failure(400, "VALIDATION_FAILED", "workspace.dirs must be an array of strings");
  const Value* manifest = ws->find("manifest");
  if (!manifest || !manifest->isObject())
    return failure(400, "VALIDATION_FAILED", "workspace.manifest must be an object");
  for (const auto& [k, v] : manifest->members())
    if (!v.isString())
      return failure(400, "VALIDATION_FAILED", "workspace.manifest must map string paths to string hashes");
  const Value* disabled = ws->find("disabled");
  if (disabled && !disabled->isBool()) return failure(400, "VALIDATION_FAILED", "workspace.disabled must be a boolean");
  // Every limit of the manifest, here and only here: invalid input is the caller's 400, never a 500 from deep inside
  // reconciliation, and nothing of it reaches the mirror.
  std::vector<std::string> dirList;
  dirList.reserve(dirs->items().size());
  for (const auto& d : dirs->items()) dirList.push_back(d.asString());
  std::vector<std::pair<std::string, std::string>> manifestList;
  manifestList.reserve(manifest->members().size());
  for (const auto& [k, v] : manifest->members()) manifestList.emplace_back(k, v.asString());
  if (auto invalid = workspace::checkManifest(dirList, manifestList, mirror_.workspace()->limits()))
    return failure(400, "VALIDATION_FAILED", *invalid);

  auto ctx = loadContext(contextId->asString());
  if (!ctx) return failure(durable::contextNotFound(clock_, contextId->asString()));

  mirror_.setDisabled(disabled && disabled->asBool());

  pending_ = std::make_unique<Pending>();
  pending_->context = std::move(*ctx);
  pending_->code = code->asString();
  pending_->envJson = std::move(envJson);
  pending_->dirs = std::move(dirList);
  pending_->manifest = std::move(manifestList);
  return reconcileAndRun({}, false);
}

Step Interpreter::reconcileAndRun(std::vector<workspace::File> files, bool secondPass) {
  std::vector<std::string> missing;
  workspace::Error err;
  if (!mirror_.reconcile(pending_->dirs, pending_->manifest, std::move(files), missing, err))
    return workspaceFailure(err);
  if (!missing.empty()) {
    if (secondPass) {
      return failure(500, "INTERNAL_ERROR",
                     "Sandbox did not provide " + std::to_string(missing.size()) + " workspace file(s)");
    }
    Step s;
    s.kind = Step::Kind::NeedFiles;
    std::string out;
    Writer w(out);
    w.beginArray();
    for (const auto& p : missing) w.string(p);
    w.endArray();
    s.pathsJson = std::move(out);
    pending_->requested = std::move(missing);
    std::sort(pending_->requested.begin(), pending_->requested.end());
    return s;
  }
  return run();
}

Step Interpreter::executeFiles(bool isArray, std::vector<PulledEntry> entries) {
  if (!pending_ || pending_->requested.empty()) return internalFailure();
  if (!isArray) return failure(500, "INTERNAL_ERROR", "Sandbox returned an invalid workspace file list");
  std::vector<workspace::File> files;
  files.reserve(entries.size());
  for (auto& e : entries) {
    const bool requested =
        e.pathIsString && std::binary_search(pending_->requested.begin(), pending_->requested.end(), e.path);
    if (!e.isObject || !e.pathIsString || !e.dataIsBytes || !e.updatedAtIsNumber || !requested)
      return failure(500, "INTERNAL_ERROR", "Sandbox returned an invalid workspace file entry");
    files.push_back(workspace::File{std::move(e.path), std::move(e.data), e.updatedAt});
  }
  return reconcileAndRun(std::move(files), true);
}

Step Interpreter::executeFilesFailed() { return internalFailure(); }

Step Interpreter::executeFilesTooLarge() {
  if (!pending_) return internalFailure();
  return workspaceFailure({"ENOSPC", "Workspace exceeds " +
                                         std::to_string(mirror_.workspace()->limits().maxTotalBytes / 1048576) +
                                         " MiB total"});
}

void Interpreter::dropResident() {
  resident_.reset();
  residentContext_.clear();
  tracker_ = snapshot::Tracker{};
}

Step Interpreter::run() {
  Context& ctx = pending_->context;
  pending_->started = clock_.monotonicMs();
  pending_->checkpoint = mirror_.checkpoint();

  // 2. the instance (protocol §4.4). A resident still waiting for an engine promise belongs to a call that was abandoned
  // (its promise never settled): it cannot be trusted, so it is dropped like an invalid one.
  if (resident_ && residentContext_ == ctx.id && !resident_->invalid() && !resident_->pending()) return execute();
  dropResident();
  // Any failure of a restore -- a damaged row, a storage error, an allocation failure, the engine's restore throwing
  // or its promise rejecting -- boots fresh: a snapshot that cannot be restored must never fail every later call. It
  // is never silent either: the round reports why (restoreFailed).
  if (ctx.snapshot && ctx.snapshot->build != engine_.build) {
    restoreFailed("BUILD_CHANGED", "The snapshot was taken under engine build '" + ctx.snapshot->build +
                                       "'; this runtime runs build '" + engine_.build + "'");
  } else if (ctx.snapshot && !ctx.snapshot->verified) {
    restoreFailed("SNAPSHOT_DAMAGED", "The stored snapshot record is damaged or of another storage format");
  } else if (ctx.snapshot) {
    std::unique_ptr<Session> restored;
    try {
      restored = startRestore(ctx);
    } catch (const RestoreFailure& e) {
      restoreFailed(e.code, e.what());
    } catch (const std::exception& e) {
      restoreFailed("RESTORE_FAILED", std::string("The engine could not restore the snapshot: ") + e.what());
    } catch (...) {
      restoreFailed("RESTORE_FAILED", "The engine could not restore the snapshot (host error)");
    }
    if (restored) return openResident(std::move(restored), true);
  } else if (ctx.damaged) {
    restoreFailed("SNAPSHOT_DAMAGED", "The context's stored record is damaged");
  }
  return bootFresh();
}

// Reported in this round's result (context.restored/restoreError) and as one log line: the caller learns its globals
// are gone instead of reading a result computed on fresh state as if nothing happened.
void Interpreter::restoreFailed(std::string_view code, std::string message) {
  message = json::truncateUtf16(message, kMaxRestoreMessageUnits);
  std::fprintf(stderr, "[sandbox-workers] context %s: state not restored, booted fresh (%.*s): %s\n",
               json::quote(pending_->context.id).c_str(), int(code.size()), code.data(), message.c_str());
  pending_->restoreCode = std::string(code);
  pending_->restoreMessage = std::move(message);
}

Step Interpreter::bootFresh() {
  Context& ctx = pending_->context;
  std::unique_ptr<Session> session;
  try {
    session = sessions_.boot(mirror_.workspace(), ctx.cwd);
    // Another build's image, an unusable one, or rows of a record that could not even be read are discarded, never
    // restored: rows left behind would be unknown rows to the next restore, which would then fail too. Only once the
    // fresh instance exists: an engine that cannot start at all (a module without data segments that lost its boot
    // image) keeps the context's snapshot for when it can.
    if (session) {
      sql_.exec("DELETE FROM chunks WHERE context_id = ?", {SqlArg::text(ctx.id)});
      ctx.snapshot.reset();
    }
  } catch (...) {
    return openFailed();
  }
  if (!session) return openFailed();
  return openResident(std::move(session), false);
}

Step Interpreter::openResident(std::unique_ptr<Session> session, bool restoring) {
  pending_->opening = std::move(session);
  pending_->restoring = restoring;
  if (pending_->opening->pending()) return awaitEngine(*pending_->opening, Pending::kOpening);
  return afterOpen();
}

// The boot or restore answered (at once, or its promise settled).
Step Interpreter::afterOpen() {
  std::unique_ptr<Session> session = std::move(pending_->opening);
  const bool restoring = pending_->restoring;
  pending_->phase = Pending::kFiles;
  try {
    session->finishOpen();
  } catch (const std::exception& e) {
    session.reset();
    if (!restoring) return openFailed();
    restoreFailed("RESTORE_FAILED", std::string("The engine could not restore the snapshot: ") + e.what());
    return bootFresh();
  } catch (...) {
    session.reset();
    if (!restoring) return openFailed();
    restoreFailed("RESTORE_FAILED", "The engine could not restore the snapshot (host error)");
    return bootFresh();
  }
  resident_ = std::move(session);
  residentContext_ = pending_->context.id;
  if (restoring) {
    tracker_ = std::move(pending_->restoredTracker);
    counters_.restored = true;
    counters_.restoreMs = clock_.monotonicMs() - pending_->restoreStarted;
  } else {
    tracker_ = snapshot::Tracker{};
    counters_.booted = true;
  }
  return execute();
}

Step Interpreter::openFailed() {
  dropResident();
  if (pending_ && pending_->checkpoint) mirror_.rollback(*pending_->checkpoint);
  return internalFailure();
}

Step Interpreter::awaitEngine(const Session& session, int phase) {
  pending_->phase = phase;
  Step s;
  s.kind = Step::Kind::AwaitEngine;
  Writer w(s.json);
  w.beginObject();
  w.key("session").number(double(session.awaitId()));
  w.key("waitMs").number(engineWaitMs_);
  w.endObject();
  return s;
}

namespace {

// Step 4's reading of a call that threw (protocol §4.4): the failed outcome, true; false when `call` answered.
template <typename F>
bool executeGuarded(F&& call, SessionOutcome& outcome) {
  try {
    call();
    return false;
  } catch (const SessionLimitThrow& e) {
    outcome.outcomeJson = server::failedOutcomeJson("ExecutionLimitError", e.what());
  } catch (const std::runtime_error& e) {
    // The engine's failure as the session reports it (a trap, a missing export, an engine error message).
    outcome.outcomeJson = server::failedOutcomeJson("EngineError", e.what());
  } catch (const std::exception&) {
    // A host failure (std::bad_alloc, ...): its text is internal, never the caller's business.
    outcome.outcomeJson = server::failedOutcomeJson("EngineError", "The engine failed (host error)");
  }
  outcome.cwd.clear();
  return true;
}

}  // namespace

// 4. execute
Step Interpreter::execute() {
  SessionOutcome outcome;
  bool awaiting = false;
  const bool threw = executeGuarded(
      [&] {
        outcome = resident_->execute(pending_->code, pending_->envJson);
        awaiting = resident_->pending();
      },
      outcome);
  if (!threw && awaiting) return awaitEngine(*resident_, Pending::kExecuting);
  return finishRound(std::move(outcome), threw);
}

Step Interpreter::executeResume() {
  if (!pending_) return internalFailure();
  if (pending_->phase == Pending::kOpening && pending_->opening) return afterOpen();
  if (pending_->phase != Pending::kExecuting || !resident_) return internalFailure();
  pending_->phase = Pending::kFiles;
  SessionOutcome outcome;
  const bool threw = executeGuarded([&] { outcome = resident_->finishExecute(); }, outcome);
  return finishRound(std::move(outcome), threw);
}

Step Interpreter::executeAbandon() {
  if (!pending_) return internalFailure();
  const std::string message = "The engine's promise did not settle within " +
                              std::to_string(uint64_t(engineWaitMs_)) + " ms";
  if (pending_->phase == Pending::kOpening && pending_->opening) {
    pending_->opening.reset();  // closed: whatever it settles to later is closed too
    pending_->phase = Pending::kFiles;
    if (!pending_->restoring) return openFailed();
    restoreFailed("RESTORE_FAILED", "The engine's restore did not settle within " +
                                        std::to_string(uint64_t(engineWaitMs_)) + " ms");
    return bootFresh();
  }
  if (pending_->phase != Pending::kExecuting || !resident_) return internalFailure();
  pending_->phase = Pending::kFiles;
  SessionOutcome outcome;
  outcome.outcomeJson = server::failedOutcomeJson("EngineError", message);
  return finishRound(std::move(outcome), true);
}

Step Interpreter::finishRound(SessionOutcome outcome, bool threw) {
  Context& ctx = pending_->context;
  const double started = pending_->started;
  const workspace::Mirror::Checkpoint& checkpoint = *pending_->checkpoint;
  if (threw) dropResident();

  // 5. bookkeeping
  ctx.executions += 1;
  ctx.lastUsed = server::isoTime(clock_.epochMs());
  // Whatever the engine reported (a guest can forge it: Perl's driver runs in the guest), only a cwd under /workspace
  // is stored; anything else leaves the context's cwd as it was.
  if (!outcome.cwd.empty()) {
    if (auto checked = workspace::contextCwd(outcome.cwd, mirror_.workspace()->limits())) ctx.cwd = *checked;
  }

  auto parsedOutcome = json::parseCopy(outcome.outcomeJson);
  const Value* error = parsedOutcome.ok() ? member(parsedOutcome.value, "error") : nullptr;
  if (error && error->isNull()) error = nullptr;
  const bool hasError = error != nullptr || !parsedOutcome.ok();
  const Value* errorName = error ? member(*error, "name") : nullptr;
  bool limited = errorName && errorName->isString() && errorName->asString() == "ExecutionLimitError";

  // 6. the workspace diff, or the rollback
  workspace::Mirror::Diff diff;
  std::vector<std::string> dirs;
  if (hasError) {
    mirror_.rollback(checkpoint);
    dirs = mirror_.dirs();
  } else {
    diff = mirror_.diff(checkpoint);
    dirs = mirror_.dirs();
    // The changes travel in the result: bounded well under the platform's 32 MiB per RPC value (docs/limits.md).
    // Counted as they are serialized there: file bytes as bytes, a path at most 2 bytes per UTF-8 byte (a V8 string),
    // plus framing. The workspace's own limits (16 MiB of files, 1 MiB of paths, changed and deleted) keep a
    // legitimate round near 21 MiB, under this backstop.
    std::size_t size = 0;
    auto path = [&](const std::string& p) { size += 2 * p.size() + 64; };
    for (const auto& f : diff.files) size += f.data.size(), path(f.path);
    for (const auto& d : diff.deleted) path(d);
    for (const auto& d : dirs) path(d);
    if (size > server::kMaxWorkspaceChangeBytes) {
      mirror_.rollback(checkpoint);
      diff = {};
      dirs = mirror_.dirs();
      parsedOutcome = json::parseCopy(server::failedOutcomeJson(
          "ExecutionLimitError",
          "Workspace changes exceed " + std::to_string(server::kMaxWorkspaceChangeBytes / 1048576) + " MiB"));
      limited = true;
    }
  }

  // 7. an invalid instance is dropped
  if (resident_ && resident_->invalid()) dropResident();

  // 8. the snapshot decision, persisted with the context row in one transaction
  const bool live = resident_ && !limited;
  bool snapshotted = false;
  try {
    if (live && resident_->canSnapshot()) {
      const double t0 = clock_.monotonicMs();
      sql_.transaction([&] {
        takeSnapshot(ctx);
        saveContext(ctx);
      });
      tracker_ = std::move(pendingTracker_);  // committed: the rows now match the new tracker
      resident_->holds(tracker_);
      counters_.snapshotMs = clock_.monotonicMs() - t0;
      snapshotted = true;
    } else {
      if (live && ctx.snapshot && !ctx.snapshot->stale) ctx.snapshot->stale = true;
      saveContext(ctx);
    }
  } catch (const SnapshotOverCap& e) {
    // Like a round that cannot be snapshotted (an open descriptor): the rows rolled back, the resident and its tracker
    // (which still describes the stored rows) stay, the stored record goes stale, and an eviction restores it.
    std::fprintf(stderr, "[sandbox-workers] context %s: not snapshotted: %s\n", json::quote(ctx.id).c_str(), e.what());
    try {
      if (auto stored = loadContext(ctx.id)) ctx.snapshot = stored->snapshot;
      if (ctx.snapshot && !ctx.snapshot->stale) ctx.snapshot->stale = true;
      saveContext(ctx);
    } catch (...) {
      dropResident();  // storage failed too: the next call restores the last good snapshot
    }
  } catch (...) {
    // The previous snapshot is intact (the transaction rolled back); the live instance's page state no longer
    // matches storage, so it is dropped and the next call restores from the last good snapshot.
    dropResident();
    auto stored = loadContext(ctx.id);
    if (stored) ctx.snapshot = stored->snapshot;
    try {
      saveContext(ctx);
    } catch (...) {
    }
    snapshotted = false;
  }
  counters_.rowsWritten += 1;

  touch();

  // 9. the response
  std::string rest = server::assembleOutcome(parsedOutcome.ok() ? parsedOutcome.value : Value::null());
  const double durationMs = server::roundMs(clock_.monotonicMs() - started);
  Step s;
  std::string& out = s.json;
  out.reserve(rest.size() + pending_->code.size() + 512);
  Writer w(out);
  w.beginObject();
  w.key("ok").boolean(true);
  w.key("result").beginObject();
  server::writeExecutionResult(w, engine_, pending_->code, durationMs, rest);
  w.key("executionCount").number(ctx.executions);
  w.key("context").beginObject();
  w.key("id").string(ctx.id);
  w.key("cwd").string(ctx.cwd);
  w.key("executions").number(ctx.executions);
  if (snapshotted) w.key("snapshotMs").number(server::roundMs(counters_.snapshotMs));
  w.key("snapshot");
  if (ctx.snapshot) ctx.snapshot->writeInfo(w);
  else w.null();
  if (!pending_->restoreCode.empty()) {  // optional: a caller that does not know these fields ignores them
    w.key("restored").boolean(false);
    w.key("restoreError").beginObject();
    w.key("code").string(pending_->restoreCode);
    w.key("message").string(pending_->restoreMessage);
    w.endObject();
  }
  w.endObject();
  w.key("workspace").beginObject();
  w.key("dirs").beginArray();
  for (const auto& d : dirs) w.string(d);
  w.endArray();
  w.key("files").beginArray();
  for (auto& f : diff.files) {
    w.beginObject();
    w.key("path").string(f.path);
    w.key("data").null();
    w.key("updatedAt").number(f.updatedAt);
    w.endObject();
    s.files.push_back(std::move(f.data));
  }
  w.endArray();
  w.key("deleted").beginArray();
  for (const auto& d : diff.deleted) w.string(d);
  w.endArray();
  w.endObject();
  w.endObject();
  w.endObject();
  pending_.reset();
  return s;
}


// --- snapshots -------------------------------------------------------------------------------------------------------

namespace {

// One stored row of a context (its bytes into `out`); false if storage has no such row or it is not a blob.
bool selectRow(Sql& sql, const std::string& contextId, uint32_t chunk, std::string& out) {
  std::vector<SqlRow> rows;
  sql.exec("SELECT data FROM chunks WHERE context_id = ? AND chunk = ?", {SqlArg::text(contextId), SqlArg::num(chunk)},
           &rows);
  if (rows.size() != 1 || rows[0].size() != 1 || rows[0][0].type != SqlValue::Type::Blob) return false;
  out = std::move(rows[0][0].bytes);
  return true;
}

// The context's rows, inside the execute's transaction.
class RowWriter final : public snapshot::ChunkWriter {
 public:
  RowWriter(Sql& sql, std::string_view contextId, Counters& counters)
      : sql_(sql), id_(contextId), counters_(counters) {}
  bool put(uint32_t chunk, const uint8_t* data, uint32_t len) override {
    sql_.exec("INSERT INTO chunks (context_id, chunk, data) VALUES (?, ?, ?) ON CONFLICT(context_id, chunk) DO UPDATE "
              "SET data = excluded.data",
              {SqlArg::text(id_), SqlArg::num(chunk),
               SqlArg::blob(std::string_view(reinterpret_cast<const char*>(data), len))});
    counters_.chunksWritten++;
    counters_.rowsWritten++;
    counters_.bytesWritten += len;
    return true;
  }
  bool remove(uint32_t chunk) override {
    sql_.exec("DELETE FROM chunks WHERE context_id = ? AND chunk = ?", {SqlArg::text(id_), SqlArg::num(chunk)});
    counters_.chunksDeleted++;
    return true;
  }
  bool stored(uint32_t chunk, const uint8_t*& data, uint32_t& len) override {
    if (!selectRow(sql_, id_, chunk, row_)) return false;
    data = reinterpret_cast<const uint8_t*>(row_.data());
    len = uint32_t(row_.size());
    return true;
  }

 private:
  Sql& sql_;
  std::string id_;
  Counters& counters_;
  std::string row_;  // the last row stored() read
};

}  // namespace

namespace {

// The context's rows, read one statement per row: only one row is ever held (docs/snapshots.md).
class RowReader final : public snapshot::ChunkReader {
 public:
  RowReader(Sql& sql, std::string_view contextId) : sql_(sql), id_(contextId) {}
  bool list(std::vector<std::pair<uint32_t, uint32_t>>& out) override {
    std::vector<SqlRow> rows;
    sql_.exec("SELECT chunk, length(data) FROM chunks WHERE context_id = ?", {SqlArg::text(id_)}, &rows);
    for (const auto& row : rows) {
      if (row.size() < 2 || row[0].type != SqlValue::Type::Number || row[1].type != SqlValue::Type::Number ||
          !(row[0].number >= 0 && row[0].number <= UINT32_MAX) || !(row[1].number >= 0 && row[1].number <= UINT32_MAX))
        return false;
      out.emplace_back(uint32_t(row[0].number), uint32_t(row[1].number));
    }
    return true;
  }
  // restore() reads every row twice (verify all, then write). Rows stay after their first read while they total at
  // most kKeptBytes, so a snapshot that small (every context we measured: ~0.3 MiB JavaScript, ~2 MiB Python) comes
  // from storage once; a bigger one holds at most that plus the row in use.
  static constexpr std::size_t kKeptBytes = 8 * 1048576;
  bool read(uint32_t id, const uint8_t*& data, uint32_t& len) override {
    auto it = kept_.find(id);
    if (it == kept_.end()) {
      std::string bytes;
      if (!selectRow(sql_, id_, id, bytes)) return false;
      if (keptBytes_ + bytes.size() > kKeptBytes) {  // the previous rows go before this one is kept
        kept_.clear();
        keptBytes_ = 0;
      }
      keptBytes_ += bytes.size();
      it = kept_.emplace(id, std::move(bytes)).first;
    }
    data = reinterpret_cast<const uint8_t*>(it->second.data());
    len = uint32_t(it->second.size());
    return true;
  }

 private:
  Sql& sql_;
  std::string id_;
  std::map<uint32_t, std::string> kept_;
  std::size_t keptBytes_ = 0;
};

}  // namespace

// Starts a restore (protocol §4.4 step 2): the image is decoded and verified, then the engine's restore is called. The
// session it answered (possibly pending), or nullptr when the snapshot is unusable. afterOpen adopts it together with
// the tracker kept in pending_.
std::unique_ptr<Session> Interpreter::startRestore(Context& ctx) {
  const SnapshotRecord& record = *ctx.snapshot;
  pending_->restoreStarted = clock_.monotonicMs();
  snapshot::Manifest manifest;
  std::string error;
  uint64_t handle = 0;
  if (!record.verified || !snapshot::Manifest::decode(record.manifest, manifest, error) ||
      !parseU64(record.handle, handle))
    throw RestoreFailure("SNAPSHOT_DAMAGED", "The stored snapshot record is damaged" +
                                                 (error.empty() ? std::string() : ": " + error));
  // The record's own fields must agree with its manifest.
  uint64_t stored = 0;
  for (const auto& segment : manifest.segments) stored += segment.bytes;
  if (manifest.memoryPages != record.memoryPages || manifest.segments.size() != record.chunkCount ||
      double(stored) != record.storedBytes || manifest.format() != record.format)
    throw RestoreFailure("SNAPSHOT_DAMAGED", "The stored snapshot record does not match its manifest");
  // Stored relative to a boot image: only over that very image. Another one (an image rebuilt under the same engine
  // build) or none is a change of what the engine starts from, reported like a build change.
  if (const uint64_t image = sessions_.baseImage(); manifest.base && manifest.base != image) {
    char ids[64];
    std::snprintf(ids, sizeof ids, "%016llx", static_cast<unsigned long long>(manifest.base));
    std::string message = "The snapshot is stored relative to boot image " + std::string(ids) + "; this runtime's engine ";
    if (image) {
      std::snprintf(ids, sizeof ids, "%016llx", static_cast<unsigned long long>(image));
      message += "starts from boot image " + std::string(ids);
    } else {
      message += "has no boot image";
    }
    throw RestoreFailure("BUILD_CHANGED", message);
  }
  RowReader rows(sql_, ctx.id);
  snapshot::Tracker tracker;
  bool filled = false;
  auto session = sessions_.restore(
      mirror_.workspace(), ctx.cwd,
      [&](snapshot::Memory& memory) {
        filled = snapshot::restore(memory, manifest, rows, tracker, error);
        return filled;
      },
      handle, record.extraJson);
  if (!session) {
    if (!filled && !error.empty())
      throw RestoreFailure("SNAPSHOT_DAMAGED", "The stored snapshot could not be decoded: " + error);
    throw RestoreFailure("RESTORE_FAILED", "The engine could not restore the snapshot");
  }
  pending_->restoredTracker = std::move(tracker);
  return session;
}

void Interpreter::takeSnapshot(Context& ctx) {
  // Inside the transaction: a throw rolls every row back and the previous snapshot stays intact.
  RowWriter writer(sql_, ctx.id, counters_);
  snapshot::Tracker next;
  snapshot::Stats stats;
  std::string error;
  if (!snapshot::take(resident_->memory(), tracker_, next, writer, stats, error))
    throw SqlError("snapshot failed: " + error);
  counters_.blocksChanged = stats.blocksChanged;
  counters_.blocksUnwritten = stats.blocksUnwritten;
  counters_.memoryBlocks = stats.memoryPages * snapshot::kBlocksPerPage;
  if (maxSnapshotBytes_ > 0 && double(stats.storedBytes) > maxSnapshotBytes_)
    throw SnapshotOverCap("the snapshot would store " + std::to_string(stats.storedBytes) + " bytes, over " +
                          json::formatNumber(maxSnapshotBytes_));
  SnapshotRecord record;
  record.build = engine_.build;
  record.memoryPages = stats.memoryPages;
  record.pageCount = stats.pageCount;
  record.chunkCount = stats.chunkCount;
  record.storedBytes = double(stats.storedBytes);
  record.handle = std::to_string(resident_->handle());
  // Stored in its canonical form (what read() gives back), so the record's check is computed over the same text.
  auto extra = json::parseCopy(resident_->extraJson());
  if (!extra.ok() || !SnapshotRecord::validExtra(extra.value)) throw SqlError("snapshot failed: malformed extra");
  record.extraJson = json::stringify(extra.value);
  record.takenAt = now();
  record.stale = false;
  const snapshot::Manifest manifest = next.manifest();
  record.format = manifest.format();
  record.manifest = manifest.encode();
  ctx.snapshot = std::move(record);
  pendingTracker_ = std::move(next);
}

}  // namespace sw::interp
