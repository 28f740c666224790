// cpp/wasi: `sandbox.charge(units)` (protocol §5.5, docs/fuel.md): the same rules as `sandbox.tick`, `units` at a time.
// The tick-only cases live in test_wasi_limits.cpp.
#include <cstdint>
#include <limits>

#include "test_wasi_support.h"

using namespace sw::wasi;
using namespace sw::wasi::testing;

TEST_CASE("wasi fuel: charge takes `units`; the charge that goes below zero traps (hard mode)") {
  Guest g;
  CHECK(charge(*g.host, std::numeric_limits<uint32_t>::max()) == Errno::Success);  // unmetered by default
  CHECK(g.host->fuel().consumed() == 0);
  g.host->fuel().reset(10);
  REQUIRE(charge(*g.host, 4) == Errno::Success);
  CHECK(g.host->fuel().consumed() == 4);
  REQUIRE(charge(*g.host, 0) == Errno::Success);  // zero is a no-op
  REQUIRE(tick(*g.host) == Errno::Success);      // tick = charge(1)
  REQUIRE(charge(*g.host, 5) == Errno::Success);  // exactly the budget: still fine
  CHECK(g.host->fuel().consumed() == 10);
  CHECK_FALSE(g.host->fuel().exhausted());
  CHECK(charge(*g.host, 1) == Errno::Trap);
  CHECK(g.host->trap().kind == TrapKind::Fuel);
  CHECK(g.host->trap().message == "Execution fuel exhausted");
  CHECK(g.host->fuel().consumed() == 10);
}

TEST_CASE("wasi fuel: a charge larger than what is left traps at once and counts the whole budget") {
  Guest g;
  g.host->fuel().reset(100);
  REQUIRE(charge(*g.host, 30) == Errno::Success);
  CHECK(charge(*g.host, 71) == Errno::Trap);
  CHECK(g.host->fuel().exhausted());
  CHECK(g.host->fuel().consumed() == 100);  // capped at the budget
  g.host->clearTrap();
  g.host->fuel().reset(0);
  CHECK(charge(*g.host, 0) == Errno::Success);
  CHECK(charge(*g.host, 1) == Errno::Trap);
}

TEST_CASE("wasi fuel: charge never wraps (u32 units against a 64-bit budget)") {
  Guest g;
  const int64_t big = int64_t(1) << 33;
  g.host->fuel().reset(big);
  REQUIRE(charge(*g.host, 0xFFFFFFFFu) == Errno::Success);
  REQUIRE(charge(*g.host, 0xFFFFFFFFu) == Errno::Success);
  CHECK(g.host->fuel().consumed() == big - 2);
  CHECK(g.host->fuel().remaining() == 2);
  CHECK(charge(*g.host, 0xFFFFFFFFu) == Errno::Trap);
}

TEST_CASE("wasi fuel: charge in interrupt mode signals once at zero, traps past the backstop (an eighth of the budget, at least 2^20)") {
  Guest g;
  uint32_t flag = g.alloc(4), bits = g.alloc(4);
  detail::put32(g.memory.bytes().data() + bits, 0x10);
  g.host->fuel().setInterrupt(FuelInterrupt{flag, bits, 0x3});
  resetFuel(*g.host, 16'000'000);
  REQUIRE(charge(*g.host, 12'000'000) == Errno::Success);
  CHECK(g.u32(flag) == 0);
  CHECK_FALSE(g.host->fuel().interrupted());
  REQUIRE(charge(*g.host, 4'000'020) == Errno::Success);  // remaining -20: words written, execution continues
  CHECK(g.host->fuel().interrupted());
  CHECK(g.u32(flag) == 1);
  CHECK(g.u32(bits) == 0x13);
  // The guest clearing the word must not make the host write it again (signalled once per reset).
  detail::put32(g.memory.bytes().data() + flag, 0);
  REQUIRE(charge(*g.host, 1'000'000) == Errno::Success);
  CHECK(g.u32(flag) == 0);
  REQUIRE(charge(*g.host, 999'980) == Errno::Success);  // remaining -2,000,000 = -budget/8: the last unit still allowed
  CHECK(g.host->trap().kind == TrapKind::None);
  CHECK(charge(*g.host, 1) == Errno::Trap);  // the backstop
  CHECK(g.host->trap().kind == TrapKind::Fuel);
  CHECK(g.host->trap().message == "Execution fuel exhausted");
  CHECK(g.host->fuel().consumed() == 16'000'000);
  // reset clears the words and the interrupted state.
  g.host->clearTrap();
  resetFuel(*g.host, 16'000'000);
  CHECK(g.u32(flag) == 0);
  CHECK(g.u32(bits) == 0x10);
  CHECK_FALSE(g.host->fuel().interrupted());
  CHECK(g.host->fuel().consumed() == 0);
}

TEST_CASE("wasi fuel: one charge past the budget and the backstop signals the interrupt and traps") {
  Guest g;
  uint32_t flag = g.alloc(4);
  g.host->fuel().setInterrupt(FuelInterrupt{flag, 0, 0});
  resetFuel(*g.host, 80);
  CHECK(charge(*g.host, 80 + (1 << 20) + 1) == Errno::Trap);  // a small budget's backstop is 2^20
  CHECK(g.host->fuel().interrupted());
  CHECK(g.u32(flag) == 1);
  CHECK(g.host->trap().message == "Execution fuel exhausted");
  g.host->clearTrap();
  resetFuel(*g.host, 80);
  CHECK(charge(*g.host, 80 + (1 << 20)) == Errno::Success);  // exactly at the backstop: interrupted, not trapped
  CHECK(g.u32(flag) == 1);
  CHECK(g.host->trap().kind == TrapKind::None);
}
