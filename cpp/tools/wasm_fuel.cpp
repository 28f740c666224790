// Fuel instrumentation of a wasm binary (docs/fuel-tool.md). A single pass over the sections: every function index
// shifts by one (the new `sandbox.charge` import), every body gets a tick at entry and after each `loop`.
#include "tools/wasm_fuel.h"

#include <algorithm>
#include <cstring>
#include <utility>

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
  // Computed once the layout is known.
  uint32_t chargeFunc = 0, refillFunc = 0, leftGlobal = 0, batchGlobal = 0;
  uint32_t funcShift(uint32_t idx) const {
    if (idx < importedFuncs) return idx;
    if (idx - importedFuncs >= definedFuncs) fail("function index " + std::to_string(idx) + " out of range");
    return idx + 1;
  }
};

// Walks one expression (a body after its locals, or a constant expression) up to its final `end`, copying it to
// `out` with function indices renumbered and, when `tick` is non-empty, `tick` after every `loop` header.
uint32_t rewriteExpr(Reader& r, Bytes& out, const Layout& L, const Bytes& tick, bool bodyMustEnd) {
  const uint8_t* copied = r.pos();
  auto flushTo = [&](const uint8_t* to) { putRange(out, copied, to); copied = to; };
  auto renumberFunc = [&]() {
    flushTo(r.pos());
    uint32_t idx = r.u32();
    putU32(out, L.funcShift(idx));
    copied = r.pos();
  };
  uint32_t loops = 0;
  int64_t depth = 0;
  for (;;) {
    uint8_t op = r.u8();
    switch (op) {
      case 0x00: case 0x01: case 0x05: case 0x0a: case 0x0f: case 0x19: case 0x1a: case 0x1b: case 0xd1:
      case 0xd3: case 0xd5:
        break;
      case 0x02: case 0x04: case 0x06:  // block, if, try
        skipBlockType(r);
        ++depth;
        break;
      case 0x03:  // loop
        skipBlockType(r);
        ++depth;
        if (!tick.empty()) {
          flushTo(r.pos());
          out.insert(out.end(), tick.begin(), tick.end());
          ++loops;
        }
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
        ++depth;
        break;
      }
      case 0x0b:  // end
        if (--depth < 0) {
          flushTo(r.pos());
          if (bodyMustEnd && !r.atEnd()) fail(r.at("bytes after the end of a function body"));
          return loops;
        }
        break;
      case 0x18:  // delegate: ends its try
        r.u32();
        if (--depth < 0) fail(r.at("delegate outside a try"));
        break;
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
        renumberFunc();
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
        uint32_t sub = r.u32();
        if (sub <= 7) break;  // saturating truncations
        switch (sub) {
          case 8: case 10: case 12: case 14: r.u32(); r.u32(); break;  // memory.init/copy, table.init/copy
          case 9: case 11: case 13: case 15: case 16: case 17: r.u32(); break;
          default: fail(r.at("unknown 0xfc opcode " + std::to_string(sub)));
        }
        break;
      }
      case 0xfd: {
        uint32_t sub = r.u32();
        if (sub <= 11 || sub == 92 || sub == 93) skipMemArg(r);                 // loads, stores, load_zero
        else if (sub == 12 || sub == 13) r.bytes(16);                           // v128.const, i8x16.shuffle
        else if (sub >= 21 && sub <= 34) r.u8();                                // extract/replace_lane
        else if (sub >= 84 && sub <= 91) { skipMemArg(r); r.u8(); }             // load/store_lane
        else if (sub > 0xff && !(sub >= 0x100 && sub <= 0x113)) fail(r.at("unknown SIMD opcode " + std::to_string(sub)));
        break;  // the rest (arithmetic, relaxed SIMD) have no immediates
      }
      case 0xfe: {
        uint32_t sub = r.u32();
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
  }
}

Bytes rewriteConstExpr(Reader& r, const Layout& L) {
  Bytes out;
  rewriteExpr(r, out, L, {}, false);
  return out;
}

void expectEnd(const Reader& r, const char* what) {
  if (!r.atEnd()) fail(r.at(std::string("trailing bytes in the ") + what + " section"));
}

// --- the sections ----------------------------------------------------------------------------------------------

Bytes rewriteTypes(Reader r, Layout& L) {
  uint32_t n = r.u32();
  const uint8_t* start = r.pos();
  for (uint32_t i = 0; i < n; ++i) {
    const uint8_t* entry = r.pos();
    uint8_t form = r.u8();
    if (form != 0x60) fail(r.at("only function types are supported (GC types are not)"));
    uint32_t params = r.u32();
    for (uint32_t k = 0; k < params; ++k) skipValType(r);
    uint32_t results = r.u32();
    for (uint32_t k = 0; k < results; ++k) skipValType(r);
    size_t len = size_t(r.pos() - entry);
    if (!L.chargeType && len == 4 && std::memcmp(entry, "\x60\x01\x7f\x00", 4) == 0) L.chargeType = i;
    if (!L.voidType && len == 3 && std::memcmp(entry, "\x60\x00\x00", 3) == 0) L.voidType = i;
  }
  expectEnd(r, "type");
  L.types = n;
  Bytes extra;
  uint32_t added = 0;
  if (!L.chargeType) { L.chargeType = n + added++; putRange(extra, (const uint8_t*)"\x60\x01\x7f\x00", (const uint8_t*)"\x60\x01\x7f\x00" + 4); }
  if (!L.voidType) { L.voidType = n + added++; putRange(extra, (const uint8_t*)"\x60\x00\x00", (const uint8_t*)"\x60\x00\x00" + 3); }
  Bytes out;
  putU32(out, n + added);
  putRange(out, start, r.pos());
  out.insert(out.end(), extra.begin(), extra.end());
  return out;
}

void scanImports(Reader r, Layout& L) {
  uint32_t n = r.u32();
  for (uint32_t i = 0; i < n; ++i) {
    std::string module = r.name();
    std::string field = r.name();
    if (module == "sandbox" && field == "charge") fail("the module already imports sandbox.charge (already instrumented?)");
    uint8_t kind = r.u8();
    switch (kind) {
      case 0: r.u32(); ++L.importedFuncs; break;
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
  for (uint32_t i = 0; i < n; ++i) r.u32();
  expectEnd(r, "function");
  Bytes out;
  putU32(out, n + 1);
  putRange(out, start, r.pos());
  putU32(out, *L.voidType);  // the refill function
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

Bytes rewriteGlobals(Reader r, const Layout& L, uint32_t batch) {
  uint32_t n = r.u32();
  Bytes out;
  putU32(out, n + 2);
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
  for (uint8_t mut : {uint8_t(1), uint8_t(0)}) {  // $left (mutable), then sw_fuel_batch
    out.push_back(0x7f);
    out.push_back(mut);
    out.push_back(0x41);
    putS32(out, int32_t(batch));
    out.push_back(0x0b);
  }
  return out;
}

Bytes rewriteExports(Reader r, const Layout& L) {
  uint32_t n = r.u32();
  Bytes out;
  putU32(out, n + 2);
  for (uint32_t i = 0; i < n; ++i) {
    std::string name = r.name();
    if (name == "sw_fuel_left" || name == "sw_fuel_batch") fail("the module already exports " + name);
    uint8_t kind = r.u8();
    if (kind > 4) fail(r.at("unknown export kind"));
    uint32_t idx = r.u32();
    putName(out, name);
    out.push_back(kind);
    putU32(out, kind == 0 ? L.funcShift(idx) : idx);
  }
  expectEnd(r, "export");
  putName(out, "sw_fuel_left");
  out.push_back(3);
  putU32(out, L.leftGlobal);
  putName(out, "sw_fuel_batch");
  out.push_back(3);
  putU32(out, L.batchGlobal);
  return out;
}

Bytes rewriteStart(Reader r, const Layout& L) {
  uint32_t idx = r.u32();
  expectEnd(r, "start");
  Bytes out;
  putU32(out, L.funcShift(idx));
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
        putU32(out, L.funcShift(r.u32()));
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
  t.push_back(0x23); putU32(t, L.leftGlobal);   // global.get $left
  t.push_back(0x41); t.push_back(0x00);         // i32.const 0
  t.push_back(0x48);                            // i32.lt_s
  t.push_back(0x04); t.push_back(0x40);         // if
  t.push_back(0x10); putU32(t, L.refillFunc);   //   call $refill
  t.push_back(0x0b);                            // end
  return t;
}

Bytes rewriteCode(Reader r, const Layout& L, uint32_t batch, FuelStats& stats) {
  uint32_t n = r.u32();
  if (n != L.definedFuncs) fail("the code section has " + std::to_string(n) + " bodies for " + std::to_string(L.definedFuncs) + " functions");
  const Bytes tick = tickSequence(L);
  Bytes out;
  putU32(out, n + 1);
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
    putRange(body, locals, b.pos());
    body.insert(body.end(), tick.begin(), tick.end());
    stats.loops += rewriteExpr(b, body, L, tick, true);
    ++stats.functions;
    putU32(out, uint32_t(body.size()));
    out.insert(out.end(), body.begin(), body.end());
  }
  expectEnd(r, "code");
  Bytes refill;
  refill.push_back(0x00);                                   // no locals
  refill.push_back(0x41); putS32(refill, int32_t(batch));   // i32.const BATCH
  refill.push_back(0x23); putU32(refill, L.leftGlobal);     // global.get $left
  refill.push_back(0x6b);                                   // i32.sub
  refill.push_back(0x10); putU32(refill, L.chargeFunc);     // call $charge
  refill.push_back(0x41); putS32(refill, int32_t(batch));   // i32.const BATCH
  refill.push_back(0x24); putU32(refill, L.leftGlobal);     // global.set $left
  refill.push_back(0x0b);
  putU32(out, uint32_t(refill.size()));
  out.insert(out.end(), refill.begin(), refill.end());
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
        names.emplace_back(L.chargeFunc, "sandbox.charge");
        names.emplace_back(L.refillFunc, "sw_fuel_refill");
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

Bytes instrument(std::span<const uint8_t> in, const FuelOptions& options, FuelStats& stats) {
  if (options.batch < 1 || options.batch > (1u << 30)) fail("--batch must be between 1 and 2^30");
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
  if (known[kImport]) scanImports(known[kImport]->payload, L);
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
  L.chargeFunc = L.importedFuncs;
  L.refillFunc = L.importedFuncs + 1 + L.definedFuncs;
  L.leftGlobal = L.importedGlobals + L.definedGlobals;
  L.batchGlobal = L.leftGlobal + 1;

  // Every section we emit, by id; customs are handled in place.
  std::optional<Bytes> rewritten[14];
  rewritten[kType] = std::move(types);
  rewritten[kImport] = rewriteImports(payloadOf(kImport), L);
  rewritten[kFunction] = rewriteFunctions(payloadOf(kFunction), L);
  if (known[kTable]) rewritten[kTable] = rewriteTables(known[kTable]->payload, L);
  if (known[kMemory]) rewritten[kMemory] = rewriteMemories(known[kMemory]->payload, options);
  rewritten[kGlobal] = rewriteGlobals(payloadOf(kGlobal), L, options.batch);
  rewritten[kExport] = rewriteExports(payloadOf(kExport), L);
  if (known[kStart]) rewritten[kStart] = rewriteStart(known[kStart]->payload, L);
  if (known[kElement]) rewritten[kElement] = rewriteElements(known[kElement]->payload, L);
  rewritten[kCode] = rewriteCode(payloadOf(kCode), L, options.batch, stats);
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
  FuelStats local;
  try {
    Bytes out = instrument(in, options, local);
    if (stats) *stats = local;
    return out;
  } catch (const WasmError& e) {
    if (error) *error = e.message;
  } catch (const std::bad_alloc&) {
    if (error) *error = "out of memory";
  }
  return std::nullopt;
}

}  // namespace sw::tools
