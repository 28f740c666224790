#include "limits.h"

#include <cmath>
#include <cstdlib>
#include <vector>

#include "../durable/idle.h"
#include "../json/json.h"

namespace sw::gateway {

namespace {

// An integer variable in [min, max]; unset or empty: `fallback`.
bool intVar(const json::Value& vars, std::string_view name, double fallback, double min, double max, double& out,
            std::string& error) {
  const json::Value* v = vars.find(name);
  if (!v || !v->isString() || v->asString().empty()) {
    out = fallback;
    return true;
  }
  auto n = server::jsNumber(v->asString());
  if (!n || !std::isfinite(*n) || *n != std::floor(*n) || *n < min || *n > max) {
    error = std::string(name) + " must be an integer from " + json::formatNumber(min) + " to " +
            json::formatNumber(max) + " (got \"" + v->asString() + "\")";
    return false;
  }
  out = *n;
  return true;
}

bool isHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// Dotted IPv4 "a.b.c.d", each 0-255 without leading zeros; the four bytes.
std::optional<std::vector<unsigned>> parseIpv4(std::string_view s) {
  std::vector<unsigned> out;
  std::size_t at = 0;
  for (;;) {
    std::size_t end = s.find('.', at);
    std::string_view part = s.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
    if (out.size() == 4 || part.empty() || part.size() > 3 || (part.size() > 1 && part[0] == '0')) return std::nullopt;
    unsigned n = 0;
    for (char c : part) {
      if (c < '0' || c > '9') return std::nullopt;
      n = n * 10 + unsigned(c - '0');
    }
    if (n > 255) return std::nullopt;
    out.push_back(n);
    if (end == std::string_view::npos) break;
    at = end + 1;
  }
  if (out.size() != 4) return std::nullopt;
  return out;
}

// Hex groups of one side of "::" (a trailing dotted IPv4 counts as two groups).
bool ipv6Groups(std::string_view s, std::vector<unsigned>& out, bool allowV4Tail) {
  if (s.empty()) return true;
  std::size_t at = 0;
  for (;;) {
    std::size_t end = s.find(':', at);
    std::string_view part = s.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
    if (end == std::string_view::npos && allowV4Tail && part.find('.') != std::string_view::npos) {
      auto v4 = parseIpv4(part);
      if (!v4) return false;
      out.push_back((*v4)[0] << 8 | (*v4)[1]);
      out.push_back((*v4)[2] << 8 | (*v4)[3]);
      return true;
    }
    if (part.empty() || part.size() > 4) return false;
    unsigned n = 0;
    for (char c : part) {
      if (!isHex(c)) return false;
      n = n * 16 + unsigned(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
    }
    out.push_back(n);
    if (end == std::string_view::npos) return true;
    at = end + 1;
  }
}

// The eight groups of an IPv6 address ("::" and a dotted IPv4 tail allowed).
std::optional<std::vector<unsigned>> parseIpv6(std::string_view s) {
  std::vector<unsigned> head, tail;
  std::size_t gap = s.find("::");
  if (gap == std::string_view::npos) {
    if (!ipv6Groups(s, head, true) || head.size() != 8) return std::nullopt;
    return head;
  }
  if (s.find("::", gap + 1) != std::string_view::npos) return std::nullopt;
  if (!ipv6Groups(s.substr(0, gap), head, false) || !ipv6Groups(s.substr(gap + 2), tail, true)) return std::nullopt;
  if (head.size() + tail.size() > 7) return std::nullopt;
  head.resize(8 - tail.size(), 0);
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

std::string hexGroup(unsigned g) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (int shift = 12; shift >= 0; shift -= 4)
    if (!out.empty() || (g >> shift) != 0 || shift == 0) out += digits[(g >> shift) & 15];
  return out;
}

double number(const json::Value& object, std::string_view key) {
  const json::Value* v = object.find(key);
  return v && v->isNumber() && std::isfinite(v->asNumber()) && v->asNumber() >= 0 ? v->asNumber() : -1;
}

std::string answer(bool allowed, std::string_view limit = {}, double retryAfterMs = std::nan(""), bool added = false) {
  std::string out;
  json::Writer w(out);
  w.beginObject();
  w.key("allowed").boolean(allowed);
  if (added) w.key("added").boolean(true);
  if (!limit.empty()) w.key("limit").string(limit);
  if (std::isfinite(retryAfterMs)) w.key("retryAfterMs").number(std::max(0.0, retryAfterMs));
  w.endObject();
  return out;
}

}  // namespace

std::optional<Limits> parseLimits(std::string_view varsJson, std::string& error) {
  auto parsed = json::parseCopy(varsJson);
  if (!parsed.ok() || !parsed.value.isObject()) {
    error = "the gateway's variables are not a JSON object";
    return std::nullopt;
  }
  const json::Value& vars = parsed.value;
  Limits l;
  double windowSeconds = 0;
  if (!intVar(vars, "PLAYGROUND_RATE_LIMIT", kDefaultRateLimit, 0, kMaxRateLimit, l.requests, error) ||
      !intVar(vars, "PLAYGROUND_RATE_WINDOW_SECONDS", kDefaultRateWindowSeconds, 1, kMaxRateWindowSeconds,
              windowSeconds, error) ||
      !intVar(vars, "PLAYGROUND_MAX_SANDBOXES", kDefaultMaxSandboxes, 0, kMaxSandboxes, l.sandboxes, error) ||
      !intVar(vars, "PLAYGROUND_MAX_TOTAL_SANDBOXES", kDefaultMaxTotalSandboxes, 0, kMaxTotalSandboxes,
              l.totalSandboxes, error))
    return std::nullopt;
  l.windowMs = windowSeconds * 1000;
  // The Sandbox wipes an id idle this long (its own rule and default, cpp/interp): until then it holds storage.
  const json::Value* ttl = vars.find("SANDBOX_IDLE_TTL_MS");
  l.sandboxIdleMs = durable::parseIdleTtl(ttl && ttl->isString() ? std::optional<std::string_view>(ttl->asString())
                                                                 : std::nullopt);
  return l;
}

std::string clientKey(const http::RequestHead& head) {
  auto ip = head.header("cf-connecting-ip");
  if (!ip || ip->empty() || ip->size() > 64) return "shared";
  if (auto v4 = parseIpv4(*ip))
    return "ip:" + std::to_string((*v4)[0]) + "." + std::to_string((*v4)[1]) + "." + std::to_string((*v4)[2]) +
           "." + std::to_string((*v4)[3]);
  if (auto v6 = parseIpv6(*ip)) {
    const auto& g = *v6;
    // An IPv4-mapped address is that IPv4 client.
    if (g[0] == 0 && g[1] == 0 && g[2] == 0 && g[3] == 0 && g[4] == 0 && g[5] == 0xffff)
      return "ip:" + std::to_string(g[6] >> 8) + "." + std::to_string(g[6] & 255) + "." + std::to_string(g[7] >> 8) +
             "." + std::to_string(g[7] & 255);
    // One IPv6 client usually holds a whole /64: keying by the full address would give it 2^64 budgets.
    return "ip6:" + hexGroup(g[0]) + ":" + hexGroup(g[1]) + ":" + hexGroup(g[2]) + ":" + hexGroup(g[3]) + "::/64";
  }
  return "shared";
}

std::string admitRequestJson(const Limits& limits, std::string_view sandboxId) {
  std::string out;
  json::Writer w(out);
  w.beginObject();
  w.key("requests").number(limits.requests);
  w.key("windowMs").number(limits.windowMs);
  w.key("sandboxes").number(sandboxId.empty() ? 0 : limits.sandboxes);
  w.key("sandboxIdleMs").number(limits.sandboxIdleMs);
  if (!sandboxId.empty()) w.key("sandbox").string(sandboxId);
  w.endObject();
  return out;
}

std::string admitTotalRequestJson(const Limits& limits, std::string_view sandboxId) {
  Limits total;
  total.sandboxes = limits.totalSandboxes;
  total.sandboxIdleMs = limits.sandboxIdleMs;
  return admitRequestJson(total, sandboxId);
}

std::string undoRequestJson(bool rated, std::string_view sandboxId) {
  std::string out;
  json::Writer w(out);
  w.beginObject();
  w.key("undo").boolean(true);
  w.key("hit").boolean(rated);
  if (!sandboxId.empty()) w.key("sandbox").string(sandboxId);
  w.endObject();
  return out;
}

std::optional<Admission> parseAdmission(std::string_view text) {
  auto parsed = json::parseCopy(text);
  if (!parsed.ok() || !parsed.value.isObject()) return std::nullopt;
  const json::Value* allowed = parsed.value.find("allowed");
  if (!allowed || !allowed->isBool()) return std::nullopt;
  Admission a;
  a.allowed = allowed->asBool();
  const json::Value* added = parsed.value.find("added");
  a.added = a.allowed && added && added->isBool() && added->asBool();
  if (a.allowed) return a;
  const json::Value* limit = parsed.value.find("limit");
  if (!limit || !limit->isString() || (limit->asString() != "requests" && limit->asString() != "sandboxes"))
    return std::nullopt;
  a.limit = limit->asString();
  const json::Value* retry = parsed.value.find("retryAfterMs");
  a.retryAfterMs = retry && retry->isNumber() ? retry->asNumber() : std::nan("");
  return a;
}

http::Response refusal(server::Clock& clock, const Limits& limits, const Admission& refused) {
  std::string message;
  std::string context;
  json::Writer w(context);
  w.beginObject();
  w.key("limit").string(refused.limit);
  if (refused.limit == "requests") {
    const double seconds = limits.windowMs / 1000;
    message = "Rate limit exceeded: at most " + json::formatNumber(limits.requests) + " requests per " +
              json::formatNumber(seconds) + " s from one client";
    w.key("max").number(limits.requests);
    w.key("windowSeconds").number(seconds);
  } else if (refused.limit == "totalSandboxes") {
    const double seconds = limits.sandboxIdleMs / 1000;
    message = "The Playground is full: at most " + json::formatNumber(limits.totalSandboxes) +
              " sandboxes in use across all clients; a sandbox counts until it has been idle for " +
              json::formatNumber(seconds) + " s";
    if (limits.sandboxIdleMs == 0)
      message = "The Playground is full: at most " + json::formatNumber(limits.totalSandboxes) +
                " sandboxes across all clients; sandboxes are kept for good";
    w.key("max").number(limits.totalSandboxes);
    w.key("idleSeconds").number(seconds);
  } else {
    const double seconds = limits.sandboxIdleMs / 1000;
    message = "Sandbox limit exceeded: at most " + json::formatNumber(limits.sandboxes) +
              " sandboxes per client; a sandbox counts until it has been idle for " + json::formatNumber(seconds) +
              " s";
    if (limits.sandboxIdleMs == 0)
      message = "Sandbox limit exceeded: at most " + json::formatNumber(limits.sandboxes) +
                " sandboxes per client; sandboxes are kept for good";
    w.key("max").number(limits.sandboxes);
    w.key("idleSeconds").number(seconds);
  }
  w.endObject();
  // 429 with the protocol's request-refusal code (protocol §3.6 uses VALIDATION_FAILED with 404/405/413/415 alike).
  http::Response r = server::errorResponse(clock, 429, "VALIDATION_FAILED", message, context);
  if (std::isfinite(refused.retryAfterMs))
    r.headers.push_back({"retry-after", json::formatNumber(std::max(1.0, std::ceil(refused.retryAfterMs / 1000)))});
  return r;
}

// ---------------------------------------------------------------------------------------------------------------

Limiter::Limiter(durable::Sql& sql, durable::Alarm& alarm, server::Clock& clock)
    : sql_(sql), alarm_(alarm), clock_(clock), armed_(std::nan("")) {}

void Limiter::ensureSchema() {
  if (schema_) return;
  // One row per admitted request until it leaves the window; one row per sandbox id until it would be wiped
  // (expires NULL: the Sandbox keeps it for good).
  sql_.exec("CREATE TABLE IF NOT EXISTS limiter_hits (expires REAL NOT NULL)", {});
  sql_.exec("CREATE TABLE IF NOT EXISTS limiter_sandboxes (id TEXT PRIMARY KEY, expires REAL)", {});
  schema_ = true;
}

void Limiter::prune(double now) {
  sql_.exec("DELETE FROM limiter_hits WHERE expires <= ?", {durable::SqlArg::num(now)});
  sql_.exec("DELETE FROM limiter_sandboxes WHERE expires IS NOT NULL AND expires <= ?", {durable::SqlArg::num(now)});
}

// The alarm goes off once every row with an expiry has expired, so an idle client leaves nothing behind.
void Limiter::rearm() {
  std::vector<durable::SqlRow> rows;
  sql_.exec("SELECT MAX(m) FROM (SELECT MAX(expires) AS m FROM limiter_hits UNION ALL "
            "SELECT MAX(expires) FROM limiter_sandboxes)",
            {}, &rows);
  if (rows.empty() || rows[0].empty() || rows[0][0].isNull()) return;
  const double latest = rows[0][0].number;
  if (!std::isnan(armed_) && latest <= armed_) return;
  // A little later than needed, so a busy client does not rewrite the alarm on every request.
  const double at = latest + (latest - double(clock_.epochMs())) / 10;
  alarm_.set(at);
  armed_ = at;
}

// Deletes what an admission just recorded (the gateway's total cap refused that request afterwards): so a refused request
// is not counted, and a refused new id does not hold one of the client's slots.
std::string Limiter::undo(const json::Value& request) {
  const json::Value* hit = request.find("hit");
  const json::Value* sandbox = request.find("sandbox");
  if (!hit || !hit->isBool() || (sandbox && !sandbox->isString())) return R"({"allowed":false,"limit":"invalid"})";
  ensureSchema();
  sql_.transaction([&] {
    if (hit->asBool()) sql_.exec("DELETE FROM limiter_hits WHERE rowid = (SELECT MAX(rowid) FROM limiter_hits)", {});
    if (sandbox) sql_.exec("DELETE FROM limiter_sandboxes WHERE id = ?", {durable::SqlArg::text(sandbox->asString())});
  });
  return answer(true);
}

std::string Limiter::admit(std::string_view request) {
  auto parsed = json::parseCopy(request);
  if (parsed.ok() && parsed.value.isObject()) {
    const json::Value* undoing = parsed.value.find("undo");
    if (undoing && undoing->isBool() && undoing->asBool()) return undo(parsed.value);
  }
  const json::Value* sandboxValue = parsed.ok() && parsed.value.isObject() ? parsed.value.find("sandbox") : nullptr;
  const double requests = parsed.ok() && parsed.value.isObject() ? number(parsed.value, "requests") : -1;
  const double windowMs = parsed.ok() && parsed.value.isObject() ? number(parsed.value, "windowMs") : -1;
  const double sandboxes = parsed.ok() && parsed.value.isObject() ? number(parsed.value, "sandboxes") : -1;
  const double idleMs = parsed.ok() && parsed.value.isObject() ? number(parsed.value, "sandboxIdleMs") : -1;
  if (requests < 0 || windowMs < 0 || sandboxes < 0 || idleMs < 0 || (requests > 0 && windowMs <= 0) ||
      (sandboxValue && (!sandboxValue->isString() || sandboxValue->asString().empty() ||
                        sandboxValue->asString().size() > 63)))
    return R"({"allowed":false,"limit":"invalid"})";
  const std::string sandbox = sandboxValue ? sandboxValue->asString() : "";

  ensureSchema();
  const double now = double(clock_.epochMs());
  prune(now);
  std::vector<durable::SqlRow> rows;

  if (requests > 0) {
    sql_.exec("SELECT COUNT(*) FROM limiter_hits", {}, &rows);
    const double count = rows.at(0).at(0).number;
    if (count >= requests) {
      // The request that frees a slot is the (count - requests + 1)-th to expire.
      rows.clear();
      sql_.exec("SELECT expires FROM limiter_hits ORDER BY expires LIMIT 1 OFFSET ?",
                {durable::SqlArg::num(count - requests)}, &rows);
      return answer(false, "requests", rows.empty() ? std::nan("") : rows[0][0].number - now);
    }
  }

  bool added = false;
  if (sandboxes > 0 && !sandbox.empty()) {
    rows.clear();
    sql_.exec("SELECT 1 FROM limiter_sandboxes WHERE id = ?", {durable::SqlArg::text(sandbox)}, &rows);
    added = rows.empty();
    if (added) {
      rows.clear();
      sql_.exec("SELECT COUNT(*) FROM limiter_sandboxes", {}, &rows);
      const double count = rows.at(0).at(0).number;
      if (count >= sandboxes) {
        // Ids kept for good (NULL) never free a slot; the others free theirs in expiry order.
        rows.clear();
        sql_.exec("SELECT expires FROM limiter_sandboxes WHERE expires IS NOT NULL ORDER BY expires LIMIT 1 OFFSET ?",
                  {durable::SqlArg::num(count - sandboxes)}, &rows);
        return answer(false, "sandboxes", rows.empty() ? std::nan("") : rows[0][0].number - now);
      }
    }
  }

  sql_.transaction([&] {
    if (requests > 0) sql_.exec("INSERT INTO limiter_hits (expires) VALUES (?)", {durable::SqlArg::num(now + windowMs)});
    if (sandboxes > 0 && !sandbox.empty())
      sql_.exec("INSERT OR REPLACE INTO limiter_sandboxes (id, expires) VALUES (?, ?)",
                {durable::SqlArg::text(sandbox), idleMs > 0 ? durable::SqlArg::num(now + idleMs) : durable::SqlArg::null()});
  });
  rearm();
  return answer(true, {}, std::nan(""), added);
}

void Limiter::alarm() {
  ensureSchema();
  prune(double(clock_.epochMs()));
  armed_ = std::nan("");  // the platform disarmed it by running it
  rearm();
}

}  // namespace sw::gateway
