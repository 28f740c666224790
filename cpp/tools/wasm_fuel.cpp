// Fuel instrumentation of a wasm binary (docs/fuel-tool.md). A single pass over the sections: every function index
// shifts by one (the new `sandbox.charge` import), every body gets a tick at entry and after each `loop`.
#include "tools/wasm_fuel.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <utility>

#include "snapshot/snapshot.h"  // hash64: the stripped module's id

namespace sw::tools {
namespace {

// Thrown inside this file only; instrumentFuel turns it into the error string.
struct WasmError {
  std::string message;
};

[[noreturn]] void fail(std::string message) { throw WasmError{std::move(message)}; }

class Reader {
 public:
  Reader(const uint8_t* begin, const uint8_t* end, size_t base = 0) : begin_(begin), p_(begin), end_(end), base_(base) {}

  bool atEnd() const { return p_ == end_; }
  size_t offset() const { return base_ + size_t(p_ - begin_); }
  const uint8_t* pos() const { return p_; }
  size_t remaining() const { return size_t(end_ - p_); }

  uint8_t u8() {
    if (p_ == end_) fail(at("unexpected end"));
    return *p_++;
  }
  uint8_t peek() const {
    if (p_ == end_) fail(at("unexpected end"));
    return *p_;
  }
  const uint8_t* bytes(size_t n) {
    if (remaining() < n) fail(at("unexpected end"));
    const uint8_t* start = p_;
    p_ += n;
    return start;
  }
  uint32_t u32() { return uint32_t(leb(32, false)); }
  uint64_t u64() { return leb(64, false); }
  int32_t s32() { return int32_t(int64_t(leb(32, true))); }
  int64_t s33() { return int64_t(leb(33, true)); }
  int64_t s64() { return int64_t(leb(64, true)); }
  std::string name() {
    uint32_t n = u32();
    const uint8_t* s = bytes(n);
    return std::string(reinterpret_cast<const char*>(s), n);
  }
  Reader sub(uint32_t size) {
    size_t base = offset();
    const uint8_t* s = bytes(size);
    return Reader(s, s + size, base);
  }
  std::string at(const std::string& what) const { return what + " at offset " + std::to_string(offset()); }

 private:
  // LEB128 with the spec's limits: at most ceil(bits/7) bytes, and the unused bits of the last byte must be zero
  // (unsigned) or copies of the sign bit (signed); anything else is overlong or out of range.
  uint64_t leb(int bits, bool isSigned) {
    uint64_t result = 0;
    int shift = 0;
    const int maxBytes = (bits + 6) / 7;
    for (int i = 0;; ++i, shift += 7) {
      uint8_t b = u8();
      uint8_t v = b & 0x7f;
      if (i == maxBytes - 1) {
        if (b & 0x80) fail(at("LEB128 too long"));
        int used = bits - shift;  // 1..7 value bits in this byte
        if (isSigned) {
          uint8_t high = uint8_t(v >> (used - 1));
          if (high != 0 && high != (0x7f >> (used - 1))) fail(at("signed LEB128 out of range"));
        } else if ((v >> used) != 0) {
          fail(at("LEB128 out of range"));
        }
      }
      if (shift < 64) result |= uint64_t(v) << shift;
      if (!(b & 0x80)) {
        shift += 7;
        if (isSigned && shift < 64 && (b & 0x40)) result |= ~uint64_t(0) << shift;
        return result;
      }
    }
  }

  const uint8_t* begin_;
  const uint8_t* p_;
  const uint8_t* end_;
  size_t base_;
};

using Bytes = std::vector<uint8_t>;

// Runs `rewrite`, which throws WasmError for a module it refuses: its bytes, or nullopt with the message in *error.
// What keeps every public entry point from throwing.
template <typename Rewrite>
std::optional<Bytes> guarded(std::string* error, Rewrite&& rewrite) {
  try {
    return rewrite();
  } catch (const WasmError& e) {
    if (error) *error = e.message;
  } catch (const std::bad_alloc&) {
    if (error) *error = "out of memory";
  }
  return std::nullopt;
}

void putU32(Bytes& out, uint32_t v) {
  do {
    uint8_t b = v & 0x7f;
    v >>= 7;
    out.push_back(v ? (b | 0x80) : b);
  } while (v);
}
void putS32(Bytes& out, int32_t value) {
  int64_t v = value;
  for (;;) {
    uint8_t b = v & 0x7f;
    v >>= 7;  // arithmetic shift on int64_t (C++20)
    if ((v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40))) {
      out.push_back(b);
      return;
    }
    out.push_back(b | 0x80);
  }
}
void putName(Bytes& out, std::string_view s) {
  putU32(out, uint32_t(s.size()));
  out.insert(out.end(), s.begin(), s.end());
}
void putRange(Bytes& out, const uint8_t* from, const uint8_t* to) { out.insert(out.end(), from, to); }
void putSection(Bytes& out, uint8_t id, const Bytes& payload) {
  out.push_back(id);
  putU32(out, uint32_t(payload.size()));
  out.insert(out.end(), payload.begin(), payload.end());
}

enum SectionId : uint8_t {
  kCustom = 0, kType = 1, kImport = 2, kFunction = 3, kTable = 4, kMemory = 5, kGlobal = 6, kExport = 7,
  kStart = 8, kElement = 9, kCode = 10, kData = 11, kDataCount = 12, kTag = 13,
};

// Position in the required section order (the tag section sits between memory and global).
int sectionRank(uint8_t id) {
  static constexpr int rank[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 12, 13, 11, 6};
  return rank[id];
}

struct Section {
  uint8_t id;
  std::string customName;
  Reader payload;
};

void skipHeapType(Reader& r) { r.s33(); }

// Value types, including the typed references of the function-references proposal ((ref null? ht)).
void skipValType(Reader& r) {
  uint8_t t = r.u8();
  switch (t) {
    case 0x7f: case 0x7e: case 0x7d: case 0x7c: case 0x7b:  // i32 i64 f32 f64 v128
    case 0x70: case 0x6f: case 0x69: case 0x6e: case 0x71: case 0x72: case 0x73: case 0x6d: case 0x6b: case 0x6a:
    case 0x6c: case 0x74:  // abbreviated reference types
      return;
    case 0x63: case 0x64:
      skipHeapType(r);
      return;
    default:
      fail(r.at("unknown value type " + std::to_string(t)));
  }
}

void skipLimits(Reader& r) {
  uint8_t flags = r.u8();
  if (flags > 7) fail(r.at("unknown limits flags"));
  bool is64 = flags & 4;
  if (is64) r.u64(); else r.u32();
  if (flags & 1) { if (is64) r.u64(); else r.u32(); }
}

void skipTableType(Reader& r) {
  skipValType(r);  // the reference type
  skipLimits(r);
}

void skipMemArg(Reader& r) {
  uint32_t align = r.u32();
  if (align & 0x40) r.u32();  // multi-memory: a memory index follows
  r.u64();                    // offset (u64 covers memory64; validation checks the range)
}

void skipBlockType(Reader& r) {
  uint8_t first = r.peek();
  int64_t t = r.s33();
  if (t >= 0) return;  // a type index
  if (first == 0x40) return;
  if (first == 0x63 || first == 0x64) { skipHeapType(r); return; }
  switch (first) {
    case 0x7f: case 0x7e: case 0x7d: case 0x7c: case 0x7b: case 0x70: case 0x6f: case 0x69: case 0x6e: case 0x71:
    case 0x72: case 0x73: case 0x6d: case 0x6b: case 0x6a: case 0x6c: case 0x74:
      return;
    default:
      fail(r.at("unknown block type"));
  }
}

struct Layout {
  uint32_t importedFuncs = 0;
  uint32_t definedFuncs = 0;
  uint32_t importedGlobals = 0;
  uint32_t definedGlobals = 0;
  uint32_t importedMemories = 0;
  uint32_t definedMemories = 0;
  uint32_t types = 0;
  std::optional<uint32_t> chargeType;  // (i32) -> ()
  std::optional<uint32_t> voidType;    // () -> ()
  std::optional<uint32_t> i32i32Type;  // (i32) -> (i32): weighted mode's bulk-length function
  // The module's own `sandbox.charge` import (ExistingCharge::Reuse / Mute): its function and type index.
  std::optional<uint32_t> existingCharge, existingChargeType;
  bool existingChargeReturnsI32 = false;
  bool weighted = false, mute = false;
  uint32_t indirectWeight = 12;  // FuelOptions::indirectCallWeight
  std::vector<uint32_t> typeParams;  // parameter count of each type
  std::vector<uint32_t> funcTypes;   // type index of each defined function
  // Computed once the layout is known.
  uint32_t chargeFunc = 0, refillFunc = 0, bulkFunc = 0, muteFunc = 0, leftGlobal = 0, batchGlobal = 0,
           scaleGlobal = 0;
  // The stack mark (FuelOptions::stackMark): the stack pointer, the stack's top (its initial value), and the three
  // globals appended after the meter's.
  bool stackMark = false;
  uint32_t spGlobal = 0, stackTop = 0, lowGlobal = 0, stackBaseGlobal = 0, stackTopGlobal = 0;
  uint32_t addedGlobals() const { return 2 + weighted + (stackMark ? 3 : 0); }
  // Weighted mode: defined functions reached other than by a direct call (exported, in a table, ref.func, start).
  // They keep their own metering: their caller cannot know what they cost.
  mutable std::vector<uint8_t> referenced;
  // Weighted mode, per defined function: its whole weight when it is folded into its callers (kNotStatic if not).
  std::vector<uint32_t> staticCost;
  uint32_t shift() const { return existingCharge ? 0 : 1; }  // the appended import moves every defined function
  uint32_t funcShift(uint32_t idx) const {
    if (idx < importedFuncs) return idx;
    if (idx - importedFuncs >= definedFuncs) fail("function index " + std::to_string(idx) + " out of range");
    return idx + shift();
  }
  // funcShift for an index that escapes direct calls: the function is marked as referenced.
  uint32_t refShift(uint32_t idx) const {
    uint32_t out = funcShift(idx);
    if (idx >= importedFuncs) {
      if (referenced.size() < definedFuncs) referenced.resize(definedFuncs);
      referenced[idx - importedFuncs] = 1;
    }
    return out;
  }
};

// One decoded instruction: its opcode (and sub-opcode for the 0xfc-0xfe prefixes), where it starts and ends, and
// the position of its function index (call, return_call, ref.func).
struct Instr {
  uint8_t op = 0;
  uint32_t sub = 0;
  const uint8_t* start = nullptr;
  const uint8_t* end = nullptr;
  bool hasFunc = false;
};

// Reads one instruction with its immediates. Nothing is interpreted beyond what is needed to find its end.
Instr decodeInstr(Reader& r) {
  Instr in;
  in.start = r.pos();
  uint8_t op = in.op = r.u8();
  switch (op) {
    case 0x00: case 0x01: case 0x05: case 0x0a: case 0x0b: case 0x0f: case 0x19: case 0x1a: case 0x1b: case 0xd1:
    case 0xd3: case 0xd5:
      break;
    case 0x02: case 0x03: case 0x04: case 0x06:  // block, loop, if, try
      skipBlockType(r);
      break;
    case 0x1f: {  // try_table
      skipBlockType(r);
      uint32_t n = r.u32();
      for (uint32_t i = 0; i < n; ++i) {
        uint8_t kind = r.u8();
        if (kind > 3) fail(r.at("unknown try_table catch kind"));
        if (kind < 2) r.u32();  // tag
        r.u32();                // label
      }
      break;
    }
    case 0x18:  // delegate
    case 0x07: case 0x08: case 0x09: case 0x0c: case 0x0d: case 0x14: case 0x15: case 0xd4: case 0xd6:
    case 0x20: case 0x21: case 0x22: case 0x23: case 0x24: case 0x25: case 0x26: case 0x3f: case 0x40:
      r.u32();
      break;
    case 0x0e: {  // br_table
      uint32_t n = r.u32();
      for (uint32_t i = 0; i < n; ++i) r.u32();
      r.u32();
      break;
    }
    case 0x10: case 0x12: case 0xd2:  // call, return_call, ref.func
      in.hasFunc = true;
      r.u32();
      break;
    case 0x11: case 0x13:  // call_indirect, return_call_indirect
      r.u32();
      r.u32();
      break;
    case 0x1c: {  // select t*
      uint32_t n = r.u32();
      for (uint32_t i = 0; i < n; ++i) skipValType(r);
      break;
    }
    case 0x41: r.s32(); break;
    case 0x42: r.s64(); break;
    case 0x43: r.bytes(4); break;
    case 0x44: r.bytes(8); break;
    case 0xd0: skipHeapType(r); break;
    case 0xfc: {
      uint32_t sub = in.sub = r.u32();
      if (sub <= 7) break;  // saturating truncations
      switch (sub) {
        case 8: case 10: case 12: case 14: r.u32(); r.u32(); break;  // memory.init/copy, table.init/copy
        case 9: case 11: case 13: case 15: case 16: case 17: r.u32(); break;
        default: fail(r.at("unknown 0xfc opcode " + std::to_string(sub)));
      }
      break;
    }
    case 0xfd: {
      uint32_t sub = in.sub = r.u32();
      if (sub <= 11 || sub == 92 || sub == 93) skipMemArg(r);                 // loads, stores, load_zero
      else if (sub == 12 || sub == 13) r.bytes(16);                           // v128.const, i8x16.shuffle
      else if (sub >= 21 && sub <= 34) r.u8();                                // extract/replace_lane
      else if (sub >= 84 && sub <= 91) { skipMemArg(r); r.u8(); }             // load/store_lane
      else if (sub > 0xff && !(sub >= 0x100 && sub <= 0x113)) fail(r.at("unknown SIMD opcode " + std::to_string(sub)));
      break;  // the rest (arithmetic, relaxed SIMD) have no immediates
    }
    case 0xfe: {
      uint32_t sub = in.sub = r.u32();
      if (sub == 3) r.u8();  // atomic.fence
      else if (sub <= 2 || (sub >= 0x10 && sub <= 0x4e)) skipMemArg(r);
      else fail(r.at("unknown atomic opcode " + std::to_string(sub)));
      break;
    }
    default:
      if (op >= 0x28 && op <= 0x3e) { skipMemArg(r); break; }   // loads and stores
      if (op >= 0x45 && op <= 0xc4) break;                        // numeric, sign extension
      fail(r.at("unknown opcode " + std::to_string(op)));
  }
  in.end = r.pos();
  return in;
}

int depthChange(const Instr& in) {
  switch (in.op) {
    case 0x02: case 0x03: case 0x04: case 0x06: case 0x1f: return 1;
    case 0x0b: case 0x18: return -1;  // end; delegate ends its try
    default: return 0;
  }
}

bool isBulkMemory(const Instr& in) { return in.op == 0xfc && (in.sub == 8 || in.sub == 10 || in.sub == 11); }

// Weighted mode: the static cost of one instruction, roughly what it costs once compiled. Stack shuffling (locals,
// constants, drop, nop) and structure (block, loop, if, else, end) compile to register moves or to nothing,
// so they are free; an operation is one; calls set up a frame, divisions and square roots take tens of cycles. Bulk
// memory adds its length at run time (the $bulk function).
uint32_t instrCost(const Instr& in, uint32_t indirect) {
  switch (in.op) {
    case 0x01: case 0x02: case 0x03: case 0x05: case 0x0b: case 0x1a:                        // nop, block, loop,
    case 0x20: case 0x21: case 0x22:                                                          // else, end, drop,
    case 0x41: case 0x42: case 0x43: case 0x44:                                               // locals,
      return 0;                                                                               // constants
    case 0x10: case 0x12: case 0x14: case 0x15: return 8;       // call, return_call, call_ref, return_call_ref: a
                                                                // frame, a stack check, the callee's entry check
    case 0x11: case 0x13: return indirect;                      // call_indirect, return_call_indirect: + the table
                                                                // load, the signature check and an indirect jump
                                                                // (FuelOptions::indirectCallWeight, 12 by default)
    case 0x6d: case 0x6e: case 0x6f: case 0x70:                 // i32 div/rem
    case 0x7f: case 0x80: case 0x81: case 0x82:                 // i64 div/rem
    case 0x91: case 0x95: case 0x9f: case 0xa3:                 // f32/f64 sqrt, div
      return 4;
    case 0x0e: return 6;                                        // br_table: a jump-table load and an indirect
                                                                // jump (an interpreter's dispatch)
    case 0x40: return 64;                                       // memory.grow
    case 0x08: case 0x09: case 0x0a: return 4000;               // throw, rethrow, throw_ref: V8 unwinds in its
                                                                // runtime, ~1.5 us (a Lua error, a C longjmp)
    default: return 1;
  }
}

// Ends the straight-line run it closes: control may arrive at the next instruction from elsewhere (a loop head,
// the join after a block, an else arm) or leave from here (a conditional branch's fall-through).
enum class Boundary { None, Plain, LoopHead };
Boundary boundaryAfter(const Instr& in) {
  switch (in.op) {
    case 0x03: return Boundary::LoopHead;
    case 0x04: case 0x05: case 0x07: case 0x0b: case 0x0d: case 0x18: case 0x19: case 0xd5: case 0xd6:
      return Boundary::Plain;  // if, else, catch, end, br_if, delegate, catch_all, br_on_null, br_on_non_null
    default: return Boundary::None;
  }
}

// Control never falls through: what follows, up to the next boundary, is unreachable and costs nothing.
bool endsFlow(const Instr& in) {
  switch (in.op) {
    case 0x00: case 0x08: case 0x09: case 0x0a: case 0x0c: case 0x0e: case 0x0f: case 0x12: case 0x13: case 0x15:
      return true;
    default: return false;
  }
}

struct Segment {
  const uint8_t* at;  // the instruction the charge goes in front of
  uint32_t weight;
  bool check;         // function entry or loop head: refill when the counter went negative
};

constexpr uint32_t kNotStatic = UINT32_MAX;

// The folded weight of a direct call's callee, or 0 when the callee meters itself.
uint32_t calleeStaticCost(const Instr& in, const Layout& L) {
  if (in.op != 0x10 || L.staticCost.empty()) return 0;
  Reader idx(in.start + 1, in.end);
  uint32_t f = idx.u32();
  if (f < L.importedFuncs || f - L.importedFuncs >= L.staticCost.size()) return 0;
  uint32_t c = L.staticCost[f - L.importedFuncs];
  return c == kNotStatic ? 0 : c;
}

// Weighted mode, first pass over a body: the straight-line runs and their static costs.
std::vector<Segment> scanSegments(Reader r, const Layout& L) {
  std::vector<Segment> segments;
  Segment cur{r.pos(), 0, true};
  bool dead = false;
  int64_t depth = 0;
  for (;;) {
    Instr in = decodeInstr(r);
    if (!dead) cur.weight += instrCost(in, L.indirectWeight) + calleeStaticCost(in, L);
    depth += depthChange(in);
    if (depth < 0) {
      segments.push_back(cur);
      return segments;
    }
    if (endsFlow(in)) dead = true;
    Boundary b = boundaryAfter(in);
    if (b != Boundary::None) {
      segments.push_back(cur);
      cur = Segment{in.end, 0, b == Boundary::LoopHead};
      dead = false;
    }
  }
}

void putCheck(Bytes& out, const Layout& L) {
  out.push_back(0x23); putU32(out, L.leftGlobal);   // global.get $left
  out.push_back(0x41); out.push_back(0x00);         // i32.const 0
  out.push_back(0x48);                             // i32.lt_s
  out.push_back(0x04); out.push_back(0x40);         // if
  out.push_back(0x10); putU32(out, L.refillFunc);   //   call $refill
  out.push_back(0x0b);                             // end
}

// Weighted mode keeps the weight of a function's straight-line runs in a local (`acc`, a register once compiled) and
// moves it into $left (and checks it) only where the function is left (a return, a tail call, a branch to the body's
// own label, the final `end`, a throw) and at a loop head once `acc` passed kFlushWeight. A global
// read-modify-write per run cost QuickJS's compute mix 1.44-1.58x; a local add is nearly free. Every loop still checks within kFlushWeight of
// weight, and every call checks when it returns (so loop-free recursion is metered too). A trap loses at most
// kFlushWeight plus one function's straight-line weight (under 100 units at the engines' scales).
constexpr uint32_t kFlushWeight = 4096;
void putAcc(Bytes& out, uint32_t acc, uint32_t weight) {
  out.push_back(0x20); putU32(out, acc);            // local.get $acc
  out.push_back(0x41); putS32(out, int32_t(weight));
  out.push_back(0x6a);                             // i32.add
  out.push_back(0x21); putU32(out, acc);            // local.set $acc
}

void putFlush(Bytes& out, const Layout& L, uint32_t acc) {
  out.push_back(0x23); putU32(out, L.leftGlobal);   // global.get $left
  out.push_back(0x20); putU32(out, acc);            // local.get $acc
  out.push_back(0x6b);                             // i32.sub
  out.push_back(0x24); putU32(out, L.leftGlobal);   // global.set $left
  out.push_back(0x41); out.push_back(0x00);         // i32.const 0
  out.push_back(0x21); putU32(out, acc);            // local.set $acc
}

// The flush and check where control certainly leaves the function: $acc is dead afterwards, so it carries the new
// counter to the compare instead of a second read of the global.
void putLastFlush(Bytes& out, const Layout& L, uint32_t acc) {
  out.push_back(0x23); putU32(out, L.leftGlobal);   // global.get $left
  out.push_back(0x20); putU32(out, acc);            // local.get $acc
  out.push_back(0x6b);                             // i32.sub
  out.push_back(0x22); putU32(out, acc);            // local.tee $acc
  out.push_back(0x24); putU32(out, L.leftGlobal);   // global.set $left
  out.push_back(0x20); putU32(out, acc);            // local.get $acc
  out.push_back(0x41); out.push_back(0x00);         // i32.const 0
  out.push_back(0x48);                             // i32.lt_s
  out.push_back(0x04); out.push_back(0x40);         // if
  out.push_back(0x10); putU32(out, L.refillFunc);   //   call $refill
  out.push_back(0x0b);                             // end
}

// True when `in` certainly leaves the function (the final `end`, a return, a tail call, a `br` to the body's own
// label). Not a conditional branch, which may fall through, nor a throw, which a catch in the same function may take:
// code may run on after those, so they flush with putFlush, which zeroes $acc.
bool alwaysLeaves(const Instr& in, int64_t depth) {
  switch (in.op) {
    case 0x0b: return depth == 0;
    case 0x0c: { Reader r(in.start + 1, in.end); return int64_t(r.u32()) == depth; }
    case 0x0f: case 0x12: case 0x13: case 0x15: return true;
    default: return false;
  }
}

// True when `in` can leave the function: a branch to the body's own label (== depth), a return, a tail call or a
// throw (flushing before a throw that a catch in the same function takes is harmless).
bool leavesFunction(const Instr& in, int64_t depth) {
  Reader r(in.start + 1, in.end);
  switch (in.op) {
    case 0x0c: case 0x0d: case 0xd5: case 0xd6:
      return int64_t(r.u32()) == depth;
    case 0x0e: {
      uint32_t n = r.u32();
      for (uint32_t i = 0; i <= n; ++i) {
        if (int64_t(r.u32()) == depth) return true;
      }
      return false;
    }
    case 0x0f: case 0x12: case 0x13: case 0x15:  // return, tail calls
    case 0x08: case 0x09: case 0x0a:             // throw, rethrow, throw_ref: the weight (4,000 of it the throw's
      return true;                               // own) must reach $left before the frame is unwound
    default:
      return false;
  }
}

struct Counts {
  uint32_t loops = 0, segments = 0, bulk = 0, muted = 0, marks = 0;
};

constexpr uint32_t kNoLocal = UINT32_MAX;

// The stack mark's replacement of `global.set $sp`, `mark` being a scratch i32 local: $sp = v, and $low = v when v
// is lower (unsigned). A branch rather than a select: $low is rarely lowered (once per new depth after a reset), so
// the common path stores nothing.
void putStackMark(Bytes& out, const Layout& L, uint32_t mark) {
  out.push_back(0x22); putU32(out, mark);                // local.tee $mark
  out.push_back(0x24); putU32(out, L.spGlobal);          // global.set $sp
  out.push_back(0x20); putU32(out, mark);                // local.get $mark
  out.push_back(0x23); putU32(out, L.lowGlobal);         // global.get $low
  out.push_back(0x49);                                   // i32.lt_u
  out.push_back(0x04); out.push_back(0x40);              // if
  out.push_back(0x20); putU32(out, mark);                //   local.get $mark
  out.push_back(0x24); putU32(out, L.lowGlobal);         //   global.set $low
  out.push_back(0x0b);                                   // end
}

// True when `in` is `global.set $sp` and the stack mark is on.
bool setsStackPointer(const Instr& in, const Layout& L) {
  if (!L.stackMark || in.op != 0x24) return false;
  Reader idx(in.start + 1, in.end);
  return idx.u32() == L.spGlobal;
}

// Stack mark: whether a body (after its locals) sets the stack pointer, so needs the scratch local.
bool bodySetsStackPointer(Reader r, const Layout& L) {
  if (!L.stackMark) return false;
  for (int64_t depth = 0;;) {
    Instr in = decodeInstr(r);
    if (setsStackPointer(in, L)) return true;
    depth += depthChange(in);
    if (depth < 0) return false;
  }
}

// Walks one expression (a body after its locals, or a constant expression) up to its final `end`, copying it to
// `out` with function indices renumbered. Metering (`meter` true, bodies only): tick mode inserts `tick` after every
// `loop` header (the caller puts one at entry); weighted mode charges each straight-line run where it starts and
// each bulk memory instruction by its length. Stack mark (`mark`, the body's scratch local): every `global.set $sp`
// becomes putStackMark's sequence.
Counts rewriteExpr(Reader& r, Bytes& out, const Layout& L, const Bytes& tick, bool meter, bool bodyMustEnd,
                   uint32_t acc = 0, uint32_t mark = kNoLocal) {
  std::vector<Segment> segments;
  if (meter && L.weighted) segments = scanSegments(r, L);
  size_t nextSegment = 0;
  const uint8_t* copied = r.pos();
  auto flushTo = [&](const uint8_t* to) { putRange(out, copied, to); copied = to; };
  Counts counts;
  int64_t depth = 0;
  for (;;) {
    while (nextSegment < segments.size() && segments[nextSegment].at == r.pos()) {
      const bool entry = nextSegment == 0;  // $acc is 0 at the function's entry
      const Segment& s = segments[nextSegment++];
      flushTo(r.pos());
      if (s.check && entry) {
        out.push_back(0x41); putS32(out, int32_t(std::max<uint32_t>(s.weight, 1)));  // $acc = the entry's weight
        out.push_back(0x21); putU32(out, acc);
      } else if (s.check) {
        // $acc += weight (a loop head always costs: no free spinning); past kFlushWeight, flush and check.
        out.push_back(0x20); putU32(out, acc);
        out.push_back(0x41); putS32(out, int32_t(std::max<uint32_t>(s.weight, 1)));
        out.push_back(0x6a);                                   // i32.add
        out.push_back(0x22); putU32(out, acc);                 // local.tee $acc
        out.push_back(0x41); putS32(out, int32_t(kFlushWeight));
        out.push_back(0x4b);                                   // i32.gt_u
        out.push_back(0x04); out.push_back(0x40);              // if
        putFlush(out, L, acc);
        putCheck(out, L);
        out.push_back(0x0b);                                   // end
      } else if (s.weight > 0) {
        putAcc(out, acc, s.weight);
      }
      ++counts.segments;
    }
    Instr in = decodeInstr(r);
    if (meter && L.weighted && (leavesFunction(in, depth) || (in.op == 0x0b && depth == 0))) {
      flushTo(in.start);
      if (alwaysLeaves(in, depth)) {
        putLastFlush(out, L, acc);
      } else {
        putFlush(out, L, acc);
        putCheck(out, L);
      }
    }
    if (in.hasFunc) {
      flushTo(in.start + 1);
      Reader idx(in.start + 1, in.end);
      uint32_t func = idx.u32();
      if (L.mute && in.op == 0x10 && L.existingCharge && func == *L.existingCharge) {
        putU32(out, L.muteFunc);
        ++counts.muted;
      } else {
        putU32(out, in.op == 0xd2 ? L.refShift(func) : L.funcShift(func));  // ref.func escapes direct calls
      }
      copied = in.end;
    }
    if (mark != kNoLocal && setsStackPointer(in, L)) {
      flushTo(in.start);
      putStackMark(out, L, mark);
      copied = in.end;
      ++counts.marks;
    }
    if (meter && L.weighted && isBulkMemory(in)) {  // the length is on top of the stack: $bulk charges and keeps it
      flushTo(in.start);
      out.push_back(0x10); putU32(out, L.bulkFunc);
      ++counts.bulk;
    }
    depth += depthChange(in);
    if (depth < 0 && in.op == 0x18) fail(r.at("delegate outside a try"));
    if (depth < 0) {
      flushTo(r.pos());
      if (bodyMustEnd && !r.atEnd()) fail(r.at("bytes after the end of a function body"));
      return counts;
    }
    if (in.op == 0x03) {
      if (meter) ++counts.loops;
      if (meter && !L.weighted) {
        flushTo(r.pos());
        out.insert(out.end(), tick.begin(), tick.end());
      }
    }
  }
}

Bytes rewriteConstExpr(Reader& r, const Layout& L) {
  Bytes out;
  rewriteExpr(r, out, L, {}, false, false);
  return out;
}

void expectEnd(const Reader& r, const char* what) {
  if (!r.atEnd()) fail(r.at(std::string("trailing bytes in the ") + what + " section"));
}

// --- the sections ----------------------------------------------------------------------------------------------

// Encoded function types the rewrite needs: (i32) -> () for the import, () -> () for $refill, (i32) -> (i32) for
// weighted mode's $bulk.
constexpr uint8_t kChargeType[] = {0x60, 0x01, 0x7f, 0x00};
constexpr uint8_t kVoidType[] = {0x60, 0x00, 0x00};
constexpr uint8_t kI32I32Type[] = {0x60, 0x01, 0x7f, 0x01, 0x7f};

Bytes rewriteTypes(Reader r, Layout& L) {
  uint32_t n = r.u32();
  const uint8_t* start = r.pos();
  auto same = [](const uint8_t* entry, size_t len, const auto& type) {
    return len == sizeof type && std::memcmp(entry, type, sizeof type) == 0;
  };
  bool existingOk = false;
  for (uint32_t i = 0; i < n; ++i) {
    const uint8_t* entry = r.pos();
    uint8_t form = r.u8();
    if (form != 0x60) fail(r.at("only function types are supported (GC types are not)"));
    uint32_t params = r.u32();
    for (uint32_t k = 0; k < params; ++k) skipValType(r);
    L.typeParams.push_back(params);
    uint32_t results = r.u32();
    for (uint32_t k = 0; k < results; ++k) skipValType(r);
    size_t len = size_t(r.pos() - entry);
    if (!L.chargeType && same(entry, len, kChargeType)) L.chargeType = i;
    if (!L.voidType && same(entry, len, kVoidType)) L.voidType = i;
    if (!L.i32i32Type && same(entry, len, kI32I32Type)) L.i32i32Type = i;
    if (L.existingChargeType && *L.existingChargeType == i) {
      existingOk = same(entry, len, kChargeType) || same(entry, len, kI32I32Type);
      L.existingChargeReturnsI32 = same(entry, len, kI32I32Type);
    }
  }
  expectEnd(r, "type");
  if (L.existingCharge && !existingOk) fail("the module's sandbox.charge import is neither (i32) -> () nor (i32) -> (i32)");
  L.types = n;
  Bytes out;
  bool needCharge = !L.existingCharge && !L.chargeType, needI32I32 = L.weighted && !L.i32i32Type;
  uint32_t added = needCharge + !L.voidType + needI32I32;
  putU32(out, n + added);
  putRange(out, start, r.pos());
  if (needCharge) {
    L.chargeType = n++;
    putRange(out, std::begin(kChargeType), std::end(kChargeType));
  }
  if (!L.voidType) {
    L.voidType = n++;
    putRange(out, std::begin(kVoidType), std::end(kVoidType));
  }
  if (needI32I32) {
    L.i32i32Type = n++;
    putRange(out, std::begin(kI32I32Type), std::end(kI32I32Type));
  }
  return out;
}

void scanImports(Reader r, Layout& L, ExistingCharge existing) {
  uint32_t n = r.u32();
  for (uint32_t i = 0; i < n; ++i) {
    std::string module = r.name();
    std::string field = r.name();
    bool charge = module == "sandbox" && field == "charge";
    if (charge && existing == ExistingCharge::Refuse) fail("the module already imports sandbox.charge (already instrumented?)");
    uint8_t kind = r.u8();
    if (charge && kind != 0) fail("the module imports sandbox.charge as something other than a function");
    switch (kind) {
      case 0: {
        uint32_t type = r.u32();
        if (charge) {
          if (L.existingCharge) fail("the module imports sandbox.charge twice");
          L.existingCharge = L.importedFuncs;
          L.existingChargeType = type;
        }
        ++L.importedFuncs;
        break;
      }
      case 1: skipTableType(r); break;
      case 2: skipLimits(r); ++L.importedMemories; break;
      case 3: skipValType(r); r.u8(); ++L.importedGlobals; break;
      case 4: r.u8(); r.u32(); break;
      default: fail(r.at("unknown import kind"));
    }
  }
  expectEnd(r, "import");
}

Bytes rewriteImports(Reader r, const Layout& L) {
  uint32_t n = r.u32();
  Bytes out;
  if (L.existingCharge) {  // the meter calls the module's own import: nothing added
    putU32(out, n);
    putRange(out, r.pos(), r.pos() + r.remaining());
    return out;
  }
  putU32(out, n + 1);
  putRange(out, r.pos(), r.pos() + r.remaining());  // unchanged; scanImports checked it
  putName(out, "sandbox");
  putName(out, "charge");
  out.push_back(0);
  putU32(out, *L.chargeType);
  return out;
}

Bytes rewriteFunctions(Reader r, Layout& L) {
  uint32_t n = r.u32();
  const uint8_t* start = r.pos();
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t type = r.u32();
    if (type >= L.typeParams.size()) fail(r.at("function type index out of range"));
    L.funcTypes.push_back(type);
  }
  expectEnd(r, "function");
  Bytes out;
  putU32(out, n + 1 + L.weighted + L.mute);
  putRange(out, start, r.pos());
  putU32(out, *L.voidType);  // the refill function
  if (L.weighted) putU32(out, *L.i32i32Type);   // $bulk
  if (L.mute) putU32(out, *L.existingChargeType);  // the stub
  return out;
}

uint32_t countEntries(Reader r) { return r.u32(); }

Bytes rewriteTables(Reader r, const Layout& L) {
  uint32_t n = r.u32();
  Bytes out;
  putU32(out, n);
  for (uint32_t i = 0; i < n; ++i) {
    const uint8_t* entry = r.pos();
    if (r.remaining() >= 2 && entry[0] == 0x40 && entry[1] == 0x00) {  // a table with an initialiser expression
      r.bytes(2);
      skipTableType(r);
      putRange(out, entry, r.pos());
      Bytes e = rewriteConstExpr(r, L);
      out.insert(out.end(), e.begin(), e.end());
    } else {
      skipTableType(r);
      putRange(out, entry, r.pos());
    }
  }
  expectEnd(r, "table");
  return out;
}

Bytes rewriteMemories(Reader r, const FuelOptions& options) {
  uint32_t n = r.u32();
  Bytes out;
  putU32(out, n);
  for (uint32_t i = 0; i < n; ++i) {
    const uint8_t* entry = r.pos();
    if (!options.maxPages) {
      skipLimits(r);
      putRange(out, entry, r.pos());
      continue;
    }
    uint8_t flags = r.u8();
    if (flags & 4) fail("--max-pages: 64-bit memories are not supported");
    if (flags > 3) fail(r.at("unknown memory limits flags"));
    uint32_t initial = r.u32();
    uint32_t maximum = (flags & 1) ? r.u32() : UINT32_MAX;
    uint32_t cap = *options.maxPages;
    if (initial > cap) fail("--max-pages " + std::to_string(cap) + ": the memory's initial size is " + std::to_string(initial) + " pages");
    out.push_back(uint8_t(flags | 1));  // keeps the shared bit
    putU32(out, initial);
    putU32(out, std::min(maximum, cap));
  }
  expectEnd(r, "memory");
  return out;
}

Bytes rewriteGlobals(Reader r, const Layout& L, uint32_t batch, uint32_t scale) {
  uint32_t n = r.u32();
  Bytes out;
  putU32(out, n + L.addedGlobals());
  for (uint32_t i = 0; i < n; ++i) {
    const uint8_t* entry = r.pos();
    skipValType(r);
    uint8_t mut = r.u8();
    if (mut > 1) fail(r.at("bad global mutability"));
    putRange(out, entry, r.pos());
    Bytes e = rewriteConstExpr(r, L);
    out.insert(out.end(), e.begin(), e.end());
  }
  expectEnd(r, "global");
  auto add = [&](uint8_t mut, uint32_t value) {
    out.push_back(0x7f);
    out.push_back(mut);
    out.push_back(0x41);
    putS32(out, int32_t(value));
    out.push_back(0x0b);
  };
  add(1, batch);  // $left; weighted: batch is in weight (units * scale)
  add(0, batch);  // sw_fuel_batch
  if (L.weighted) add(0, scale);  // sw_fuel_scale
  if (L.stackMark) {
    add(1, L.stackTop);  // sw_stack_low: nothing below the top written yet
    add(0, 0);           // sw_stack_base: the stack comes first
    add(0, L.stackTop);  // sw_stack_top
  }
  return out;
}

Bytes rewriteExports(Reader r, const Layout& L) {
  uint32_t n = r.u32();
  Bytes out;
  putU32(out, n + L.addedGlobals() + (L.stackMark ? 1 : 0));
  for (uint32_t i = 0; i < n; ++i) {
    std::string name = r.name();
    if (name == "sw_fuel_left" || name == "sw_fuel_batch" || name == "sw_fuel_scale" ||
        (L.stackMark && name.starts_with("sw_stack_")))
      fail("the module already exports " + name);
    uint8_t kind = r.u8();
    if (kind > 4) fail(r.at("unknown export kind"));
    uint32_t idx = r.u32();
    putName(out, name);
    out.push_back(kind);
    putU32(out, kind == 0 ? L.refShift(idx) : idx);
  }
  expectEnd(r, "export");
  putName(out, "sw_fuel_left");
  out.push_back(3);
  putU32(out, L.leftGlobal);
  putName(out, "sw_fuel_batch");
  out.push_back(3);
  putU32(out, L.batchGlobal);
  if (L.weighted) {
    putName(out, "sw_fuel_scale");
    out.push_back(3);
    putU32(out, L.scaleGlobal);
  }
  if (L.stackMark) {
    for (auto [name, global] : {std::pair<const char*, uint32_t>{"sw_stack_low", L.lowGlobal},
                                {"sw_stack_base", L.stackBaseGlobal},
                                {"sw_stack_top", L.stackTopGlobal},
                                {"sw_stack_pointer", L.spGlobal}}) {
      putName(out, name);
      out.push_back(3);
      putU32(out, global);
    }
  }
  return out;
}

Bytes rewriteStart(Reader r, const Layout& L) {
  uint32_t idx = r.u32();
  expectEnd(r, "start");
  Bytes out;
  putU32(out, L.refShift(idx));
  return out;
}

// Element segments, all eight encodings (flags bit 0: passive/declarative, bit 1: explicit table or declarative,
// bit 2: expressions instead of function indices).
Bytes rewriteElements(Reader r, const Layout& L) {
  uint32_t n = r.u32();
  Bytes out;
  putU32(out, n);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t flags = r.u32();
    if (flags > 7) fail(r.at("unknown element segment flags"));
    putU32(out, flags);
    bool passiveOrDeclarative = flags & 1, explicitTable = flags & 2, exprs = flags & 4;
    if (!passiveOrDeclarative) {
      if (explicitTable) putU32(out, r.u32());
      Bytes e = rewriteConstExpr(r, L);
      out.insert(out.end(), e.begin(), e.end());
    }
    if (passiveOrDeclarative || explicitTable) {  // elemkind or reftype
      const uint8_t* t = r.pos();
      if (exprs) skipValType(r); else if (r.u8() != 0) fail(r.at("unknown element kind"));
      putRange(out, t, r.pos());
    }
    uint32_t count = r.u32();
    putU32(out, count);
    for (uint32_t k = 0; k < count; ++k) {
      if (exprs) {
        Bytes e = rewriteConstExpr(r, L);
        out.insert(out.end(), e.begin(), e.end());
      } else {
        putU32(out, L.refShift(r.u32()));
      }
    }
  }
  expectEnd(r, "element");
  return out;
}

Bytes tickSequence(const Layout& L) {
  Bytes t;
  t.push_back(0x23); putU32(t, L.leftGlobal);   // global.get $left
  t.push_back(0x41); t.push_back(0x01);         // i32.const 1
  t.push_back(0x6b);                            // i32.sub
  t.push_back(0x24); putU32(t, L.leftGlobal);   // global.set $left (wasm has no global.tee)
  putCheck(t, L);
  return t;
}

// Weighted mode: a function with no loop and no exception handling or throw costs, on any path through it, at most
// the sum of its instructions' weights plus what its direct callees cost. Up to kStaticMaxWeight of that, the
// function carries no metering of its own (nor bulk memory, which is charged at run time): each direct call site adds the sum to the caller's straight-line run
// (a function's exit, a read-modify-write of the global counter, was most of QuickJS's remaining overhead). What
// such a function calls indirectly, or calls that meters itself, is charged by that callee as before; callees
// folded the same way are part of the sum. The price: a branchy function is charged for all its arms, at most
// kStaticMaxWeight per call. Nothing unmetered can repeat: a folded function has no loop, and recursion never folds
// (a function is folded only once each direct callee is known: folded, or metering itself; a cycle of candidates
// stays unknown and meters itself). Exported, table and ref.func functions meter themselves: their callers cannot
// see them.
constexpr uint32_t kStaticMaxWeight = 64;
void foldStaticCosts(Reader r, Layout& L) {
  const uint32_t n = r.u32();
  if (n != L.definedFuncs) fail("the code section has " + std::to_string(n) + " bodies for " + std::to_string(L.definedFuncs) + " functions");
  struct Info {
    uint64_t own = 0;
    std::vector<uint32_t> callees;  // defined-function indices of direct calls and tail calls
    bool eligible = true;
  };
  std::vector<Info> info(n);
  L.referenced.resize(L.definedFuncs);
  for (uint32_t i = 0; i < n; ++i) {
    Reader b = r.sub(r.u32());
    const uint32_t groups = b.u32();
    for (uint32_t g = 0; g < groups; ++g) { b.u32(); skipValType(b); }
    Info& f = info[i];
    int64_t depth = 0;
    for (;;) {
      Instr in = decodeInstr(b);
      f.own += instrCost(in, L.indirectWeight);
      switch (in.op) {
        case 0x03: case 0x06: case 0x07: case 0x08: case 0x09: case 0x0a: case 0x18: case 0x19: case 0x1f:
          f.eligible = false;  // loop; try, its arms, throw, rethrow, throw_ref, try_table
          break;
        case 0x10: case 0x12: case 0xd2: {
          Reader idx(in.start + 1, in.end);
          uint32_t callee = idx.u32();
          if (callee < L.importedFuncs) break;  // an import: the call's own weight is in `own`
          if (callee - L.importedFuncs >= n) fail("function index " + std::to_string(callee) + " out of range");
          if (in.op == 0xd2) L.referenced[callee - L.importedFuncs] = 1;
          else f.callees.push_back(callee - L.importedFuncs);
          break;
        }
        default:
          if (isBulkMemory(in)) f.eligible = false;  // charged by its length at run time, by the function itself
          break;
      }
      depth += depthChange(in);
      if (depth < 0) break;
    }
  }
  // kNotStatic: meters itself; kUnknown: not decided yet.
  constexpr uint32_t kUnknown = kNotStatic - 1;
  L.staticCost.assign(n, kUnknown);
  for (uint32_t i = 0; i < n; ++i) {
    if (!info[i].eligible || L.referenced[i] || info[i].own > kStaticMaxWeight) L.staticCost[i] = kNotStatic;
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t i = 0; i < n; ++i) {
      if (L.staticCost[i] != kUnknown) continue;
      uint64_t total = info[i].own;
      bool ready = true;
      for (uint32_t c : info[i].callees) {
        if (L.staticCost[c] == kUnknown) { ready = false; break; }
        if (L.staticCost[c] != kNotStatic) total += L.staticCost[c];
      }
      if (!ready) continue;
      L.staticCost[i] = total > kStaticMaxWeight ? kNotStatic : uint32_t(total);
      changed = true;
    }
  }
  for (uint32_t& c : L.staticCost) {
    if (c == kUnknown) c = kNotStatic;  // in or above a cycle of candidates
  }
}

Bytes rewriteCode(Reader r, Layout& L, uint32_t batch, uint32_t scale, FuelStats& stats) {
  if (L.weighted) foldStaticCosts(r, L);
  uint32_t n = r.u32();
  if (n != L.definedFuncs) fail("the code section has " + std::to_string(n) + " bodies for " + std::to_string(L.definedFuncs) + " functions");
  const Bytes tick = tickSequence(L);
  Bytes out;
  putU32(out, n + 1 + L.weighted + L.mute);
  Bytes body;
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t size = r.u32();
    Reader b = r.sub(size);
    body.clear();
    const uint8_t* locals = b.pos();
    uint32_t groups = b.u32();
    uint64_t total = 0;
    for (uint32_t g = 0; g < groups; ++g) {
      total += b.u32();
      if (total > 50000) fail(b.at("too many locals"));  // the JS API limit; also bounds the sum
      skipValType(b);
    }
    // Locals appended after the parameters and the declared ones, all i32: weighted mode's $acc (unless the function
    // is folded into its callers), and the stack mark's scratch local where the body sets the stack pointer.
    const bool folded = L.weighted && L.staticCost[i] != kNotStatic;
    const uint32_t addAcc = L.weighted && !folded, addMark = bodySetsStackPointer(b, L);
    if (total + addAcc + addMark > 50000) fail(b.at("too many locals to add the fuel accumulator or the stack mark"));
    const uint32_t acc = addAcc ? uint32_t(L.typeParams[L.funcTypes[i]] + total) : 0;
    const uint32_t mark = addMark ? uint32_t(L.typeParams[L.funcTypes[i]] + total + addAcc) : kNoLocal;
    if (addAcc + addMark) {
      putU32(body, groups + 1);
      Reader again(locals, b.pos());
      again.u32();
      putRange(body, again.pos(), b.pos());
      putU32(body, addAcc + addMark);
      body.push_back(0x7f);
    } else {
      putRange(body, locals, b.pos());
    }
    if (folded) {  // copied with indices renumbered
      stats.stackMarks += rewriteExpr(b, body, L, tick, false, true, 0, mark).marks;
      ++stats.folded;
      ++stats.functions;
      putU32(out, uint32_t(body.size()));
      out.insert(out.end(), body.begin(), body.end());
      continue;
    }
    if (!L.weighted) body.insert(body.end(), tick.begin(), tick.end());
    Counts c = rewriteExpr(b, body, L, tick, true, true, acc, mark);
    stats.stackMarks += c.marks;
    stats.loops += c.loops;
    stats.segments += c.segments;
    stats.bulk += c.bulk;
    stats.muted += c.muted;
    ++stats.functions;
    putU32(out, uint32_t(body.size()));
    out.insert(out.end(), body.begin(), body.end());
  }
  expectEnd(r, "code");
  auto emit = [&](const Bytes& f) {
    putU32(out, uint32_t(f.size()));
    out.insert(out.end(), f.begin(), f.end());
  };
  Bytes refill;
  if (!L.weighted) {
    refill.push_back(0x00);                                   // no locals
    refill.push_back(0x41); putS32(refill, int32_t(batch));   // i32.const BATCH
    refill.push_back(0x23); putU32(refill, L.leftGlobal);     // global.get $left
    refill.push_back(0x6b);                                   // i32.sub
    refill.push_back(0x10); putU32(refill, L.chargeFunc);     // call $charge
    refill.push_back(0x41); putS32(refill, int32_t(batch));   // i32.const BATCH
    refill.push_back(0x24); putU32(refill, L.leftGlobal);     // global.set $left
    refill.push_back(0x0b);
    emit(refill);
    return out;
  }
  // Weighted: the weight spent since the last refill, in whole units; the remainder stays in $left. $left is set
  // before the charge, which may trap (hard mode): a pool slot never inherits a negative counter.
  const int32_t bw = int32_t(batch * scale);
  refill = {0x01, 0x01, 0x7f};                                // one i32 local: the weight spent
  refill.push_back(0x41); putS32(refill, bw);                 // i32.const BATCH*SCALE
  refill.push_back(0x23); putU32(refill, L.leftGlobal);       // global.get $left
  refill.push_back(0x6b);                                     // i32.sub
  refill.push_back(0x21); refill.push_back(0x00);             // local.set 0
  refill.push_back(0x41); putS32(refill, bw);                 // i32.const BATCH*SCALE
  refill.push_back(0x20); refill.push_back(0x00);             // local.get 0
  refill.push_back(0x41); putS32(refill, int32_t(scale));     // i32.const SCALE
  refill.push_back(0x70);                                     // i32.rem_u
  refill.push_back(0x6b);                                     // i32.sub
  refill.push_back(0x24); putU32(refill, L.leftGlobal);       // global.set $left
  refill.push_back(0x20); refill.push_back(0x00);             // local.get 0
  refill.push_back(0x41); putS32(refill, int32_t(scale));     // i32.const SCALE
  refill.push_back(0x6e);                                     // i32.div_u
  refill.push_back(0x10); putU32(refill, L.chargeFunc);       // call $charge
  if (L.existingCharge && L.existingChargeReturnsI32) refill.push_back(0x1a);  // drop
  refill.push_back(0x0b);
  emit(refill);
  // $bulk(len) -> len: one unit of weight per 4 bytes (a copy that misses the caches moves a few bytes a cycle),
  // checked like a loop head.
  Bytes bulk = {0x00};
  bulk.push_back(0x23); putU32(bulk, L.leftGlobal);           // global.get $left
  bulk.push_back(0x20); bulk.push_back(0x00);                 // local.get 0
  bulk.push_back(0x41); bulk.push_back(0x02);                 // i32.const 2
  bulk.push_back(0x76);                                       // i32.shr_u
  bulk.push_back(0x6b);                                       // i32.sub
  bulk.push_back(0x24); putU32(bulk, L.leftGlobal);           // global.set $left
  putCheck(bulk, L);
  bulk.push_back(0x20); bulk.push_back(0x00);                 // local.get 0
  bulk.push_back(0x0b);
  emit(bulk);
  if (L.mute) {
    Bytes stub = {0x00};
    if (L.existingChargeReturnsI32) { stub.push_back(0x41); stub.push_back(0x00); }  // i32.const 0 (success)
    stub.push_back(0x0b);
    emit(stub);
  }
  return out;
}

// The name section with function indices renumbered (subsections 1 function names, 2 local names, 3 label names)
// and names for the two new functions; nullopt if it does not parse (engines ignore a bad name section too).
std::optional<Bytes> rewriteNames(Reader r, const Layout& L) {
  try {
    Bytes out;
    putName(out, "name");
    while (!r.atEnd()) {
      uint8_t id = r.u8();
      uint32_t size = r.u32();
      Reader s = r.sub(size);
      Bytes sub;
      if (id == 1) {
        std::vector<std::pair<uint32_t, std::string>> names;
        uint32_t n = s.u32();
        for (uint32_t i = 0; i < n; ++i) {
          uint32_t idx = s.u32();
          names.emplace_back(L.funcShift(idx), s.name());
        }
        if (!L.existingCharge) names.emplace_back(L.chargeFunc, "sandbox.charge");
        names.emplace_back(L.refillFunc, "sw_fuel_refill");
        if (L.weighted) names.emplace_back(L.bulkFunc, "sw_fuel_bulk");
        if (L.mute) names.emplace_back(L.muteFunc, "sw_fuel_muted_charge");
        std::stable_sort(names.begin(), names.end(), [](auto& a, auto& b) { return a.first < b.first; });
        putU32(sub, uint32_t(names.size()));
        for (auto& [idx, name] : names) { putU32(sub, idx); putName(sub, name); }
      } else if (id == 2 || id == 3) {
        uint32_t n = s.u32();
        putU32(sub, n);
        for (uint32_t i = 0; i < n; ++i) {
          putU32(sub, L.funcShift(s.u32()));
          const uint8_t* inner = s.pos();
          uint32_t m = s.u32();
          for (uint32_t k = 0; k < m; ++k) { s.u32(); s.name(); }
          putRange(sub, inner, s.pos());
        }
      } else {
        putRange(sub, s.pos(), s.pos() + s.remaining());
        s.bytes(s.remaining());
      }
      if (!s.atEnd()) return std::nullopt;
      out.push_back(id);
      putU32(out, uint32_t(sub.size()));
      out.insert(out.end(), sub.begin(), sub.end());
    }
    return out;
  } catch (const WasmError&) {
    return std::nullopt;
  }
}

// One active data segment of memory 0 at a constant address.
struct ActiveSegment {
  uint32_t address;
  const uint8_t* bytes;
  uint32_t size;
};

// The data section's active segments; a passive one is refused unless `skipPassive` (then left out).
std::vector<ActiveSegment> activeSegments(Reader d, bool skipPassive = false) {
  std::vector<ActiveSegment> out;
  const uint32_t n = d.u32();
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t flags = d.u32();
    if (flags == 1 && skipPassive) {
      d.bytes(d.u32());
      continue;
    }
    if (flags == 1) fail(d.at("a passive data segment"));
    if (flags > 2) fail(d.at("unknown data segment flags " + std::to_string(flags)));
    if (flags == 2 && d.u32() != 0) fail(d.at("a data segment of another memory"));
    if (d.u8() != 0x41) fail(d.at("a data segment whose address is not an i32.const"));
    const int32_t address = d.s32();
    if (d.u8() != 0x0b) fail(d.at("a data segment whose address is not an i32.const"));
    const uint32_t len = d.u32();
    out.push_back(ActiveSegment{uint32_t(address), d.bytes(len), len});
    // An engine's memory is capped far below this; the memory image below is allocated whole.
    if (uint64_t(out.back().address) + len > (1ull << 30)) fail(d.at("a data segment beyond 1 GiB"));
  }
  expectEnd(d, "data");
  return out;
}

// The stack mark (FuelOptions::stackMark): finds the stack pointer (the global the name section calls
// __stack_pointer, else global 0, which is where wasm-ld puts it) and checks that the stack comes first: the linker's
// data lies above the stack pointer's initial value, the stack's top. A segment below it is accepted only within
// the 64 KiB under the top, where every layout has stack (the default stack size): a post-link snapshot of memory
// (ruby.wasm's wasi-vfs pack) keeps the dead frames it found there. Anything else is refused: the host would skip
// reading memory it must read.
constexpr uint32_t kStackSlack = 65536;
void findStack(const Section* globals, const Section* data, const Section* names, Layout& L) {
  uint32_t sp = 0;
  bool named = false;
  if (names) {
    try {
      Reader r = names->payload;
      while (!r.atEnd() && !named) {
        const uint8_t id = r.u8();
        Reader sub = r.sub(r.u32());
        if (id != 7) continue;  // global names
        for (uint32_t n = sub.u32(), i = 0; i < n; ++i) {
          const uint32_t idx = sub.u32();
          if (sub.name() == "__stack_pointer") sp = idx, named = true;
        }
      }
    } catch (const WasmError&) {
      sp = 0, named = false;  // a bad name section: as if there were none
    }
  }
  if (!named && L.importedGlobals) fail("--stack-mark: the module imports globals and does not name __stack_pointer");
  if (sp < L.importedGlobals || sp - L.importedGlobals >= L.definedGlobals || !globals)
    fail("--stack-mark: the stack pointer is not a global the module defines");
  if (L.importedMemories || L.definedMemories != 1) fail("--stack-mark needs exactly one memory, defined by the module");
  Reader g = globals->payload;
  for (uint32_t n = g.u32(), i = 0; i < n; ++i) {
    const uint8_t* type = g.pos();
    skipValType(g);
    const uint8_t mut = g.u8();
    const bool isSp = i == sp - L.importedGlobals;
    if (isSp && (type[0] != 0x7f || mut != 1 || g.peek() != 0x41))
      fail("--stack-mark: the stack pointer is not a mutable i32 with a constant initial value");
    if (isSp) {
      g.u8();
      L.stackTop = uint32_t(g.s32());
    }
    while (decodeInstr(g).op != 0x0b) {
    }
  }
  if (L.stackTop == 0 || L.stackTop % 16 != 0) fail("--stack-mark: the stack pointer starts at " + std::to_string(L.stackTop));
  uint32_t active = 0;
  for (const ActiveSegment& seg : data ? activeSegments(data->payload, true) : std::vector<ActiveSegment>{}) {
    if (seg.address < L.stackTop - std::min(L.stackTop, kStackSlack))
      fail("--stack-mark: data at " + std::to_string(seg.address) + " lies below the stack's top (" +
           std::to_string(L.stackTop) + "): the stack does not come first (link with --stack-first)");
    if (uint64_t(seg.address) + seg.size > L.stackTop) ++active;
  }
  if (!active) fail("--stack-mark: no data segment above the stack pointer's initial value shows where the stack ends");
  L.spGlobal = sp;
  L.stackMark = true;
}

Bytes instrument(std::span<const uint8_t> in, const FuelOptions& options, FuelStats& stats) {
  if (options.batch < 1 || options.batch > (1u << 30)) fail("--batch must be between 1 and 2^30");
  if (options.scale < 1 || (!options.weighted && options.scale != 1)) fail("--scale needs --weighted and a value of at least 1");
  if (options.indirectCallWeight < 1 || options.indirectCallWeight > 1000 ||
      (!options.weighted && options.indirectCallWeight != FuelOptions{}.indirectCallWeight))
    fail("--indirect-call-weight needs --weighted and a value from 1 to 1000");
  if (uint64_t(options.batch) * options.scale > (1u << 30)) fail("--batch times --scale must be at most 2^30");
  Reader r(in.data(), in.data() + in.size());
  if (in.size() < 8 || std::memcmp(in.data(), "\0asm", 4) != 0) fail("not a wasm module (bad magic)");
  r.bytes(4);
  if (std::memcmp(r.bytes(4), "\x01\0\0\0", 4) != 0) fail("unsupported wasm version (components are not supported)");

  std::vector<Section> sections;
  const Section* known[14] = {};
  int lastRank = 0;
  while (!r.atEnd()) {
    uint8_t id = r.u8();
    if (id > 13) fail(r.at("unknown section id " + std::to_string(id)));
    uint32_t size = r.u32();
    Reader payload = r.sub(size);
    std::string name;
    if (id == kCustom) {
      name = payload.name();
    } else {
      if (sectionRank(id) <= lastRank) fail(payload.at("section " + std::to_string(id) + " out of order or repeated"));
      lastRank = sectionRank(id);
    }
    sections.push_back(Section{id, std::move(name), payload});
  }
  for (const Section& s : sections) {
    if (s.id != kCustom) known[s.id] = &s;
    if (s.customName == "linking" || s.customName.starts_with("reloc.")) fail("relocatable object files are not supported");
  }

  Layout L;
  L.weighted = options.weighted;
  L.indirectWeight = options.indirectCallWeight;
  if (known[kImport]) scanImports(known[kImport]->payload, L, options.existingCharge);
  L.mute = L.existingCharge && options.existingCharge == ExistingCharge::Mute;
  if (known[kFunction]) L.definedFuncs = countEntries(known[kFunction]->payload);
  if (known[kGlobal]) L.definedGlobals = countEntries(known[kGlobal]->payload);
  if (known[kMemory]) L.definedMemories = countEntries(known[kMemory]->payload);
  if (L.definedFuncs > 0 && !known[kCode]) fail("functions without a code section");
  if (options.maxPages) {
    if (L.importedMemories) fail("--max-pages: the memory is imported; set its maximum where it is defined");
    if (L.definedMemories != 1) fail("--max-pages needs exactly one memory, the module defines " + std::to_string(L.definedMemories));
  }
  if (uint64_t(L.importedFuncs) + L.definedFuncs + 2 > UINT32_MAX) fail("too many functions");
  // An absent section reads as an empty vector.
  static const uint8_t kEmptyVec[] = {0};
  auto payloadOf = [&](uint8_t id) { return known[id] ? known[id]->payload : Reader(kEmptyVec, kEmptyVec + 1); };
  Bytes types = rewriteTypes(payloadOf(kType), L);
  L.chargeFunc = L.existingCharge ? *L.existingCharge : L.importedFuncs;
  L.refillFunc = L.importedFuncs + L.shift() + L.definedFuncs;
  L.bulkFunc = L.refillFunc + 1;
  L.muteFunc = L.refillFunc + 1 + L.weighted;
  L.leftGlobal = L.importedGlobals + L.definedGlobals;
  L.batchGlobal = L.leftGlobal + 1;
  L.scaleGlobal = L.leftGlobal + 2;
  if (options.stackMark) {
    const Section* names = nullptr;
    for (const Section& s : sections) {
      if (s.customName == "name") names = &s;
    }
    findStack(known[kGlobal], known[kData], names, L);
    L.lowGlobal = L.leftGlobal + 2 + L.weighted;
    L.stackBaseGlobal = L.lowGlobal + 1;
    L.stackTopGlobal = L.lowGlobal + 2;
  }
  const uint32_t batchWeight = options.weighted ? options.batch * options.scale : options.batch;

  // Every section we emit, by id; customs are handled in place.
  std::optional<Bytes> rewritten[14];
  rewritten[kType] = std::move(types);
  rewritten[kImport] = rewriteImports(payloadOf(kImport), L);
  rewritten[kFunction] = rewriteFunctions(payloadOf(kFunction), L);
  if (known[kTable]) rewritten[kTable] = rewriteTables(known[kTable]->payload, L);
  if (known[kMemory]) rewritten[kMemory] = rewriteMemories(known[kMemory]->payload, options);
  rewritten[kGlobal] = rewriteGlobals(payloadOf(kGlobal), L, batchWeight, options.scale);
  rewritten[kExport] = rewriteExports(payloadOf(kExport), L);
  if (known[kStart]) rewritten[kStart] = rewriteStart(known[kStart]->payload, L);
  if (known[kElement]) rewritten[kElement] = rewriteElements(known[kElement]->payload, L);
  rewritten[kCode] = rewriteCode(payloadOf(kCode), L, options.batch, options.scale, stats);
  for (uint8_t id : {kTag, kDataCount, kData}) {
    if (known[id]) {
      Reader p = known[id]->payload;
      rewritten[id] = Bytes(p.pos(), p.pos() + p.remaining());
    }
  }

  Bytes out(in.data(), in.data() + 8);
  bool emitted[14] = {};
  auto emitUpTo = [&](int rank) {  // every pending section ordered before `rank`
    for (int want = 1; want < rank; ++want) {
      for (uint8_t id = 1; id <= 13; ++id) {
        if (sectionRank(id) == want && rewritten[id] && !emitted[id]) {
          putSection(out, id, *rewritten[id]);
          emitted[id] = true;
        }
      }
    }
  };
  for (const Section& s : sections) {
    if (s.id != kCustom) {
      emitUpTo(sectionRank(s.id) + 1);
      continue;
    }
    // DWARF and source maps describe code offsets that no longer hold.
    if (s.customName.starts_with(".debug_") || s.customName == "sourceMappingURL" ||
        s.customName == "external_debug_info") {
      ++stats.droppedCustomSections;
      continue;
    }
    if (s.customName == "name") {
      std::optional<Bytes> names = rewriteNames(s.payload, L);
      if (names) putSection(out, kCustom, *names); else ++stats.droppedCustomSections;
      continue;
    }
    Reader p = s.payload;
    Bytes payload;
    putName(payload, s.customName);
    putRange(payload, p.pos(), p.pos() + p.remaining());
    putSection(out, kCustom, payload);
  }
  emitUpTo(14);
  return out;
}

}  // namespace

std::optional<std::vector<uint8_t>> instrumentFuel(std::span<const uint8_t> in, const FuelOptions& options,
                                                   std::string* error, FuelStats* stats) {
  return guarded(error, [&] {
    FuelStats local;
    Bytes out = instrument(in, options, local);
    if (stats) *stats = local;
    return out;
  });
}


// --- modules without data segments --------------------------------------------------------------------------------

namespace {

// A constant expression (a data segment's offset): instructions up to its `end`.
void skipConstExpr(Reader& r) {
  for (;;) {
    if (decodeInstr(r).op == 0x0b) return;
  }
}

// Calls `visit` with every instruction of every function body of the code section, in order, until it returns false;
// false then, true when it saw them all.
template <typename Visit>
bool forEachInstr(Reader r, Visit&& visit) {
  const uint32_t n = r.u32();
  for (uint32_t i = 0; i < n; ++i) {
    Reader b = r.sub(r.u32());
    const uint32_t groups = b.u32();
    for (uint32_t g = 0; g < groups; ++g) {
      b.u32();
      skipValType(b);
    }
    while (!b.atEnd()) {
      if (!visit(decodeInstr(b))) return false;
    }
  }
  expectEnd(r, "code");
  return true;
}

// Whether any function body names a data segment (memory.init, data.drop).
bool codeUsesDataSegments(Reader r) {
  return !forEachInstr(r, [](const Instr& in) { return !(in.op == 0xfc && (in.sub == 8 || in.sub == 9)); });
}

// A module's sections in order, checked for the required order and refused when already stripped or relocatable.
struct RawSection {
  uint8_t id;
  std::string customName;
  const uint8_t* begin;  // the whole section: id, size, payload
  const uint8_t* end;
  Reader payload;
};

std::vector<RawSection> readSections(std::span<const uint8_t> in) {
  Reader r(in.data(), in.data() + in.size());
  if (in.size() < 8 || std::memcmp(in.data(), "\0asm", 4) != 0) fail("not a wasm module (bad magic)");
  r.bytes(4);
  if (std::memcmp(r.bytes(4), "\x01\0\0\0", 4) != 0) fail("unsupported wasm version (components are not supported)");
  std::vector<RawSection> sections;
  int lastRank = 0;
  while (!r.atEnd()) {
    const uint8_t* begin = r.pos();
    const uint8_t id = r.u8();
    if (id > 13) fail(r.at("unknown section id " + std::to_string(id)));
    Reader payload = r.sub(r.u32());
    std::string name;
    if (id == kCustom) {
      Reader p = payload;
      name = p.name();
      if (name == kNoDataSection) fail("the module has no data segments already (a " + name + " section)");
      if (name == "linking" || name.starts_with("reloc.")) fail("relocatable object files are not supported");
    } else {
      if (sectionRank(id) <= lastRank) fail(payload.at("section " + std::to_string(id) + " out of order or repeated"));
      lastRank = sectionRank(id);
    }
    sections.push_back(RawSection{id, std::move(name), begin, r.pos(), payload});
  }
  return sections;
}

const RawSection* findSection(const std::vector<RawSection>& sections, uint8_t id) {
  for (const RawSection& s : sections) {
    if (s.id == id) return &s;
  }
  return nullptr;
}

Bytes strip(std::span<const uint8_t> in, StripStats& stats) {
  const std::vector<RawSection> sections = readSections(in);
  const RawSection* code = findSection(sections, kCode);
  const RawSection* data = findSection(sections, kData);
  stats.keptIndices = code && codeUsesDataSegments(code->payload);

  // The data section: each segment's kind, and the new payload when indices must stay.
  Bytes kept;
  if (data) {
    Reader d = data->payload;
    const uint32_t n = d.u32();
    putU32(kept, n);
    for (uint32_t i = 0; i < n; ++i) {
      const uint8_t* start = d.pos();
      const uint32_t flags = d.u32();
      if (flags > 2) fail(d.at("unknown data segment flags " + std::to_string(flags)));
      if (flags == 2) d.u32();  // memory index
      if (flags != 1) skipConstExpr(d);
      const uint32_t len = d.u32();
      d.bytes(len);
      if (flags == 1) {
        ++stats.passiveSegments;
        putRange(kept, start, d.pos());
      } else {
        ++stats.activeSegments;
        stats.activeBytes += len;
        kept.push_back(0x01);  // passive, empty
        kept.push_back(0x00);
      }
    }
    expectEnd(d, "data");
  }

  stats.module = snapshot::hash64(in.data(), in.size(), kNoDataSeed);
  char id[17];
  std::snprintf(id, sizeof id, "%016llx", static_cast<unsigned long long>(stats.module));
  const std::string text = std::string("sw-nodata1;module=") + id + ";segments=" + std::to_string(stats.activeSegments) +
                           ";bytes=" + std::to_string(stats.activeBytes);
  stats.section = text;

  Bytes out(in.data(), in.data() + 8);
  for (const RawSection& s : sections) {
    if (s.id == kData || s.id == kDataCount) {
      if (!stats.keptIndices) continue;  // nothing names a segment: both sections go
      if (s.id == kData) {
        putSection(out, kData, kept);
        continue;
      }
    }
    putRange(out, s.begin, s.end);
  }
  Bytes payload;
  putName(payload, kNoDataSection);
  payload.insert(payload.end(), text.begin(), text.end());
  putSection(out, kCustom, payload);
  return out;
}

// Every i32.const immediate in the function bodies.
std::vector<uint32_t> codeConstants(Reader r) {
  std::vector<uint32_t> out;
  forEachInstr(r, [&](const Instr& in) {
    if (in.op == 0x41) out.push_back(uint32_t(Reader(in.start + 1, in.end).s32()));
    return true;
  });
  std::sort(out.begin(), out.end());
  return out;
}

uint32_t load32(const Bytes& m, uint64_t at) {
  return uint32_t(m[at]) | uint32_t(m[at + 1]) << 8 | uint32_t(m[at + 2]) << 16 | uint32_t(m[at + 3]) << 24;
}

// The NUL-terminated string at `at` when it starts with `head`, else nullopt.
std::optional<std::string_view> stringWithHead(const Bytes& m, uint32_t at, std::string_view head) {
  if (uint64_t(at) + head.size() > m.size() || std::memcmp(&m[at], head.data(), head.size()) != 0) return std::nullopt;
  const auto* end = static_cast<const uint8_t*>(std::memchr(&m[at], 0, m.size() - at));
  if (!end) return std::nullopt;
  return std::string_view(reinterpret_cast<const char*>(&m[at]), size_t(end - &m[at]));
}

Bytes extractFiles(std::span<const uint8_t> in, std::string_view prefix, std::vector<EmbeddedFile>& files,
                   ExtractStats& stats) {
  if (prefix.size() < 2 || prefix.front() != '/' || prefix.back() == '/' || prefix.find('\0') != std::string_view::npos) {
    fail("the prefix must be an absolute path without a trailing slash");
  }
  const std::vector<RawSection> sections = readSections(in);
  const RawSection* code = findSection(sections, kCode);
  const RawSection* data = findSection(sections, kData);
  if (!code || !data) fail("the module has no code or no data section");
  if (codeUsesDataSegments(code->payload)) fail("the code names data segments (memory.init, data.drop)");
  const std::vector<ActiveSegment> segments = activeSegments(data->payload);
  stats.segmentsBefore = uint32_t(segments.size());

  // The memory the data segments make, where the table and the strings are found.
  uint64_t top = 0;
  for (const auto& seg : segments) top = std::max<uint64_t>(top, uint64_t(seg.address) + seg.size);
  Bytes memory(top);
  for (const auto& seg : segments) std::memcpy(memory.data() + seg.address, seg.bytes, seg.size);

  // The prefix the lookups compare paths with: one string, exactly.
  const std::string needle = std::string(prefix) + '\0';
  std::optional<uint32_t> prefixAt;
  for (auto it = memory.begin(); (it = std::search(it, memory.end(), needle.begin(), needle.end())) != memory.end(); ++it) {
    if (prefixAt) fail("the prefix string \"" + std::string(prefix) + "\" is in the data segments more than once");
    prefixAt = uint32_t(it - memory.begin());
  }
  if (!prefixAt) fail("no prefix string \"" + std::string(prefix) + "\" in the data segments");

  // The table: consecutive {path, start, end} entries (3 x u32), each path a string under the prefix. The longest run
  // of them is the table; a second run as long is ambiguous.
  const std::string head = std::string(prefix) + "/";
  auto entryAt = [&](uint64_t at) {
    if (at + 12 > memory.size()) return false;
    const uint32_t start = load32(memory, at + 4), end = load32(memory, at + 8);
    return start <= end && end <= memory.size() && stringWithHead(memory, load32(memory, at), head).has_value();
  };
  uint64_t best = 0, bestCount = 0;
  bool tie = false;
  for (uint64_t at = 0; at + 12 <= memory.size(); at += 4) {
    if (!entryAt(at) || (at >= 12 && entryAt(at - 12))) continue;  // only where a run starts
    uint64_t count = 0;
    while (entryAt(at + 12 * count)) ++count;
    if (count > bestCount) {
      best = at, bestCount = count, tie = false;
    } else if (count == bestCount) {
      tie = true;
    }
  }
  if (bestCount < 2 || tie) fail("no unambiguous file table under \"" + std::string(prefix) + "\" in the data segments");
  std::vector<uint32_t> constants = codeConstants(code->payload);
  auto named = [&](uint32_t v) { return std::binary_search(constants.begin(), constants.end(), v); };
  if (!named(uint32_t(best))) fail("the code never names the file table's address");
  if (!named(*prefixAt)) fail("the code never names the prefix string's address");

  // Its files: contiguous bytes, unique plain paths. Those bytes are what goes.
  uint32_t lo = load32(memory, best + 4), hi = lo;
  for (uint64_t k = 0; k < bestCount; ++k) {
    const uint32_t path = load32(memory, best + 12 * k), start = load32(memory, best + 12 * k + 4),
                   end = load32(memory, best + 12 * k + 8);
    if (start != hi) fail("the file table's contents are not contiguous");
    hi = end;
    std::string name(*stringWithHead(memory, path, head));
    for (std::string_view part : {"//", "/./", "/../"}) {
      if ((name + "/").find(part) != std::string::npos) fail("a path that is not plain in the file table: " + name);
    }
    files.push_back(EmbeddedFile{std::move(name), Bytes(memory.begin() + start, memory.begin() + end)});
  }
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  for (size_t k = 1; k < files.size(); ++k) {
    if (files[k].path == files[k - 1].path) fail("a path twice in the file table: " + files[k].path);
  }
  if (lo <= *prefixAt && *prefixAt < hi) fail("the prefix string lies inside the files' contents");
  stats.files = uint32_t(files.size());
  stats.bytes = hi - lo;
  stats.table = uint32_t(best);
  stats.prefix = *prefixAt;

  // The prefix's first byte becomes NUL: no path the guest can name starts with it any more (only "" does, which the
  // lookup then misses as before), so every path goes to WASI. The files' bytes leave the data segments.
  memory[*prefixAt] = 0;
  Bytes payload;
  uint32_t kept = 0;
  for (const auto& seg : segments) {
    const uint64_t a = seg.address, b = a + seg.size;
    for (auto [from, to] : {std::pair<uint64_t, uint64_t>{a, std::min<uint64_t>(b, lo)},
                            std::pair<uint64_t, uint64_t>{std::max<uint64_t>(a, hi), b}}) {
      if (from >= to) continue;
      ++kept;
      payload.push_back(0x00);
      payload.push_back(0x41);
      putS32(payload, int32_t(uint32_t(from)));
      payload.push_back(0x0b);
      putU32(payload, uint32_t(to - from));
      payload.insert(payload.end(), memory.begin() + from, memory.begin() + to);
    }
  }
  stats.segmentsAfter = kept;
  Bytes section;
  putU32(section, kept);
  section.insert(section.end(), payload.begin(), payload.end());

  Bytes out(in.data(), in.data() + 8);
  for (const RawSection& s : sections) {
    if (s.id == kData) {
      putSection(out, kData, section);
    } else if (s.id == kDataCount) {
      Bytes count;
      putU32(count, kept);
      putSection(out, kDataCount, count);
    } else {
      putRange(out, s.begin, s.end);
    }
  }
  return out;
}

}  // namespace

std::optional<std::vector<uint8_t>> stripDataSegments(std::span<const uint8_t> in, std::string* error,
                                                      StripStats* stats) {
  return guarded(error, [&] {
    StripStats local;
    Bytes out = strip(in, local);
    if (stats) *stats = local;
    return out;
  });
}

std::optional<std::vector<uint8_t>> extractEmbeddedFiles(std::span<const uint8_t> in, std::string_view prefix,
                                                         std::vector<EmbeddedFile>* files, std::string* error,
                                                         ExtractStats* stats) {
  return guarded(error, [&] {
    ExtractStats local;
    std::vector<EmbeddedFile> found;
    Bytes out = extractFiles(in, prefix, found, local);
    if (stats) *stats = local;
    if (files) *files = std::move(found);
    return out;
  });
}

}  // namespace sw::tools
