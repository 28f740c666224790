// The fuel meter (protocol §5.5): the guest's `sandbox.charge(units)` import charges `units`, `sandbox.tick` one.
// What a unit means per engine: docs/fuel.md.
#include "internal.h"

namespace sw::wasi {

void Fuel::reset(int64_t budget) {
  metered_ = budget >= 0;
  budget_ = metered_ ? budget : 0;
  remaining_ = budget_;
  interrupted_ = false;
}

void Fuel::setInterrupt(FuelInterrupt interrupt) {
  interruptMode_ = true;
  interrupt_ = interrupt;
}

int64_t Fuel::consumed() const {
  if (!metered_) return 0;
  int64_t used = budget_ - remaining_;
  return used > budget_ ? budget_ : used;
}

namespace {

// Writes (or clears) the interrupt words; memory faults are ignored (a bad address only loses the signal).
void signalInterrupt(Host& host, const FuelInterrupt& in, bool set) {
  GuestMemory* mem = host.memory();
  if (!mem) return;
  if (in.address) mem->writeU32(in.address, set ? 1 : 0);
  if (in.bitsAddress) {
    uint32_t word = 0;
    if (mem->readU32(in.bitsAddress, word)) mem->writeU32(in.bitsAddress, set ? (word | in.bits) : (word & ~in.bits));
  }
}

}  // namespace

void resetFuel(Host& host, int64_t budget) {
  Fuel& fuel = host.fuel();
  if (fuel.interruptMode() && fuel.interrupted()) signalInterrupt(host, fuel.interrupt(), false);
  fuel.reset(budget);
}

// Hard mode: the charge that takes `remaining` below zero traps. Interrupt mode: that charge writes the interrupt
// words (once per reset) and execution continues; a charge that takes `remaining` below the backstop, -budget/8 but at
// least -2^20 (for native code that runs on past the interrupt, and for the poll interval under a tiny budget), traps. A charge larger than what is left counts as spent (consumed()
// caps at the budget).
Errno charge(Host& host, uint32_t units) {
  Fuel& fuel = host.fuel();
  if (fuel.charge(units)) return Errno::Success;
  if (!fuel.interruptMode()) return host.raiseTrap(TrapKind::Fuel, "Execution fuel exhausted");
  if (!fuel.interrupted_) {
    fuel.interrupted_ = true;
    signalInterrupt(host, fuel.interrupt_, true);
  }
  if (fuel.remaining_ >= -std::max<int64_t>(fuel.budget_ / 8, int64_t(1) << 20)) return Errno::Success;
  return host.raiseTrap(TrapKind::Fuel, "Execution fuel exhausted");
}

Errno tick(Host& host) { return charge(host, 1); }

}  // namespace sw::wasi
