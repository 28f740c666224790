// Boot images and the instance pool of an Engine written in JavaScript (docs/engine-authors.md, "A boot image"): the
// same image, pristine memory and pool as a built-in engine's (builtin.cpp), reached through ./wasi's
// EngineInstances (worker-shim/instances.js) instead of the core's own wasmify calls. The engine creates the WASI host
// (createWasi) and calls its guest itself; this file decides where an instance comes from (a parked one or a new
// one), writes its memory and globals, and whether it goes back to the pool when its host is closed: never after a
// call into it threw (a trap, the fuel limit, a host failure) or its host recorded a trap, nor once its memory grew.
// The pristine memory is also the base its contexts' snapshots are stored relative to (format 2, docs/snapshots.md):
// a restore resets the instance to it and writes only the pages the snapshot changed.
#include <emscripten/emscripten.h>

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>

#include "../wasi/bridge.h"
#include "../wasi/wasi.h"
#include "builtin.h"
#include "guest.h"
#include "js_sessions.h"

namespace sw::core {

namespace {

// An instance this file put under a host (createWasi's), until that host is closed.
struct Lease {
  uint32_t server = 0;
  bool failed = false;  // a call into it threw: its memory or its unexported state may be anything
};
std::unordered_map<uint32_t, Lease>& leases() {
  static std::unordered_map<uint32_t, Lease> map;
  return map;
}
std::string g_error;

// A parked instance bound under `host` (its memory still holds its last user's state), or a new instance of the
// server's module. `maxPages`: a parked instance is only taken if its memory is no larger (a restore cannot shrink it;
// 0: never).
// 0 = none could be had; 1 = new; 2 = parked.
int instanceFor(uint32_t server, uint32_t host, uint32_t maxPages) {
  const BuiltinResources& r = builtinResources(server);
  if (r.pristine && r.pristine->pages <= maxPages) {
    if (BuiltinResources::Parked p = takeParked(server); p.id) {
      if (sw_host_unpark_guest(p.id, host)) return 2;
    }
  }
  return sw_host_instantiate_guest(server, host) ? 1 : 0;
}

// An instance under `host` (instanceFor) whose memory `fill(pooled, error)` writes, leased to the host until it is
// closed; on any failure the instance is dropped. 1 = ok; -1 = failed (sw_image_error).
int32_t leaseInstance(uint32_t server, uint32_t host, uint32_t maxPages,
                      const std::function<bool(bool pooled, std::string& error)>& fill) {
  try {
    const int got = instanceFor(server, host, maxPages);
    if (!got) {
      g_error = "Engine initialization failed: instantiation";
      return -1;
    }
    std::string error;
    if (!fill(got == 2, error)) {
      sw_host_release_guest(host);
      g_error = error;
      return -1;
    }
    leases()[host] = Lease{server, false};
    return 1;
  } catch (const std::exception& e) {
    g_error = e.what();
    return -1;
  }
}

}  // namespace

std::shared_ptr<const snapshot::Base> jsPristineBase(uint32_t server, std::string& error) {
  if (auto base = pristineBase(server)) return base;
  if (!builtinBootImage(server)) {
    error = "Engine initialization failed: no boot image";
    return nullptr;
  }
  // No instance has started from the image in this isolate: one does now, under a host of its own, and goes to the
  // pool (the restore that asked takes it). The host's options do not matter: nothing of the guest runs.
  const uint32_t host = wasi::newHostHandle(wasi::HostOptions{});
  if (!host) {
    error = "Engine initialization failed: no WASI host";
    return nullptr;
  }
  if (!sw_host_instantiate_guest(server, host)) {
    error = "Engine initialization failed: instantiation";
  } else if (loadBootImage(server, host, false, error)) {
    if (!parkGuest(server, host)) sw_host_release_guest(host);
  } else {
    sw_host_release_guest(host);
  }
  sw_wasi_host_free(host);
  return pristineBase(server);
}

}  // namespace sw::core

extern "C" {

// EngineInstances.fromImage(wasi): an instance of the server's engine module under WASI host `host` (createWasi's),
// started from the server's boot image — a parked instance reset to it, or a new one with the image written — with the
// image's globals. 1 = started (its handle: sw_image_handle); 0 = the server has no boot image (the engine boots an
// instance itself); -1 = failed (sw_image_error; nothing is left under the host).
EMSCRIPTEN_KEEPALIVE int32_t sw_image_start(uint32_t server, uint32_t host) {
  using namespace sw::core;
  if (!builtinBootImage(server)) return 0;
  return leaseInstance(server, host, UINT32_MAX,
                       [&](bool pooled, std::string& error) { return loadBootImage(server, host, pooled, error); });
}

// The interpreter handle the server's boot image records (what its engine's boot returned).
EMSCRIPTEN_KEEPALIVE uint64_t sw_image_handle(uint32_t server) {
  const sw::snapshot::BootImage* image = sw::core::builtinBootImage(server);
  return image ? image->handle : 0;
}

// EngineInstances.restore(wasi, source): the page image `image` (a SessionSnapshotSource the core serves) written into
// an instance of the server's module under `host` — a parked one when the server keeps one whose memory is no larger,
// its globals reset to the image's (their values at rest), else a new one. A page image over the pristine memory:
// the instance is reset to the image first, then only the pages written into the page image are written. `image` 0: a source the core does not
// serve, which the shim copies itself: a new instance only, memory untouched. 1 = ok; -1 = failed (sw_image_error).
EMSCRIPTEN_KEEPALIVE int32_t sw_image_restore(uint32_t server, uint32_t host, uint32_t image) {
  using namespace sw::core;
  if (!image) return leaseInstance(server, host, 0, [](bool, std::string&) { return true; });
  PageImage& source = *reinterpret_cast<PageImage*>(uintptr_t(image));
  // A page image over the pristine memory (a snapshot relative to the boot image, or any with an image in use): the
  // instance is reset to the image (one copy, or the pool's reset), then only the pages the snapshot changed go in.
  const bool overImage = source.base() && source.base() == pristineBase(server);
  return leaseInstance(server, host, source.pages(), [&](bool pooled, std::string& error) {
    GuestMemoryView memory(host);
    if (overImage) {
      if (!loadBootImage(server, host, pooled, error)) return false;
      if (source.restoreOverBase(memory)) return true;
      error = "restore: the memory cannot hold the snapshot";
      return false;
    }
    const sw::snapshot::BootImage* boot = builtinBootImage(server);
    // A parked instance: every page is rewritten or compared with zero (restoreInto), its globals set back.
    if (source.restoreInto(memory) && !(pooled && boot && !setGuestGlobals(host, boot->globals))) return true;
    error = "restore: the memory cannot hold the snapshot";
    return false;
  });
}

EMSCRIPTEN_KEEPALIVE const char* sw_image_error() { return sw::core::g_error.c_str(); }

// A call into the instance under `host` threw (the shim's wrapper of its exports saw it): it is never pooled.
EMSCRIPTEN_KEEPALIVE void sw_image_guest_failed(uint32_t host) {
  auto it = sw::core::leases().find(host);
  if (it != sw::core::leases().end()) it->second.failed = true;
}

// ./wasi close() of a host with a leased instance, before the host is freed: the instance goes back to its server's
// pool when it may (nothing threw, no trap recorded, memory of the pristine size, a free slot), else it is dropped.
// 1 = parked.
EMSCRIPTEN_KEEPALIVE uint32_t sw_image_release(uint32_t host) {
  using namespace sw::core;
  auto it = leases().find(host);
  if (it == leases().end()) return 0;
  const Lease lease = it->second;
  leases().erase(it);
  try {
    const bool clean = !lease.failed && sw::wasi::hostOf(host).trap().kind == sw::wasi::TrapKind::None;
    if (clean && parkGuest(lease.server, host)) return 1;
  } catch (...) {
  }
  sw_host_release_guest(host);
  return 0;
}

}  // extern "C"
