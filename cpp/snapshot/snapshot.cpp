// take(), restore() and the manifest of cpp/snapshot (snapshot.h; formats in docs/snapshots.md).
//
// Stored row (segment), format 1, little-endian:
//
//     header  16 bytes   "SWSG", u8 format (1), u8 log2(block bytes) (12), u16 0, u32 entry count, u32 row id
//     entry   16 bytes   u32 block index, u16 stored length, u8 codec (0 raw, 1 LZ), u8 0, u64 blockHash of the
//                        decoded 4 KiB
//             + data     the stored bytes (raw: exactly 4,096; LZ: 1..4,095)
#include <algorithm>
#include <cstring>
#include <limits>

#include "snapshot/snapshot.h"

namespace sw::snapshot {

namespace {

constexpr uint8_t kMagic[4] = {'S', 'W', 'S', 'G'};
constexpr uint32_t kBlockShift = 12;
static_assert((1u << kBlockShift) == kBlockBytes);
constexpr uint8_t kCodecRaw = 0;
constexpr uint8_t kCodecLz = 1;
constexpr uint32_t kMinSegmentBytes = kSegmentHeaderBytes + kMaxEntryBytes;

void put16(uint8_t* p, uint32_t v) {
  p[0] = uint8_t(v);
  p[1] = uint8_t(v >> 8);
}
void put32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = uint8_t(v >> (8 * i));
}
void put64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = uint8_t(v >> (8 * i));
}
uint32_t get16(const uint8_t* p) { return uint32_t(p[0]) | uint32_t(p[1]) << 8; }
uint32_t get32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) v |= uint32_t(p[i]) << (8 * i);
  return v;
}
uint64_t get64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= uint64_t(p[i]) << (8 * i);
  return v;
}

Tracker::Segment* findSegment(std::vector<Tracker::Segment>& segments, uint32_t id) {
  auto it = std::lower_bound(segments.begin(), segments.end(), id,
                             [](const Tracker::Segment& s, uint32_t v) { return s.id < v; });
  return it != segments.end() && it->id == id ? &*it : nullptr;
}

// One entry of a stored row, as walkSegment finds it (data: its `len` stored bytes, after the header).
struct EntryView {
  uint32_t block;
  uint32_t len;
  uint8_t codec;
  uint64_t hash;
  const uint8_t* data;
};

// Walks a row's entries; false + error on any structural problem.
template <typename Visit>
bool walkSegment(const StoredChunk& c, uint32_t totalBlocks, std::string& error, Visit visit) {
  auto bad = [&](const char* what) {
    error = "Snapshot chunk " + std::to_string(c.id) + " is damaged: " + what;
    return false;
  };
  if (c.len < kSegmentHeaderBytes || std::memcmp(c.data, kMagic, 4) != 0) return bad("not a snapshot segment");
  if (c.data[4] != kSegmentFormat) return bad("unknown format version");
  if (c.data[5] != kBlockShift || get16(c.data + 6) != 0) return bad("unsupported block size");
  if (get32(c.data + 12) != c.id) return bad("stored under the wrong id");
  uint32_t count = get32(c.data + 8);
  uint32_t at = kSegmentHeaderBytes;
  for (uint32_t i = 0; i < count; i++) {
    if (c.len - at < kEntryHeaderBytes) return bad("truncated entry");
    const uint8_t* e = c.data + at;
    EntryView v{get32(e), get16(e + 4), e[6], get64(e + 8), e + kEntryHeaderBytes};
    if (v.block >= totalBlocks) return bad("block outside memory");
    if (e[7] != 0) return bad("unknown entry flags");
    if (v.codec == kCodecRaw) {
      if (v.len != kBlockBytes) return bad("raw block of the wrong length");
    } else if (v.codec == kCodecLz) {
      if (v.len == 0 || v.len >= kBlockBytes) return bad("compressed block of the wrong length");
    } else {
      return bad("unknown codec");
    }
    if (c.len - at - kEntryHeaderBytes < v.len) return bad("truncated entry");
    if (!visit(v, kEntryHeaderBytes + v.len)) return false;
    at += kEntryHeaderBytes + v.len;
  }
  if (at != c.len) return bad("trailing bytes");
  return true;
}

// The state of one take(): the tracker being updated and the segment being built.
class Taker {
 public:
  Taker(Tracker& t, ChunkWriter& writer, Stats& stats, const Options& options)
      : t_(t), writer_(writer), stats_(stats), options_(options), table_(kLzTableEntries, 0) {}

  // The block's current copy is no longer where the tracker says (it changed, became zero, or moves).
  void drop(uint32_t block) {
    uint32_t id = t_.owner[block];
    if (!id) return;
    if (Tracker::Segment* s = findSegment(t_.segments, id)) {
      s->liveBlocks--;
      s->liveBytes -= t_.entryBytes[block];
    }
    t_.owner[block] = 0;
    t_.entryBytes[block] = 0;
  }

  // Appends the block to the segment being built (starting or flushing one as needed).
  bool add(uint32_t block, const uint8_t* data, uint64_t hash) {
    if (!makeRoom()) return false;
    std::size_t at = buffer_.size();
    buffer_.resize(at + kMaxEntryBytes);
    uint8_t* entry = buffer_.data() + at;
    uint32_t len = 0;
    uint8_t codec = kCodecLz;
    if (options_.compress)
      len = lzCompress(data, kBlockBytes, entry + kEntryHeaderBytes, kBlockBytes - 1, table_.data());
    if (!len) {
      codec = kCodecRaw;
      len = kBlockBytes;
      std::memcpy(entry + kEntryHeaderBytes, data, kBlockBytes);
    }
    put32(entry, block);
    put16(entry + 4, len);
    entry[6] = codec;
    entry[7] = 0;
    put64(entry + 8, hash);
    uint32_t bytes = kEntryHeaderBytes + len;
    buffer_.resize(at + bytes);
    added(block, bytes);
    return true;
  }

  // Appends an entry as an earlier take stored it (header and data, `bytes` in all: compaction's copy).
  bool addStored(uint32_t block, const uint8_t* entry, uint32_t bytes) {
    if (!makeRoom()) return false;
    buffer_.insert(buffer_.end(), entry, entry + bytes);
    added(block, bytes);
    return true;
  }

  bool building() const { return !buffer_.empty(); }

  bool flush() {
    if (buffer_.empty()) return true;
    put32(&buffer_[8], entries_);
    current_.bytes = uint32_t(buffer_.size());
    current_.checksum = hash64(buffer_.data(), buffer_.size(), kChecksumSeed);
    if (!writer_.put(current_.id, buffer_.data(), current_.bytes)) return false;
    stats_.chunksWritten++;
    stats_.bytesWritten += current_.bytes;
    t_.segments.push_back(current_);  // ids only increase: the vector stays sorted
    buffer_.clear();
    entries_ = 0;
    return true;
  }

 private:
  uint32_t maxBytes() const { return std::max(options_.maxSegmentBytes, kMinSegmentBytes); }
  // Room for one more entry: the segment being built flushed if full, a new one started if none is.
  bool makeRoom() {
    if (!buffer_.empty() && buffer_.size() + kMaxEntryBytes > maxBytes()) {
      if (!flush()) return false;
    }
    if (buffer_.empty()) {
      buffer_.resize(kSegmentHeaderBytes);
      std::memcpy(buffer_.data(), kMagic, 4);
      buffer_[4] = uint8_t(kSegmentFormat);
      buffer_[5] = uint8_t(kBlockShift);
      put16(&buffer_[6], 0);
      put32(&buffer_[8], 0);
      current_ = {};
      current_.id = t_.nextSegment++;
      put32(&buffer_[12], current_.id);
    }
    return true;
  }
  void added(uint32_t block, uint32_t bytes) {
    entries_++;
    current_.liveBlocks++;
    current_.liveBytes += bytes;
    t_.owner[block] = current_.id;
    t_.entryBytes[block] = uint16_t(bytes);
    stats_.rawBytesWritten += kBlockBytes;
  }

  Tracker& t_;
  ChunkWriter& writer_;
  Stats& stats_;
  const Options& options_;
  std::vector<uint32_t> table_;
  std::vector<uint8_t> buffer_;
  uint32_t entries_ = 0;
  Tracker::Segment current_;
};

uint32_t batchBytesOf(const Options& options) {
  uint32_t b = options.batchBytes / kBlockBytes * kBlockBytes;
  return std::clamp<uint32_t>(b, kBlockBytes, 16u << 20);
}

}  // namespace

// --- VectorMemory ---------------------------------------------------------------------------------------------------

bool VectorMemory::read(uint64_t offset, uint8_t* dst, uint32_t len) {
  if (offset > bytes.size() || len > bytes.size() - offset) return false;
  std::memcpy(dst, bytes.data() + offset, len);
  return true;
}

bool VectorMemory::write(uint64_t offset, const uint8_t* src, uint32_t len) {
  if (offset > bytes.size() || len > bytes.size() - offset) return false;
  std::memcpy(bytes.data() + offset, src, len);
  return true;
}

bool VectorMemory::grow(uint32_t totalPages) {
  if (totalPages > kMaxPages) return false;
  if (totalPages > pages()) bytes.resize(std::size_t(totalPages) * kPageBytes, 0);
  return true;
}

// --- Base -----------------------------------------------------------------------------------------------------------

bool Base::read(uint32_t first, uint32_t count, uint8_t* dst) const {
  if (uint64_t(first) + count > uint64_t(pages) * kBlocksPerPage) return false;
  const uint64_t from = uint64_t(first) * kBlockBytes, to = from + uint64_t(count) * kBlockBytes;
  std::memset(dst, 0, std::size_t(to - from));
  auto it = std::upper_bound(runs.begin(), runs.end(), from, [](uint64_t v, const Run& r) { return v < r.offset; });
  if (it != runs.begin()) --it;
  for (; it != runs.end() && it->offset < to; ++it) {
    const uint64_t a = std::max(from, it->offset), b = std::min(to, it->offset + it->bytes.size());
    if (a < b) std::memcpy(dst + (a - from), it->bytes.data() + (a - it->offset), std::size_t(b - a));
  }
  return true;
}

const uint8_t* Base::blockData(uint32_t block) const {
  const uint64_t at = uint64_t(block) * kBlockBytes;
  auto it = std::upper_bound(runs.begin(), runs.end(), at, [](uint64_t v, const Run& r) { return v < r.offset; });
  if (it == runs.begin()) return nullptr;
  --it;
  return at + kBlockBytes <= it->offset + it->bytes.size() ? it->bytes.data() + (at - it->offset) : nullptr;
}

void Base::blockDataRange(uint32_t first, uint32_t count, const uint8_t** out) const {
  const uint64_t from = uint64_t(first) * kBlockBytes;
  auto it = std::upper_bound(runs.begin(), runs.end(), from, [](uint64_t v, const Run& r) { return v < r.offset; });
  if (it != runs.begin()) --it;
  for (uint32_t i = 0; i < count; i++) {
    const uint64_t at = from + uint64_t(i) * kBlockBytes;
    while (it != runs.end() && it->offset + it->bytes.size() < at + kBlockBytes) ++it;
    out[i] = it != runs.end() && it->offset <= at ? it->bytes.data() + (at - it->offset) : nullptr;
  }
}

// --- Held -----------------------------------------------------------------------------------------------------------

Held Held::of(const Tracker& tracker) {
  Held h;
  h.base = tracker.base;
  h.blocks.resize(tracker.owner.size());
  for (std::size_t b = 0; b < h.blocks.size(); b++) {
    if (tracker.owner[b]) h.blocks[b] = kHeldUnknown;
    else if (tracker.hashes[b] == 0) h.blocks[b] = kHeldZero;
    else h.blocks[b] = h.base ? kHeldBase : kHeldUnknown;
  }
  return h;
}

bool Held::zeroAt(uint32_t block) const {
  const uint8_t s = block < blocks.size() ? blocks[block] : kHeldUnknown;
  return s == kHeldZero || (s == kHeldBase && base && base->blockHashAt(block) == 0);
}

bool Held::baseAt(uint32_t block, const Base& b) const {
  const uint8_t s = block < blocks.size() ? blocks[block] : kHeldUnknown;
  return (s == kHeldBase && base.get() == &b) || (s == kHeldZero && b.blockHashAt(block) == 0);
}

bool verifyHeld(Memory& memory, const std::shared_ptr<const Base>& base, Held& out) {
  constexpr uint32_t kBatchBlocks = 64;  // 256 KiB per bridge call
  constexpr uint32_t kScanBlocks = 4096;
  const uint32_t blocks = memory.pages() * kBlocksPerPage;
  out.base = base;
  out.blocks.assign(blocks, kHeldUnknown);
  // In place when the memory can: the scan compares with the base byte for byte, and a block hashes to 0 only when
  // it is all zero (blockHash), so both answers are exact.
  std::vector<uint64_t> hashes(std::min(kScanBlocks, blocks));
  std::vector<uint8_t> asBase(hashes.size());
  std::vector<uint8_t> buffer;
  for (uint32_t first = 0; first < blocks;) {
    uint32_t count = std::min(kScanBlocks, blocks - first);
    if (memory.scan(first, count, base.get(), hashes.data(), asBase.data())) {
      for (uint32_t i = 0; i < count; i++)
        out.blocks[first + i] = base && asBase[i] ? kHeldBase : hashes[i] == 0 ? kHeldZero : kHeldUnknown;
      first += count;
      continue;
    }
    count = std::min(kBatchBlocks, blocks - first);
    buffer.resize(std::size_t(kBatchBlocks) * kBlockBytes);
    if (!memory.read(uint64_t(first) * kBlockBytes, buffer.data(), count * kBlockBytes)) return false;
    for (uint32_t i = 0; i < count; i++) {
      const uint8_t* data = buffer.data() + std::size_t(i) * kBlockBytes;
      const uint8_t* ref = base ? base->blockData(first + i) : nullptr;  // compared in place, in the base's runs
      out.blocks[first + i] = ref && sameBytes(data, ref, kBlockBytes) ? kHeldBase
                              : isZero(data, kBlockBytes)                ? kHeldZero
                                                                         : kHeldUnknown;
    }
    first += count;
  }
  return true;
}

// --- Tracker --------------------------------------------------------------------------------------------------------

uint32_t Tracker::runCount() const {
  uint32_t runs = 0, previous = 0;
  for (uint32_t id : owner) {
    if (id && id != previous) runs++;
    previous = id;
  }
  return runs;
}

bool Tracker::fragmented(uint32_t maxRuns) const {
  // Runs break where the owning segment changes and where stored blocks stop (zero blocks). Only the first kind is
  // fragmentation: a full rewrite cannot remove the second, so it must not trigger one (else every take would).
  uint32_t runs = 0, stretches = 0, previous = 0;
  for (uint32_t id : owner) {
    if (id && id != previous) runs++;
    if (id && !previous) stretches++;
    previous = id;
  }
  return runs > maxRuns && runs > 2 * stretches + uint32_t(segments.size());
}

Manifest Tracker::manifest() const {
  Manifest m;
  m.memoryPages = memoryPages;
  m.nextSegment = nextSegment;
  m.base = base ? base->id : 0;
  for (const Segment& s : segments) m.segments.push_back({s.id, s.bytes, s.checksum});
  for (uint32_t b = 0; b < owner.size(); b++) {
    uint32_t id = owner[b];
    if (!id) {
      // Not stored: the base's block, unless it is zero where the base's is not.
      if (base && hashes[b] == 0 && base->blockHashAt(b) != 0) {
        if (!m.zeros.empty() && m.zeros.back().first + m.zeros.back().count == b) m.zeros.back().count++;
        else m.zeros.push_back({b, 1});
      }
      continue;
    }
    if (!m.runs.empty() && m.runs.back().segment == id && m.runs.back().first + m.runs.back().count == b)
      m.runs.back().count++;
    else
      m.runs.push_back({b, 1, id});
  }
  return m;
}

// --- take -----------------------------------------------------------------------------------------------------------

bool take(Memory& memory, const Tracker& previous, Tracker& next, ChunkWriter& writer, Stats& stats,
          std::string& error, const Options& options) {
  stats = {};
  uint32_t pages = memory.pages();
  if (pages > kMaxPages) {
    error = "Snapshot failed: memory larger than 4 GiB";
    return false;
  }
  if (previous.seeded && pages < previous.memoryPages) {
    error = "Snapshot failed: memory shrank";
    return false;
  }
  const std::shared_ptr<const Base> base = memory.base();
  if (base && base->pages > pages) {
    error = "Snapshot failed: memory smaller than the image it started from";
    return false;
  }
  Tracker t = previous;
  uint32_t blocks = pages * kBlocksPerPage;
  t.hashes.resize(blocks, 0);
  t.owner.resize(blocks, 0);
  t.entryBytes.resize(blocks, 0);

  // A full write: the first snapshot, on request, when the manifest got too fragmented, or before ids run out.
  // Also when the rows are relative to another base than the memory's (a format 1 snapshot restored over the image):
  // the context's storage moves to the image's base in one take.
  const bool rebase = (t.base ? t.base->id : 0) != (base ? base->id : 0);
  bool full = !t.seeded || rebase || options.fullRewrite || t.fragmented(options.maxRuns) ||
              t.nextSegment > std::numeric_limits<uint32_t>::max() - (1u << 24);
  if (full) {
    stats.fullRewrite = true;
    for (const Tracker::Segment& s : t.segments) {
      if (!writer.remove(s.id)) {
        error = "Snapshot failed: storage write failed";
        return false;
      }
      stats.chunksDeleted++;
    }
    t.segments.clear();
    // Every block as the base has it (nothing stored): pass 1 then writes exactly the blocks that differ.
    for (uint32_t b = 0; b < blocks; b++) t.hashes[b] = base ? base->blockHashAt(b) : 0;
    std::fill(t.owner.begin(), t.owner.end(), 0);
    std::fill(t.entryBytes.begin(), t.entryBytes.end(), 0);
    t.nextSegment = 1;
  }
  t.base = base;
  const uint32_t firstNew = t.nextSegment;

  Taker taker(t, writer, stats, options);
  const uint32_t batch = batchBytesOf(options);
  std::vector<uint8_t> buffer(std::min<uint64_t>(batch, uint64_t(blocks) * kBlockBytes));
  auto readFailed = [&] {
    error = "Snapshot failed: guest memory could not be read";
    return false;
  };
  auto writeFailed = [&] {
    error = "Snapshot failed: storage write failed";
    return false;
  };

  // Blocks nothing wrote since `previous` (Memory::unwritten) keep its hashes, unread: an incremental take only.
  // (Within the blocks `previous` tracked: memory that grew since is new.)
  Memory::Blocks quiet = full ? Memory::Blocks{} : memory.unwritten();
  const uint32_t tracked = previous.memoryPages * kBlocksPerPage;
  if (quiet.first >= tracked) quiet = {};
  quiet.count = std::min(quiet.count, tracked - quiet.first);
  const uint32_t quietEnd = quiet.first + quiet.count;

  // Pass 1: hash every block, write the changed ones. In place when the memory can (Memory::scan: then only the
  // changed blocks are read), else from copies read in batches.
  const uint32_t scanBlocks = std::clamp<uint32_t>(options.scanBlocks, 1, 1u << 16);
  std::vector<uint64_t> scanned(std::min(blocks, scanBlocks));
  std::vector<uint8_t> scannedAsBase(scanned.size());
  std::vector<uint8_t> one;
  uint32_t lastPage = std::numeric_limits<uint32_t>::max();
  auto counted = [&](uint32_t b, uint64_t h) {
    if (!h) return;
    stats.blockCount++;
    if (b / kBlocksPerPage != lastPage) {
      lastPage = b / kBlocksPerPage;
      stats.pageCount++;
    }
  };
  for (uint32_t first = 0; first < blocks;) {
    if (quiet.count && first == quiet.first) {
      for (uint32_t b = first; b < quietEnd; b++) counted(b, t.hashes[b]);
      stats.blocksUnwritten = quiet.count;
      first = quietEnd;
      continue;
    }
    const uint32_t limit = quiet.count && first < quiet.first ? quiet.first : blocks;  // up to the unwritten blocks
    uint32_t count = std::min<uint32_t>(limit - first, scanBlocks);
    const bool inPlace = memory.scan(first, count, base.get(), scanned.data(), scannedAsBase.data());
    if (!inPlace) {
      count = std::min<uint32_t>(limit - first, batch / kBlockBytes);
      if (!memory.read(uint64_t(first) * kBlockBytes, buffer.data(), count * kBlockBytes)) return readFailed();
    }
    for (uint32_t i = 0; i < count; i++) {
      uint32_t b = first + i;
      const uint8_t* data = inPlace ? nullptr : buffer.data() + std::size_t(i) * kBlockBytes;
      // The base's content is recognised byte for byte, not by its hash (which costs the same: one pass over the
      // block): right after a take, a block not stored is exactly the base's or zero (Held::of), and a block a guest
      // aimed at the base's hash is stored like any other change.
      const uint8_t* ref = base && !inPlace ? base->blockData(b) : nullptr;
      const bool asBase = inPlace ? base && scannedAsBase[i] != 0 : ref && sameBytes(data, ref, kBlockBytes);
      const uint64_t h = asBase ? base->blockHashAt(b) : inPlace ? scanned[i] : blockHash(data);
      counted(b, h);
      // Unchanged: zero as before, the base's as before, or a stored block with the same hash (a guest can only
      // confuse its own snapshot that way).
      if (h == t.hashes[b] && (t.owner[b] ? !asBase : h == 0 || asBase)) continue;
      taker.drop(b);
      if (!h) {
        stats.blocksZeroed++;
      } else if (asBase) {
        stats.blocksAsBase++;  // back to the base's content: nothing stored
      } else {
        stats.blocksChanged++;
        if (!data) {
          one.resize(kBlockBytes);
          if (!memory.read(uint64_t(b) * kBlockBytes, one.data(), kBlockBytes)) return readFailed();
          data = one.data();
        }
        if (!taker.add(b, data, h)) return writeFailed();
      }
      t.hashes[b] = h;
    }
    first += count;
  }

  // Compaction: old segments that are mostly garbage, and the small ones once there are many.
  std::vector<uint32_t> victims;
  std::vector<uint32_t> small;
  for (const Tracker::Segment& s : t.segments) {
    if (s.id >= firstNew || s.liveBlocks == 0) continue;
    if (uint64_t(s.liveBytes) * 2 < s.bytes)
      victims.push_back(s.id);
    else if (s.bytes < options.maxSegmentBytes / 8)
      small.push_back(s.id);
  }
  // The segment this take is still building counts too, so that a take right after this one (nothing changed)
  // finds the same count and writes nothing.
  if (small.size() + (taker.building() ? 1 : 0) > options.smallSegments)
    victims.insert(victims.end(), small.begin(), small.end());
  if (!victims.empty()) {
    std::sort(victims.begin(), victims.end());
    // A victim's live entries are copied from its row as stored (it holds them compressed already) when the writer
    // can read it back and the row is the one this tracker wrote (its checksum); in block order, as a take writes.
    struct Copy {
      uint32_t block, at, bytes;
    };
    std::vector<Copy> copies;
    std::vector<uint8_t> copied;
    for (uint32_t id : victims) {
      const Tracker::Segment* s = findSegment(t.segments, id);
      const uint8_t* data = nullptr;
      uint32_t len = 0;
      if (!s || !writer.stored(id, data, len) || len != s->bytes || hash64(data, len, kChecksumSeed) != s->checksum)
        continue;
      const std::size_t keptCopies = copies.size(), keptBytes = copied.size();
      std::string damaged;
      const bool intact = walkSegment(StoredChunk{id, data, len}, blocks, damaged, [&](const EntryView& v, uint32_t n) {
        // Superseded, or not the copy the tracker records: left to the memory pass below.
        if (t.owner[v.block] != id || v.hash != t.hashes[v.block] || t.entryBytes[v.block] != n) return true;
        copies.push_back({v.block, uint32_t(copied.size()), n});
        copied.insert(copied.end(), v.data - kEntryHeaderBytes, v.data + v.len);
        return true;
      });
      if (!intact) {
        copies.resize(keptCopies);
        copied.resize(keptBytes);
      }
    }
    std::sort(copies.begin(), copies.end(), [](const Copy& a, const Copy& b) { return a.block < b.block; });
    for (std::size_t i = 0; i < copies.size(); i++) {
      const Copy& c = copies[i];
      if (i > 0 && copies[i - 1].block == c.block) continue;  // a row holds a block once; never copied twice
      taker.drop(c.block);
      stats.blocksCompacted++;
      stats.blocksCopied++;
      if (!taker.addStored(c.block, copied.data() + c.at, c.bytes)) return writeFailed();
    }
    // What no row gave: read from memory and compressed again.
    auto isVictim = [&](uint32_t id) { return id && std::binary_search(victims.begin(), victims.end(), id); };
    for (uint32_t b = 0; b < blocks;) {
      if (!isVictim(t.owner[b])) {
        b++;
        continue;
      }
      uint32_t end = b + 1;
      while (end < blocks && end - b < batch / kBlockBytes && isVictim(t.owner[end])) end++;
      if (!memory.read(uint64_t(b) * kBlockBytes, buffer.data(), (end - b) * kBlockBytes)) return readFailed();
      for (uint32_t i = b; i < end; i++) {
        taker.drop(i);
        stats.blocksCompacted++;
        if (!taker.add(i, buffer.data() + std::size_t(i - b) * kBlockBytes, t.hashes[i])) return writeFailed();
      }
      b = end;
    }
  }
  if (!taker.flush()) return writeFailed();

  // Rows that hold no current block any more.
  std::vector<Tracker::Segment> kept;
  kept.reserve(t.segments.size());
  for (const Tracker::Segment& s : t.segments) {
    if (s.liveBlocks == 0) {
      if (!writer.remove(s.id)) return writeFailed();
      stats.chunksDeleted++;
    } else {
      kept.push_back(s);
    }
  }
  t.segments = std::move(kept);
  t.seeded = true;
  t.memoryPages = pages;

  stats.memoryPages = pages;
  stats.bytes = uint64_t(stats.pageCount) * kPageBytes;
  stats.chunkCount = uint32_t(t.segments.size());
  for (const Tracker::Segment& s : t.segments) stats.storedBytes += s.bytes;
  next = std::move(t);
  return true;
}

// --- restore --------------------------------------------------------------------------------------------------------

namespace {

class SpanReader final : public ChunkReader {
 public:
  explicit SpanReader(std::span<const StoredChunk> chunks) : chunks_(chunks) {}
  bool list(std::vector<std::pair<uint32_t, uint32_t>>& rows) override {
    for (const StoredChunk& c : chunks_) rows.emplace_back(c.id, c.len);
    return true;
  }
  bool read(uint32_t id, const uint8_t*& data, uint32_t& len) override {
    for (const StoredChunk& c : chunks_) {
      if (c.id == id) {
        data = c.data;
        len = c.len;
        return true;
      }
    }
    return false;
  }

 private:
  std::span<const StoredChunk> chunks_;
};

}  // namespace

bool restore(Memory& memory, const Manifest& manifest, std::span<const StoredChunk> chunks, Tracker& tracker,
             std::string& error) {
  SpanReader reader(chunks);
  return restore(memory, manifest, reader, tracker, error);
}

namespace {

void appendHex16(std::string& out, uint64_t v) {
  static const char* digits = "0123456789abcdef";
  for (int i = 15; i >= 0; i--) out.push_back(digits[(v >> (4 * i)) & 15]);
}
std::string hex16(uint64_t v) {
  std::string out;
  appendHex16(out, v);
  return out;
}

}  // namespace

bool restore(Memory& memory, const Manifest& manifest, ChunkReader& reader, Tracker& tracker, std::string& error) {
  if (!manifest.validate(error)) return false;
  const uint32_t pages = manifest.memoryPages;
  const uint32_t blocks = pages * kBlocksPerPage;
  const uint32_t initialPages = memory.pages();
  if (initialPages > pages) {
    error = "Snapshot does not fit: the fresh memory has " + std::to_string(initialPages) + " pages, the snapshot " +
            std::to_string(pages);
    return false;
  }
  // Format 2: only over the very image it was taken relative to.
  std::shared_ptr<const Base> base;
  if (manifest.base) {
    base = memory.base();
    if (!base || base->id != manifest.base) {
      error = "Snapshot is relative to boot image " + hex16(manifest.base) + "; the instance starts from " +
              (base ? "boot image " + hex16(base->id) : std::string("no boot image"));
      return false;
    }
    if (base->pages > pages) {
      error = "Invalid snapshot manifest: fewer pages than its boot image";
      return false;
    }
  }

  // Rows <-> manifest: the same ids, each once, with the recorded length (checksums as each row is read).
  std::vector<std::pair<uint32_t, uint32_t>> rows;
  if (!reader.list(rows)) {
    error = "Snapshot rows could not be listed";
    return false;
  }
  std::sort(rows.begin(), rows.end());
  for (std::size_t i = 1; i < rows.size(); i++) {
    if (rows[i].first == rows[i - 1].first) {
      error = "Snapshot chunk " + std::to_string(rows[i].first) + " is stored twice";
      return false;
    }
  }
  std::size_t r = 0;
  for (const Manifest::Segment& s : manifest.segments) {
    if (r < rows.size() && rows[r].first < s.id) {
      error = "Snapshot chunk " + std::to_string(rows[r].first) + " is not part of the snapshot";
      return false;
    }
    if (r == rows.size() || rows[r].first != s.id) {
      error = "Snapshot chunk " + std::to_string(s.id) + " is missing";
      return false;
    }
    if (rows[r++].second != s.bytes) {
      error = "Snapshot chunk " + std::to_string(s.id) + " has the wrong length";
      return false;
    }
  }
  if (r < rows.size()) {
    error = "Snapshot chunk " + std::to_string(rows[r].first) + " is not part of the snapshot";
    return false;
  }

  // What every block must hold (t.hashes): the base's unless stored or listed as zero.
  Tracker t;
  t.memoryPages = pages;
  t.nextSegment = manifest.nextSegment;
  t.base = base;
  t.hashes.assign(blocks, 0);
  if (base) {
    for (uint32_t b = 0; b < blocks; b++) t.hashes[b] = base->blockHashAt(b);
    for (const Manifest::Range& z : manifest.zeros) std::fill_n(t.hashes.begin() + z.first, z.count, 0);
  }
  t.owner.assign(blocks, 0);
  t.entryBytes.assign(blocks, 0);
  uint64_t owned = 0;
  for (const Manifest::Run& run : manifest.runs) {
    std::fill(t.owner.begin() + run.first, t.owner.begin() + run.first + run.count, run.segment);
    owned += run.count;
  }

  // Every row is read and verified (checksum, structure) before anything is written, then read again to write it:
  // at most one row is held at a time, and a damaged snapshot never touches memory.
  auto readRow = [&](const Manifest::Segment& s, StoredChunk& c) {
    c = StoredChunk{s.id, nullptr, 0};
    if (!reader.read(s.id, c.data, c.len)) {
      error = "Snapshot chunk " + std::to_string(s.id) + " could not be read";
      return false;
    }
    if (c.len != s.bytes) {
      error = "Snapshot chunk " + std::to_string(s.id) + " has the wrong length";
      return false;
    }
    if (hash64(c.data, c.len, kChecksumSeed) != s.checksum) {
      error = "Snapshot chunk " + std::to_string(s.id) + " is damaged: checksum mismatch";
      return false;
    }
    return true;
  };
  uint64_t found = 0;
  for (const Manifest::Segment& s : manifest.segments) {
    StoredChunk c;
    if (!readRow(s, c)) return false;
    Tracker::Segment info{s.id, s.bytes, s.checksum, 0, 0};
    bool ok = walkSegment(c, blocks, error, [&](const EntryView& v, uint32_t bytes) {
      if (t.owner[v.block] != s.id) return true;  // an older copy, superseded: skipped
      if (t.entryBytes[v.block]) {
        error = "Snapshot chunk " + std::to_string(s.id) + " is damaged: block stored twice";
        return false;
      }
      if (v.hash == 0) {
        error = "Snapshot chunk " + std::to_string(s.id) + " is damaged: a stored block with the hash of zeros";
        return false;
      }
      t.entryBytes[v.block] = uint16_t(bytes);
      t.hashes[v.block] = v.hash;  // checked against the decoded block when it is written
      info.liveBlocks++;
      info.liveBytes += bytes;
      found++;
      return true;
    });
    if (!ok) return false;
    t.segments.push_back(info);
  }
  if (found != owned) {
    error = "Snapshot is damaged: " + std::to_string(owned - found) + " block(s) missing from their chunks";
    return false;
  }

  // What memory holds already (before growing: the grown pages are zero). knownBlocks() is the caller's word (memory
  // it wrote itself), trusted only if it covers every page. Otherwise the memory may hold another guest's data (a
  // pooled instance): what the core knows of it exactly (held(): blocks it wrote or compared since the guest last ran)
  // or else what a byte-for-byte comparison finds (verifyHeld), never a hash, which a guest could aim a block at; the
  // stored blocks are then always written.
  const uint32_t initialBlocks = initialPages * kBlocksPerPage;
  constexpr uint32_t kBatchBlocks = 64;  // 256 KiB per bridge call
  std::vector<uint8_t> out(std::size_t(kBatchBlocks) * kBlockBytes);
  std::span<const uint64_t> known = memory.knownBlocks();
  const std::shared_ptr<const Base> memoryBase = memory.base();
  const Held* held = nullptr;
  Held verified;
  if (known.size() != initialBlocks) {
    held = memory.held();
    if (!held || held->blocks.size() != initialBlocks || (held->base && held->base != memoryBase)) {
      if (!verifyHeld(memory, memoryBase, verified)) {
        error = "Snapshot restore failed: guest memory could not be read";
        return false;
      }
      held = &verified;
    }
  }
  // Whether block b must be written: a stored block unless the trusted knowledge has its hash; any other block
  // unless it holds its content already (zero beyond the initial pages).
  auto differs = [&](uint32_t b) {
    if (b >= initialBlocks) return t.owner[b] || t.hashes[b] != 0;
    if (held) return t.owner[b] || !(t.hashes[b] ? held->baseAt(b, *base) : held->zeroAt(b));
    return known[b] != t.hashes[b];
  };

  // Write. From here on a failure leaves memory partly written.
  if (!memory.grow(pages) || memory.pages() < pages) {
    error = "Snapshot restore failed: memory could not grow to " + std::to_string(pages) + " pages";
    return false;
  }
  auto writeFailed = [&] {
    error = "Snapshot restore failed: guest memory could not be written";
    return false;
  };
  // The blocks not stored that differ: zero or the base's, in runs of up to kBatchBlocks.
  for (uint32_t b = 0; b < blocks;) {
    if (t.owner[b] || !differs(b)) {
      b++;
      continue;
    }
    uint32_t end = b + 1;
    // The base's own blocks, consecutive in one of its runs: written straight from the run (one copy, not two).
    if (const uint8_t* from = t.hashes[b] ? base->blockData(b) : nullptr) {
      constexpr uint32_t kDirectBlocks = 1024;  // 4 MiB per bridge call
      while (end < blocks && end - b < kDirectBlocks && !t.owner[end] && t.hashes[end] && differs(end) &&
             base->blockData(end) == from + std::size_t(end - b) * kBlockBytes)
        end++;
      if (!memory.write(uint64_t(b) * kBlockBytes, from, (end - b) * kBlockBytes)) return writeFailed();
      b = end;
      continue;
    }
    while (end < blocks && end - b < kBatchBlocks && !t.owner[end] && differs(end)) end++;
    const uint32_t count = end - b;
    if (base && b < base->blocks.size()) {
      const uint32_t inBase = std::min<uint32_t>(count, uint32_t(base->blocks.size()) - b);
      if (!base->read(b, inBase, out.data())) return writeFailed();
      std::memset(out.data() + std::size_t(inBase) * kBlockBytes, 0, std::size_t(count - inBase) * kBlockBytes);
      for (uint32_t i = 0; i < count; i++) {  // zero runs inside the base's range
        if (t.hashes[b + i] == 0) std::memset(out.data() + std::size_t(i) * kBlockBytes, 0, kBlockBytes);
      }
    } else {
      std::memset(out.data(), 0, std::size_t(count) * kBlockBytes);
    }
    if (!memory.write(uint64_t(b) * kBlockBytes, out.data(), count * kBlockBytes)) return writeFailed();
    b = end;
  }

  // The stored blocks that differ, one row at a time.
  uint32_t pendingFirst = 0, pendingCount = 0;
  auto flushWrites = [&] {
    if (!pendingCount) return true;
    bool ok = memory.write(uint64_t(pendingFirst) * kBlockBytes, out.data(), pendingCount * kBlockBytes);
    pendingCount = 0;
    return ok || writeFailed();
  };
  for (const Manifest::Segment& s : manifest.segments) {
    const uint32_t id = s.id;
    StoredChunk c;
    if (!readRow(s, c)) return false;
    bool ok = walkSegment(c, blocks, error, [&](const EntryView& v, uint32_t) {
      if (t.owner[v.block] != id) return true;
      if (!differs(v.block)) return true;  // already there (the row's checksum vouched for the entry)
      if (pendingCount && (pendingCount == kBatchBlocks || v.block != pendingFirst + pendingCount)) {
        if (!flushWrites()) return false;
      }
      if (!pendingCount) pendingFirst = v.block;
      uint8_t* dst = out.data() + std::size_t(pendingCount) * kBlockBytes;
      if (v.codec == kCodecRaw) {
        std::memcpy(dst, v.data, kBlockBytes);
      } else if (!lzDecompress(v.data, v.len, dst, kBlockBytes)) {
        error = "Snapshot chunk " + std::to_string(id) + " is damaged: block " + std::to_string(v.block) +
                " does not decode";
        return false;
      }
      if (blockHash(dst) != v.hash) {
        error = "Snapshot chunk " + std::to_string(id) + " is damaged: block " + std::to_string(v.block) +
                " does not match its hash";
        return false;
      }
      pendingCount++;
      return true;
    });
    if (!ok || !flushWrites()) return false;
  }

  t.seeded = true;
  tracker = std::move(t);
  return true;
}

// --- Manifest -------------------------------------------------------------------------------------------------------

namespace {

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}
  bool literal(std::string_view text) {
    if (s_.substr(i_, text.size()) != text) return false;
    i_ += text.size();
    return true;
  }
  bool peek(char c) const { return i_ < s_.size() && s_[i_] == c; }
  bool end() const { return i_ == s_.size(); }
  bool u32(uint32_t& out) {
    std::size_t start = i_;
    uint64_t v = 0;
    while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') {
      v = v * 10 + uint64_t(s_[i_] - '0');
      if (v > std::numeric_limits<uint32_t>::max()) return false;
      i_++;
    }
    if (i_ == start || (i_ - start > 1 && s_[start] == '0')) return false;
    out = uint32_t(v);
    return true;
  }
  bool hex16(uint64_t& out) {
    if (s_.size() - i_ < 16) return false;
    uint64_t v = 0;
    for (int k = 0; k < 16; k++) {
      char c = s_[i_++];
      int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      if (d < 0) return false;
      v = v << 4 | uint64_t(d);
    }
    out = v;
    return true;
  }

 private:
  std::string_view s_;
  std::size_t i_ = 0;
};

}  // namespace

std::string Manifest::encode() const {
  std::string out = (base ? "sw-snap2;pages=" : "sw-snap1;pages=") + std::to_string(memoryPages) + ";next=" +
                    std::to_string(nextSegment);
  if (base) {
    out += ";base=";
    appendHex16(out, base);
  }
  out += ";seg=";
  for (std::size_t i = 0; i < segments.size(); i++) {
    if (i) out.push_back(',');
    out += std::to_string(segments[i].id) + ":" + std::to_string(segments[i].bytes) + ":";
    appendHex16(out, segments[i].checksum);
  }
  out += ";own=";
  for (std::size_t i = 0; i < runs.size(); i++) {
    if (i) out.push_back(',');
    out += std::to_string(runs[i].first) + "+" + std::to_string(runs[i].count) + ":" + std::to_string(runs[i].segment);
  }
  if (base) {
    out += ";zero=";
    for (std::size_t i = 0; i < zeros.size(); i++) {
      if (i) out.push_back(',');
      out += std::to_string(zeros[i].first) + "+" + std::to_string(zeros[i].count);
    }
  }
  return out;
}

bool Manifest::decode(std::string_view text, Manifest& out, std::string& error) {
  Manifest m;
  Parser p(text);
  const bool relative = text.starts_with("sw-snap2;");
  bool ok = (relative ? p.literal("sw-snap2;pages=") : p.literal("sw-snap1;pages=")) && p.u32(m.memoryPages) &&
            p.literal(";next=") && p.u32(m.nextSegment) &&
            (!relative || (p.literal(";base=") && p.hex16(m.base) && m.base != 0)) && p.literal(";seg=");
  while (ok && !p.peek(';')) {
    Segment s;
    ok = (m.segments.empty() || p.literal(",")) && p.u32(s.id) && p.literal(":") && p.u32(s.bytes) &&
         p.literal(":") && p.hex16(s.checksum);
    m.segments.push_back(s);
  }
  ok = ok && p.literal(";own=");
  while (ok && !p.end() && !p.peek(';')) {
    Run r;
    ok = (m.runs.empty() || p.literal(",")) && p.u32(r.first) && p.literal("+") && p.u32(r.count) &&
         p.literal(":") && p.u32(r.segment);
    m.runs.push_back(r);
  }
  if (relative) {
    ok = ok && p.literal(";zero=");
    while (ok && !p.end()) {
      Range z;
      ok = (m.zeros.empty() || p.literal(",")) && p.u32(z.first) && p.literal("+") && p.u32(z.count);
      m.zeros.push_back(z);
    }
  }
  ok = ok && p.end();
  if (!ok) {
    error = text.starts_with("sw-snap") && !text.starts_with("sw-snap1;") && !relative
                ? "Unknown snapshot manifest version"
                : "Invalid snapshot manifest";
    return false;
  }
  if (!m.validate(error)) return false;
  out = std::move(m);
  return true;
}

bool Manifest::validate(std::string& error) const {
  auto fail = [&](const std::string& what) {
    error = "Invalid snapshot manifest: " + what;
    return false;
  };
  if (memoryPages > kMaxPages) return fail("too many pages");
  if (nextSegment == 0) return fail("next id 0");
  for (std::size_t i = 0; i < segments.size(); i++) {
    const Segment& s = segments[i];
    if (s.id == 0 || s.id >= nextSegment) return fail("chunk id out of range");
    if (i && s.id <= segments[i - 1].id) return fail("chunk ids not ascending");
    if (s.bytes < kSegmentHeaderBytes) return fail("chunk too short");
  }
  const uint64_t blocks = uint64_t(memoryPages) * kBlocksPerPage;
  uint64_t end = 0;
  std::vector<bool> used(segments.size(), false);
  for (const Run& r : runs) {
    if (r.count == 0) return fail("empty run");
    if (r.first < end) return fail("runs overlap or are not ascending");
    end = uint64_t(r.first) + r.count;
    if (end > blocks) return fail("run outside memory");
    auto it = std::lower_bound(segments.begin(), segments.end(), r.segment,
                               [](const Segment& s, uint32_t v) { return s.id < v; });
    if (it == segments.end() || it->id != r.segment) return fail("run in an unknown chunk");
    used[std::size_t(it - segments.begin())] = true;
  }
  for (std::size_t i = 0; i < segments.size(); i++)
    if (!used[i]) return fail("chunk " + std::to_string(segments[i].id) + " holds no block");
  if (!base && !zeros.empty()) return fail("zero blocks without a base");
  end = 0;
  std::size_t run = 0;
  for (const Range& z : zeros) {
    if (z.count == 0) return fail("empty zero run");
    if (z.first < end) return fail("zero runs overlap or are not ascending");
    end = uint64_t(z.first) + z.count;
    if (end > blocks) return fail("zero run outside memory");
    while (run < runs.size() && uint64_t(runs[run].first) + runs[run].count <= z.first) run++;
    if (run < runs.size() && runs[run].first < end) return fail("a zero run overlaps stored blocks");
  }
  return true;
}

}  // namespace sw::snapshot
