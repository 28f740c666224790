// The memory scanner module (scanner.h): Wasm code written out instruction by instruction. Its hash is
// cpp/snapshot/hash.cpp's hash64 of one 4 KiB block, seed 0, computed the way that file's SIMD build computes it
// (two lanes per v128), with the same constants (snapshot::hashKeys()); test/tools/scanner.test.mjs checks it against
// the native hash64 block by block.
#include "tools/scanner.h"

#include <array>
#include <cstring>
#include <string_view>

#include "snapshot/snapshot.h"

namespace sw::tools {
namespace {

using Bytes = std::vector<uint8_t>;
using snapshot::kBlockBytes;

void uleb(Bytes& out, uint64_t v) {
  do {
    uint8_t b = v & 0x7f;
    v >>= 7;
    out.push_back(v ? uint8_t(b | 0x80) : b);
  } while (v);
}

void sleb(Bytes& out, int64_t v) {
  for (;;) {
    uint8_t b = v & 0x7f;
    v >>= 7;  // arithmetic (C++20)
    if ((v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40))) {
      out.push_back(b);
      return;
    }
    out.push_back(uint8_t(b | 0x80));
  }
}

constexpr uint8_t kI32 = 0x7f, kI64 = 0x7e, kV128 = 0x7b;
enum Mem : uint32_t { kGuest = 0, kCore = 1 };

// One function body: locals, instructions, and the labels of the open blocks (branch depths are computed from them).
class Code {
 public:
  explicit Code(std::vector<std::pair<uint32_t, uint8_t>> locals) {
    uleb(locals_, locals.size());
    for (auto [count, type] : locals) {
      uleb(locals_, count);
      locals_.push_back(type);
    }
  }
  Bytes body() const {
    Bytes out = locals_;
    out.insert(out.end(), b_.begin(), b_.end());
    out.push_back(0x0b);
    return out;
  }

  void op(uint8_t o) { b_.push_back(o); }
  void simd(uint32_t o) {
    b_.push_back(0xfd);
    uleb(b_, o);
  }
  void get(uint32_t local) { op(0x20), uleb(b_, local); }
  void set(uint32_t local) { op(0x21), uleb(b_, local); }
  void tee(uint32_t local) { op(0x22), uleb(b_, local); }
  void i32(int32_t v) { op(0x41), sleb(b_, v); }
  void i64(uint64_t v) { op(0x42), sleb(b_, int64_t(v)); }
  void v128(uint64_t lo, uint64_t hi) {
    simd(0x0c);
    for (int i = 0; i < 8; i++) b_.push_back(uint8_t(lo >> (8 * i)));
    for (int i = 0; i < 8; i++) b_.push_back(uint8_t(hi >> (8 * i)));
  }
  // i8x16.shuffle of the two operands by byte index (0-15 the first, 16-31 the second).
  void shuffle(const std::array<uint8_t, 16>& lanes) {
    simd(0x0d);
    b_.insert(b_.end(), lanes.begin(), lanes.end());
  }
  void call(uint32_t f) { op(0x10), uleb(b_, f); }
  void global(uint32_t g) { op(0x23), uleb(b_, g); }

  void v128Load(Mem m, uint32_t offset) { simd(0x00), memarg(4, m, offset); }
  void i32Load(Mem m) { op(0x28), memarg(2, m, 0); }
  void i64Store(Mem m) { op(0x37), memarg(3, m, 0); }
  void i32Store8(Mem m) { op(0x3a), memarg(0, m, 0); }

  int block() { return open(0x02); }
  int loop() { return open(0x03); }
  int ifThen() { return open(0x04); }
  void end() {
    op(0x0b);
    labels_.pop_back();
  }
  void br(int label) { op(0x0c), uleb(b_, depth(label)); }
  void brIf(int label) { op(0x0d), uleb(b_, depth(label)); }

 private:
  void memarg(uint32_t alignLog2, Mem m, uint32_t offset) {
    if (m == kGuest) {
      uleb(b_, alignLog2);
    } else {
      uleb(b_, alignLog2 | 0x40);  // multi-memory: a memory index follows
      uleb(b_, m);
    }
    uleb(b_, offset);
  }
  int open(uint8_t o) {
    op(o);
    op(0x40);  // no result
    labels_.push_back(next_);
    return next_++;
  }
  uint32_t depth(int label) const {
    for (std::size_t i = labels_.size(); i-- > 0;)
      if (labels_[i] == label) return uint32_t(labels_.size() - 1 - i);
    return 0;  // unreachable: every label is opened before it is branched to
  }

  Bytes locals_;
  Bytes b_;
  std::vector<int> labels_;
  int next_ = 0;
};

// SIMD opcodes (after the 0xfd prefix).
constexpr uint32_t kV128Or = 0x50, kV128Xor = 0x51, kAnyTrue = 0x53, kI64x2ExtractLane = 0x1d, kI64x2ShrU = 0xcd,
                   kI64x2Add = 0xce, kI64x2Mul = 0xd5, kI64x2ExtmulLowU = 0xde;
// Scalar opcodes.
constexpr uint8_t kI32LtU = 0x49, kI32GeU = 0x4f, kI64Eqz = 0x50, kI32Add = 0x6a, kI32Shl = 0x74,
                  kI64Add = 0x7c, kI64Mul = 0x7e, kI64And = 0x83, kI64Or = 0x84, kI64Xor = 0x85, kI64Shl = 0x86,
                  kI64ShrU = 0x88, kSelect = 0x1b;

constexpr uint32_t kScanFn = 0, kHashFn = 1, kFoldFn = 2;
// Immutable v128 globals (V8 reads them from the instance, as the C++ build loads its key table; 256 v128.const
// immediates per block ran at half the speed): the stripe key pairs (stripe[n], stripe[n + 1]) for n = stripe + 2j,
// the scramble key pairs, the scramble multiplier in both lanes.
constexpr uint32_t kStripeKeyPairs = snapshot::kHashStripesPerGroup + snapshot::kHashLanes - 2;
constexpr uint32_t kStripeKeyGlobal = 0, kScrambleKeyGlobal = kStripeKeyPairs,
                   kScrambleMulGlobal = kScrambleKeyGlobal + snapshot::kHashLanes / 2,
                   kGlobals = kScrambleMulGlobal + 1;

// fold128(a, b) -> i64: the low and high halves of the 128-bit product a * b, xored (hash.cpp's portable fold128).
Bytes foldBody() {
  enum : uint32_t { A, B, A0, A1, B0, B1, P00, P01, P10, P11, MID };
  Code c({{9, kI64}});
  const uint64_t lo32 = 0xffffffffull;
  auto half = [&](uint32_t from, bool high, uint32_t to) {
    c.get(from);
    if (high) {
      c.i64(32);
      c.op(kI64ShrU);
    } else {
      c.i64(lo32);
      c.op(kI64And);
    }
    c.set(to);
  };
  half(A, false, A0), half(A, true, A1), half(B, false, B0), half(B, true, B1);
  auto mul = [&](uint32_t x, uint32_t y, uint32_t to) { c.get(x), c.get(y), c.op(kI64Mul), c.set(to); };
  mul(A0, B0, P00), mul(A0, B1, P01), mul(A1, B0, P10), mul(A1, B1, P11);
  auto low = [&](uint32_t x) { c.get(x), c.i64(lo32), c.op(kI64And); };
  auto high = [&](uint32_t x) { c.get(x), c.i64(32), c.op(kI64ShrU); };
  // mid = (p00 >> 32) + lo32(p01) + lo32(p10)
  high(P00), low(P01), c.op(kI64Add), low(P10), c.op(kI64Add), c.set(MID);
  // lo = (mid << 32) | lo32(p00)
  c.get(MID), c.i64(32), c.op(kI64Shl), low(P00), c.op(kI64Or);
  // hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32)
  c.get(P11), high(P01), c.op(kI64Add), high(P10), c.op(kI64Add), high(MID), c.op(kI64Add);
  c.op(kI64Xor);
  return c.body();
}

// hashBlock(addr) -> i64: blockHash of the non-zero guest block at addr (hash64 of 4,096 bytes, seed 0; 0 -> 1).
Bytes hashBody() {
  enum : uint32_t { ADDR, G, A0, A1, A2, A3, W, X, H };
  const snapshot::HashKeys& k = snapshot::hashKeys();
  constexpr int kVectors = snapshot::kHashLanes / 2;
  constexpr int kStripes = snapshot::kHashStripesPerGroup;
  constexpr uint32_t kStripe = snapshot::kHashStripeBytes;
  constexpr uint32_t kGroups = kBlockBytes / (kStripe * kStripes);
  static_assert(kBlockBytes % (kStripe * kStripes) == 0, "a block is whole groups: no tail, every group scrambled");
  Code c({{1, kI32}, {6, kV128}, {1, kI64}});
  for (int j = 0; j < kVectors; j++) c.v128(k.init[2 * j], k.init[2 * j + 1]), c.set(A0 + j);
  c.i32(0), c.set(G);
  int groups = c.loop();
  for (int s = 0; s < kStripes; s++) {
    for (int j = 0; j < kVectors; j++) {
      // a_j += extmul(lo32(x), hi32(x)) + swap64(w), x = w ^ key: hash.cpp's accumulate, lanes 2j and 2j + 1.
      c.get(A0 + j);
      c.get(ADDR), c.v128Load(kGuest, uint32_t(s) * kStripe + 16 * uint32_t(j)), c.tee(W);
      c.global(kStripeKeyGlobal + uint32_t(s + 2 * j)), c.simd(kV128Xor), c.tee(X);
      c.get(X), c.shuffle({0, 1, 2, 3, 8, 9, 10, 11, 0, 1, 2, 3, 8, 9, 10, 11});
      c.get(X), c.get(X), c.shuffle({4, 5, 6, 7, 12, 13, 14, 15, 4, 5, 6, 7, 12, 13, 14, 15});
      c.simd(kI64x2ExtmulLowU);
      c.get(W), c.get(W), c.shuffle({8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7});
      c.simd(kI64x2Add), c.simd(kI64x2Add), c.set(A0 + j);
    }
  }
  for (int j = 0; j < kVectors; j++) {
    // a = (a ^ a >> 47 ^ key) * kHashScrambleMul: hash.cpp's scramble.
    c.get(A0 + j), c.get(A0 + j), c.i32(47), c.simd(kI64x2ShrU), c.simd(kV128Xor);
    c.global(kScrambleKeyGlobal + uint32_t(j)), c.simd(kV128Xor);
    c.global(kScrambleMulGlobal), c.simd(kI64x2Mul), c.set(A0 + j);
  }
  c.get(ADDR), c.i32(int32_t(kStripe * kStripes)), c.op(kI32Add), c.set(ADDR);
  c.get(G), c.i32(1), c.op(kI32Add), c.tee(G), c.i32(int32_t(kGroups)), c.op(kI32LtU), c.brIf(groups);
  c.end();
  // finish(acc, 4096, 0): h = len * kHashLengthMul, plus fold128 of each lane pair xored with its fold keys.
  c.i64(uint64_t(kBlockBytes) * snapshot::kHashLengthMul), c.set(H);
  for (int j = 0; j < kVectors; j++) {
    c.get(H);
    c.get(A0 + j), c.simd(kI64x2ExtractLane), c.op(0), c.i64(k.fold[2 * j]), c.op(kI64Xor);
    c.get(A0 + j), c.simd(kI64x2ExtractLane), c.op(1), c.i64(k.fold[2 * j + 1]), c.op(kI64Xor);
    c.call(kFoldFn), c.op(kI64Add), c.set(H);
  }
  // avalanche, then blockHash's remap: a non-zero block never hashes to 0.
  auto xorShift = [&] { c.get(H), c.get(H), c.i64(33), c.op(kI64ShrU), c.op(kI64Xor), c.set(H); };
  xorShift();
  c.get(H), c.i64(snapshot::kHashAvalancheMul[0]), c.op(kI64Mul), c.set(H);
  xorShift();
  c.get(H), c.i64(snapshot::kHashAvalancheMul[1]), c.op(kI64Mul), c.set(H);
  xorShift();
  c.i64(1), c.get(H), c.get(H), c.op(kI64Eqz), c.op(kSelect);
  return c.body();
}

// The bytes a zero check or a comparison takes per loop iteration: 16 v128 loads (32 when comparing) ORed together.
constexpr uint32_t kChunk = 256;

// ORs the kChunk guest bytes at `guest` (xored with the core's at `core`, when comparing): a v128 that is zero iff
// they are all zero (all equal).
void chunkDiff(Code& c, uint32_t guest, int core) {
  for (uint32_t q = 0; q < kChunk / 16; q++) {
    c.get(guest), c.v128Load(kGuest, 16 * q);
    if (core >= 0) c.get(uint32_t(core)), c.v128Load(kCore, 16 * q), c.simd(kV128Xor);
    if (q) c.simd(kV128Or);
  }
}

Bytes scanBody() {
  enum : uint32_t { FIRST, COUNT, REFS, HASHES, FLAGS, I, ADDR, REF, P, H, GA, CA };
  Code c({{4, kI32}, {1, kI64}, {2, kI32}});
  static_assert(kBlockBytes % kChunk == 0);
  auto flagAt = [&] { c.get(FLAGS), c.get(I), c.op(kI32Add); };
  int done = c.block();
  int next = c.loop();
  c.get(I), c.get(COUNT), c.op(kI32GeU), c.brIf(done);
  c.get(FIRST), c.get(I), c.op(kI32Add), c.i32(12), c.op(kI32Shl), c.set(ADDR);
  static_assert(kBlockBytes == 1u << 12);
  flagAt(), c.i32(0), c.i32Store8(kCore);
  // The block as the base has it (byte for byte): flag 1, no hash.
  c.i32(0), c.set(REF);
  c.get(REFS);
  c.ifThen();
  c.get(REFS), c.get(I), c.i32(2), c.op(kI32Shl), c.op(kI32Add), c.i32Load(kCore), c.set(REF);
  c.end();
  c.get(REF);
  c.ifThen();
  {
    int differ = c.block();
    c.i32(0), c.set(P);
    int chunks = c.loop();
    c.get(ADDR), c.get(P), c.op(kI32Add), c.set(GA);
    c.get(REF), c.get(P), c.op(kI32Add), c.set(CA);
    chunkDiff(c, GA, int(CA));
    c.simd(kAnyTrue), c.brIf(differ);
    c.get(P), c.i32(kChunk), c.op(kI32Add), c.tee(P), c.i32(int32_t(kBlockBytes)), c.op(kI32LtU), c.brIf(chunks);
    c.end();
    flagAt(), c.i32(1), c.i32Store8(kCore);
    c.get(I), c.i32(1), c.op(kI32Add), c.set(I);
    c.br(next);
    c.end();
  }
  c.end();
  // Otherwise its hash: 0 when all zero, else hashBlock.
  int store = c.block();
  c.i64(0), c.set(H);
  {
    int nonZero = c.block();
    c.i32(0), c.set(P);
    int chunks = c.loop();
    c.get(ADDR), c.get(P), c.op(kI32Add), c.set(GA);
    chunkDiff(c, GA, -1);
    c.simd(kAnyTrue), c.brIf(nonZero);
    c.get(P), c.i32(kChunk), c.op(kI32Add), c.tee(P), c.i32(int32_t(kBlockBytes)), c.op(kI32LtU), c.brIf(chunks);
    c.end();
    c.br(store);
    c.end();
  }
  c.get(ADDR), c.call(kHashFn), c.set(H);
  c.end();
  c.get(HASHES), c.get(I), c.i32(3), c.op(kI32Shl), c.op(kI32Add), c.get(H), c.i64Store(kCore);
  c.get(I), c.i32(1), c.op(kI32Add), c.set(I);
  c.br(next);
  c.end();
  c.end();
  c.i32(1);
  return c.body();
}

void section(Bytes& out, uint8_t id, const Bytes& payload) {
  out.push_back(id);
  uleb(out, payload.size());
  out.insert(out.end(), payload.begin(), payload.end());
}

void name(Bytes& out, std::string_view s) {
  uleb(out, s.size());
  out.insert(out.end(), s.begin(), s.end());
}

}  // namespace

std::vector<uint8_t> scannerModule() {
  Bytes m = {0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00};
  // Types: 0 scan (5 x i32) -> i32, 1 hashBlock i32 -> i64, 2 fold128 (i64, i64) -> i64.
  Bytes types;
  uleb(types, 3);
  types.insert(types.end(), {0x60, 5, kI32, kI32, kI32, kI32, kI32, 1, kI32});
  types.insert(types.end(), {0x60, 1, kI32, 1, kI64});
  types.insert(types.end(), {0x60, 2, kI64, kI64, 1, kI64});
  section(m, 1, types);
  Bytes imports;
  uleb(imports, 2);
  for (std::string_view module : {"guest", "core"}) {
    name(imports, module), name(imports, "memory");
    imports.insert(imports.end(), {0x02, 0x00, 0x00});  // a memory, no maximum, at least 0 pages
  }
  section(m, 2, imports);
  section(m, 3, {3, 0, 1, 2});  // function kScanFn, kHashFn, kFoldFn: their types
  Bytes globals;
  uleb(globals, kGlobals);
  auto constant = [&](uint64_t lo, uint64_t hi) {
    globals.insert(globals.end(), {kV128, 0x00, 0xfd, 0x0c});  // immutable v128 = v128.const
    for (int i = 0; i < 8; i++) globals.push_back(uint8_t(lo >> (8 * i)));
    for (int i = 0; i < 8; i++) globals.push_back(uint8_t(hi >> (8 * i)));
    globals.push_back(0x0b);
  };
  const snapshot::HashKeys& k = snapshot::hashKeys();
  for (uint32_t n = 0; n < kStripeKeyPairs; n++) constant(k.stripe[n], k.stripe[n + 1]);
  for (int j = 0; j < snapshot::kHashLanes / 2; j++) constant(k.scramble[2 * j], k.scramble[2 * j + 1]);
  constant(snapshot::kHashScrambleMul, snapshot::kHashScrambleMul);
  section(m, 6, globals);
  Bytes exports;
  uleb(exports, 1);
  name(exports, "scan");
  exports.insert(exports.end(), {0x00, uint8_t(kScanFn)});
  section(m, 7, exports);
  Bytes code;
  uleb(code, 3);
  for (const Bytes& body : {scanBody(), hashBody(), foldBody()}) {
    uleb(code, body.size());
    code.insert(code.end(), body.begin(), body.end());
  }
  section(m, 10, code);
  return m;
}

}  // namespace sw::tools
