// wasi_serdes: the little-endian layouts of the WASI preview1 structs on wasm32, and the iovec reader.
#include <algorithm>
#include <cstring>

#include "internal.h"

namespace sw::wasi::detail {

void put16(uint8_t* p, uint16_t v) {
  p[0] = uint8_t(v);
  p[1] = uint8_t(v >> 8);
}
void put32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = uint8_t(v >> (8 * i));
}
void put64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = uint8_t(v >> (8 * i));
}
uint16_t get16(const uint8_t* p) { return uint16_t(p[0] | (p[1] << 8)); }
uint32_t get32(const uint8_t* p) {
  return uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) | (uint32_t(p[3]) << 24);
}
uint64_t get64(const uint8_t* p) { return uint64_t(get32(p)) | (uint64_t(get32(p + 4)) << 32); }

// fdstat: filetype u8 @0, flags u16 @2, rights_base u64 @8, rights_inheriting u64 @16.
void encodeFdstat(uint8_t* out, FileType type, uint16_t flags, uint64_t base, uint64_t inheriting) {
  std::memset(out, 0, kFdstatSize);
  out[0] = uint8_t(type);
  put16(out + 2, flags);
  put64(out + 8, base);
  put64(out + 16, inheriting);
}

// filestat: dev @0, ino @8, filetype u8 @16, nlink @24, size @32, atim @40, mtim @48, ctim @56.
void encodeFilestat(uint8_t* out, const Node& node) {
  std::memset(out, 0, kFilestatSize);
  put64(out, node.mount ? node.mount->device : 0);
  put64(out + 8, node.ino);
  out[16] = uint8_t(node.fileType());
  put64(out + 24, 1);
  put64(out + 32, node.isDir() ? 4096 : node.size());
  put64(out + 40, node.atim);
  put64(out + 48, node.mtim);
  put64(out + 56, node.ctim);
}

// dirent: d_next u64 @0, d_ino u64 @8, d_namlen u32 @16, d_type u8 @20; the name follows.
void encodeDirent(uint8_t* out, uint64_t next, uint64_t ino, uint32_t nameLen, FileType type) {
  std::memset(out, 0, kDirentSize);
  put64(out, next);
  put64(out + 8, ino);
  put32(out + 16, nameLen);
  out[20] = uint8_t(type);
}

// event: userdata u64 @0, error u16 @8, type u8 @10, fd_readwrite.nbytes u64 @16, .flags u16 @24.
void encodeEvent(uint8_t* out, uint64_t userdata, Errno error, uint8_t type, uint64_t nbytes, uint16_t flags) {
  std::memset(out, 0, kEventSize);
  put64(out, userdata);
  put16(out + 8, uint16_t(error));
  out[10] = type;
  put64(out + 16, nbytes);
  put16(out + 24, flags);
}

Errno readIovecs(GuestMemory& mem, uint32_t iovs, uint32_t iovsLen, std::vector<Iovec>& out, uint64_t& total) {
  out.clear();
  total = 0;
  if (iovsLen > kMaxIovecs) return Errno::Inval;
  if (iovsLen == 0) return Errno::Success;
  if (!mem.inBounds(iovs, uint64_t(iovsLen) * 8)) return Errno::Fault;
  uint8_t raw[8 * 64];
  out.reserve(iovsLen);
  for (uint32_t done = 0; done < iovsLen;) {
    uint32_t n = std::min<uint32_t>(iovsLen - done, 64);
    if (!mem.read(iovs + done * 8, raw, n * 8)) return Errno::Fault;
    for (uint32_t i = 0; i < n; ++i) {
      Iovec v{get32(raw + i * 8), get32(raw + i * 8 + 4)};
      if (!mem.inBounds(v.buf, v.len)) return Errno::Fault;
      total += v.len;
      out.push_back(v);
    }
    done += n;
  }
  return Errno::Success;
}

}  // namespace sw::wasi::detail
