// Clocks, randomness, arguments and environment.
#include <chrono>
#include <cstring>

#include "internal.h"

#ifdef __EMSCRIPTEN__
extern "C" void sw_wasi_random_fill(uint8_t* buffer, uint32_t len);  // crypto.getRandomValues (wasi_bridge.js)
#else
#include <unistd.h>
#endif

namespace sw::wasi {

using detail::HostState;

namespace {

class SystemClock final : public Clock {
 public:
  uint64_t realtimeNs() override {
    return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count());
  }
  uint64_t monotonicNs() override {
    return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now().time_since_epoch())
                        .count());
  }
};

constexpr uint32_t kRealtime = 0, kMonotonic = 1, kProcessCputime = 2, kThreadCputime = 3;

// args_get / environ_get: an array of pointers followed by NUL-terminated strings in a buffer.
Errno writeStringList(Host& host, const std::vector<std::string>& list, uint32_t ptrs, uint32_t buf) {
  GuestMemory* mem = host.state().memory;
  if (!mem) return Errno::Fault;
  uint64_t bytes = 0;
  for (const auto& s : list) bytes += s.size() + 1;
  if (!mem->inBounds(ptrs, uint64_t(list.size()) * 4) || !mem->inBounds(buf, bytes)) return Errno::Fault;
  std::vector<uint8_t> ptrBytes(list.size() * 4);
  std::string blob;
  blob.reserve(std::size_t(bytes));
  for (std::size_t i = 0; i < list.size(); ++i) {
    detail::put32(ptrBytes.data() + i * 4, uint32_t(buf + blob.size()));
    blob += list[i];
    blob.push_back('\0');
  }
  if (!mem->write(ptrs, ptrBytes.data(), uint32_t(ptrBytes.size()))) return Errno::Fault;
  if (!mem->write(buf, blob.data(), uint32_t(blob.size()))) return Errno::Fault;
  return Errno::Success;
}

Errno writeListSizes(Host& host, const std::vector<std::string>& list, uint32_t countPtr, uint32_t sizePtr) {
  GuestMemory* mem = host.state().memory;
  if (!mem) return Errno::Fault;
  uint64_t bytes = 0;
  for (const auto& s : list) bytes += s.size() + 1;
  if (!mem->writeU32(countPtr, uint32_t(list.size())) || !mem->writeU32(sizePtr, uint32_t(bytes))) {
    return Errno::Fault;
  }
  return Errno::Success;
}

}  // namespace

std::shared_ptr<Clock> systemClock() { return std::make_shared<SystemClock>(); }

RandomSource systemRandom() {
  return [](uint8_t* buffer, std::size_t len) {
#ifdef __EMSCRIPTEN__
    while (len > 0) {
      uint32_t n = uint32_t(std::min<std::size_t>(len, 65536));
      sw_wasi_random_fill(buffer, n);
      buffer += n;
      len -= n;
    }
    return true;
#else
    while (len > 0) {
      std::size_t n = std::min<std::size_t>(len, 256);  // getentropy's per-call maximum
      if (getentropy(buffer, n) != 0) return false;
      buffer += n;
      len -= n;
    }
    return true;
#endif
  };
}

Errno args_get(Host& host, uint32_t argv, uint32_t argvBuf) {
  return writeStringList(host, host.state().options.args, argv, argvBuf);
}

Errno args_sizes_get(Host& host, uint32_t argcPtr, uint32_t argvBufSizePtr) {
  return writeListSizes(host, host.state().options.args, argcPtr, argvBufSizePtr);
}

Errno environ_get(Host& host, uint32_t environ, uint32_t environBuf) {
  return writeStringList(host, host.state().options.env, environ, environBuf);
}

Errno environ_sizes_get(Host& host, uint32_t countPtr, uint32_t bufSizePtr) {
  return writeListSizes(host, host.state().options.env, countPtr, bufSizePtr);
}

Errno clock_res_get(Host& host, uint32_t clockId, uint32_t resolutionPtr) {
  if (clockId > kThreadCputime) return Errno::Inval;
  GuestMemory* mem = host.state().memory;
  if (!mem || !mem->writeU64(resolutionPtr, host.state().options.clock->resolutionNs())) return Errno::Fault;
  return Errno::Success;
}

Errno clock_time_get(Host& host, uint32_t clockId, uint64_t precision, uint32_t timePtr) {
  Clock& clock = *host.state().options.clock;
  uint64_t t = 0;
  switch (clockId) {
    case kRealtime: t = clock.realtimeNs(); break;
    case kMonotonic:
    case kProcessCputime:
    case kThreadCputime: t = clock.monotonicNs(); break;
    default: return Errno::Inval;
  }
  GuestMemory* mem = host.state().memory;
  if (!mem || !mem->writeU64(timePtr, t)) return Errno::Fault;
  return Errno::Success;
}

Errno random_get(Host& host, uint32_t buf, uint32_t bufLen) {
  HostState& s = host.state();
  if (!s.memory || !s.memory->inBounds(buf, bufLen)) return Errno::Fault;
  constexpr uint32_t kPiece = 65536;
  s.scratch.resize(std::min(bufLen, kPiece));
  for (uint32_t done = 0; done < bufLen;) {
    uint32_t n = std::min(bufLen - done, kPiece);
    if (!s.options.random(s.scratch.data(), n)) return Errno::Io;
    if (!s.memory->write(buf + done, s.scratch.data(), n)) return Errno::Fault;
    done += n;
  }
  return Errno::Success;
}

Errno proc_exit(Host& host, uint32_t code) { return host.raiseTrap(TrapKind::Exit, "exit", code); }

Errno proc_raise(Host& host, uint32_t sig) { return Errno::NoSys; }

Errno sched_yield(Host& host) { return Errno::Success; }

}  // namespace sw::wasi
