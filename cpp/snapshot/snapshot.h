// cpp/snapshot: snapshots of a guest's linear memory, as rows of a Durable Object's SQLite (docs/snapshots.md).
//
// What is stored. Memory is tracked in 4 KiB *blocks* (kBlockBytes, 16 per 64 KiB Wasm page). A block is stored
// only when it is non-zero and only when it changed since the last snapshot; all-zero blocks are never stored. The
// changed blocks of one take() are packed, each compressed on its own (a small LZ codec, raw when that does not
// pay), into *segments*: one SQLite row each, at most Options::maxSegmentBytes (under the 2 MB row limit). A small
// execute therefore writes one row of a few KiB to tens of KiB, wherever in memory its changes fall. Older segments
// whose blocks were all rewritten are deleted; segments left mostly garbage are compacted (their live blocks are
// re-read from memory and written again), so storage stays within about twice the compressed live data.
//
// What says where a block is. The Manifest: memory pages, every stored segment (row id, byte length, checksum) and,
// for every stored block, the segment holding its current copy. The caller persists it in the snapshot record (as
// one JSON string, Manifest::encode) in the same transaction as the rows. Restore verifies every row against the
// manifest (presence, length, 64-bit checksum, structure) before it writes anything, and each decoded block against
// the content hash stored next to it; anything wrong fails the restore so the caller boots fresh instead.
//
// Relative to a base (format 2). A built-in engine's instances start from its boot image, so most of a context's
// memory is the image's. When the Memory names a Base (the image as applied to an instance: Memory::base()), a block
// whose content is the base's is not stored either, and the manifest lists the blocks that are zero where the base
// is not; restore writes the base, then the stored blocks, and over a memory that already holds something
// (knownBlocks(), held(), or compared byte for byte) only the blocks that differ. Without a base, a snapshot holds
// every non-zero block (format 1, as before). docs/snapshots.md.
//
// Change detection hashes every block with hash64 (64-bit, 8 lanes of multiply-accumulate; single-word changes can
// never cancel out inside the accumulators). The per-block hashes live only in the Tracker; restore recomputes them
// from the restored bytes. Nothing here holds a second copy of guest memory: take() reads memory in
// Options::batchBytes pieces and holds at most one segment being built; a memory that can scan itself in place
// (Memory::scan: the core's guest memory, through the scanner module of cpp/tools/scanner.h) is not copied at all
// but for the blocks a take stores.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sw::snapshot {

inline constexpr uint32_t kPageBytes = 65536;                       // a Wasm page
inline constexpr uint32_t kBlockBytes = 4096;                       // change detection and storage unit
inline constexpr uint32_t kBlocksPerPage = kPageBytes / kBlockBytes;
inline constexpr uint32_t kMaxPages = 65536;                        // 4 GiB: the wasm32 limit
inline constexpr uint32_t kSegmentFormat = 1;                       // version byte of the stored row format
// The manifest's format: 1 = every non-zero block stored ("sw-snap1"); 2 = relative to a base ("sw-snap2": base id,
// zero runs). A snapshot without a base is still written as format 1.
inline constexpr uint32_t kManifestFormatAbsolute = 1;
inline constexpr uint32_t kManifestFormatRelative = 2;
inline constexpr uint32_t kSegmentHeaderBytes = 16;
inline constexpr uint32_t kEntryHeaderBytes = 16;
inline constexpr uint32_t kMaxEntryBytes = kEntryHeaderBytes + kBlockBytes;

// --- building blocks ------------------------------------------------------------------------------------------------

// A 64-bit hash of any byte string; identical on every platform and build (scalar or Wasm SIMD code).
uint64_t hash64(const uint8_t* data, std::size_t len, uint64_t seed = 0);
// hash64's shape and constants, for code that must compute the very same value elsewhere (cpp/tools/scanner.cpp emits
// it as Wasm code that reads a guest's memory in place). Eight 64-bit lanes, 64-byte stripes, a scramble every 16.
inline constexpr int kHashLanes = 8;
inline constexpr int kHashStripeBytes = 64;
inline constexpr int kHashStripesPerGroup = 16;
inline constexpr uint64_t kHashScrambleMul = 0x9e3779b185ebca87ull;  // odd
inline constexpr uint64_t kHashLengthMul = 0x9e3779b97f4a7c15ull;    // the length enters the final mix through it
inline constexpr uint64_t kHashAvalancheMul[2] = {0xff51afd7ed558ccdull, 0xc4ceb9fe1a85ec53ull};
struct HashKeys {
  uint64_t init[kHashLanes];
  uint64_t stripe[kHashStripesPerGroup + kHashLanes];
  uint64_t scramble[kHashLanes];
  uint64_t fold[kHashLanes];
};
const HashKeys& hashKeys();
// hash64 of one block, but 0 for an all-zero block (and never 0 for any other: a zero hash is remapped to 1).
uint64_t blockHash(const uint8_t* block);
bool isZero(const uint8_t* data, std::size_t len);
// Byte equality (memcmp == 0), at the speed of isZero.
bool sameBytes(const uint8_t* a, const uint8_t* b, std::size_t len);

// The block codec (stored format version 1, codec 1): LZ77 with 4-byte minimum matches and 16-bit offsets.
// compress returns the compressed length, or 0 if the output would need more than `capacity` bytes. Input of at
// most 65,535 bytes. `table` is scratch owned by the caller (kLzTableEntries, any content: positions are checked).
inline constexpr uint32_t kLzTableBits = 12;
inline constexpr uint32_t kLzTableEntries = 1u << kLzTableBits;
uint32_t lzCompress(const uint8_t* src, uint32_t len, uint8_t* dst, uint32_t capacity, uint32_t* table);
// Decodes exactly `len` bytes; false on any malformed input (never reads or writes out of bounds).
bool lzDecompress(const uint8_t* src, uint32_t srcLen, uint8_t* dst, uint32_t len);

// --- the guest's memory and the storage ---------------------------------------------------------------------------

// What snapshots are relative to: a boot image as applied to a fresh instance. Runs of non-zero blocks; every other
// block up to `pages` is zero. Shared (immutable) by every instance started from it and every tracker relative to it.
struct Base {
  struct Run {
    uint64_t offset = 0;  // a multiple of kBlockBytes
    std::vector<uint8_t> bytes;  // a multiple of kBlockBytes
  };
  uint64_t id = 0;               // names the image (never 0); a snapshot stores it and restores only over it
  uint32_t pages = 0;
  std::vector<Run> runs;         // ascending, non-overlapping
  std::vector<uint64_t> blocks;  // blockHash of every block up to pages (0 = all-zero)
  uint64_t blockHashAt(uint32_t block) const { return block < blocks.size() ? blocks[block] : 0; }
  // Copies blocks [first, first + count) into dst (zero where no run holds them). False if beyond `pages`.
  bool read(uint32_t first, uint32_t count, uint8_t* dst) const;
  // The bytes of one block inside a run, or null (a zero block, or beyond `pages`).
  const uint8_t* blockData(uint32_t block) const;
  // blockData of blocks [first, first + count) into out: one search, then a walk along the runs.
  void blockDataRange(uint32_t first, uint32_t count, const uint8_t** out) const;
};

struct Tracker;
class Memory;

// What a memory is known to hold, per 4 KiB block, because the core itself wrote those bytes or compared them byte for
// byte (a restore, a take, a reset to the image): never because a hash of bytes a guest wrote matched, since a guest
// can aim a block at a known hash. A pooled instance carries it from its last such moment until the guest runs
// again (cpp/core). kHeldUnknown: anything (a context's own blocks, whatever ran since); kHeldZero: all zero;
// kHeldBase: exactly `base`'s block (zero where the base's is).
enum : uint8_t { kHeldUnknown = 0, kHeldZero = 1, kHeldBase = 2 };
struct Held {
  std::shared_ptr<const Base> base;  // what kHeldBase refers to (null: no block is kHeldBase)
  std::vector<uint8_t> blocks;       // one per block of the memory's pages
  // From a tracker right after its take() or restore(): a block stored is unknown (the context's own content, known
  // only by its hash), any other is zero or the tracker's base's, which both verified byte for byte.
  static Held of(const Tracker& tracker);
  bool zeroAt(uint32_t block) const;   // known to be all zero
  bool baseAt(uint32_t block, const Base& b) const;  // known to be b's block (zero beyond b's pages)
};
// Reads the whole memory and compares every block with `base`'s (or zero): what it holds, exactly.
bool verifyHeld(Memory& memory, const std::shared_ptr<const Base>& base, Held& out);

// A guest's linear memory: natively a vector (VectorMemory), in the core two copy primitives through the guest bridge.
class Memory {
 public:
  virtual ~Memory() = default;
  virtual uint32_t pages() = 0;
  virtual bool read(uint64_t offset, uint8_t* dst, uint32_t len) = 0;
  virtual bool write(uint64_t offset, const uint8_t* src, uint32_t len) = 0;
  virtual bool grow(uint32_t totalPages) = 0;  // to at least totalPages
  // What the memory is known to hold right now, per 4 KiB block (blockHash, 0 = all-zero), covering exactly its
  // current pages; empty = unknown. restore() then skips the blocks that already hold the stored content instead of
  // decoding and writing them (a pooled instance just reset to the boot image holds most of a context's blocks).
  virtual std::span<const uint64_t> knownBlocks() { return {}; }
  // Weaker knowledge, for a memory a guest used (a pooled instance): which blocks hold zero or the base's content,
  // exactly (Held). Null, another base than base(), or not covering the current pages: restore() reads and compares
  // the memory itself (verifyHeld). A block it names unknown is rewritten; the snapshot's stored blocks always are.
  virtual const Held* held() { return nullptr; }
  // The image this instance started from, which its snapshots are stored relative to (format 2); null = none.
  virtual std::shared_ptr<const Base> base() { return nullptr; }
  // What take() needs of blocks [first, first + count), computed where the memory is instead of read() copying it
  // out (docs/snapshots.md, "Scanning in place"): asBase[i] = 1 when block first + i holds exactly `base`'s content
  // (compared byte for byte with base->blockData; never for a block the base has as zero), else asBase[i] = 0 and
  // hashes[i] = blockHash of the block. false = not done (not supported, or it failed): take() reads the blocks
  // and computes the same itself.
  virtual bool scan(uint32_t /*first*/, uint32_t /*count*/, const Base* /*base*/, uint64_t* /*hashes*/,
                    uint8_t* /*asBase*/) {
    return false;
  }
  // Blocks [first, first + count) that nothing has written since the tracker take() is given as `previous` was
  // made (by the take or restore that produced it): take() does not look at them and keeps that tracker's hashes
  // (an incremental take only; a full one reads everything). Whoever implements it keeps it true: the core's guest
  // memory answers from the engine's stack mark (docs/snapshots.md "The stack mark"). Default: none.
  struct Blocks {
    uint32_t first = 0;
    uint32_t count = 0;
  };
  virtual Blocks unwritten() { return {}; }
};

class VectorMemory final : public Memory {
 public:
  explicit VectorMemory(uint32_t pages = 0) : bytes(std::size_t(pages) * kPageBytes) {}
  uint32_t pages() override { return uint32_t(bytes.size() / kPageBytes); }
  bool read(uint64_t offset, uint8_t* dst, uint32_t len) override;
  bool write(uint64_t offset, const uint8_t* src, uint32_t len) override;
  bool grow(uint32_t totalPages) override;
  std::vector<uint8_t> bytes;
};

// The rows of one context, called inside the storage transaction. false = the statement failed (take() then fails;
// roll the transaction back).
class ChunkWriter {
 public:
  virtual ~ChunkWriter() = default;
  virtual bool put(uint32_t chunk, const uint8_t* data, uint32_t len) = 0;  // upsert
  virtual bool remove(uint32_t chunk) = 0;
  // A row as stored before this take (compaction copies its live entries instead of compressing the blocks again),
  // valid until the next call. false: not available; compaction then reads those blocks from memory.
  virtual bool stored(uint32_t chunk, const uint8_t*& data, uint32_t& len) {
    (void)chunk, (void)data, (void)len;
    return false;
  }
};

// One stored row, as read back for restore.
struct StoredChunk {
  uint32_t id = 0;
  const uint8_t* data = nullptr;
  uint32_t len = 0;
};

// The rows of one context, read back one at a time for restore: at most one row is held at once, so restoring a
// large snapshot never needs its whole stored size in memory.
class ChunkReader {
 public:
  virtual ~ChunkReader() = default;
  // Every stored row's id and byte length, without the data. false: storage failed.
  virtual bool list(std::vector<std::pair<uint32_t, uint32_t>>& rows) = 0;
  // The bytes of row `id`, valid until the next call. false: storage failed or the row is absent.
  virtual bool read(uint32_t id, const uint8_t*& data, uint32_t& len) = 0;
};

// --- the manifest (persisted by the caller, in the same transaction as the rows) ----------------------------------

struct Manifest {
  struct Segment {
    uint32_t id = 0;
    uint32_t bytes = 0;
    uint64_t checksum = 0;  // hash64(row bytes, kChecksumSeed)
    bool operator==(const Segment&) const = default;
  };
  struct Run {  // blocks [first, first + count) are stored in segment `segment`
    uint32_t first = 0;
    uint32_t count = 0;
    uint32_t segment = 0;
    bool operator==(const Run&) const = default;
  };
  struct Range {  // blocks [first, first + count)
    uint32_t first = 0;
    uint32_t count = 0;
    bool operator==(const Range&) const = default;
  };
  uint32_t memoryPages = 0;
  uint32_t nextSegment = 1;        // ids of new segments start here (ids only increase)
  std::vector<Segment> segments;   // ascending id
  std::vector<Run> runs;           // ascending, non-overlapping (encode() of a Tracker merges adjacent ones)
  // Format 2 only: the base (Base::id; 0 = none, format 1) and the blocks not stored that are zero although the
  // base's are not (every other block not stored is the base's). Ascending, disjoint from each other and from runs.
  uint64_t base = 0;
  std::vector<Range> zeros;

  uint32_t format() const { return base ? kManifestFormatRelative : kManifestFormatAbsolute; }
  // Text form, one JSON-safe string (ASCII, no quotes or backslashes):
  //   sw-snap1;pages=<n>;next=<id>;seg=<id>:<bytes>:<16 hex>,...;own=<first>+<count>:<id>,...
  //   sw-snap2;pages=<n>;next=<id>;base=<16 hex>;seg=...;own=...;zero=<first>+<count>,...
  std::string encode() const;
  static bool decode(std::string_view text, Manifest& out, std::string& error);
  // Structural checks (decode runs them): ranges, order, every run's segment listed, every segment owning a block.
  bool validate(std::string& error) const;
  bool operator==(const Manifest&) const = default;
};

inline constexpr uint64_t kChecksumSeed = 0x5357534e41505331ull;  // "SWSNAPS1"

// --- per live instance ---------------------------------------------------------------------------------------------

// What is known about one live instance's memory since its last snapshot or restore. Copyable (about 14 bytes per
// 4 KiB block: 224 KiB for 64 MiB of memory).
struct Tracker {
  struct Segment {
    uint32_t id = 0;
    uint32_t bytes = 0;       // row length
    uint64_t checksum = 0;
    uint32_t liveBlocks = 0;  // entries that are still the current copy of their block
    uint32_t liveBytes = 0;   // their entry bytes (header + data)
  };
  bool seeded = false;                // false: nothing stored yet; the next take() writes every non-zero block
  uint32_t memoryPages = 0;
  uint32_t nextSegment = 1;
  std::vector<uint64_t> hashes;       // per block: blockHash (0 = all-zero)
  std::vector<uint32_t> owner;        // per block: the segment holding its current copy (0 = not stored)
  std::vector<uint16_t> entryBytes;   // per stored block: its entry's bytes in that segment
  std::vector<Segment> segments;      // ascending id
  // The base the stored rows are relative to (null: none). A block not stored holds the base's content when its hash
  // is the base's, else zero.
  std::shared_ptr<const Base> base;

  Manifest manifest() const;
  uint32_t runCount() const;                   // the manifest's runs
  bool fragmented(uint32_t maxRuns) const;     // more runs than maxRuns that a full rewrite would merge
};

struct Options {
  uint32_t maxSegmentBytes = 1900000;  // one row; the platform's limit is 2 MB per row
  bool compress = true;                // LZ per block (false: every block raw; restore reads both)
  uint32_t batchBytes = 262144;        // memory is read in pieces this large (a multiple of kBlockBytes)
  uint32_t scanBlocks = 4096;          // blocks per Memory::scan call (16 MiB; hashes and flags: 9 bytes a block)
  // Compaction: a segment whose live entries fill less than half its bytes is rewritten from memory; so are all
  // small segments (< maxSegmentBytes / 8) once there are more than smallSegments of them.
  uint32_t smallSegments = 8;
  uint32_t maxRuns = 4096;             // a manifest fragmented beyond this is rewritten in full (Tracker::fragmented)
  bool fullRewrite = false;            // force writing every non-zero block anew (tests, format upgrades)
};

struct Stats {
  uint32_t memoryPages = 0;     // total pages
  uint32_t pageCount = 0;       // non-zero 64 KiB pages (protocol §2.7 SnapshotInfo.pages)
  uint64_t bytes = 0;           // pageCount * 65,536 (protocol §2.7 SnapshotInfo.bytes)
  uint32_t blockCount = 0;      // non-zero 4 KiB blocks
  uint32_t chunkCount = 0;      // rows stored after this take
  uint64_t storedBytes = 0;     // their total length
  uint32_t chunksWritten = 0;   // rows put
  uint32_t chunksDeleted = 0;   // rows removed
  uint64_t bytesWritten = 0;    // bytes put
  uint32_t blocksChanged = 0;   // non-zero blocks whose content changed (or all of them on a full write)
  uint32_t blocksZeroed = 0;    // blocks that became all-zero (dropped from storage)
  uint32_t blocksAsBase = 0;    // blocks that came to hold the base's content again (dropped from storage)
  uint32_t blocksCompacted = 0; // unchanged blocks rewritten by compaction
  uint32_t blocksCopied = 0;    // of those, copied from their row as stored (the rest read from memory, compressed)
  uint32_t blocksUnwritten = 0; // not looked at: Memory::unwritten() says nothing wrote them since `previous`
  uint64_t rawBytesWritten = 0; // blocks written * 4 KiB: what the written entries hold uncompressed
  bool fullRewrite = false;
};

// Diffs memory against `previous`, writes the changed blocks (and compaction's) as new segments, removes segments
// no longer needed, and leaves the updated tracker in `next` (which may be the same object as `previous`). On
// failure (a memory read or a writer call failed) returns false, sets `error`, and leaves `next` untouched: roll the
// transaction back. If the transaction then fails to commit, keep using the previous tracker, not `next`.
// An unseeded `previous` (fresh boot) writes every non-zero block and assumes no rows are stored for the context.
// With memory.base(): a block holding the base's content is not stored (format 2); an unseeded `previous`, or one
// relative to another base (a format 1 snapshot restored), makes this take a full write relative to memory.base().
bool take(Memory& memory, const Tracker& previous, Tracker& next, ChunkWriter& writer, Stats& stats,
          std::string& error, const Options& options = {});

// Restores into a fresh or reused instance's memory: checks the manifest and the list of rows (ids, lengths) first,
// then reads the rows one at a time, checking each one's checksum and structure; only then grows memory to
// manifest.memoryPages and writes. What memory should hold per block: the stored copy, zero (format 1: every block
// not stored; format 2: the manifest's zero runs) or the base's (format 2: every other block, from memory.base(),
// which must be the manifest's base). What it holds: knownBlocks(), else held(), else its blocks are read and
// compared with the base's or zero (verifyHeld). Only the blocks that differ are written (a stored one decoded and
// checked against its content hash). `tracker` is seeded so the next take() writes only what changed. false + error
// on anything wrong (a missing, unknown, duplicate or damaged row, a mismatching block, another base); after a
// failure once writing began, memory may be partly written: discard the instance.
bool restore(Memory& memory, const Manifest& manifest, ChunkReader& rows, Tracker& tracker, std::string& error);
// The same over rows already in memory.
bool restore(Memory& memory, const Manifest& manifest, std::span<const StoredChunk> chunks, Tracker& tracker,
             std::string& error);

}  // namespace sw::snapshot
