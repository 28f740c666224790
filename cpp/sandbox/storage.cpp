// cpp/sandbox: the Sandbox's storage (protocol §7.10) over the Durable Object base: its layout, loading the state,
// and the rows each change writes.
#include "internal.h"

#include <algorithm>
#include <memory>

namespace sw::sandbox {

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

}  // namespace sw::sandbox
