#include "idle.h"

#include <cmath>
#include <cstdio>
#include <string>

#include "../server/server.h"

namespace sw::durable {

double parseIdleTtl(std::optional<std::string_view> value) {
  if (!value || value->empty()) return kDefaultIdleTtlMs;
  auto n = server::jsNumber(*value);
  if (!n || !std::isfinite(*n) || *n < 0) return kDefaultIdleTtlMs;
  return *n;
}

IdleTouch touchIdleAlarm(Alarm& alarm, double ttlMs, double& armed, double nowMs) {
  if (ttlMs == 0) {
    if (!std::isnan(armed)) alarm.remove();
    armed = std::nan("");
    return {std::nan(""), false};
  }
  const double want = nowMs + ttlMs;
  if (std::isnan(armed) || want - armed > ttlMs / 10) {
    alarm.set(want);
    armed = want;
    return {want, true};
  }
  return {armed, false};
}

double parseIsoMs(std::string_view iso) {
  int y, mo, d, h, mi, s, ms;
  const std::string text(iso);
  if (std::sscanf(text.c_str(), "%d-%d-%dT%d:%d:%d.%dZ", &y, &mo, &d, &h, &mi, &s, &ms) != 7) return 0;
  // days from civil (Howard Hinnant)
  y -= mo <= 2;
  const int era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = unsigned(y - era * 400);
  const unsigned doy = unsigned((153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1);
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const double days = double(era) * 146097 + double(doe) - 719468;
  return days * 86400000.0 + h * 3600000.0 + mi * 60000.0 + s * 1000.0 + ms;
}

}  // namespace sw::durable
