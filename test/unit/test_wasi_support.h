// Helpers for the cpp/wasi unit tests: a guest with a vector memory and a bump allocator for arguments.
#pragma once

#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "wasi/internal.h"
#include "wasi/wasi.h"

namespace sw::wasi::testing {

class FakeClock final : public Clock {
 public:
  uint64_t realtime = 1700000000000000000ull;
  uint64_t monotonic = 42;
  uint64_t realtimeNs() override { return realtime; }
  uint64_t monotonicNs() override { return monotonic; }
  uint64_t resolutionNs() override { return 1000; }
};

struct Guest {
  VectorMemory memory{8 << 20};
  std::shared_ptr<Workspace> workspace;
  std::unique_ptr<Host> host;
  uint32_t next = 1024;
  std::shared_ptr<FakeClock> clock = std::make_shared<FakeClock>();

  explicit Guest(HostOptions options = {}, bool withWorkspace = true) {
    if (withWorkspace && !options.workspace) options.workspace = std::make_shared<Workspace>();
    workspace = options.workspace;
    if (!options.clock) options.clock = clock;
    host = std::make_unique<Host>(std::move(options));
    host->setMemory(&memory);
  }

  uint32_t alloc(uint32_t n) {
    uint32_t p = next;
    next += (n + 7) & ~7u;
    REQUIRE(next < memory.bytes().size());
    return p;
  }
  uint32_t put(std::string_view s) {
    uint32_t p = alloc(uint32_t(s.size()) + 1);
    std::memcpy(memory.bytes().data() + p, s.data(), s.size());
    return p;
  }
  uint32_t u32(uint32_t p) { return detail::get32(memory.bytes().data() + p); }
  uint64_t u64(uint32_t p) { return detail::get64(memory.bytes().data() + p); }
  std::string str(uint32_t p, uint32_t n) { return std::string(reinterpret_cast<char*>(memory.bytes().data() + p), n); }

  static constexpr uint64_t kReadRights = detail::right::FdRead | detail::right::FdSeek | detail::right::FdTell |
                                          detail::right::FdFilestatGet | detail::right::FdReaddir;
  static constexpr uint64_t kWriteRights = kReadRights | detail::right::FdWrite | detail::right::FdFilestatSetSize;

  Errno open(uint32_t dirFd, std::string_view path, uint32_t oflags, uint64_t rights, uint32_t& fd,
             uint32_t fdflags = 0) {
    uint32_t p = put(path), out = alloc(4);
    Errno e = path_open(*host, dirFd, 1, p, uint32_t(path.size()), oflags, rights, detail::right::All, fdflags, out);
    fd = u32(out);
    return e;
  }
  Errno write(uint32_t fd, std::string_view data, uint32_t* written = nullptr) {
    uint32_t buf = put(data), iov = alloc(8), n = alloc(4);
    detail::put32(memory.bytes().data() + iov, buf);
    detail::put32(memory.bytes().data() + iov + 4, uint32_t(data.size()));
    Errno e = fd_write(*host, fd, iov, 1, n);
    if (written) *written = u32(n);
    return e;
  }
  Errno read(uint32_t fd, std::string& out, uint32_t max = 4096) {
    uint32_t buf = alloc(max), iov = alloc(8), n = alloc(4);
    detail::put32(memory.bytes().data() + iov, buf);
    detail::put32(memory.bytes().data() + iov + 4, max);
    Errno e = fd_read(*host, fd, iov, 1, n);
    out = e == Errno::Success ? str(buf, u32(n)) : std::string();
    return e;
  }
  Errno seek(uint32_t fd, int64_t off, uint32_t whence, uint64_t* pos = nullptr) {
    uint32_t out = alloc(8);
    Errno e = fd_seek(*host, fd, off, whence, out);
    if (pos) *pos = u64(out);
    return e;
  }
  Errno mkdir(uint32_t dirFd, std::string_view path) {
    return path_create_directory(*host, dirFd, put(path), uint32_t(path.size()));
  }
  Errno rmdir(uint32_t dirFd, std::string_view path) {
    return path_remove_directory(*host, dirFd, put(path), uint32_t(path.size()));
  }
  Errno unlink(uint32_t dirFd, std::string_view path) {
    return path_unlink_file(*host, dirFd, put(path), uint32_t(path.size()));
  }
  Errno rename(uint32_t fromFd, std::string_view from, uint32_t toFd, std::string_view to) {
    return path_rename(*host, fromFd, put(from), uint32_t(from.size()), toFd, put(to), uint32_t(to.size()));
  }
  Errno stat(uint32_t dirFd, std::string_view path, uint8_t& filetype, uint64_t& size) {
    uint32_t out = alloc(64);
    Errno e = path_filestat_get(*host, dirFd, 1, put(path), uint32_t(path.size()), out);
    filetype = memory.bytes()[out + 16];
    size = u64(out + 32);
    return e;
  }
  // Names listed by fd_readdir (with "." and "..").
  Errno list(uint32_t fd, std::vector<std::string>& names) {
    names.clear();
    uint32_t buf = alloc(256), used = alloc(4);
    uint64_t cookie = 0;
    for (int guard = 0; guard < 10000; ++guard) {
      Errno e = fd_readdir(*host, fd, buf, 256, cookie, used);
      if (e != Errno::Success) return e;
      uint32_t n = u32(used), at = 0;
      bool progressed = false;
      while (at + 24 <= n) {
        uint32_t len = u32(buf + at + 16);
        if (at + 24 + len > n) break;
        names.push_back(str(buf + at + 24, len));
        cookie = u64(buf + at);
        at += 24 + len;
        progressed = true;
      }
      if (n < 256 || !progressed) return Errno::Success;
    }
    return Errno::Io;
  }
};

// A stored (uncompressed) zip of (name, contents) entries; names ending in '/' are directory entries.
inline std::vector<uint8_t> makeZip(const std::vector<std::pair<std::string, std::string>>& entries,
                                    uint16_t method = 0) {
  std::vector<uint8_t> out, central;
  auto p16 = [](std::vector<uint8_t>& v, uint16_t x) { v.push_back(uint8_t(x)); v.push_back(uint8_t(x >> 8)); };
  auto p32 = [&](std::vector<uint8_t>& v, uint32_t x) { p16(v, uint16_t(x)); p16(v, uint16_t(x >> 16)); };
  for (const auto& [name, data] : entries) {
    uint32_t offset = uint32_t(out.size());
    p32(out, 0x04034b50); p16(out, 20); p16(out, 0); p16(out, method); p32(out, 0); p32(out, 0);
    p32(out, uint32_t(data.size())); p32(out, uint32_t(data.size())); p16(out, uint16_t(name.size())); p16(out, 0);
    out.insert(out.end(), name.begin(), name.end());
    out.insert(out.end(), data.begin(), data.end());
    p32(central, 0x02014b50); p16(central, 20); p16(central, 20); p16(central, 0); p16(central, method);
    p32(central, 0); p32(central, 0); p32(central, uint32_t(data.size())); p32(central, uint32_t(data.size()));
    p16(central, uint16_t(name.size())); p16(central, 0); p16(central, 0); p16(central, 0); p16(central, 0);
    p32(central, 0); p32(central, offset);
    central.insert(central.end(), name.begin(), name.end());
  }
  uint32_t cdOffset = uint32_t(out.size());
  out.insert(out.end(), central.begin(), central.end());
  p32(out, 0x06054b50); p16(out, 0); p16(out, 0); p16(out, uint16_t(entries.size()));
  p16(out, uint16_t(entries.size())); p32(out, uint32_t(central.size())); p32(out, cdOffset); p16(out, 0);
  return out;
}

// A ustar tar; type '5' for names ending in '/'.
inline std::vector<uint8_t> makeTar(const std::vector<std::pair<std::string, std::string>>& entries) {
  std::vector<uint8_t> out;
  for (const auto& [name, data] : entries) {
    uint8_t h[512] = {};
    std::memcpy(h, name.data(), std::min<std::size_t>(name.size(), 100));
    std::snprintf(reinterpret_cast<char*>(h + 124), 12, "%011o", unsigned(data.size()));
    h[156] = name.back() == '/' ? '5' : '0';
    std::memcpy(h + 257, "ustar", 6);
    out.insert(out.end(), h, h + 512);
    out.insert(out.end(), data.begin(), data.end());
    out.resize((out.size() + 511) / 512 * 512, 0);
  }
  out.resize(out.size() + 1024, 0);
  return out;
}

constexpr uint32_t kCreat = 1, kDirectory = 2, kExcl = 4, kTrunc = 8;
constexpr uint32_t kStdlibFd = 3, kDevFd = 4, kWorkspaceFd = 5;

}  // namespace sw::wasi::testing
