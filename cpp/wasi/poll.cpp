// poll_oneoff. Every descriptor of the in-memory tree is always ready; a clock subscription is satisfied at once
// (a synchronous host cannot sleep without blocking the isolate), so a guest's sleep returns immediately.
// Under the reference policy (protocol §5.4) the call is refused with EPERM.
#include "internal.h"

namespace sw::wasi {

using detail::FdEntry;
using detail::FdKind;
using detail::HostState;

namespace {
constexpr uint8_t kEventClock = 0, kEventFdRead = 1, kEventFdWrite = 2;
constexpr uint32_t kMaxSubscriptions = 4096;
}  // namespace

Errno poll_oneoff(Host& host, uint32_t in, uint32_t out, uint32_t nsubscriptions, uint32_t neventsPtr) {
  HostState& s = host.state();
  if (s.options.referencePolicy) return Errno::Perm;
  if (nsubscriptions == 0 || nsubscriptions > kMaxSubscriptions) return Errno::Inval;
  if (!s.memory || !s.memory->inBounds(in, uint64_t(nsubscriptions) * detail::kSubscriptionSize) ||
      !s.memory->inBounds(out, uint64_t(nsubscriptions) * detail::kEventSize) || !s.memory->inBounds(neventsPtr, 4)) {
    return Errno::Fault;
  }
  std::vector<uint8_t> subs(std::size_t(nsubscriptions) * detail::kSubscriptionSize);
  if (!s.memory->read(in, subs.data(), uint32_t(subs.size()))) return Errno::Fault;
  std::vector<uint8_t> events;
  events.reserve(std::size_t(nsubscriptions) * detail::kEventSize);
  for (uint32_t i = 0; i < nsubscriptions; ++i) {
    const uint8_t* sub = subs.data() + std::size_t(i) * detail::kSubscriptionSize;
    uint64_t userdata = detail::get64(sub);
    uint8_t type = sub[8];
    uint8_t ev[detail::kEventSize];
    if (type == kEventClock) {
      uint32_t clockId = detail::get32(sub + 16);
      Errno err = clockId > 3 ? Errno::Inval : Errno::Success;
      detail::encodeEvent(ev, userdata, err, type, 0, 0);
    } else if (type == kEventFdRead || type == kEventFdWrite) {
      uint32_t fd = detail::get32(sub + 16);
      FdEntry* e = s.fds.get(fd);
      Errno err = Errno::Success;
      uint64_t nbytes = 0;
      if (!e) {
        err = Errno::Badf;
      } else if (type == kEventFdRead && e->kind == FdKind::File && e->node->size() > e->offset) {
        nbytes = e->node->size() - e->offset;
      }
      detail::encodeEvent(ev, userdata, err, type, nbytes, 0);
    } else {
      detail::encodeEvent(ev, userdata, Errno::Inval, type, 0, 0);
    }
    events.insert(events.end(), ev, ev + sizeof ev);
  }
  if (!s.memory->write(out, events.data(), uint32_t(events.size()))) return Errno::Fault;
  return s.memory->writeU32(neventsPtr, nsubscriptions) ? Errno::Success : Errno::Fault;
}

}  // namespace sw::wasi
