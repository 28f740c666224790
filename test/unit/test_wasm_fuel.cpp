// cpp/tools/wasm_fuel: fuel instrumentation of prebuilt modules (docs/fuel-tool.md). Modules are assembled by hand
// here; test/tools/wasm-fuel.test.mjs runs real ones (a C guest, zeroperl) under V8.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "snapshot/snapshot.h"
#include "tools/wasm_fuel.h"

using sw::tools::FuelOptions;
using sw::tools::FuelStats;
using sw::tools::instrumentFuel;
using Bytes = std::vector<uint8_t>;

namespace {

Bytes leb(uint32_t v) {
  Bytes out;
  do {
    uint8_t b = v & 0x7f;
    v >>= 7;
    out.push_back(v ? (b | 0x80) : b);
  } while (v);
  return out;
}

Bytes cat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const Bytes& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

Bytes str(const std::string& s) { return cat({leb(uint32_t(s.size())), Bytes(s.begin(), s.end())}); }

Bytes section(uint8_t id, const Bytes& payload) { return cat({{id}, leb(uint32_t(payload.size())), payload}); }

Bytes module(std::initializer_list<Bytes> sections) {
  Bytes out = {0x00, 'a', 's', 'm', 0x01, 0x00, 0x00, 0x00};
  for (const Bytes& s : sections) out.insert(out.end(), s.begin(), s.end());
  return out;
}

Bytes body(const Bytes& code) { return cat({leb(uint32_t(code.size())), code}); }

// The payload of the first section with `id` (and, for custom sections, `name`) in a module we produced.
std::optional<Bytes> findSection(const Bytes& m, uint8_t id, const std::string& name = "") {
  size_t p = 8;
  while (p < m.size()) {
    uint8_t sid = m[p++];
    uint32_t size = 0;
    for (int shift = 0;; shift += 7) {
      uint8_t b = m.at(p++);
      size |= uint32_t(b & 0x7f) << shift;
      if (!(b & 0x80)) break;
    }
    Bytes payload(m.begin() + long(p), m.begin() + long(p + size));
    p += size;
    if (sid != id) continue;
    if (id != 0) return payload;
    Bytes prefix = str(name);
    if (payload.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), payload.begin())) return payload;
  }
  return std::nullopt;
}

std::vector<uint8_t> sectionIds(const Bytes& m) {
  std::vector<uint8_t> ids;
  size_t p = 8;
  while (p < m.size()) {
    ids.push_back(m[p++]);
    uint32_t size = 0;
    for (int shift = 0;; shift += 7) {
      uint8_t b = m.at(p++);
      size |= uint32_t(b & 0x7f) << shift;
      if (!(b & 0x80)) break;
    }
    p += size;
  }
  return ids;
}

// The inserted sequence for $left = global `g`, $refill = function `f` (both indices below 128 here).
Bytes tick(uint8_t g, uint8_t f) {
  return {0x23, g, 0x41, 0x01, 0x6b, 0x24, g, 0x23, g, 0x41, 0x00, 0x48, 0x04, 0x40, 0x10, f, 0x0b};
}

const Bytes kVoidType = {0x60, 0x00, 0x00};
const Bytes kI32Type = {0x60, 0x01, 0x7f, 0x00};

// One imported function (0), two defined ones (1, 2), referenced from everywhere a function index can appear.
Bytes sampleModule() {
  return module({
      section(1, cat({{0x02}, kVoidType, kI32Type})),
      section(2, cat({{0x01}, str("env"), str("f"), {0x00, 0x00}})),
      section(3, {0x02, 0x00, 0x00}),
      section(4, {0x01, 0x70, 0x00, 0x04}),
      section(6, {0x01, 0x70, 0x00, 0xd2, 0x01, 0x0b}),  // (global funcref (ref.func 1))
      section(7, cat({{0x02}, str("f1"), {0x00, 0x01}, str("t"), {0x01, 0x00}})),
      section(8, {0x02}),
      section(9, {0x03,
                  0x00, 0x41, 0x00, 0x0b, 0x02, 0x01, 0x02,              // active, table 0, funcs [1 2]
                  0x04, 0x41, 0x02, 0x0b, 0x01, 0xd2, 0x02, 0x0b,        // active, expressions [(ref.func 2)]
                  0x03, 0x00, 0x01, 0x01}),                              // declarative [1]
      section(10, cat({{0x02},
                       body({0x00, 0x10, 0x02, 0xd2, 0x01, 0x1a, 0x03, 0x40, 0x0b, 0x12, 0x02, 0x0b}),
                       body({0x00, 0x0b})})),
      section(0, cat({str("name"), {0x01}, body(cat({{0x02, 0x01}, str("one"), {0x02}, str("two")}))})),
      section(0, cat({str(".debug_info"), {0x01, 0x02}})),
  });
}

}  // namespace

TEST_CASE("wasm fuel: function indices shift by one everywhere (call, return_call, ref.func, exports, start, elem, "
          "globals, names)", "[wasm_fuel]") {
  std::string error;
  FuelStats stats;
  auto out = instrumentFuel(sampleModule(), FuelOptions{}, &error, &stats);
  REQUIRE(out);
  CHECK(error.empty());
  // Types (i32)->() and ()->() already exist: reused, nothing appended.
  CHECK(*findSection(*out, 1) == cat({{0x02}, kVoidType, kI32Type}));
  CHECK(*findSection(*out, 2) == cat({{0x02}, str("env"), str("f"), {0x00, 0x00}, str("sandbox"), str("charge"), {0x00, 0x01}}));
  CHECK(*findSection(*out, 3) == Bytes{0x03, 0x00, 0x00, 0x00});  // + $refill
  CHECK(*findSection(*out, 6) == Bytes{0x03, 0x70, 0x00, 0xd2, 0x02, 0x0b,    // ref.func 1 -> 2
                                       0x7f, 0x01, 0x41, 0x80, 0x08, 0x0b,   // $left = 1024
                                       0x7f, 0x00, 0x41, 0x80, 0x08, 0x0b}); // sw_fuel_batch = 1024
  CHECK(*findSection(*out, 7) == cat({{0x04}, str("f1"), {0x00, 0x02}, str("t"), {0x01, 0x00},
                                      str("sw_fuel_left"), {0x03, 0x01}, str("sw_fuel_batch"), {0x03, 0x02}}));
  CHECK(*findSection(*out, 8) == Bytes{0x03});
  CHECK(*findSection(*out, 9) == Bytes{0x03, 0x00, 0x41, 0x00, 0x0b, 0x02, 0x02, 0x03,
                                       0x04, 0x41, 0x02, 0x0b, 0x01, 0xd2, 0x03, 0x0b,
                                       0x03, 0x00, 0x01, 0x02});
  // $left = global 1, $refill = function 4 (1 import + charge + 2 defined), charge = function 1.
  Bytes f1 = cat({{0x00}, tick(1, 4), {0x10, 0x03, 0xd2, 0x02, 0x1a, 0x03, 0x40}, tick(1, 4), {0x0b, 0x12, 0x03, 0x0b}});
  Bytes f2 = cat({{0x00}, tick(1, 4), {0x0b}});
  Bytes refill = {0x00, 0x41, 0x80, 0x08, 0x23, 0x01, 0x6b, 0x10, 0x01, 0x41, 0x80, 0x08, 0x24, 0x01, 0x0b};
  CHECK(*findSection(*out, 10) == cat({{0x03}, body(f1), body(f2), body(refill)}));
  CHECK(*findSection(*out, 0, "name") ==
        cat({str("name"), {0x01}, body(cat({{0x04, 0x01}, str("sandbox.charge"), {0x02}, str("one"), {0x03}, str("two"),
                                            {0x04}, str("sw_fuel_refill")}))}));
  CHECK_FALSE(findSection(*out, 0, ".debug_info"));
  CHECK(stats.functions == 2);
  CHECK(stats.loops == 1);
  CHECK(stats.droppedCustomSections == 1);
  // Deterministic.
  CHECK(*instrumentFuel(sampleModule(), FuelOptions{}, &error) == *out);
}

TEST_CASE("wasm fuel: an empty module gets the import, the globals, the exports and $refill in section order",
          "[wasm_fuel]") {
  std::string error;
  FuelOptions options;
  options.batch = 7;
  auto out = instrumentFuel(module({}), options, &error);
  REQUIRE(out);
  CHECK(sectionIds(*out) == std::vector<uint8_t>{1, 2, 3, 6, 7, 10});
  CHECK(*findSection(*out, 1) == cat({{0x02}, kI32Type, kVoidType}));
  CHECK(*findSection(*out, 10) ==
        cat({{0x01}, body({0x00, 0x41, 0x07, 0x23, 0x00, 0x6b, 0x10, 0x00, 0x41, 0x07, 0x24, 0x00, 0x0b})}));
}

TEST_CASE("wasm fuel: loops inside blocks, ifs and try are all metered; a body with bytes after its end is refused",
          "[wasm_fuel]") {
  Bytes code = {0x00, 0x02, 0x40, 0x03, 0x40, 0x04, 0x40, 0x03, 0x7f, 0x41, 0x00, 0x0b, 0x1a, 0x0b, 0x0b, 0x0b,
                0x06, 0x40, 0x03, 0x40, 0x0b, 0x19, 0x0b, 0x0b};
  Bytes m = module({section(1, cat({{0x01}, kVoidType})), section(3, {0x01, 0x00}),
                    section(10, cat({{0x01}, body(code)}))});
  std::string error;
  FuelStats stats;
  REQUIRE(instrumentFuel(m, FuelOptions{}, &error, &stats));
  CHECK(stats.loops == 3);
  Bytes trailing = code;
  trailing.push_back(0x01);
  Bytes bad = module({section(1, cat({{0x01}, kVoidType})), section(3, {0x01, 0x00}),
                      section(10, cat({{0x01}, body(trailing)}))});
  CHECK_FALSE(instrumentFuel(bad, FuelOptions{}, &error));
  CHECK(error.find("after the end") != std::string::npos);
}

TEST_CASE("wasm fuel: a module that already imports sandbox.charge is refused", "[wasm_fuel]") {
  Bytes m = module({section(1, cat({{0x01}, kI32Type})),
                    section(2, cat({{0x01}, str("sandbox"), str("charge"), {0x00, 0x00}}))});
  std::string error;
  CHECK_FALSE(instrumentFuel(m, FuelOptions{}, &error));
  CHECK(error.find("already imports sandbox.charge") != std::string::npos);
  // Our own output, fed back in.
  auto once = instrumentFuel(sampleModule(), FuelOptions{}, &error);
  REQUIRE(once);
  CHECK_FALSE(instrumentFuel(*once, FuelOptions{}, &error));
  CHECK(error.find("already imports sandbox.charge") != std::string::npos);
}

TEST_CASE("wasm fuel: truncated, garbage and malformed input is refused with a message", "[wasm_fuel]") {
  const Bytes good = sampleModule();
  std::string error;
  // A prefix that ends between two sections can be a valid module (8: the bare header); any other must fail.
  std::vector<size_t> boundaries = {8};
  for (size_t p = 8, k = 0; k < sectionIds(good).size(); ++k) {
    ++p;
    uint32_t size = 0;
    for (int shift = 0;; shift += 7) {
      uint8_t b = good[p++];
      size |= uint32_t(b & 0x7f) << shift;
      if (!(b & 0x80)) break;
    }
    p += size;
    boundaries.push_back(p);
  }
  for (size_t n = 0; n < good.size(); ++n) {
    error.clear();
    Bytes cut(good.begin(), good.begin() + long(n));
    INFO("prefix of " << n << " bytes");
    auto out = instrumentFuel(cut, FuelOptions{}, &error);
    if (std::find(boundaries.begin(), boundaries.end(), n) != boundaries.end()) {
      CHECK((out.has_value() || !error.empty()));
    } else {
      CHECK_FALSE(out);
      CHECK_FALSE(error.empty());
    }
  }
  // Every single-byte corruption either fails cleanly or gives a module (ASan/UBSan watch the rest).
  for (size_t i = 8; i < good.size(); ++i) {
    for (uint8_t v : {uint8_t(0x00), uint8_t(0x7f), uint8_t(0x80), uint8_t(0xff)}) {
      Bytes m = good;
      m[i] = v;
      auto out = instrumentFuel(m, FuelOptions{}, &error);
      CHECK((out.has_value() || !error.empty()));
    }
  }
  std::mt19937 rng(42);
  for (int k = 0; k < 2000; ++k) {
    Bytes m = {0x00, 'a', 's', 'm', 0x01, 0x00, 0x00, 0x00};
    size_t len = rng() % 64;
    for (size_t i = 0; i < len; ++i) m.push_back(uint8_t(rng()));
    (void)instrumentFuel(m, FuelOptions{}, &error);
  }
  CHECK_FALSE(instrumentFuel(Bytes{'n', 'o', 't', 'w', 'a', 's', 'm', '!'}, FuelOptions{}, &error));
  CHECK(error.find("magic") != std::string::npos);
  // Overlong and out-of-range LEB128 section sizes.
  CHECK_FALSE(instrumentFuel(module({{0x01, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}}), FuelOptions{}, &error));
  CHECK(error.find("LEB128") != std::string::npos);
  CHECK_FALSE(instrumentFuel(module({{0x01, 0xff, 0xff, 0xff, 0xff, 0x7f}}), FuelOptions{}, &error));
  CHECK(error.find("LEB128") != std::string::npos);
  // An unknown opcode.
  Bytes unknown = module({section(1, cat({{0x01}, kVoidType})), section(3, {0x01, 0x00}),
                          section(10, cat({{0x01}, body({0x00, 0xff, 0x0b})}))});
  CHECK_FALSE(instrumentFuel(unknown, FuelOptions{}, &error));
  CHECK(error.find("unknown opcode 255") != std::string::npos);
  // A call to a function that does not exist.
  Bytes badCall = module({section(1, cat({{0x01}, kVoidType})), section(3, {0x01, 0x00}),
                          section(10, cat({{0x01}, body({0x00, 0x10, 0x05, 0x0b})}))});
  CHECK_FALSE(instrumentFuel(badCall, FuelOptions{}, &error));
  CHECK(error.find("out of range") != std::string::npos);
  // Sections out of order.
  CHECK_FALSE(instrumentFuel(module({section(3, {0x00}), section(1, {0x00})}), FuelOptions{}, &error));
  CHECK(error.find("out of order") != std::string::npos);
  FuelOptions zero;
  zero.batch = 0;
  CHECK_FALSE(instrumentFuel(module({}), zero, &error));
}

TEST_CASE("wasm fuel: --max-pages adds or lowers the memory maximum and refuses what cannot fit", "[wasm_fuel]") {
  FuelOptions options;
  options.maxPages = 10;
  std::string error;
  auto memoryOf = [&](const Bytes& limits) {
    auto out = instrumentFuel(module({section(5, cat({{0x01}, limits}))}), options, &error);
    return out ? findSection(*out, 5) : std::nullopt;
  };
  CHECK(memoryOf({0x00, 0x02}) == Bytes{0x01, 0x01, 0x02, 0x0a});        // no maximum: added
  CHECK(memoryOf({0x01, 0x02, 0x64}) == Bytes{0x01, 0x01, 0x02, 0x0a});  // 100: lowered
  CHECK(memoryOf({0x01, 0x02, 0x05}) == Bytes{0x01, 0x01, 0x02, 0x05});  // 5: kept
  CHECK(memoryOf({0x03, 0x02, 0x64}) == Bytes{0x01, 0x03, 0x02, 0x0a});  // shared stays shared
  CHECK_FALSE(memoryOf({0x00, 0x14}));                                   // initial 20 > 10
  CHECK(error.find("initial size is 20") != std::string::npos);
  Bytes imported = module({section(2, cat({{0x01}, str("env"), str("memory"), {0x02, 0x00, 0x01}}))});
  CHECK_FALSE(instrumentFuel(imported, options, &error));
  CHECK(error.find("imported") != std::string::npos);
  CHECK_FALSE(instrumentFuel(module({}), options, &error));
  CHECK(error.find("exactly one memory") != std::string::npos);
  // Without the option the memory is untouched.
  auto out = instrumentFuel(module({section(5, {0x01, 0x00, 0x02})}), FuelOptions{}, &error);
  REQUIRE(out);
  CHECK(*findSection(*out, 5) == Bytes{0x01, 0x00, 0x02});
}

// --- --strip-data (stripDataSegments; docs/boot-images.md) ---------------------------------------------------------

namespace {

// A memory, two active segments around a passive one, the data count, and code that does or does not name them.
Bytes dataModule(bool codeNamesSegments) {
  const Bytes code = codeNamesSegments
                         // memory.init 1 (dst 0, src 0, n 1), data.drop 1
                         ? Bytes{0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x01, 0xfc, 0x08, 0x01, 0x00, 0xfc, 0x09, 0x01, 0x0b}
                         : Bytes{0x00, 0x41, 0x00, 0x41, 0x00, 0x41, 0x01, 0xfc, 0x0b, 0x00, 0x0b};  // memory.fill
  return module({
      section(1, cat({{0x01}, kVoidType})),
      section(3, {0x01, 0x00}),
      section(5, {0x01, 0x00, 0x02}),
      section(7, cat({{0x01}, str("run"), {0x00, 0x00}})),
      section(12, {0x03}),
      section(10, cat({{0x01}, body(code)})),
      section(11, {0x03,
                   0x00, 0x41, 0x10, 0x0b, 0x03, 'a', 'b', 'c',        // active, memory 0, at 16
                   0x01, 0x02, 'p', 'q',                                // passive
                   0x02, 0x00, 0x41, 0x80, 0x02, 0x0b, 0x02, 'x', 'y'}), // active, explicit memory 0, at 256
      section(0, cat({str("name"), {0x00, 0x04}, str("mod")})),
  });
}

std::string sectionText(const Bytes& m) {
  auto s = findSection(m, 0, sw::tools::kNoDataSection);
  if (!s) return "";
  const size_t skip = str(sw::tools::kNoDataSection).size();
  return std::string(s->begin() + long(skip), s->end());
}

}  // namespace

TEST_CASE("wasm strip-data: active segments go, the rest of the module is kept byte for byte, the id is recorded",
          "[wasm_fuel]") {
  const Bytes in = dataModule(false);
  std::string error;
  sw::tools::StripStats stats;
  auto out = sw::tools::stripDataSegments(in, &error, &stats);
  REQUIRE(out);
  // No code names a segment: the data and data count sections go entirely (the passive segment is unreachable).
  CHECK(sectionIds(*out) == std::vector<uint8_t>{1, 3, 5, 7, 10, 0, 0});
  CHECK(!findSection(*out, 11));
  CHECK(!findSection(*out, 12));
  for (uint8_t id : {1, 3, 5, 7, 10}) CHECK(*findSection(*out, id) == *findSection(in, id));
  CHECK(*findSection(*out, 0, "name") == *findSection(in, 0, "name"));
  CHECK(stats.activeSegments == 2);
  CHECK(stats.activeBytes == 5);
  CHECK(stats.passiveSegments == 1);
  CHECK_FALSE(stats.keptIndices);
  char id[17];
  std::snprintf(id, sizeof id, "%016llx",
                static_cast<unsigned long long>(sw::snapshot::hash64(in.data(), in.size(), sw::tools::kNoDataSeed)));
  CHECK(stats.module == sw::snapshot::hash64(in.data(), in.size(), sw::tools::kNoDataSeed));
  CHECK(sectionText(*out) == std::string("sw-nodata1;module=") + id + ";segments=2;bytes=5");
  CHECK(stats.section == sectionText(*out));
  // Deterministic; and a module is stripped once only.
  CHECK(*sw::tools::stripDataSegments(in, &error) == *out);
  CHECK_FALSE(sw::tools::stripDataSegments(*out, &error));
  CHECK(error.find("no data segments already") != std::string::npos);
  // Another input, another id.
  Bytes other = in;
  other[other.size() - 1] = 'x';
  CHECK(sw::tools::stripDataSegments(other, &error)->size() == out->size());
  CHECK(sectionText(*sw::tools::stripDataSegments(other, &error)) != sectionText(*out));
}

TEST_CASE("wasm strip-data: code that names segments keeps every index: active ones become empty passive ones",
          "[wasm_fuel]") {
  const Bytes in = dataModule(true);
  std::string error;
  sw::tools::StripStats stats;
  auto out = sw::tools::stripDataSegments(in, &error, &stats);
  REQUIRE(out);
  CHECK(stats.keptIndices);
  CHECK(*findSection(*out, 12) == Bytes{0x03});
  // Segment 1 (passive, named by memory.init) stays whole; 0 and 2 hold nothing and are no longer active.
  CHECK(*findSection(*out, 11) == Bytes{0x03, 0x01, 0x00, 0x01, 0x02, 'p', 'q', 0x01, 0x00});
  CHECK(*findSection(*out, 10) == *findSection(in, 10));
}

TEST_CASE("wasm strip-data: malformed input is refused with a message", "[wasm_fuel]") {
  std::string error;
  CHECK_FALSE(sw::tools::stripDataSegments(Bytes{0x00, 'a', 's'}, &error));
  CHECK_FALSE(error.empty());
  const Bytes in = dataModule(false);
  for (size_t n = 9; n < in.size(); n += 3) {
    Bytes cut(in.begin(), in.begin() + long(n));
    error.clear();
    if (!sw::tools::stripDataSegments(cut, &error)) CHECK_FALSE(error.empty());
  }
  // Unknown segment flags.
  Bytes bad = module({section(5, {0x01, 0x00, 0x01}), section(11, {0x01, 0x07, 0x00})});
  CHECK_FALSE(sw::tools::stripDataSegments(bad, &error));
  CHECK(error.find("data segment flags") != std::string::npos);
}

// --- --extract-files (extractEmbeddedFiles; docs/fuel-tool.md) -----------------------------------------------------

namespace {

Bytes u32le(uint32_t v) { return {uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)}; }

// i32.const's immediate is a signed LEB128: 64..127 take two bytes.
Bytes sleb(int32_t value) {
  Bytes out;
  int64_t v = value;
  for (;;) {
    uint8_t b = v & 0x7f;
    v >>= 7;
    if ((v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40))) {
      out.push_back(b);
      return out;
    }
    out.push_back(b | 0x80);
  }
}

Bytes activeAt(uint32_t address, const Bytes& bytes) {
  return cat({{0x00, 0x41}, sleb(int32_t(address)), {0x0b}, leb(uint32_t(bytes.size())), bytes});
}

Bytes asBytes(const std::string& s) { return Bytes(s.begin(), s.end()); }

// zeroperl's layout in miniature: the prefix "/zp" at 16, two paths, the files' bytes at 64 (then 4 other bytes), and
// the table {path, start, end} x 2 at 128; the code names the prefix, and the table when `namesTable`.
Bytes filesModule(bool namesTable, bool prefixTwice = false) {
  Bytes code = {0x00};
  if (namesTable) code = cat({code, {0x41}, sleb(128), {0x1a}});  // i32.const 128; drop
  code = cat({code, {0x41, 0x10, 0x1a, 0x0b}});                 // i32.const 16; drop; end
  Bytes table = cat({u32le(32), u32le(64), u32le(68), u32le(48), u32le(68), u32le(70)});
  Bytes data = cat({{uint8_t(prefixTwice ? 6 : 5)}, activeAt(16, asBytes(std::string("/zp\0", 4))),
                    activeAt(32, asBytes(std::string("/zp/a.pm\0", 9))),
                    activeAt(48, asBytes(std::string("/zp/d/b.pm\0", 11))), activeAt(64, asBytes("AAAABBkeep")),
                    activeAt(128, table)});
  if (prefixTwice) data = cat({data, activeAt(100, asBytes(std::string("/zp\0", 4)))});
  return module({section(1, cat({{0x01}, kVoidType})), section(3, {0x01, 0x00}), section(5, {0x01, 0x00, 0x01}),
                 section(12, {uint8_t(prefixTwice ? 6 : 5)}), section(10, cat({{0x01}, body(code)})),
                 section(11, data)});
}

}  // namespace

TEST_CASE("wasm extract-files: the table's files come out, their bytes leave the data, the prefix no longer matches",
          "[wasm_fuel]") {
  const Bytes in = filesModule(true);
  std::string error;
  std::vector<sw::tools::EmbeddedFile> files;
  sw::tools::ExtractStats stats;
  auto out = sw::tools::extractEmbeddedFiles(in, "/zp", &files, &error, &stats);
  INFO(error);
  REQUIRE(out);
  REQUIRE(files.size() == 2);
  CHECK(files[0].path == "/zp/a.pm");
  CHECK(files[0].data == asBytes("AAAA"));
  CHECK(files[1].path == "/zp/d/b.pm");
  CHECK(files[1].data == asBytes("BB"));
  CHECK(stats.files == 2);
  CHECK(stats.bytes == 6);
  CHECK(stats.table == 128);
  CHECK(stats.prefix == 16);
  CHECK(stats.segmentsBefore == 5);
  CHECK(stats.segmentsAfter == 5);
  // The prefix starts with NUL now; the files' bytes are gone, what followed them stays at its address.
  const Bytes table = cat({u32le(32), u32le(64), u32le(68), u32le(48), u32le(68), u32le(70)});
  CHECK(*findSection(*out, 11) ==
        cat({{0x05}, activeAt(16, asBytes(std::string("\0zp\0", 4))), activeAt(32, asBytes(std::string("/zp/a.pm\0", 9))),
             activeAt(48, asBytes(std::string("/zp/d/b.pm\0", 11))), activeAt(70, asBytes("keep")),
             activeAt(128, table)}));
  for (uint8_t id : {1, 3, 5, 10, 12}) CHECK(*findSection(*out, id) == *findSection(in, id));
  CHECK(*sw::tools::extractEmbeddedFiles(in, "/zp", nullptr, &error) == *out);  // deterministic
  // Run again on its own output: the prefix string is gone, so there is nothing left to identify.
  CHECK_FALSE(sw::tools::extractEmbeddedFiles(*out, "/zp", nullptr, &error));
  CHECK(error.find("no prefix string") != std::string::npos);
}

TEST_CASE("wasm extract-files: a table the code never names, a prefix twice or a bad prefix are refused",
          "[wasm_fuel]") {
  std::string error;
  CHECK_FALSE(sw::tools::extractEmbeddedFiles(filesModule(false), "/zp", nullptr, &error));
  CHECK(error == "the code never names the file table's address");
  CHECK_FALSE(sw::tools::extractEmbeddedFiles(filesModule(true, true), "/zp", nullptr, &error));
  CHECK(error.find("more than once") != std::string::npos);
  for (const char* prefix : {"zp", "/zp/", "/"}) {
    CHECK_FALSE(sw::tools::extractEmbeddedFiles(filesModule(true), prefix, nullptr, &error));
    CHECK(error.find("absolute path") != std::string::npos);
  }
  CHECK_FALSE(sw::tools::extractEmbeddedFiles(filesModule(true), "/other", nullptr, &error));
  CHECK(error.find("no prefix string") != std::string::npos);
  const Bytes in = filesModule(true);
  for (size_t n = 9; n < in.size(); n += 3) {
    Bytes cut(in.begin(), in.begin() + long(n));
    error.clear();
    if (!sw::tools::extractEmbeddedFiles(cut, "/zp", nullptr, &error)) CHECK_FALSE(error.empty());
  }
}

// --- --stack-mark (FuelOptions::stackMark; docs/fuel-tool.md "The stack mark") --------------------------------------

namespace {

// One function that moves the stack pointer down and back (a prologue and an epilogue), globals as given, one
// memory of 4 pages, and active data segments at the given offsets; optionally a name section naming global `named`
// __stack_pointer.
Bytes stackModule(const Bytes& globals, std::initializer_list<uint32_t> dataAt, std::optional<uint32_t> named = {},
                  const Bytes& imports = {0x00}, uint8_t sp = 0) {
  Bytes data = leb(uint32_t(dataAt.size()));
  for (uint32_t at : dataAt) {
    Bytes offset = {0x41};
    for (int32_t v = int32_t(at);;) {  // signed LEB128
      uint8_t b = v & 0x7f;
      v >>= 7;
      const bool done = (v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40));
      offset.push_back(done ? b : (b | 0x80));
      if (done) break;
    }
    data = cat({data, {0x00}, offset, {0x0b, 0x02, 'a', 'b'}});
  }
  Bytes m = module({
      section(1, cat({{0x01}, kVoidType})),
      section(2, imports),
      section(3, {0x01, 0x00}),
      section(5, {0x01, 0x00, 0x04}),
      section(6, globals),
      section(7, cat({{0x01}, str("run"), {0x00, 0x00}})),
      section(10, cat({{0x01}, body({0x00, 0x23, sp, 0x41, 0x10, 0x6b, 0x24, sp, 0x23, sp, 0x41, 0x10, 0x6a, 0x24, sp,
                                     0x0b})})),
      section(11, data),
  });
  if (named) {
    const Bytes names = cat({{0x01}, leb(*named), str("__stack_pointer")});
    m = cat({m, section(0, cat({str("name"), {0x07}, leb(uint32_t(names.size())), names}))});
  }
  return m;
}

const Bytes kSp128K = {0x7f, 0x01, 0x41, 0x80, 0x80, 0x08, 0x0b};  // (global (mut i32) (i32.const 131072))

}  // namespace

TEST_CASE("wasm fuel: --stack-mark lowers sw_stack_low at every set of a stack that comes first, or refuses", "[wasm_fuel]") {
  FuelOptions options;
  options.stackMark = true;
  std::string error;
  FuelStats stats;
  auto exportsOf = [](const Bytes& m) {
    auto e = findSection(m, 7);
    return e ? std::string(e->begin(), e->end()) : std::string();
  };
  // Accepted: the stack pointer is global 0, data lies above its initial value (or within 64 KiB under it, as a
  // post-link snapshot leaves it); both sets are rewritten, the four globals exported.
  for (auto at : {131072u, 131072u - 100u}) {
    auto out = instrumentFuel(stackModule(cat({{0x01}, kSp128K}), {at, 131072u + 4096u}), options, &error, &stats);
    REQUIRE(out);
    CHECK(stats.stackMarks == 2);
    for (const char* name : {"sw_stack_low", "sw_stack_base", "sw_stack_top", "sw_stack_pointer"})
      CHECK(exportsOf(*out).find(name) != std::string::npos);
    // The rewritten set: local.tee $mark (local 0: the function has no parameters or locals of its own, and tick
    // mode adds none), global.set $sp, then $low = $mark if lower (global 3: after $left and sw_fuel_batch).
    const Bytes set = {0x22, 0x00, 0x24, 0x00, 0x20, 0x00, 0x23, 0x03, 0x49, 0x04, 0x40, 0x20, 0x00, 0x24, 0x03, 0x0b};
    auto code = findSection(*out, 10);
    REQUIRE(code);
    CHECK(std::search(code->begin(), code->end(), set.begin(), set.end()) != code->end());
  }
  // The name section says which global it is.
  const Bytes two = cat({{0x02}, {0x7f, 0x01, 0x41, 0x00, 0x0b}, kSp128K});
  auto named = instrumentFuel(stackModule(two, {131072u}, 1, {0x00}, 1), options, &error, &stats);
  REQUIRE(named);
  CHECK(stats.stackMarks == 2);
  // Refused, with a message: data below the stack (it does not come first), no data above it, an imported global
  // without a name section, a stack pointer that is immutable or not an i32, two memories' worth of doubt.
  auto refused = [&](const Bytes& m, const std::string& says) {
    error.clear();
    CHECK_FALSE(instrumentFuel(m, options, &error));
    CHECK(error.find(says) != std::string::npos);
  };
  refused(stackModule(cat({{0x01}, kSp128K}), {1024u, 131072u}), "the stack does not come first");
  refused(stackModule(cat({{0x01}, kSp128K}), {131072u - 100u}), "no data segment above");
  refused(stackModule(cat({{0x01}, kSp128K}), {131072u},
                      {}, cat({{0x01}, str("env"), str("g"), {0x03, 0x7f, 0x00}}), 1),
          "imports globals and does not name __stack_pointer");
  refused(stackModule(cat({{0x01}, {0x7f, 0x00, 0x41, 0x80, 0x80, 0x08, 0x0b}}), {131072u}), "not a mutable i32");
  refused(stackModule(cat({{0x01}, {0x7e, 0x01, 0x42, 0x80, 0x80, 0x08, 0x0b}}), {131072u}), "not a mutable i32");
  refused(stackModule(cat({{0x01}, {0x7f, 0x01, 0x41, 0x03, 0x0b}}), {131072u}), "the stack pointer starts at 3");
  // Without the option nothing about the stack changes.
  auto plain = instrumentFuel(stackModule(cat({{0x01}, kSp128K}), {1024u}), FuelOptions{}, &error, &stats);
  REQUIRE(plain);
  CHECK(stats.stackMarks == 0);
  CHECK(exportsOf(*plain).find("sw_stack_") == std::string::npos);
}
