// cpp/durable: the throttled idle alarm both Durable Objects keep (protocol §4.7 for the Interpreter, §7.9 for the
// caller's Sandbox, which uses the same parsing and policy).
#pragma once

#include <optional>
#include <string_view>

#include "sql.h"

namespace sw::durable {

constexpr double kDefaultIdleTtlMs = 86400000;

// INTERPRETER_IDLE_TTL_MS, SANDBOX_IDLE_TTL_MS (protocol §4.7): unset/empty -> default; Number(value) if finite and
// >= 0, else default.
double parseIdleTtl(std::optional<std::string_view> value);

// What one touch did.
struct IdleTouch {
  double deadline;  // the armed deadline (epoch ms); NaN when expiry is disabled (TTL 0)
  bool rearmed;     // the alarm was set to now + TTL: the caller records lastUsed = now
};

// protocol §4.7 "Touch": TTL 0 deletes any armed alarm; otherwise the alarm moves to now + TTL only when nothing is armed
// or the move exceeds TTL / 10. `armed` is the cached deadline (NaN: none known), updated in place.
IdleTouch touchIdleAlarm(Alarm& alarm, double ttlMs, double& armed, double nowMs);

// Epoch milliseconds of an ISO-8601 "YYYY-MM-DDTHH:MM:SS.mmmZ" as server::isoTime writes it; 0 when malformed (so an
// alarm handler treats a damaged lastUsed as long past).
double parseIsoMs(std::string_view iso);

}  // namespace sw::durable
