// The C ABI of the WASI host inside the Emscripten core (compiled only under __EMSCRIPTEN__).
//
// * `sw_wasi_<name>(host, ...)` for every row of syscalls.def: the guest's import, forwarded by a generated one-line
//   JavaScript trampoline (gen_wasi_imports.py). Returns the WASI errno, or -1 when the call must not return to the
//   guest (proc_exit, a limit, a host failure): the trampoline then throws the trap read through sw_wasi_trap_*.
// * Host lifecycle and the host-side file API used by engines and the command-line runner.
//
// Guest memory is reached through two imports the shim implements (wasi_bridge.js): sw_guest_read/sw_guest_write
// copy between the guest's WebAssembly.Memory and this module's heap. No C++ exception crosses this boundary.
#ifdef __EMSCRIPTEN__

#include <emscripten/emscripten.h>

#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "../json/json.h"
#include "bridge.h"
#include "internal.h"

extern "C" {
void sw_guest_read(uint32_t host, uint32_t guestPtr, void* corePtr, uint32_t len);
void sw_guest_write(uint32_t host, uint32_t guestPtr, const void* corePtr, uint32_t len);
double sw_guest_size(uint32_t host);
void sw_wasi_stdio_sink(uint32_t host, uint32_t fd, const char* data, uint32_t len);
}

namespace {

using namespace sw::wasi;

class JsGuestMemory final : public GuestMemory {
 public:
  uint32_t handle = 0;
  uint64_t size() override { return uint64_t(sw_guest_size(handle)); }
  void copyOut(uint32_t guestPtr, void* dst, uint32_t len) override { sw_guest_read(handle, guestPtr, dst, len); }
  void copyIn(uint32_t guestPtr, const void* src, uint32_t len) override {
    touchMemory(handle);
    sw_guest_write(handle, guestPtr, src, len);
  }
};

struct HostBox {
  std::unique_ptr<Host> host;
  JsGuestMemory memory;
  std::string scratch;  // results handed to JavaScript (dumps, captured output)
};

std::string g_error;  // creation errors only; per-host state lives in HostBox

HostBox* boxOf(uint32_t h) { return reinterpret_cast<HostBox*>(uintptr_t(h)); }
uint32_t ptr(const void* p) { return uint32_t(reinterpret_cast<uintptr_t>(p)); }

// How many syscalls are running (entered and not yet returned). Deliberately not RAII: a JavaScript exception (a
// RangeError for the stack, a failed allocation in the bridge) that unwinds through a syscall without C++ seeing it
// leaves the count raised, and the code that called the guest compares it with its value before the guest ran to
// tell a throw inside core code from one in the guest's own (sw_wasi_call_depth, sw_wasi_unwound).
uint32_t g_callDepth = 0;

// What a JavaScript exception that unwound syscalls left behind (sw_wasi_unwound): true when the core is consistent,
// and the guest call is then an ordinary trap (its instance and Host are discarded as after any trap).
//
// V8's stack overflow (a RangeError) is thrown at the entry of a function, i.e. at a call a syscall makes, never in the
// middle of an instruction. Wasm exception handling runs the unwound frames' cleanups (destructors) for a JavaScript
// exception as for a C++ one; only catch handlers are skipped, and no syscall code below call() has any. So a syscall
// cut short that way has the basic guarantee a C++ exception (std::bad_alloc, which call() turns into a trap) gives it:
// its Host, discarded with the instance; the workspace mirror, rolled back with the failed round; the allocator,
// whose dlmalloc calls only sbrk, before it changes anything (realloc between its malloc and free: at worst a leaked
// block; checked on Emscripten 3.1.6's libc). Only the count needs repair. Any other exception is not vouched for: a
// core trap (out of bounds, abort()) may stop mid-update, and an import's own throw is the shim's bug to find.
bool unwoundConsistently(uint32_t depthBefore, bool hostStackOverflow) {
  if (g_callDepth == depthBefore) return true;  // nothing of the core was unwound
  if (g_callDepth < depthBefore || !hostStackOverflow) return false;
  g_callDepth = depthBefore;
  return true;
}

template <typename F>
int32_t call(uint32_t h, F&& f) {
  // A guest still calling after its host was closed (an engine bug in JavaScript): no host to reach.
  if (h == 0) return int32_t(Errno::Badf);
  Host& host = *boxOf(h)->host;
  ++g_callDepth;
  try {
    Errno e = f(host);
    --g_callDepth;
    return e == Errno::Trap ? -1 : int32_t(e);
  } catch (const std::exception& ex) {
    host.raiseTrap(TrapKind::HostError, std::string("WASI host failure: ") + ex.what());
  } catch (...) {
    host.raiseTrap(TrapKind::HostError, "WASI host failure");
  }
  --g_callDepth;
  return -1;
}

std::vector<std::string> stringList(const sw::json::Value* v) {
  std::vector<std::string> out;
  if (!v || !v->isArray()) return out;
  for (const auto& item : v->items()) {
    if (item.isString()) out.push_back(item.asString());
  }
  return out;
}

// The preopen (workspace kind) whose guest path is the longest prefix of `path` (a preopen `/` prefixes every
// absolute path); `rel` gets the rest.
Workspace* workspaceFor(Host& host, std::string_view path, std::string_view& rel) {
  auto& s = host.state();
  Workspace* best = nullptr;
  std::size_t bestLen = 0;
  auto match = [&](std::string_view name, Workspace* ws) {
    if (!ws || !path.starts_with(name) || (best && name.size() <= bestLen)) return;
    std::string_view rest = path.substr(name.size());
    if (name != "/" && !rest.empty() && rest.front() != '/') return;
    while (!rest.empty() && rest.front() == '/') rest.remove_prefix(1);
    rel = rest;
    best = ws;
    bestLen = name.size();
  };
  match("/workspace", s.options.workspace.get());
  for (auto& [name, ws] : s.options.extraPreopens) match(name, ws.get());
  return best;
}

// The registry behind registerWorkspace (bridge.h).
struct WorkspaceRegistry {
  uint32_t next = 1;
  std::map<uint32_t, std::weak_ptr<Workspace>> entries;
};
WorkspaceRegistry& workspaces() {
  static WorkspaceRegistry r;
  return r;
}

void appendU32(std::string& out, uint32_t v) {
  char b[4];
  sw::wasi::detail::put32(reinterpret_cast<uint8_t*>(b), v);
  out.append(b, 4);
}

// A host configuration: a JSON object, or nullopt with sw_wasi_error() set.
std::optional<sw::json::Value> parseHostConfig(const char* config, uint32_t len) {
  auto parsed = sw::json::parseCopy(std::string_view(config, len));
  if (!parsed.ok() || !parsed.value.isObject()) {
    g_error = "Invalid WASI host configuration";
    return std::nullopt;
  }
  return std::move(parsed.value);
}

}  // namespace

namespace sw::wasi {

uint32_t newHostHandle(HostOptions o) {
  auto box = std::make_unique<HostBox>();
  uint32_t handle = ptr(box.get());
  box->memory.handle = handle;
  if (o.stdio == StdioMode::Passthrough) {
    o.stdioSink = [handle](uint32_t fd, std::string_view bytes) {
      sw_wasi_stdio_sink(handle, fd, bytes.data(), uint32_t(bytes.size()));
    };
  }
  box->host = std::make_unique<Host>(std::move(o));
  box->host->setMemory(&box->memory);
  return ptr(box.release());
}

Host& hostOf(uint32_t handle) { return *boxOf(handle)->host; }

// Keyed by the handle, which is not always a host's (an Engine written in JavaScript registers its memory under an id
// of its own): a count only ever grows, so two memories sharing a key only invalidate each other's knowledge more.
std::unordered_map<uint32_t, uint64_t>& generations() {
  static std::unordered_map<uint32_t, uint64_t> map;
  return map;
}
uint64_t memoryGeneration(uint32_t handle) {
  auto it = generations().find(handle);
  return it == generations().end() ? 0 : it->second;
}
void touchMemory(uint32_t handle) { generations()[handle]++; }

uint32_t registerWorkspace(std::shared_ptr<Workspace> workspace) {
  auto& r = workspaces();
  const uint32_t id = r.next++;
  r.entries[id] = workspace;
  return id;
}

void unregisterWorkspace(uint32_t id) { workspaces().entries.erase(id); }

int64_t fuelBudgetOf(double fuel) { return fuel > 0 && fuel < 9.0e18 ? int64_t(fuel) : -1; }

}  // namespace sw::wasi

namespace {

// "reproducible" hosts (scripts/boot-images.mjs): a clock that starts at a fixed instant and advances 1 µs per read,
// and random bytes from a fixed-seed generator, so that booting the same engine under the same core gives the same
// memory. A boot image is the base of every context snapshot (docs/snapshots.md): an image that changed with every
// build would refuse every stored context after each deploy. Instances started from the image re-seed what the guest
// sees (the engines' AfterRestore, docs/boot-images.md), and their own hosts use the real clock and random.
class SteppingClock final : public sw::wasi::Clock {
 public:
  uint64_t realtimeNs() override { return kStart + (ticks_ += 1000); }
  uint64_t monotonicNs() override { return ticks_ += 1000; }

 private:
  static constexpr uint64_t kStart = 1767225600ull * 1000000000ull;  // 2026-01-01T00:00:00Z
  uint64_t ticks_ = 0;
};

sw::wasi::RandomSource seededRandom() {
  auto state = std::make_shared<uint64_t>(0x5357424f4f543242ull);  // "SWBOOT2B"
  return [state](uint8_t* buffer, std::size_t len) {
    for (std::size_t i = 0; i < len; i++) {  // splitmix64, one byte per step (boot reads a few dozen bytes)
      uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      buffer[i] = uint8_t(z ^ (z >> 31));
    }
    return true;
  };
}

}  // namespace

extern "C" {

#define SW_WASI(module, name, params, args)                                                       \
  EMSCRIPTEN_KEEPALIVE int32_t sw_wasi_##name(uint32_t h, SW_WASI_UNPAREN params) {               \
    return call(h, [&](Host& host) { return sw::wasi::name(host, SW_WASI_UNPAREN args); });       \
  }
#define SW_WASI0(module, name)                                                                    \
  EMSCRIPTEN_KEEPALIVE int32_t sw_wasi_##name(uint32_t h) {                                       \
    return call(h, [&](Host& host) { return sw::wasi::name(host); });                             \
  }
#include "syscalls.def"

EMSCRIPTEN_KEEPALIVE const char* sw_wasi_error() { return g_error.c_str(); }

// Syscalls entered and not returned (see g_callDepth).
EMSCRIPTEN_KEEPALIVE uint32_t sw_wasi_call_depth() { return g_callDepth; }

// After a JavaScript exception ended a guest call that began at `depthBefore`: 1 when the core is consistent (the call
// is a guest trap), 0 when it must be dropped (unwoundConsistently). `hostStackOverflow`: it is V8's stack overflow.
EMSCRIPTEN_KEEPALIVE uint32_t sw_wasi_unwound(uint32_t depthBefore, uint32_t hostStackOverflow) {
  return unwoundConsistently(depthBefore, hostStackOverflow != 0) ? 1 : 0;
}

// An archive shared by the hosts of one engine. The bytes are copied once into the core.
EMSCRIPTEN_KEEPALIVE uint32_t sw_wasi_archive_new(const uint8_t* data, uint32_t len) {
  try {
    auto archive = Archive::parse(std::vector<uint8_t>(data, data + len), g_error);
    if (!archive) return 0;
    return ptr(new std::shared_ptr<const Archive>(std::move(archive)));
  } catch (const std::exception& e) {
    g_error = e.what();
    return 0;
  }
}

EMSCRIPTEN_KEEPALIVE void sw_wasi_archive_free(uint32_t archive) {
  delete reinterpret_cast<std::shared_ptr<const Archive>*>(uintptr_t(archive));
}

// config: {"args":[...], "env":["K=V",...], "workspace":bool, "preopens":["/guest/path",...],
//          "stdio":"capture"|"passthrough", "referencePolicy":bool, "reproducible":bool}
EMSCRIPTEN_KEEPALIVE uint32_t sw_wasi_host_new(const char* config, uint32_t len, uint32_t archive) {
  try {
    auto parsed = parseHostConfig(config, len);
    if (!parsed) return 0;
    const auto& c = *parsed;
    HostOptions o;
    if (const auto* a = c.find("args")) o.args = stringList(a);
    o.env = stringList(c.find("env"));
    if (archive) o.stdlib = *reinterpret_cast<std::shared_ptr<const Archive>*>(uintptr_t(archive));
    if (const auto* w = c.find("workspace"); w && w->isBool() && w->asBool()) {
      o.workspace = std::make_shared<Workspace>();
    }
    for (const auto& path : stringList(c.find("preopens"))) {
      if (path.empty() || path.front() != '/') {
        g_error = "Preopen paths must be absolute: " + path;
        return 0;
      }
      // The runner's directories are not the sandbox workspace: no workspace limits beyond sanity bounds.
      o.extraPreopens.push_back({path, std::make_shared<Workspace>(WorkspaceLimits{1u << 30, 1ull << 32, 1u << 20})});
    }
    if (const auto* s = c.find("stdio"); s && s->isString() && s->asString() == "passthrough") {
      o.stdio = StdioMode::Passthrough;
    }
    if (const auto* p = c.find("referencePolicy"); p && p->isBool()) o.referencePolicy = p->asBool();
    if (const auto* r = c.find("reproducible"); r && r->isBool() && r->asBool()) {
      o.clock = std::make_shared<SteppingClock>();
      o.random = seededRandom();
    }
    return sw::wasi::newHostHandle(std::move(o));
  } catch (const std::exception& e) {
    g_error = e.what();
    return 0;
  }
}

// The WASI host of an Engine written in JavaScript (./wasi createWasi): protocol §5.4's host as every engine gets it —
// args ["sandbox"], captured stdio under the output limits, the reference policy, /stdlib from `archive` (0: empty),
// /workspace only when config.workspace names a registered workspace (a session's mirror) — and its meter reset to
// config.fuel (absent or 0: unmetered).
// config: {"env": {"KEY": "VALUE", ...}, "workspace": id, "fuel": n, "imageLayout": bool, "noDataSegments": bool}.
// Returns 0 with sw_wasi_error() on failure.
EMSCRIPTEN_KEEPALIVE uint32_t sw_wasi_engine_host_new(const char* config, uint32_t len, uint32_t archive) {
  try {
    auto parsed = parseHostConfig(config, len);
    if (!parsed) return 0;
    const auto& c = *parsed;
    HostOptions o;
    o.args = {"sandbox"};
    o.stdio = StdioMode::Capture;
    o.referencePolicy = true;
    if (archive) o.stdlib = *reinterpret_cast<std::shared_ptr<const Archive>*>(uintptr_t(archive));
    if (const auto* env = c.find("env"); env && env->isObject()) {
      for (const auto& [key, value] : env->members()) {
        if (value.isString()) o.env.push_back(std::string(key) + "=" + value.asString());
      }
    }
    if (const auto* w = c.find("workspace"); w && w->isNumber()) {
      auto it = workspaces().entries.find(uint32_t(w->asNumber()));
      std::shared_ptr<Workspace> ws = it == workspaces().entries.end() ? nullptr : it->second.lock();
      if (!ws) {
        g_error = "createWasi: the workspace handle belongs to a session that was closed";
        return 0;
      }
      o.workspace = std::move(ws);
    }
    // A module whose engine has a boot image in use: every instance has the image's descriptors, so a host with no
    // session mirror gets an empty, disabled /workspace (fd 5, every access EACCES), as a built-in engine's stateless
    // instance does (docs/engine-authors.md, "A boot image").
    if (const auto* l = c.find("imageLayout"); l && l->isBool() && l->asBool() && !o.workspace) {
      o.workspace = std::make_shared<Workspace>();
      o.workspace->setDisabled(true);
    }
    // createWasi over a module with a sw.nodata section (docs/boot-images.md): it may be restored, never booted.
    if (const auto* n = c.find("noDataSegments"); n && n->isBool()) o.noDataSegments = n->asBool();
    const auto* fuel = c.find("fuel");
    const int64_t budget = fuelBudgetOf(fuel && fuel->isNumber() ? fuel->asNumber() : 0);
    const uint32_t h = sw::wasi::newHostHandle(std::move(o));
    resetFuel(*boxOf(h)->host, budget);
    return h;
  } catch (const std::exception& e) {
    g_error = e.what();
    return 0;
  }
}

// Resets an engine host's meter to `fuel` (limits.fuel semantics: 0 = unmetered) and, when `all`, its captured
// output and any pending trap too: protocol §5.5, the start of a session execute.
EMSCRIPTEN_KEEPALIVE void sw_wasi_engine_reset(uint32_t h, double fuel, uint32_t all) {
  Host& host = *boxOf(h)->host;
  resetFuel(host, fuelBudgetOf(fuel));
  if (all) {
    host.stdio().reset();
    host.clearTrap();
  }
}

// The meter budget of an engine's limits.fuel (bridge.h fuelBudgetOf: 0 = unmetered, -1), for callers that pass a
// budget on (./wasmify).
EMSCRIPTEN_KEEPALIVE double sw_wasi_fuel_budget_of(double fuel) { return double(fuelBudgetOf(fuel)); }

// protocol §3.3 read-out of fd 1 or 2 as a JSON array of lines; the length is sw_wasi_scratch_len.
EMSCRIPTEN_KEEPALIVE const char* sw_wasi_output_lines(uint32_t h, uint32_t fd) {
  HostBox* box = boxOf(h);
  try {
    sw::json::Value lines = sw::json::Value::array();
    for (auto& line : box->host->stdio().lines(fd)) lines.push(sw::json::Value::string(std::move(line)));
    box->scratch = sw::json::stringify(lines);
  } catch (...) {
    box->scratch = "[]";
  }
  return box->scratch.data();
}

EMSCRIPTEN_KEEPALIVE void sw_wasi_host_free(uint32_t h) { delete boxOf(h); }

EMSCRIPTEN_KEEPALIVE uint32_t sw_wasi_trap_kind(uint32_t h) { return uint32_t(boxOf(h)->host->trap().kind); }
EMSCRIPTEN_KEEPALIVE uint32_t sw_wasi_trap_exit_code(uint32_t h) { return boxOf(h)->host->trap().exitCode; }
EMSCRIPTEN_KEEPALIVE const char* sw_wasi_trap_message(uint32_t h) { return boxOf(h)->host->trap().message.data(); }
EMSCRIPTEN_KEEPALIVE uint32_t sw_wasi_trap_message_len(uint32_t h) {
  return uint32_t(boxOf(h)->host->trap().message.size());
}
EMSCRIPTEN_KEEPALIVE void sw_wasi_clear_trap(uint32_t h) { boxOf(h)->host->clearTrap(); }

EMSCRIPTEN_KEEPALIVE void sw_wasi_set_workspace_disabled(uint32_t h, uint32_t disabled) {
  if (Workspace* ws = boxOf(h)->host->workspace()) ws->setDisabled(disabled != 0);
}
EMSCRIPTEN_KEEPALIVE uint32_t sw_wasi_has_open_guest_fds(uint32_t h) { return boxOf(h)->host->hasOpenGuestFds(); }
EMSCRIPTEN_KEEPALIVE void sw_wasi_fuel_reset(uint32_t h, double budget) {
  resetFuel(*boxOf(h)->host, int64_t(budget));
}
// Switches the meter to the JavaScript engine's interrupt mode (protocol §5.5).
EMSCRIPTEN_KEEPALIVE void sw_wasi_fuel_set_interrupt(uint32_t h, uint32_t address, uint32_t bitsAddress,
                                                     uint32_t bits) {
  boxOf(h)->host->fuel().setInterrupt(FuelInterrupt{address, bitsAddress, bits});
}
EMSCRIPTEN_KEEPALIVE uint32_t sw_wasi_fuel_interrupted(uint32_t h) { return boxOf(h)->host->fuel().interrupted(); }
EMSCRIPTEN_KEEPALIVE double sw_wasi_fuel_consumed(uint32_t h) { return double(boxOf(h)->host->fuel().consumed()); }

// Captured output of fd 1 or 2 (all chunks concatenated); the length is sw_wasi_scratch_len.
EMSCRIPTEN_KEEPALIVE const char* sw_wasi_output(uint32_t h, uint32_t fd) {
  HostBox* box = boxOf(h);
  box->scratch = box->host->stdio().text(fd);
  return box->scratch.data();
}
EMSCRIPTEN_KEEPALIVE void sw_wasi_output_reset(uint32_t h) { boxOf(h)->host->stdio().reset(); }
EMSCRIPTEN_KEEPALIVE uint32_t sw_wasi_scratch_len(uint32_t h) { return uint32_t(boxOf(h)->scratch.size()); }

// Host-side file access by absolute guest path inside /workspace or a runner preopen. Returns the WASI errno.
EMSCRIPTEN_KEEPALIVE int32_t sw_wasi_fs_write(uint32_t h, const char* path, uint32_t pathLen, const char* data,
                                              uint32_t dataLen) {
  try {
    std::string_view rel;
    Workspace* ws = workspaceFor(*boxOf(h)->host, std::string_view(path, pathLen), rel);
    if (!ws) return int32_t(Errno::NoEnt);
    return int32_t(ws->writeFile(rel, std::string_view(data, dataLen), boxOf(h)->host->state().now()));
  } catch (...) {
    return int32_t(Errno::NoMem);
  }
}

EMSCRIPTEN_KEEPALIVE int32_t sw_wasi_fs_mkdir(uint32_t h, const char* path, uint32_t pathLen) {
  try {
    std::string_view rel;
    Workspace* ws = workspaceFor(*boxOf(h)->host, std::string_view(path, pathLen), rel);
    if (!ws) return int32_t(Errno::NoEnt);
    return int32_t(ws->makeDirectories(rel));
  } catch (...) {
    return int32_t(Errno::NoMem);
  }
}

// A symbolic link at an absolute guest path inside a runner preopen (--full-wasi only). Returns the WASI errno.
EMSCRIPTEN_KEEPALIVE int32_t sw_wasi_fs_symlink(uint32_t h, const char* path, uint32_t pathLen, const char* target,
                                                uint32_t targetLen) {
  try {
    if (boxOf(h)->host->state().options.referencePolicy) return int32_t(Errno::Perm);
    std::string_view rel;
    Workspace* ws = workspaceFor(*boxOf(h)->host, std::string_view(path, pathLen), rel);
    if (!ws) return int32_t(Errno::NoEnt);
    return int32_t(ws->makeSymlink(rel, std::string_view(target, targetLen)));
  } catch (...) {
    return int32_t(Errno::NoMem);
  }
}

// Serializes the tree under a preopen: per entry u8 kind (1 directory, 2 file, 3 symlink: data is the target), u32
// path length, the path
// (relative), u32 data length, the data. Returns the buffer (length: sw_wasi_scratch_len), or 0 if no such preopen.
EMSCRIPTEN_KEEPALIVE const char* sw_wasi_fs_dump(uint32_t h, const char* path, uint32_t pathLen) {
  HostBox* box = boxOf(h);
  try {
    std::string_view rel;
    Workspace* ws = workspaceFor(*box->host, std::string_view(path, pathLen), rel);
    if (!ws || !rel.empty()) return nullptr;
    // Sized first, so the buffer is allocated (and its fresh pages touched) once, not regrown through every size.
    std::size_t total = 0;
    ws->forEach([&](const Workspace::Entry& e) { total += 9 + e.path.size() + e.data.size(); });
    box->scratch.clear();
    box->scratch.reserve(total);
    ws->forEach([&](const Workspace::Entry& e) {
      box->scratch.push_back(e.directory ? 1 : e.symlink ? 3 : 2);
      appendU32(box->scratch, uint32_t(e.path.size()));
      box->scratch += e.path;
      appendU32(box->scratch, uint32_t(e.data.size()));
      box->scratch += e.data;
    });
    return box->scratch.data();
  } catch (...) {
    return nullptr;
  }
}
}

#endif  // __EMSCRIPTEN__
