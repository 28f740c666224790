// Built-in Wasm engines, driven by the core itself (see builtin.cpp): the per-server resources (the engine's /stdlib
// archive) and stateless execution.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "../server/server.h"
#include "../wasi/wasi.h"
#include "../wasmify/wasmify.h"
#include "../snapshot/boot_image.h"
#include "guest.h"

namespace sw::core {

// What the core keeps for a server whose engine is built in. Created by the first sw_builtin_* call for the server.
struct BuiltinResources {
  std::shared_ptr<const wasi::Archive> stdlib;   // the engine's /stdlib (null: an empty directory)
  std::shared_ptr<snapshot::BootImage> bootImage;    // null: every instance boots (its rows go once pristine is set)
  std::vector<uint8_t> stagedImage;  // sw_builtin_boot_image_buffer: the image the shim is copying in
  // The engine module's id when it was stripped of its data segments (its sw.nodata section, cpp/tools/wasm_fuel.h;
  // "!" for a malformed one): only the boot image taken with this id supplies that memory, so without it no instance
  // of the module is ever started (GuestScope::open), and an image with another id is refused.
  std::string noDataModule;
  // The whole guest memory right after the boot image was first applied (captured then, once): every later instance
  // starts from one copy of it, and it is what lets a used instance be reset and reused (the pool below).
  // Kept as runs of blocks that are non-zero in it or in a fresh instance of the module (its data segments); everything
  // between and after them, up to pristinePages, is zero in both (e.g. free heap an engine reserved at boot, a zero
  // stack), so a fresh instance's memory gets only the runs written and keeps its untouched pages.
  // It is also the base of every context snapshot taken from these instances (format 2, docs/snapshots.md): its id is
  // the image's. Null = not captured yet.
  std::shared_ptr<const snapshot::Base> pristine;
  // The instance pool: parked instances (the shim's pool ids) whose memory has exactly the pristine size, kept when
  // their host is released instead of being dropped, and reset to `pristine` before reuse. Reusing one costs a memory
  // copy; instantiating the module again costs its data segments and fresh pages (docs/boot-images.md).
  struct Parked {
    uint32_t id = 0;
    // What its memory holds, when the core knows it exactly (no guest ran since it was written or compared: after a
    // context's committed snapshot, or an unused spare reset to the image). Then a restore or a reset over it writes
    // only the blocks that differ instead of reading and comparing the whole memory first.
    std::optional<snapshot::Held> held;
  };
  std::vector<Parked> parked;
  uint32_t poolSlots = 1;  // an isolate runs one stateless execute at a time; the spare is separate. 0 = no pool
};
BuiltinResources& builtinResources(uint32_t server);
// Forgets a server's resources (and its spare instance) when the server is freed.
void releaseBuiltinResources(uint32_t server);

// A guest instance of a server's built-in engine under a WASI host of its own; both are released (instance first) when
// the scope ends.
// An instance whose memory is still exactly the pristine size goes back to the server's pool instead (park()).
struct GuestScope {
  uint32_t host = 0;
  bool instantiated = false;
  bool recycled = false;  // the instance came from the pool: its memory holds a previous run until it is reset
  uint32_t server = 0;
  const char* failure = nullptr;  // why open() failed, when it can say
  // What the instance's memory holds exactly (recycled: from the pool; before parking: from its session), stamped
  // with its host's memoryGeneration: parked with the instance only while still valid.
  std::optional<HeldMemory> held;
  GuestScope() = default;
  GuestScope(uint32_t h, bool inst, uint32_t s = 0) : host(h), instantiated(inst), server(s) {}
  GuestScope(const GuestScope&) = delete;
  GuestScope& operator=(const GuestScope&) = delete;
  ~GuestScope();
  // A fresh host with `options` and an instance of the server's engine under it (a pooled one when `allowRecycled`
  // and one is parked: its memory must then be fully rewritten before use); false if either failed, or if the module
  // has no data segments and the server no boot image for it, unless the instance is for a snapshot restore
  // (`failure` says so).
  bool open(uint32_t server, wasi::HostOptions options, bool allowRecycled = true, bool fromSnapshot = false);
  // Parks the instance in the server's pool if it can be reset by one copy of the pristine memory and the pool has
  // room; the host is still released by the destructor. Called by the destructor too.
  void park();
};

// A parked instance of the server's engine, if any (id 0: none); the spare goes back to the pool first when nothing
// else is parked. The caller binds it under a host (sw_host_unpark_guest) and resets its memory before use.
BuiltinResources::Parked takeParked(uint32_t server);
// Parks the instance under `host` in the server's pool if its memory has exactly the pristine size and the pool has
// room (`held`: what its memory is known to hold, kept while still valid). True = parked: the host no longer has it.
bool parkGuest(uint32_t server, uint32_t host, std::optional<HeldMemory> held = std::nullopt);

inline constexpr const char* kNoImage =
    "Engine initialization failed: the engine module has no data segments and no boot image of its build";
// False when the server's engine module has no data segments (BuiltinResources::noDataModule): it must never boot,
// only start from its boot image or a snapshot.
bool mayBoot(uint32_t server);

// The engine's fuel budget for the WASI host's meter: limits.fuel, or -1 (unmetered) when it is 0.
double fuelBudget(const server::EngineInfo& engine);

// The host options every instance of a built-in engine runs with (protocol §5.4: args ["sandbox"], an empty environment,
// env vars reach the engine through its driver; stdio captured; the reference policy), /stdlib mounted. With a boot
// image, also an empty, disabled /workspace: the image was taken with the session layout (fd 5 = /workspace, which
// wasi-libc records at boot), so a stateless instance has the same descriptors; its /workspace answers EACCES.
// Sessions replace it with the Interpreter's mirror.
wasi::HostOptions builtinHostOptions(uint32_t server);

// Replaces the server's boot image (nullptr: none); the pristine memory and the pool, taken from the old one, go.
void setBootImage(BuiltinResources& r, std::shared_ptr<snapshot::BootImage> image);
// The server's boot image, or nullptr.
const snapshot::BootImage* builtinBootImage(uint32_t server);
// Writes the server's boot image into the guest under `host` (fresh, or recycled from the pool): the pristine memory
// in one copy once it was captured, else the image's blocks over the fresh module's memory (and then captures the
// pristine memory); then the image's globals. False + error: discard the instance.
// `dirty`: the instance came from the pool (its memory beyond the copied bytes must be zeroed too).
// `held`: what a pooled instance's memory is known to hold (only the blocks that are not the image's are written).
bool loadBootImage(uint32_t server, uint32_t host, bool dirty, std::string& error,
                   const snapshot::Held* held = nullptr);
// Once the pristine memory was captured, writes it into the guest under `host` (fresh or pooled) and returns its block
// hashes. Empty: nothing known (no image yet) or the write failed.
std::span<const uint64_t> resetToPristine(uint32_t server, uint32_t host, bool dirty,
                                          const snapshot::Held* held = nullptr);
// The server's pristine memory (the base of its instances' snapshots), or null while not captured or without an image.
std::shared_ptr<const snapshot::Base> pristineBase(uint32_t server);
// Reads the pages a new instance's image left untouched (zero): a page's first access costs a fault (20-30 us per
// 4 KiB on the benchmark VM), and the snapshot after a restore reads every page. For a new spare, in idle time: the
// restore that takes it from the pool then faults nothing in. Reading maps the kernel's zero page: no memory is
// allocated for it.
void touchZeroPages(uint32_t server, uint32_t host);

// Starts the engine's interpreter in a guest just instantiated under `host`: from the boot image when the server has
// one (memory written, globals set, AfterRestore), else a full boot (_initialize, wasm_init, New). The host's fuel is
// reset to the budget first.
// `afterRestore` false: the engine's re-seeding after the image is left to the caller (the spare runs it when used,
// so that until then its memory is exactly the image's and a restore can take it without reading it).
wasmify::Result<wasmify::Instance> startBuiltinInstance(uint32_t server, GuestScope& scope,
                                                       wasmify::GuestCaller& guest,
                                                       const wasmify::WasmifyDriver& driver, double fuelBudget,
                                                       bool afterRestore = true);

// Runs `payload` ({code, envVars?}) on a fresh instance of the server's built-in engine and settles the exchange.
const server::Action& runBuiltinEngine(uint32_t serverHandle, server::Exchange& exchange,
                                       const server::EngineInfo& engine, const std::string& payload);

}  // namespace sw::core
