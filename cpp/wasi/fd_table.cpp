// The descriptor table: fixed slots 0..fdBase-1 (stdio and preopens, protocol §5.4), guest descriptors above.
#include "internal.h"

namespace sw::wasi::detail {

Errno FdTable::allocate(uint32_t from, FdEntry entry, uint32_t& fd) {
  for (uint32_t i = from; i < slots_.size(); ++i) {
    if (!slots_[i].open()) {
      slots_[i] = std::move(entry);
      fd = i;
      return Errno::Success;
    }
  }
  uint32_t next = std::max<uint32_t>(from, uint32_t(slots_.size()));
  if (next >= kMaxFds) return Errno::Mfile;
  slots_.resize(next + 1);
  slots_[next] = std::move(entry);
  fd = next;
  return Errno::Success;
}

void FdTable::set(uint32_t fd, FdEntry entry) {
  if (fd >= slots_.size()) slots_.resize(fd + 1);
  slots_[fd] = std::move(entry);
}

FdEntry* FdTable::get(uint32_t fd) {
  if (fd >= slots_.size() || !slots_[fd].open()) return nullptr;
  return &slots_[fd];
}

Errno FdTable::lookup(uint32_t fd, uint64_t needed, FdEntry*& out) {
  out = get(fd);
  if (!out) return Errno::Badf;
  if ((out->rightsBase & needed) != needed) return Errno::NotCapable;
  return Errno::Success;
}

Errno FdTable::close(uint32_t fd) {
  FdEntry* e = get(fd);
  if (!e) return Errno::Badf;
  *e = FdEntry{};
  while (!slots_.empty() && !slots_.back().open()) slots_.pop_back();
  return Errno::Success;
}

bool FdTable::anyOpenFrom(uint32_t from) const {
  for (std::size_t i = from; i < slots_.size(); ++i) {
    if (slots_[i].open()) return true;
  }
  return false;
}

}  // namespace sw::wasi::detail
