// cpp/gateway: the Playground's per-client limits (issue 23, docs/playground.md "Limits").
//
// Two rules, both per client (the CF-Connecting-IP header): at most `requests` gated requests in any `windowMs`
// (a sliding log, so no boundary lets 2N through), and at most `sandboxes` distinct sandbox ids in use, an id counting
// until it has been idle for the Sandbox's own idle TTL (after which the Sandbox wipes it). The counters live in a
// small Durable Object per client (`Limiter`, worker-shim/limiter.js), whose decisions are this file's
// `Limiter::admit`: the gateway's Exchange asks it (a GW_LIMIT action) before it forwards a gated request.
//
// A third rule bounds what all clients together keep: at most `totalSandboxes` sandbox ids in use across every client,
// counted the same way by one more Limiter under the key kTotalKey, asked after the client's. Ids already in use pass
// at that cap too, so existing sessions keep working when the Playground is full.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "../durable/sql.h"
#include "../http/http.h"
#include "../json/json.h"
#include "../server/server.h"

namespace sw::gateway {

struct Limits {
  // Off when default-constructed (an Exchange nobody configured); parseLimits gives the safe defaults.
  double requests = 0;         // PLAYGROUND_RATE_LIMIT: gated requests per window per client; 0: no rate limit
  double windowMs = 0;         // PLAYGROUND_RATE_WINDOW_SECONDS, in ms
  double sandboxes = 0;        // PLAYGROUND_MAX_SANDBOXES: sandbox ids in use per client; 0: no cap
  double sandboxIdleMs = 0;    // SANDBOX_IDLE_TTL_MS as the Sandbox reads it; 0: an id counts for good
  double totalSandboxes = 0;   // PLAYGROUND_MAX_TOTAL_SANDBOXES: sandbox ids in use across all clients; 0: no cap

  bool any() const { return requests > 0 || sandboxes > 0 || totalSandboxes > 0; }
};

// Defaults when a variable is unset or empty: on, as deployed.
constexpr double kDefaultRateLimit = 60;
constexpr double kDefaultRateWindowSeconds = 60;
constexpr double kDefaultMaxSandboxes = 10;
constexpr double kDefaultMaxTotalSandboxes = 100;
// The largest accepted values (each request's log row is kept for a window; a client's rows are bounded by these).
constexpr double kMaxRateLimit = 100000;
constexpr double kMaxRateWindowSeconds = 86400;
constexpr double kMaxSandboxes = 10000;
constexpr double kMaxTotalSandboxes = 1000000;

// The Limiter that counts every client's sandboxes: no client key has this form ("ip:", "ip6:" or "shared").
constexpr std::string_view kTotalKey = "all-clients";

// The limits from the gateway Worker's string vars (a JSON object of name -> string, as the shim hands them over).
// nullopt and `error` (naming the variable) when one is not an integer in its range.
std::optional<Limits> parseLimits(std::string_view varsJson, std::string& error);

// Whose counters a request uses: "ip:" + CF-Connecting-IP when it looks like an IP address (Cloudflare sets it on
// every request and overwrites what a client sent), else the one shared key "shared" (documented: without the
// header, e.g. behind another proxy, every client shares one budget).
std::string clientKey(const http::RequestHead& head);

// What the gateway asks the Limiter for one request: {"requests","windowMs","sandboxes","sandboxIdleMs","sandbox"?}.
std::string admitRequestJson(const Limits& limits, std::string_view sandboxId);
// What it asks the kTotalKey Limiter for a sandbox request: that id against totalSandboxes, no rate.
std::string admitTotalRequestJson(const Limits& limits, std::string_view sandboxId);
// Takes back what the client's Limiter recorded for a request the total cap then refused: its newest request row
// (when `rated`) and the sandbox id (when `sandboxId` is not empty: its admission added it).
std::string undoRequestJson(bool rated, std::string_view sandboxId);

// The Limiter's answer: admitted, or refused by one rule with how long until it would admit (ms; NaN: never, for a
// sandbox cap whose ids count for good).
struct Admission {
  bool allowed = false;
  std::string limit;  // "requests" or "sandboxes" when refused ("totalSandboxes": the gateway's name for kTotalKey's)
  double retryAfterMs = 0;
  bool added = false;  // admitted, and the sandbox id was not in use before (the request creates it)
};
std::optional<Admission> parseAdmission(std::string_view json);

// The gateway's 429 for a refusal (docs/playground.md, docs/protocol-decisions.md).
http::Response refusal(server::Clock& clock, const Limits& limits, const Admission& refused);

// The Limiter Durable Object's logic, over its own SQLite: one instance per client key. admit() decides and records
// atomically (the Durable Object runs one request at a time and the SQL is synchronous); alarm() drops what expired.
class Limiter {
 public:
  Limiter(durable::Sql& sql, durable::Alarm& alarm, server::Clock& clock);
  // `request`: admitRequestJson's; the answer: {"allowed":true,"added"?:true} or {"allowed":false,"limit",
  // "retryAfterMs"?}; undoRequestJson's: {"allowed":true} once undone. A malformed request answers
  // {"allowed":false,"limit":"invalid"} (the gateway then fails closed).
  std::string admit(std::string_view request);
  void alarm();

 private:
  void ensureSchema();
  void prune(double now);
  std::string undo(const json::Value& request);
  void rearm();

  durable::Sql& sql_;
  durable::Alarm& alarm_;
  server::Clock& clock_;
  bool schema_ = false;
  double armed_;
};

}  // namespace sw::gateway
