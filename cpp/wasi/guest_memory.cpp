// Bounds-checked access to the guest's linear memory.
#include <cstring>

#include "internal.h"

namespace sw::wasi {

bool GuestMemory::inBounds(uint32_t guestPtr, uint64_t len) {
  uint64_t end = uint64_t(guestPtr) + len;
  if (end <= knownSize_) return true;
  knownSize_ = size();
  return end <= knownSize_;
}

bool GuestMemory::read(uint32_t guestPtr, void* dst, uint32_t len) {
  if (!inBounds(guestPtr, len)) return false;
  if (len) copyOut(guestPtr, dst, len);
  return true;
}

bool GuestMemory::write(uint32_t guestPtr, const void* src, uint32_t len) {
  if (!inBounds(guestPtr, len)) return false;
  if (len) copyIn(guestPtr, src, len);
  return true;
}

bool GuestMemory::readU32(uint32_t guestPtr, uint32_t& value) {
  uint8_t b[4];
  if (!read(guestPtr, b, 4)) return false;
  value = detail::get32(b);
  return true;
}

bool GuestMemory::writeU32(uint32_t guestPtr, uint32_t value) {
  uint8_t b[4];
  detail::put32(b, value);
  return write(guestPtr, b, 4);
}

bool GuestMemory::writeU64(uint32_t guestPtr, uint64_t value) {
  uint8_t b[8];
  detail::put64(b, value);
  return write(guestPtr, b, 8);
}

void VectorMemory::copyOut(uint32_t guestPtr, void* dst, uint32_t len) {
  std::memcpy(dst, bytes_.data() + guestPtr, len);
}

void VectorMemory::copyIn(uint32_t guestPtr, const void* src, uint32_t len) {
  std::memcpy(bytes_.data() + guestPtr, src, len);
}

}  // namespace sw::wasi
