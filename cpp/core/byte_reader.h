// A bounds-checked little-endian reader over a buffer the shim encoded (SQL answers, getFiles answers).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

namespace sw::core {

struct ByteReader {
  const uint8_t* p;
  const uint8_t* end;
  bool u32(uint32_t& v) {
    if (end - p < 4) return false;
    std::memcpy(&v, p, 4);  // wasm32 is little-endian
    p += 4;
    return true;
  }
  bool f64(double& v) {
    if (end - p < 8) return false;
    std::memcpy(&v, p, 8);
    p += 8;
    return true;
  }
  // A u32 length, then that many bytes.
  bool bytes(std::string& out) {
    uint32_t n;
    if (!u32(n) || uint32_t(end - p) < n) return false;
    out.assign(reinterpret_cast<const char*>(p), n);
    p += n;
    return true;
  }
};

}  // namespace sw::core
