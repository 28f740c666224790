// Test doubles the unit tests share: a clock a test sets by hand and an alarm that records what was armed.
#pragma once

#include <cmath>
#include <cstdint>

#include "durable/sql.h"
#include "server/server.h"

namespace sw::test {

class FakeClock final : public server::Clock {
 public:
  double mono = 1000;
  int64_t epoch = 1767225600000;  // 2026-01-01
  double monotonicMs() override { return mono; }
  int64_t epochMs() override { return epoch; }
};

class FakeAlarm final : public durable::Alarm {
 public:
  double armed = std::nan("");
  int sets = 0;
  void set(double ms) override {
    armed = ms;
    ++sets;
  }
  void remove() override { armed = std::nan(""); }
};

}  // namespace sw::test
