// cpp/durable: what the Interpreter (cpp/interp, protocol §4) and the caller's Sandbox (cpp/sandbox, protocol §7) do
// the same way as Durable Objects. They differ in their rules, not in how they open their SQL storage, recognise and
// wipe another layout, keep the meta and contexts tables, touch the idle alarm, or answer an HTTP exchange; that
// shared part is here, once:
//
//   Object        the storage and the idle alarm of one Durable Object instance (its owner derives from it)
//   Exchange<A>   an HTTP exchange's answers (respond, ErrorResponse, the generic 502) and its JSON body
//   sql.h         the SQL and alarm interfaces (in the Worker: cpp/core/do_sql.cpp; natively: sqlite_native.h)
//   idle.h        the idle alarm's policy and the TTL variables
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../abi/abi.h"
#include "../http/http.h"
#include "../json/json.h"
#include "../server/server.h"
#include "../wasi/wasi.h"
#include "idle.h"
#include "sql.h"

namespace sw::durable {

// Both registries hold at most this many code contexts (protocol §4.2 for the Interpreter, §7.4 for the Sandbox).
constexpr std::size_t kMaxContexts = 8;
constexpr std::string_view kTooManyContextsMessage = "Cannot create more than 8 code contexts";

// What both registries keep of every code context (a row of `contexts`: protocol §4.2, §7.10); each adds its own
// members around these.
struct ContextRow {
  std::string id;
  std::string cwd = "/workspace";
  std::string createdAt;
  std::string lastUsed;
  double executions = 0;

  // A stored row as `Row` (derived from this, with `bool readOwn(const json::Value&)` for its own members): nullopt
  // when the text is not a JSON object or readOwn refuses it. A missing or mistyped shared member falls back
  // (lastUsed to createdAt).
  template <typename Row>
  static std::optional<Row> read(std::string_view text) {
    auto v = parse(text);
    if (!v) return std::nullopt;
    Row row;
    row.readShared(*v);
    if (!row.readOwn(*v)) return std::nullopt;
    return row;
  }
  // createdAt, lastUsed, executions: stored in this order by both layouts.
  void writeUsage(json::Writer& w) const;

 private:
  static std::optional<json::Value> parse(std::string_view text);
  void readShared(const json::Value& row);
};

// How one kind of Durable Object lays out its storage: the tables `meta` (key -> JSON) and `contexts` (id -> JSON),
// plus its own. Another layout found at start-up is wiped, never migrated (protocol §4.6, §7.10).
struct Layout {
  std::string_view metaKey;                   // its row of `meta`, whose JSON has a `format`
  int format = 0;                             // the format that row must have
  std::vector<std::string_view> ownTables;    // CREATE TABLE IF NOT EXISTS statements besides meta and contexts
  std::vector<std::string_view> foreignTables;  // a table that marks another layout
  std::vector<std::string_view> foreignMetaKeys;  // a meta row that marks another layout
  bool foreignWithoutOwnRow = false;          // meta rows but none of its own: another layout
};

// The storage and the idle alarm of one Durable Object instance. The derived object keeps its rules and its state;
// what it writes goes through these.
class Object {
 public:
  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;

 protected:
  // `armedAlarm`: the alarm the platform reports at start-up (NaN when none). `random`: null = wasi::systemRandom().
  Object(Sql& sql, Alarm& alarm, server::Clock& clock, Layout layout, double idleTtlMs, double armedAlarm,
         wasi::RandomSource random = {});
  virtual ~Object() = default;

  // Creates the tables, wiping another layout (and the alarm) first. Returns the object's meta row as stored, "" when
  // there is none (or it was just wiped).
  std::string openStorage();
  // Drops every table either kind of object has ever had, then creates this one's tables, in one transaction.
  void wipeStorage();
  // wipeStorage(), and no alarm armed.
  void wipeStorageAndAlarm();
  void writeMetaRow(std::string_view json);
  void saveContextRow(std::string_view id, std::string_view json);
  void deleteContextRow(std::string_view id);

  // protocol §4.7 "Touch" (§7.9 for the Sandbox): moves the idle alarm; when it moved (or `alwaysRecordLastUsed`),
  // recordLastUsed(now). Returns the armed deadline, NaN when expiry is disabled.
  double touch(bool alwaysRecordLastUsed = false);
  // Writes `iso` as the meta row's lastUsed, when there is a meta row.
  virtual void recordLastUsed(const std::string& iso) = 0;
  // The alarm fired (protocol §4.7, §7.9): true when the object has been idle for its TTL since `lastUsed` and is to be
  // wiped; otherwise the alarm is armed again for lastUsed + TTL when there is anything to expire (`lastUsed` nullopt:
  // nothing stored yet).
  bool alarmExpired(std::optional<std::string_view> lastUsed);

  // A random UUID (v4): context ids, the meta row's lifetime marker.
  std::string randomUuid();
  double now() const { return double(clock_.epochMs()); }
  std::string nowIso() const { return server::isoTime(clock_.epochMs()); }

  Sql& sql_;
  Alarm& alarm_;
  server::Clock& clock_;
  const double ttlMs_;

 private:
  void createTables();

  const Layout layout_;
  double armedAlarm_;  // NaN: none known
  wasi::RandomSource random_;
};

// The answer to a request for a context that is not in the registry (protocol §2.6, §7.3).
http::Response contextNotFound(server::Clock& clock, std::string_view id);

// DELETE /contexts/:id (both objects' routes): the percent-decoded id, or nullopt when the request is not that route
// (or its id does not decode).
std::optional<std::string> deletedContextId(const http::RequestHead& head, std::string_view path);

// A context's `cwd` in a create request: /workspace when absent, else normalized under /workspace; the message of the
// 400 when it is not a non-empty string or does not normalize.
std::optional<std::string> readContextCwd(const json::Value& body, std::string& cwd);

// The answers every HTTP exchange of a Durable Object gives the same way. `A` is the object's action struct; its
// Respond and ReadBody kinds are the ABI's (abi::ACTION_RESPOND, abi::ACTION_READ_BODY), so the shim reads both alike.
template <typename A>
class Exchange {
 public:
  char* bodyBuffer() { return body_.data(); }
  std::size_t bodyCapacity() const { return body_.capacity(); }
  const A& action() const { return action_; }
  // Something unexpected happened (a shim failure, or a throw out of the core): 502 INTERNAL_ERROR.
  const A& fail() { return respond(server::internalErrorResponse(clock_)); }

 protected:
  using Kind = decltype(A::kind);

  explicit Exchange(server::Clock& clock) : clock_(clock) {}
  virtual ~Exchange() = default;

  // Called once the exchange has its response (the Sandbox drops what it carried across steps).
  virtual void responded() {}

  const A& respond(http::Response r) {
    action_ = A{};
    action_.kind = Kind(abi::ACTION_RESPOND);
    action_.response = std::move(r);
    body_.release();
    responded();
    return action_;
  }
  const A& error(int status, std::string_view code, std::string_view message, std::string_view context = "{}") {
    return respond(server::errorResponse(clock_, status, code, message, context));
  }
  const A& invalid(int status, std::string_view message) { return error(status, "VALIDATION_FAILED", message); }

  // ReadBody with at most `limit` bytes; a declared Content-Length over it is 413 before anything is read.
  const A& readBody(const http::RequestHead& head, std::size_t limit) {
    if (server::declaredTooLarge(head, double(limit))) return invalid(413, "Request too large");
    action_ = A{};
    action_.kind = Kind(abi::ACTION_READ_BODY);
    action_.bodyLimit = limit;
    body_.allocate(limit);
    return action_;
  }
  // The `n` bytes read as a JSON object; nullopt once the exchange has answered 413 or 400 instead.
  std::optional<json::Value> bodyObject(std::size_t n) {
    if (body_.tooLarge(n)) return invalid(413, "Request too large"), std::nullopt;
    auto parsed = body_.parse(n);
    body_.release();
    if (!parsed.ok()) return invalid(400, "Invalid JSON"), std::nullopt;
    if (!parsed.value.isObject()) return invalid(400, "Expected an object"), std::nullopt;
    return std::move(parsed.value);
  }

  server::Clock& clock_;
  A action_;
  server::BodyBuffer body_;
};

}  // namespace sw::durable
