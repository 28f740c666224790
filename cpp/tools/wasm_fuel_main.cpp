// sw-wasm-fuel IN.wasm OUT.wasm [--batch N] [--max-pages N] [--weighted [--scale N] [--indirect-call-weight N]]
//              [--existing-charge reuse|mute] [--stack-mark]:
// the CLI around instrumentFuel (docs/fuel-tool.md).
// sw-wasm-fuel --strip-data IN.wasm OUT.wasm: the module without its data segments (stripDataSegments,
// docs/boot-images.md); prints the text of the sw.nodata section it wrote on stdout.
// sw-wasm-fuel --extract-files PREFIX IN.wasm OUT.wasm DIR: the module without its embedded file table's contents
// (extractEmbeddedFiles), each file written to DIR + its path (DIR/zeroperl/lib/... for "/zeroperl").
// sw-wasm-fuel --emit-scanner OUT.wasm: the memory scanner module (cpp/tools/scanner.h, docs/snapshots.md).
// sw-wasm-fuel --block-hashes FILE: snapshot::blockHash of every whole 4 KiB block of FILE, one 16-digit hex line each
// (what the scanner must compute; test/tools/scanner.test.mjs).
#include <cerrno>
#include <filesystem>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "snapshot/snapshot.h"
#include "tools/scanner.h"
#include "tools/wasm_fuel.h"

namespace {

int usage() {
  std::fprintf(stderr, "usage: sw-wasm-fuel IN.wasm OUT.wasm [--batch N] [--max-pages N] [--weighted [--scale N] "
                       "[--indirect-call-weight N]] [--existing-charge reuse|mute] [--stack-mark]\n       sw-wasm-fuel --strip-data IN.wasm OUT.wasm\n"
                       "       sw-wasm-fuel --extract-files PREFIX IN.wasm OUT.wasm DIR\n"
                       "       sw-wasm-fuel --emit-scanner OUT.wasm\n       sw-wasm-fuel --block-hashes FILE\n");
  return 2;
}

bool parseU32(const char* s, uint32_t& out) {
  if (!*s || *s == '-' || *s == '+') return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(s, &end, 10);
  if (errno || *end || v > UINT32_MAX) return false;
  out = uint32_t(v);
  return true;
}

bool readFile(const char* path, std::vector<uint8_t>& out) {
  FILE* f = std::fopen(path, "rb");
  if (!f) return false;
  uint8_t buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.insert(out.end(), buf, buf + n);
  bool ok = !std::ferror(f);
  std::fclose(f);
  return ok;
}

bool writeFile(const std::string& path, const std::vector<uint8_t>& data) {
  // Write beside the target, then rename: a failed run never leaves a half-written module behind.
  std::string tmp = path + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return false;
  bool ok = std::fwrite(data.data(), 1, data.size(), f) == data.size();
  ok = (std::fclose(f) == 0) && ok;
  if (ok) ok = std::rename(tmp.c_str(), path.c_str()) == 0;
  if (!ok) std::remove(tmp.c_str());
  return ok;
}

}  // namespace

// --extract-files PREFIX IN OUT DIR.
static int extractFiles(const char* prefix, const char* inPath, const char* outPath, const char* dir) {
  std::vector<uint8_t> in;
  if (!readFile(inPath, in)) {
    std::fprintf(stderr, "sw-wasm-fuel: cannot read %s: %s\n", inPath, std::strerror(errno));
    return 1;
  }
  std::string error;
  std::vector<sw::tools::EmbeddedFile> files;
  sw::tools::ExtractStats stats;
  auto out = sw::tools::extractEmbeddedFiles(in, prefix, &files, &error, &stats);
  if (!out) {
    std::fprintf(stderr, "sw-wasm-fuel: %s: %s\n", inPath, error.c_str());
    return 1;
  }
  for (const auto& f : files) {
    const std::filesystem::path target = std::filesystem::path(dir) / f.path.substr(1);  // paths are plain, absolute
    std::error_code ec;
    std::filesystem::create_directories(target.parent_path(), ec);
    if (ec || !writeFile(target.string(), f.data)) {
      std::fprintf(stderr, "sw-wasm-fuel: cannot write %s\n", target.c_str());
      return 1;
    }
  }
  if (!writeFile(outPath, *out)) {
    std::fprintf(stderr, "sw-wasm-fuel: cannot write %s: %s\n", outPath, std::strerror(errno));
    return 1;
  }
  std::fprintf(stderr, "sw-wasm-fuel: %s: %u files (%llu bytes) under %s moved to %s (table at %u, prefix at %u); "
               "%u -> %u active data segments; %zu -> %zu bytes\n", outPath, stats.files,
               static_cast<unsigned long long>(stats.bytes), prefix, dir, stats.table, stats.prefix,
               stats.segmentsBefore, stats.segmentsAfter, in.size(), out->size());
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--extract-files") == 0) {
    if (argc != 6) return usage();
    return extractFiles(argv[2], argv[3], argv[4], argv[5]);
  }
  if (argc > 1 && std::strcmp(argv[1], "--emit-scanner") == 0) {
    if (argc != 3) return usage();
    if (!writeFile(argv[2], sw::tools::scannerModule())) {
      std::fprintf(stderr, "sw-wasm-fuel: cannot write %s: %s\n", argv[2], std::strerror(errno));
      return 1;
    }
    return 0;
  }
  if (argc > 1 && std::strcmp(argv[1], "--block-hashes") == 0) {
    std::vector<uint8_t> in;
    if (argc != 3 || !readFile(argv[2], in)) return usage();
    for (std::size_t at = 0; at + sw::snapshot::kBlockBytes <= in.size(); at += sw::snapshot::kBlockBytes)
      std::printf("%016llx\n", static_cast<unsigned long long>(sw::snapshot::blockHash(in.data() + at)));
    return 0;
  }
  std::vector<const char*> files;
  sw::tools::FuelOptions options;
  bool stripData = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--batch" || arg == "--max-pages" || arg == "--scale" || arg == "--indirect-call-weight") {
      uint32_t v;
      if (i + 1 >= argc || !parseU32(argv[i + 1], v)) return usage();
      ++i;
      if (arg == "--batch") options.batch = v;
      else if (arg == "--scale") options.scale = v;
      else if (arg == "--indirect-call-weight") options.indirectCallWeight = v;
      else options.maxPages = v;
    } else if (arg == "--strip-data") {
      stripData = true;
    } else if (arg == "--weighted") {
      options.weighted = true;
    } else if (arg == "--stack-mark") {
      options.stackMark = true;
    } else if (arg == "--existing-charge") {
      if (i + 1 >= argc) return usage();
      std::string v = argv[++i];
      if (v == "reuse") options.existingCharge = sw::tools::ExistingCharge::Reuse;
      else if (v == "mute") options.existingCharge = sw::tools::ExistingCharge::Mute;
      else return usage();
    } else if (arg.starts_with("--")) {
      return usage();
    } else {
      files.push_back(argv[i]);
    }
  }
  if (files.size() != 2) return usage();
  std::vector<uint8_t> in;
  if (!readFile(files[0], in)) {
    std::fprintf(stderr, "sw-wasm-fuel: cannot read %s: %s\n", files[0], std::strerror(errno));
    return 1;
  }
  std::string error;
  if (stripData) {
    if (argc != 4) return usage();  // no other option applies
    sw::tools::StripStats stats;
    auto out = sw::tools::stripDataSegments(in, &error, &stats);
    if (!out) {
      std::fprintf(stderr, "sw-wasm-fuel: %s: %s\n", files[0], error.c_str());
      return 1;
    }
    if (!writeFile(files[1], *out)) {
      std::fprintf(stderr, "sw-wasm-fuel: cannot write %s: %s\n", files[1], std::strerror(errno));
      return 1;
    }
    std::fprintf(stderr, "sw-wasm-fuel: %s: %u active data segments (%llu bytes) %s, %u passive kept; %zu -> %zu bytes\n",
                 files[1], stats.activeSegments, static_cast<unsigned long long>(stats.activeBytes),
                 stats.keptIndices ? "emptied (the code names segments)" : "removed", stats.passiveSegments, in.size(),
                 out->size());
    std::printf("%s\n", stats.section.c_str());
    return 0;
  }
  sw::tools::FuelStats stats;
  auto out = sw::tools::instrumentFuel(in, options, &error, &stats);
  if (!out) {
    std::fprintf(stderr, "sw-wasm-fuel: %s: %s\n", files[0], error.c_str());
    return 1;
  }
  if (!writeFile(files[1], *out)) {
    std::fprintf(stderr, "sw-wasm-fuel: cannot write %s: %s\n", files[1], std::strerror(errno));
    return 1;
  }
  std::fprintf(stderr, "sw-wasm-fuel: %s: %u functions, %u loops metered (batch %u); %zu -> %zu bytes\n", files[1],
               stats.functions, stats.loops, options.batch, in.size(), out->size());
  if (options.weighted) {
    std::fprintf(stderr, "sw-wasm-fuel: weighted: %u straight-line runs, %u bulk memory instructions, %u small "
                         "functions charged at their call sites, scale %u; %u own charge calls muted\n",
                 stats.segments, stats.bulk, stats.folded, options.scale, stats.muted);
  }
  if (options.stackMark)
    std::fprintf(stderr, "sw-wasm-fuel: stack mark: %u sets of the stack pointer also lower sw_stack_low\n", stats.stackMarks);
  return 0;
}
