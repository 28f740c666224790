// Boot images (cpp/snapshot/boot_image.h): the file format round trip, applying one over a fresh memory with or
// without the module's data segments, and malformed files refused without a crash.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "snapshot/boot_image.h"

using namespace sw::snapshot;

namespace {

struct Rows final : ChunkWriter {
  std::vector<std::pair<uint32_t, std::vector<uint8_t>>> rows;
  bool put(uint32_t chunk, const uint8_t* data, uint32_t len) override {
    rows.emplace_back(chunk, std::vector<uint8_t>(data, data + len));
    return true;
  }
  bool remove(uint32_t) override { return false; }
  std::vector<StoredChunk> chunks() const {
    std::vector<StoredChunk> out;
    for (const auto& [id, bytes] : rows) out.push_back({id, bytes.data(), uint32_t(bytes.size())});
    return out;
  }
};

// A fresh memory (data segments), the same after a "boot", and the image file of the booted memory.
struct Fixture {
  VectorMemory fresh{3};
  VectorMemory booted;
  std::string file;
  Fixture() {
    for (std::size_t i = 0; i < 2 * kPageBytes; i++) fresh.bytes[i] = uint8_t(i * 7 + 1);
    booted = fresh;
    std::memset(booted.bytes.data() + 2 * kBlockBytes, 0, kBlockBytes);         // boot zeroed a data block
    for (std::size_t i = 0; i < 100; i++) booted.bytes[5 * kBlockBytes + i] = 0xee;  // and changed another
    REQUIRE(booted.grow(5));
    for (std::size_t i = 0; i < 3 * kBlockBytes; i++) booted.bytes[3 * kPageBytes + i] = uint8_t(i % 251);  // heap
    Tracker after;
    std::string error;
    Rows rows;
    Stats stats;
    REQUIRE(take(booted, Tracker{}, after, rows, stats, error));  // every non-zero block
    file = encodeBootImage("build-1", "toy", "0123456789abcdef", 4242, "{\"__stack_pointer\":1048576}",
                           after.manifest(), rows.chunks());
  }
  std::vector<uint8_t> bytes() const { return std::vector<uint8_t>(file.begin(), file.end()); }
};

// A memory that reports every block as zero (what the core tells the restore for a module without data segments).
struct KnownZero final : Memory {
  VectorMemory inner;
  std::vector<uint64_t> zeros;
  explicit KnownZero(uint32_t pages) : inner(pages), zeros(std::size_t(pages) * kBlocksPerPage, 0) {}
  uint32_t pages() override { return inner.pages(); }
  bool read(uint64_t, uint8_t*, uint32_t) override { return false; }  // the restore must not need to read
  bool write(uint64_t offset, const uint8_t* src, uint32_t len) override { return inner.write(offset, src, len); }
  bool grow(uint32_t totalPages) override { return inner.grow(totalPages); }
  std::span<const uint64_t> knownBlocks() override { return zeros; }
};

}  // namespace

TEST_CASE("boot image: encode, parse and apply over a fresh memory give the booted memory", "[boot-image]") {
  Fixture f;
  std::string error;
  auto image = parseBootImage(f.bytes(), error);
  REQUIRE(image);
  CHECK(image->build == "build-1");
  CHECK(image->engine == "toy");
  CHECK(image->module == "0123456789abcdef");
  CHECK(image->handle == 4242);
  REQUIRE(image->globals.isObject());
  CHECK(image->globals.find("__stack_pointer")->asNumber() == 1048576);
  // The image holds the whole booted memory (the data segments' blocks too): a module without them starts from it.
  SECTION("over the module's data segments: the blocks boot zeroed are zeroed") {
    VectorMemory target = f.fresh;
    REQUIRE(applyBootImage(*image, target, error));
    CHECK(target.bytes == f.booted.bytes);
  }
  SECTION("over the memory of a module without data segments") {
    VectorMemory target(3);
    REQUIRE(applyBootImage(*image, target, error));
    CHECK(target.bytes == f.booted.bytes);
  }
  SECTION("over a memory known to be zero: nothing is read back") {
    KnownZero target(3);
    REQUIRE(applyBootImage(*image, target, error));
    CHECK(target.inner.bytes == f.booted.bytes);
  }
  SECTION("once its rows are dropped (the core keeps the memory instead), it no longer applies") {
    image->dropRows();
    CHECK(image->handle == 4242);
    VectorMemory target(3);
    CHECK_FALSE(applyBootImage(*image, target, error));
    CHECK(target.bytes == VectorMemory(3).bytes);
  }
}

TEST_CASE("boot image: the id in a stripped module's sw.nodata section", "[boot-image]") {
  CHECK(noDataModuleId("sw-nodata1;module=0123456789abcdef;segments=2;bytes=10") == "0123456789abcdef");
  CHECK(noDataModuleId("sw-nodata1;module=0123456789abcdef") == "0123456789abcdef");
  CHECK(noDataModuleId("sw-nodata1;module=0123456789ABCDEF") == "");  // the tool writes lower case
  CHECK(noDataModuleId("sw-nodata1;module=0123456789abcde") == "");
  CHECK(noDataModuleId("sw-nodata1;module=0123456789abcdef0") == "");
  CHECK(noDataModuleId("sw-nodata2;module=0123456789abcdef") == "");
  CHECK(noDataModuleId("") == "");
}

TEST_CASE("boot image: truncated, altered or foreign files are refused, never applied half-checked", "[boot-image]") {
  Fixture f;
  std::string error;
  for (std::size_t n = 0; n < f.file.size(); n += (n < 64 ? 1 : 97)) {
    std::vector<uint8_t> cut(f.file.begin(), f.file.begin() + std::ptrdiff_t(n));
    auto image = parseBootImage(cut, error);
    if (!image) continue;  // a cut inside the header or a segment's framing
    // A cut at a segment boundary parses, but the rows no longer match the manifest.
    VectorMemory target = f.fresh;
    CHECK_FALSE(applyBootImage(*image, target, error));
  }
  CHECK_FALSE(parseBootImage(std::vector<uint8_t>{'S', 'W'}, error));
  CHECK(error == "Invalid boot image: not a boot image");
  // One flipped byte in a row: the checksum catches it before memory is written.
  std::vector<uint8_t> flipped = f.bytes();
  flipped.back() ^= 0x40;
  auto image = parseBootImage(flipped, error);
  REQUIRE(image);
  VectorMemory target = f.fresh;
  CHECK_FALSE(applyBootImage(*image, target, error));
  CHECK(target.bytes == f.fresh.bytes);
  // A header that is not JSON, or lacks fields.
  // The previous format (a delta against the module's data segments) is not this one.
  std::string old = f.file;
  old[6] = '1';
  CHECK_FALSE(parseBootImage(std::vector<uint8_t>(old.begin(), old.end()), error));
  std::string bad = "SWBOOT2\n";
  bad += std::string("\x02\x00\x00\x00", 4) + "{}";
  CHECK_FALSE(parseBootImage(std::vector<uint8_t>(bad.begin(), bad.end()), error));
  CHECK(error == "Invalid boot image: header fields");
}
