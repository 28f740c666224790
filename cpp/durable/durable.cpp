#include "durable.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include "../workspace/workspace.h"

namespace sw::durable {

namespace {

bool listed(const std::vector<std::string_view>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

Object::Object(Sql& sql, Alarm& alarm, server::Clock& clock, Layout layout, double idleTtlMs, double armedAlarm,
               wasi::RandomSource random)
    : sql_(sql), alarm_(alarm), clock_(clock), ttlMs_(idleTtlMs), layout_(std::move(layout)), armedAlarm_(armedAlarm),
      random_(random ? std::move(random) : wasi::systemRandom()) {}

std::string Object::openStorage() {
  std::vector<SqlRow> tables;
  sql_.exec("SELECT name FROM sqlite_master WHERE type = 'table'", {}, &tables);
  bool hasMeta = false, foreign = false;
  for (const auto& row : tables) {
    if (row.empty() || row[0].type != SqlValue::Type::Text) continue;
    if (listed(layout_.foreignTables, row[0].bytes)) foreign = true;
    if (row[0].bytes == "meta") hasMeta = true;
  }
  std::string metaJson;
  if (hasMeta && !foreign) {
    std::vector<SqlRow> rows;
    sql_.exec("SELECT key, value FROM meta", {}, &rows);
    bool ownRow = false, otherRows = false;
    for (const auto& row : rows) {
      if (row.size() < 2) continue;
      const std::string& key = row[0].bytes;
      if (key != layout_.metaKey) {
        otherRows = true;
        if (listed(layout_.foreignMetaKeys, key)) foreign = true;
        continue;
      }
      ownRow = true;
      auto parsed = json::parseCopy(row[1].bytes);
      const json::Value* format = parsed.ok() ? json::member(parsed.value, "format") : nullptr;
      if (!format || !format->isNumber() || format->asNumber() != layout_.format) foreign = true;
      else metaJson = row[1].bytes;
    }
    if (layout_.foreignWithoutOwnRow && otherRows && !ownRow) foreign = true;
  }
  if (foreign) {
    wipeStorageAndAlarm();
    return "";
  }
  createTables();
  return metaJson;
}

void Object::createTables() {
  sql_.exec("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)", {});
  sql_.exec("CREATE TABLE IF NOT EXISTS contexts (id TEXT PRIMARY KEY, value TEXT)", {});
  for (std::string_view statement : layout_.ownTables) sql_.exec(statement, {});
}

void Object::wipeStorage() {
  sql_.transaction([&] {
    // Every table the Interpreter or the Sandbox ever kept, whichever this object is: storage another layout left is
    // gone too.
    for (const char* table : {"meta", "contexts", "chunks", "files", "pages"})
      sql_.exec(std::string("DROP TABLE IF EXISTS ") + table, {});
    createTables();
  });
}

void Object::wipeStorageAndAlarm() {
  wipeStorage();
  alarm_.remove();
  armedAlarm_ = std::nan("");
}

void Object::writeMetaRow(std::string_view json) {
  sql_.exec("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            {SqlArg::text(layout_.metaKey), SqlArg::text(json)});
}

void Object::saveContextRow(std::string_view id, std::string_view json) {
  sql_.exec("INSERT INTO contexts (id, value) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET value = excluded.value",
            {SqlArg::text(id), SqlArg::text(json)});
}

void Object::deleteContextRow(std::string_view id) {
  sql_.exec("DELETE FROM contexts WHERE id = ?", {SqlArg::text(id)});
}

double Object::touch(bool alwaysRecordLastUsed) {
  const double t = now();
  const IdleTouch touched = touchIdleAlarm(alarm_, ttlMs_, armedAlarm_, t);
  if (touched.rearmed || alwaysRecordLastUsed) recordLastUsed(server::isoTime(int64_t(t)));
  return touched.deadline;
}

bool Object::alarmExpired(std::optional<std::string_view> lastUsed) {
  armedAlarm_ = std::nan("");  // the alarm that fired is no longer armed
  if (!lastUsed || ttlMs_ == 0) return false;
  const double deadline = parseIsoMs(*lastUsed) + ttlMs_;
  if (deadline > now()) {
    alarm_.set(deadline);
    armedAlarm_ = deadline;
    return false;
  }
  return true;
}

std::string Object::randomUuid() {
  uint8_t b[16] = {};
  if (!random_ || !random_(b, sizeof b)) {
    // No entropy source answered: a context id must still be unique within this object, so mix the clocks in.
    const auto t = uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
    const auto e = uint64_t(clock_.epochMs());
    std::memcpy(b, &t, sizeof t);
    std::memcpy(b + 8, &e, sizeof e);
  }
  b[6] = uint8_t((b[6] & 0x0f) | 0x40);
  b[8] = uint8_t((b[8] & 0x3f) | 0x80);
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += digits[b[i] >> 4];
    out += digits[b[i] & 15];
  }
  return out;
}

std::optional<json::Value> ContextRow::parse(std::string_view text) {
  auto parsed = json::parseCopy(text);
  if (!parsed.ok() || !parsed.value.isObject()) return std::nullopt;
  return std::move(parsed.value);
}

void ContextRow::readShared(const json::Value& row) {
  id = json::stringOr(json::member(row, "id"), "");
  cwd = json::stringOr(json::member(row, "cwd"), "/workspace");
  createdAt = json::stringOr(json::member(row, "createdAt"), "");
  lastUsed = json::stringOr(json::member(row, "lastUsed"), createdAt);
  executions = json::numberOr(json::member(row, "executions"), 0);
}

void ContextRow::writeUsage(json::Writer& w) const {
  w.key("createdAt").string(createdAt);
  w.key("lastUsed").string(lastUsed);
  w.key("executions").number(executions);
}

http::Response contextNotFound(server::Clock& clock, std::string_view id) {
  return server::errorResponse(clock, 404, "CONTEXT_NOT_FOUND", "Code context '" + std::string(id) + "' not found",
                               "{\"contextId\":" + json::quote(id) + "}");
}

std::optional<std::string> deletedContextId(const http::RequestHead& head, std::string_view path) {
  constexpr std::string_view prefix = "/contexts/";
  if (head.method != "DELETE" || path.size() <= prefix.size() || path.compare(0, prefix.size(), prefix) != 0 ||
      path.find('/', prefix.size()) != std::string_view::npos)
    return std::nullopt;
  std::string id;
  if (!http::percentDecode(path.substr(prefix.size()), id)) return std::nullopt;
  return id;
}

std::optional<std::string> readContextCwd(const json::Value& body, std::string& cwd) {
  cwd = "/workspace";
  const json::Value* c = body.find("cwd");
  if (!c) return std::nullopt;
  if (!c->isString() || c->asString().empty()) return "cwd must be a non-empty string";
  workspace::Error err;
  if (!workspace::normalizePath("/workspace", c->asString(), cwd, err)) return err.message;
  return std::nullopt;
}

}  // namespace sw::durable
