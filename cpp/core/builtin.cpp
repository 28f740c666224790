// Runs a built-in Wasm engine (EngineInfo::builtin, a name in cpp/wasmify/registry.cpp) for one stateless execution,
// entirely from C++: a fresh WASI host (builtinHostOptions), a fresh engine instance the shim creates on request, the
// wasmify call sequence (cpp/wasmify), then the outcome with usage.
#include "builtin.h"

#include <emscripten/emscripten.h>

#include <algorithm>
#include <string>
#include <unordered_map>

#include "../json/json.h"
#include "../wasi/bridge.h"
#include "../wasmify/bridge.h"
#include "guest.h"

extern "C" {
// cpp/wasi/exports.cpp
void sw_wasi_host_free(uint32_t h);
void sw_wasi_clear_trap(uint32_t h);
void sw_wasi_fuel_reset(uint32_t h, double budget);
}

namespace sw::core {

namespace {

// A spare instance per server: instantiated and booted (WASI _initialize, wasm_init, New, ...) after a response went
// out, so the next POST /execute only evaluates. It is used once, exactly like a fresh instance (same host
// configuration, fuel reset to the budget before the boot, so usage still counts the boot), then discarded.
struct Spare {
  uint32_t host = 0;
  uint64_t handle = 0;
  // Its memory is exactly the image's until it runs: the engine's re-seeding (driver.afterRestore) waits for its use,
  // so that a restore that takes the spare from the pool writes only the context's blocks (GuestScope::held).
  bool afterRestorePending = false;
  std::optional<HeldMemory> held;
};
std::unordered_map<uint32_t, Spare>& spares() {
  static std::unordered_map<uint32_t, Spare> map;
  return map;
}

std::unordered_map<uint32_t, BuiltinResources>& resources() {
  static std::unordered_map<uint32_t, BuiltinResources> map;
  return map;
}

const wasmify::WasmifyDriver* driverOf(const server::EngineInfo& engine) {
  const wasmify::BuiltinEngine* e = wasmify::findBuiltinEngine(engine.builtin);
  return e ? &e->driver : nullptr;
}

}  // namespace

GuestScope::~GuestScope() {
  park();
  if (instantiated) sw_host_release_guest(host);
  if (host) sw_wasi_host_free(host);
}

// A parked instance for `server`, if any (id 0: none): the spare (booted but unused) goes back to the pool first when
// nothing else is parked, so a new or restored context can take its instance.
BuiltinResources::Parked takeParked(uint32_t server) {
  auto it = resources().find(server);
  if (it == resources().end()) return {};
  if (it->second.parked.empty()) {
    auto spare = spares().find(server);
    if (spare != spares().end()) {
      GuestScope scope{spare->second.host, true, server};  // parks it, then frees its host
      scope.held = std::move(spare->second.held);
      spares().erase(spare);
    }
  }
  if (it->second.parked.empty()) return {};
  BuiltinResources::Parked p = std::move(it->second.parked.back());
  it->second.parked.pop_back();
  return p;
}

void GuestScope::park() {
  if (!instantiated || !server) return;
  std::optional<HeldMemory> known = std::move(held);
  held.reset();
  if (parkGuest(server, host, std::move(known))) instantiated = false;
}

bool parkGuest(uint32_t server, uint32_t host, std::optional<HeldMemory> held) {
  auto it = resources().find(server);
  if (it == resources().end()) return false;
  const BuiltinResources& r = it->second;
  if (!r.pristine || r.parked.size() >= r.poolSlots) return false;
  // Only an instance whose memory did not grow: one copy of the pristine memory resets it exactly, and the guest sees
  // the same memory size as a fresh instance (a grown memory cannot shrink).
  if (sw_guest_size(host) != double(r.pristine->pages) * snapshot::kPageBytes) return false;
  std::optional<snapshot::Held> known;
  if (held && held->valid(host)) known = std::move(held->held);  // read before the host lets the instance go
  if (const uint32_t id = sw_host_park_guest(host)) {
    it->second.parked.push_back({id, std::move(known)});
    return true;
  }
  return false;
}

bool mayBoot(uint32_t server) {
  auto it = resources().find(server);
  return it == resources().end() || it->second.noDataModule.empty();
}

bool GuestScope::open(uint32_t s, wasi::HostOptions options, bool allowRecycled, bool fromSnapshot) {
  server = s;
  // A module stripped of its data segments would run on memory that lacks them: only its own boot image, or a
  // snapshot (which holds every non-zero block), makes it whole.
  if (!fromSnapshot && !mayBoot(server) && !builtinBootImage(server)) {
    failure = kNoImage;
    return false;
  }
  host = wasi::newHostHandle(std::move(options));
  if (!host) return false;
  if (allowRecycled) {
    if (BuiltinResources::Parked p = takeParked(server); p.id && sw_host_unpark_guest(p.id, host)) {
      instantiated = recycled = true;
      if (p.held) held = HeldMemory{std::move(*p.held), wasi::memoryGeneration(host)};
      return true;
    }
  }
  instantiated = sw_host_instantiate_guest(server, host) != 0;
  return instantiated;
}

double fuelBudget(const server::EngineInfo& engine) { return engine.limits.fuel > 0 ? engine.limits.fuel : -1; }

BuiltinResources& builtinResources(uint32_t server) { return resources()[server]; }

void releaseBuiltinResources(uint32_t server) {
  auto spare = spares().find(server);
  if (spare != spares().end()) {
    GuestScope scope{spare->second.host, true};  // releases the instance and its host
    spares().erase(spare);
  }
  auto it = resources().find(server);
  if (it != resources().end()) {
    for (const auto& p : it->second.parked) sw_host_drop_parked(p.id);
    resources().erase(it);
  }
}

wasi::HostOptions builtinHostOptions(uint32_t server) {
  wasi::HostOptions o;
  o.args = {"sandbox"};
  o.stdio = wasi::StdioMode::Capture;
  o.referencePolicy = true;
  auto it = resources().find(server);
  if (it != resources().end()) {
    o.stdlib = it->second.stdlib;
    o.noDataSegments = !it->second.noDataModule.empty();
    if (it->second.bootImage) {
      o.workspace = std::make_shared<wasi::Workspace>();
      o.workspace->setDisabled(true);
    }
  }
  return o;
}

void setBootImage(BuiltinResources& r, std::shared_ptr<snapshot::BootImage> image) {
  r.bootImage = std::move(image);
  r.pristine.reset();  // captured again from the new image; pooled instances were reset to the old one
  for (const auto& p : r.parked) sw_host_drop_parked(p.id);
  r.parked.clear();
}

const snapshot::BootImage* builtinBootImage(uint32_t server) {
  auto it = resources().find(server);
  return it != resources().end() ? it->second.bootImage.get() : nullptr;
}

bool loadBootImage(uint32_t server, uint32_t host, bool dirty, std::string& error, const snapshot::Held* held) {
  auto it = resources().find(server);
  if (it == resources().end() || !it->second.bootImage) {
    error = "Engine initialization failed: no boot image";
    return false;
  }
  BuiltinResources& r = it->second;
  const snapshot::BootImage& image = *r.bootImage;
  if (r.pristine) {
    // One copy: over a fresh module's memory (only its data segments) or a pooled instance's (exactly this size).
    if (resetToPristine(server, host, dirty, held).empty()) {
      error = "Engine initialization failed: the boot image does not fit the instance's memory";
      return false;
    }
  } else {
    GuestMemoryView memory(host);
    const uint32_t freshPages = memory.pages();  // the module's own memory: any data segments lie within it
    // A module without data segments starts all zero. Checked here, once: every later fresh instance of the module
    // is the same, and the pristine runs below leave its zero pages alone on the strength of it.
    const bool noData = !r.noDataModule.empty();
    std::vector<uint64_t> zeroHashes;
    // A module with data segments: which blocks of its fresh memory hold data (the rest is zero in every fresh
    // instance), read before the image is written, so that the pristine runs need not rewrite its zero blocks (Lua's
    // 1 MiB stack at the start of memory, an engine's zero-initialised data).
    std::vector<bool> freshData;
    if (!noData && !dirty) {
      std::vector<uint8_t> chunk(256 * 1024);
      freshData.assign(std::size_t(freshPages) * snapshot::kBlocksPerPage, false);
      for (uint64_t at = 0, size = uint64_t(freshPages) * snapshot::kPageBytes; at < size; at += chunk.size()) {
        const uint32_t n = uint32_t(std::min<uint64_t>(chunk.size(), size - at));
        if (!memory.read(at, chunk.data(), n)) {
          error = "Engine initialization failed: the engine module's memory could not be read";
          return false;
        }
        for (uint32_t b = 0; b < n; b += snapshot::kBlockBytes)
          freshData[std::size_t((at + b) / snapshot::kBlockBytes)] = !snapshot::isZero(chunk.data() + b, snapshot::kBlockBytes);
      }
    }
    if (noData && !dirty) {
      std::vector<uint8_t> chunk(256 * 1024);
      for (uint64_t at = 0, size = uint64_t(freshPages) * snapshot::kPageBytes; at < size; at += chunk.size()) {
        const uint32_t n = uint32_t(std::min<uint64_t>(chunk.size(), size - at));
        if (!memory.read(at, chunk.data(), n) || !snapshot::isZero(chunk.data(), n)) {
          error = "Engine initialization failed: the engine module says it has no data segments, but its memory is "
                  "not empty";
          return false;
        }
      }
      zeroHashes.assign(std::size_t(freshPages) * snapshot::kBlocksPerPage, 0);
      memory.setKnownBlocks(zeroHashes);  // so the image's restore does not read it again
    }
    if (dirty || !snapshot::applyBootImage(image, memory, error)) {
      error = "Engine initialization failed: the boot image does not apply: " + error;
      return false;
    }
    memory.setKnownBlocks({});
    // The first instance of this server: keep its memory as the starting point of every later one. Read in pieces
    // (hashes first, then the runs straight into their buffers): no second copy of the whole memory, which for Ruby
    // is 54 MiB of mostly zero pages.
    const uint32_t pages = memory.pages();
    const std::size_t blocks = std::size_t(pages) * snapshot::kBlocksPerPage;
    std::vector<uint64_t> hashes(blocks);
    {
      std::vector<uint8_t> piece(64 * snapshot::kBlockBytes);
      const std::size_t perPiece = piece.size() / snapshot::kBlockBytes;
      for (std::size_t first = 0; first < blocks; first += perPiece) {
        const std::size_t n = std::min(perPiece, blocks - first);
        if (!memory.read(uint64_t(first) * snapshot::kBlockBytes, piece.data(), uint32_t(n * snapshot::kBlockBytes))) {
          error = "Engine initialization failed: the boot image could not be read back";
          return false;
        }
        for (std::size_t i = 0; i < n; i++) {
          const uint8_t* block = piece.data() + i * snapshot::kBlockBytes;
          hashes[first + i] = snapshot::isZero(block, snapshot::kBlockBytes) ? 0 : snapshot::blockHash(block);
        }
      }
    }
    // Runs of blocks to write: every block that is not zero in the pristine memory or in a fresh instance of the
    // module (its data segments: beyond and between them a fresh memory is zero already), runs closer than kGapBlocks
    // joined (fewer copies for a few zero blocks more).
    constexpr std::size_t kGapBlocks = 16;
    auto needed = [&](std::size_t block) { return hashes[block] != 0 || (block < freshData.size() && freshData[block]); };
    std::vector<snapshot::Base::Run> runs;
    std::size_t b = 0;
    while (b < blocks) {
      if (!needed(b)) {
        b++;
        continue;
      }
      std::size_t end = b + 1;
      for (std::size_t zeros = 0; end < blocks; end++) {
        if (needed(end)) zeros = 0;
        else if (++zeros > kGapBlocks) break;
      }
      while (end > b + 1 && !needed(end - 1)) end--;  // no trailing zero blocks
      snapshot::Base::Run run{uint64_t(b) * snapshot::kBlockBytes,
                                std::vector<uint8_t>((end - b) * snapshot::kBlockBytes)};
      if (!memory.read(run.offset, run.bytes.data(), uint32_t(run.bytes.size()))) {
        error = "Engine initialization failed: the boot image could not be read back";
        return false;
      }
      runs.push_back(std::move(run));
      b = end;
    }
    auto pristine = std::make_shared<snapshot::Base>();
    pristine->id = image.id;
    pristine->pages = pages;
    pristine->runs = std::move(runs);
    pristine->blocks = std::move(hashes);
    r.pristine = std::move(pristine);
    // Every later instance starts from the pristine memory: the image's rows (the whole booted memory, raw) are no
    // longer needed in the core. Its header fields stay.
    r.bootImage->dropRows();
  }
  if (!setGuestGlobals(host, image.globals)) {
    error = "Engine initialization failed: the boot image's globals do not apply";
    return false;
  }
  return true;
}

std::span<const uint64_t> resetToPristine(uint32_t server, uint32_t host, bool dirty, const snapshot::Held* held) {
  auto it = resources().find(server);
  if (it == resources().end() || !it->second.pristine) return {};
  const snapshot::Base& r = *it->second.pristine;
  GuestMemoryView memory(host);
  const uint64_t size = uint64_t(r.pages) * snapshot::kPageBytes;
  if (memory.pages() > r.pages || !memory.grow(r.pages)) return {};
  const uint32_t blocks = r.pages * snapshot::kBlocksPerPage;
  if (dirty && held && held->blocks.size() == blocks && memory.pages() == r.pages) {
    // What the memory holds is known exactly: only the blocks that are not the image's are written, in runs.
    std::vector<uint8_t> out(64 * snapshot::kBlockBytes);
    for (uint32_t b = 0; b < blocks;) {
      if (held->baseAt(b, r)) {
        b++;
        continue;
      }
      uint32_t end = b + 1;
      while (end < blocks && end - b < 64 && !held->baseAt(end, r)) end++;
      if (!r.read(b, end - b, out.data()) ||
          !memory.write(uint64_t(b) * snapshot::kBlockBytes, out.data(), (end - b) * snapshot::kBlockBytes))
        return {};
      b = end;
    }
    return r.blocks;
  }
  // A pooled instance's memory between the runs holds what its last run wrote: zero it (a fresh one is zero there).
  // Only the blocks that are not zero already are written: the gaps are mostly free heap an engine reserved at boot
  // (SW_PY_HEAP_HEADROOM, SW_JS_HEAP_HEADROOM) that a small program never touches, and writing zeros there would
  // make every untouched page of it resident in each pooled instance. Reading an untouched page does not.
  static const std::vector<uint8_t> zeros(256 * 1024);
  static std::vector<uint8_t> scratch(zeros.size());
  auto zero = [&](uint64_t from, uint64_t to) {
    for (uint64_t at = from; at < to; at += scratch.size()) {
      const uint32_t n = uint32_t(std::min<uint64_t>(scratch.size(), to - at));
      if (!memory.read(at, scratch.data(), n)) return false;
      for (uint32_t b = 0; b < n;) {
        const uint32_t len = std::min<uint32_t>(snapshot::kBlockBytes, n - b);
        if (snapshot::isZero(scratch.data() + b, len)) {
          b += len;
          continue;
        }
        uint32_t end = b + len;  // a run of non-zero blocks: one write
        while (end < n) {
          const uint32_t next = std::min<uint32_t>(snapshot::kBlockBytes, n - end);
          if (snapshot::isZero(scratch.data() + end, next)) break;
          end += next;
        }
        if (!memory.write(at + b, zeros.data(), end - b)) return false;
        b = end;
      }
    }
    return true;
  };
  uint64_t at = 0;
  for (const snapshot::Base::Run& run : r.runs) {
    if (dirty && !zero(at, run.offset)) return {};
    if (!memory.write(run.offset, run.bytes.data(), uint32_t(run.bytes.size()))) return {};
    at = run.offset + run.bytes.size();
  }
  if (dirty && !zero(at, size)) return {};
  return r.blocks;
}

std::shared_ptr<const snapshot::Base> pristineBase(uint32_t server) {
  auto it = resources().find(server);
  return it != resources().end() ? it->second.pristine : nullptr;
}

void touchZeroPages(uint32_t server, uint32_t host) {
  const std::shared_ptr<const snapshot::Base> base = pristineBase(server);
  if (!base) return;
  GuestMemoryView memory(host);
  static std::vector<uint8_t> scratch(256 * 1024);
  const uint32_t blocks = std::min(memory.pages(), base->pages) * snapshot::kBlocksPerPage;
  const uint32_t perRead = uint32_t(scratch.size() / snapshot::kBlockBytes);
  for (uint32_t b = 0; b < blocks;) {
    if (base->blocks[b]) {
      b++;
      continue;
    }
    uint32_t end = b + 1;
    while (end < blocks && end - b < perRead && !base->blocks[end]) end++;
    if (!memory.read(uint64_t(b) * snapshot::kBlockBytes, scratch.data(), (end - b) * snapshot::kBlockBytes)) return;
    b = end;
  }
}

wasmify::Result<wasmify::Instance> startBuiltinInstance(uint32_t server, GuestScope& scope,
                                                       wasmify::GuestCaller& guest,
                                                       const wasmify::WasmifyDriver& driver, double fuelBudget,
                                                       bool afterRestore) {
  const uint32_t host = scope.host;
  sw_wasi_clear_trap(host);
  sw_wasi_fuel_reset(host, fuelBudget);
  const snapshot::BootImage* image = builtinBootImage(server);
  if (!image) {
    if (scope.recycled) return wasmify::engineFailure("Engine initialization failed: a pooled instance cannot boot");
    if (!mayBoot(server)) return wasmify::engineFailure(kNoImage);
    return wasmify::bootInstance(guest, driver);
  }
  std::string error;
  const snapshot::Held* held = scope.held && scope.held->valid(host) ? &scope.held->held : nullptr;
  if (!loadBootImage(server, host, scope.recycled, error, held)) return wasmify::engineFailure(error);
  scope.held.reset();
  wasmify::Instance instance{guest, driver.service, image->handle};
  if (!afterRestore) {
    // Exactly the image until the guest runs (the pool may take it for a restore: GuestScope::held).
    if (auto base = pristineBase(server)) {
      snapshot::Held all{base, std::vector<uint8_t>(std::size_t(base->pages) * snapshot::kBlocksPerPage,
                                                    snapshot::kHeldBase)};
      scope.held = HeldMemory{std::move(all), wasi::memoryGeneration(host)};
    }
    return instance;
  }
  if (driver.afterRestore) {
    if (auto r = driver.afterRestore(instance, true); !r) return r.failure();
  }
  return instance;
}

const server::Action& runBuiltinEngine(uint32_t serverHandle, server::Exchange& exchange,
                                       const server::EngineInfo& engine, const std::string& payload) {
  const wasmify::WasmifyDriver* driver = driverOf(engine);
  if (!driver) return exchange.engineThrew(false, "unknown built-in engine");
  auto request = json::parseCopy(payload);  // the payload the server itself built: {code, envVars?}
  const json::Value* code = request.ok() ? request.value.find("code") : nullptr;
  if (!code || !code->isString()) return exchange.engineThrew(false, "invalid engine payload");
  std::string env;
  if (const json::Value* envVars = request.value.find("envVars")) env = json::stringify(*envVars);
  const wasmify::ExecuteRequest execute{code->asString(), env, {}};

  GuestScope scope;
  wasmify::Result<std::string> run = wasmify::engineFailure("");
  auto spare = spares().find(serverHandle);
  if (spare != spares().end()) {
    // The booted spare: evaluate only.
    scope.host = spare->second.host;
    scope.instantiated = true;
    scope.server = serverHandle;
    const uint64_t handle = spare->second.handle;
    const bool afterRestore = spare->second.afterRestorePending && driver->afterRestore;
    spares().erase(spare);
    wasmify::HostGuestCaller guest(scope.host);
    wasmify::Instance instance{guest, driver->service, handle};
    if (afterRestore) {
      if (auto r = driver->afterRestore(instance, true); !r) run = r.failure();
      else run = driver->runOnce(instance, execute);
    } else {
      run = driver->runOnce(instance, execute);
    }
  } else {
    if (!scope.open(serverHandle, builtinHostOptions(serverHandle)))
      return exchange.engineThrew(false, scope.failure ? scope.failure : "Engine initialization failed: instantiation");
    wasmify::HostGuestCaller guest(scope.host);
    auto instance = startBuiltinInstance(serverHandle, scope, guest, *driver, fuelBudget(engine));
    run = instance ? driver->runOnce(instance.value(), execute) : wasmify::Result<std::string>(instance.failure());
  }
  // A limit the host raised (a trap) is an ExecutionLimitError; an engine failure or a guest trap an EngineError.
  // The failed instance is dropped, never pooled, unless its engine keeps no state outside linear memory and exported
  // globals (BuiltinEngine::resetAfterTrap): a call cut short may have left state the pool's reset does not rewrite (a
  // prebuilt engine's unexported __stack_pointer or asyncify globals, Perl and Ruby).
  const wasmify::BuiltinEngine* builtin = wasmify::findBuiltinEngine(engine.builtin);
  if (!run && !(builtin && builtin->resetAfterTrap)) scope.server = 0;
  if (!run) {
    const bool limit = run.failure().kind == wasmify::FailureKind::Limit;
    return exchange.engineFinished(wasmify::withUsage(
        server::failedOutcomeJson(limit ? "ExecutionLimitError" : "EngineError", run.failure().message), scope.host));
  }

  return exchange.engineFinished(wasmify::withUsage(std::move(run.value()), scope.host));
}

}  // namespace sw::core

extern "C" {
// Boots the next request's instance for a built-in engine, if none is waiting (the shim calls this after a response
// went out, from ctx.waitUntil). Returns 1 when a spare is ready.
EMSCRIPTEN_KEEPALIVE uint32_t sw_builtin_prepare_spare(uint32_t serverHandle) {
  try {
    const auto& engine = reinterpret_cast<sw::server::InterpreterServer*>(uintptr_t(serverHandle))->engine();
    const sw::wasmify::WasmifyDriver* driver = sw::core::driverOf(engine);
    if (!driver) return 0;
    if (sw::core::spares().count(serverHandle)) return 1;
    sw::core::GuestScope scope;
    if (!scope.open(serverHandle, sw::core::builtinHostOptions(serverHandle))) return 0;
    sw::wasmify::HostGuestCaller guest(scope.host);
    auto instance =
        sw::core::startBuiltinInstance(serverHandle, scope, guest, *driver, sw::core::fuelBudget(engine), false);
    if (!instance) return 0;
    // Only where a restore can take it: with the pool off, a spare only ever serves a stateless request.
    if (!scope.recycled && sw::core::builtinResources(serverHandle).poolSlots > 0)
      sw::core::touchZeroPages(serverHandle, scope.host);
    // With an image the engine's re-seeding waits for the spare's use (Spare::afterRestorePending); a booted one is
    // ready as it is.
    const bool pending = sw::core::builtinBootImage(serverHandle) != nullptr;
    sw::core::spares()[serverHandle] =
        sw::core::Spare{scope.host, instance->handle, pending, std::move(scope.held)};
    scope.host = 0;  // owned by the spare now
    scope.instantiated = false;
    scope.server = 0;
    return 1;
  } catch (...) {
    return 0;
  }
}

// How many used instances the server's pool keeps (default 1; 0 turns the pool off: benchmarks compare the two).
EMSCRIPTEN_KEEPALIVE void sw_builtin_set_pool_slots(uint32_t serverHandle, uint32_t slots) {
  sw::core::BuiltinResources& r = sw::core::builtinResources(serverHandle);
  r.poolSlots = slots;
  while (r.parked.size() > slots) {
    sw_host_drop_parked(r.parked.back().id);
    r.parked.pop_back();
  }
}

// The engine's /stdlib archive (a stored zip or a tar), copied once into the core and mounted read-only in every
// instance of the server's engine. 1 = ok; 0 = not a valid archive.
EMSCRIPTEN_KEEPALIVE uint32_t sw_builtin_set_stdlib(uint32_t serverHandle, const uint8_t* data, uint32_t len) {
  try {
    std::string error;
    auto archive = sw::wasi::Archive::parse(std::vector<uint8_t>(data, data + len), error);
    if (!archive) return 0;
    sw::core::builtinResources(serverHandle).stdlib = std::move(archive);
    return 1;
  } catch (...) {
    return 0;
  }
}

// Where the shim copies the engine's boot image (`len` bytes) for sw_builtin_set_boot_image: the image is copied into
// the core once, not staged in a buffer of its own first (Perl's is 23 MB). 0 = out of memory.
EMSCRIPTEN_KEEPALIVE uint8_t* sw_builtin_boot_image_buffer(uint32_t serverHandle, uint32_t len) {
  try {
    std::vector<uint8_t>& staged = sw::core::builtinResources(serverHandle).stagedImage;
    staged.assign(len, 0);
    return staged.data();
  } catch (...) {
    return nullptr;
  }
}

// The engine's boot image (boot_image.h), as the shim wrote it into sw_builtin_boot_image_buffer. 1 = in use; 0 =
// malformed, or taken from another engine, build or module (an engine module with data segments then boots every
// instance; one without them cannot start; the shim says so).
EMSCRIPTEN_KEEPALIVE uint32_t sw_builtin_set_boot_image(uint32_t serverHandle) {
  try {
    const auto& engine = reinterpret_cast<sw::server::InterpreterServer*>(uintptr_t(serverHandle))->engine();
    std::string error;
    auto image = sw::snapshot::parseBootImage(std::move(sw::core::builtinResources(serverHandle).stagedImage), error);
    sw::core::builtinResources(serverHandle).stagedImage = {};
    // A built-in engine's image names its registry entry; an Engine written in JavaScript's its language.
    const std::string& name = engine.builtin.empty() ? engine.language : engine.builtin;
    if (!image || image->engine != name || image->build != engine.build) return 0;
    sw::core::BuiltinResources& r = sw::core::builtinResources(serverHandle);
    // A module without data segments: only the image taken from the module it was stripped from.
    if (!r.noDataModule.empty() && image->module != r.noDataModule) return 0;
    sw::core::setBootImage(r, std::move(image));
    return 1;
  } catch (...) {
    return 0;
  }
}

// The engine module's sw.nodata section (cpp/tools/wasm_fuel.h; the shim passes each one it finds, before the boot
// image): the module has no data segments, and only the boot image with its id may start it. 1 = recorded; 0 =
// malformed or a second section: the module then never starts. A boot image already set with another id is dropped.
EMSCRIPTEN_KEEPALIVE uint32_t sw_builtin_set_module_nodata(uint32_t serverHandle, const char* text, uint32_t len) {
  try {
    sw::core::BuiltinResources& r = sw::core::builtinResources(serverHandle);
    const std::string id = sw::snapshot::noDataModuleId(std::string_view(text, len));
    const bool ok = !id.empty() && r.noDataModule.empty();
    r.noDataModule = ok ? id : "!";
    if (r.bootImage && r.bootImage->module != r.noDataModule) sw::core::setBootImage(r, nullptr);
    return ok ? 1 : 0;
  } catch (...) {
    return 0;
  }
}

// --- making a boot image (build time, scripts/boot-images.mjs in Node) -----------------------------------------------

namespace {

struct ImageMaker {
  uint32_t host = 0;
  std::string engine;
  uint64_t handle = 0;
};
std::string g_image;  // the last made image, or the last failure's message

// Collects the rows take() writes.
struct RowCollector final : sw::snapshot::ChunkWriter {
  std::vector<std::pair<uint32_t, std::vector<uint8_t>>> rows;
  bool put(uint32_t chunk, const uint8_t* data, uint32_t len) override {
    rows.emplace_back(chunk, std::vector<uint8_t>(data, data + len));
    return true;
  }
  bool remove(uint32_t) override { return false; }  // nothing was stored before
};

}  // namespace

// Step 1, on a guest of built-in engine `engine` just instantiated under WASI host `host` (session layout: /stdlib and
// /workspace mounted) from its module with data segments, nothing run yet: boots it (_initialize, wasm_init, New),
// unmetered. Returns a maker for step 2, or 0 with the message in sw_boot_image_data/len.
EMSCRIPTEN_KEEPALIVE uint32_t sw_boot_image_begin(uint32_t host, const char* engine, uint32_t engineLen) {
  try {
    const sw::wasmify::BuiltinEngine* e = sw::wasmify::findBuiltinEngine(std::string_view(engine, engineLen));
    if (!e) {
      g_image = "unknown built-in engine";
      return 0;
    }
    auto maker = std::make_unique<ImageMaker>();
    maker->host = host;
    maker->engine.assign(engine, engineLen);
    sw_wasi_clear_trap(host);
    sw_wasi_fuel_reset(host, -1);
    sw::wasmify::HostGuestCaller guest(host);
    auto instance = sw::wasmify::bootInstance(guest, e->driver);
    if (!instance) {
      g_image = instance.failure().message;
      return 0;
    }
    maker->handle = instance->handle;
    return uint32_t(reinterpret_cast<uintptr_t>(maker.release()));
  } catch (const std::exception& x) {
    g_image = x.what();
    return 0;
  }
}

// Step 1 for an Engine written in JavaScript (docs/engine-authors.md, "A boot image"): the caller booted the guest
// under `host` itself (its manifest's bootImage.init, unmetered); `handle` is what that returned, `engine` its language.
// Returns a maker for step 2.
EMSCRIPTEN_KEEPALIVE uint32_t sw_boot_image_adopt(uint32_t host, const char* engine, uint32_t engineLen,
                                                  uint64_t handle) {
  try {
    auto maker = std::make_unique<ImageMaker>();
    maker->host = host;
    maker->engine.assign(engine, engineLen);
    maker->handle = handle;
    return uint32_t(reinterpret_cast<uintptr_t>(maker.release()));
  } catch (const std::exception& x) {
    g_image = x.what();
    return 0;
  }
}

// Step 2, after the caller read the guest's exported mutable globals (`globals`, a JSON object): takes every non-zero
// block of the booted memory and encodes the image for engine build `build` and for the module stripped from this one
// (`nodata`: that module's sw.nodata section text; empty when none ships). Frees the maker. Returns the image's length
// (its bytes at sw_boot_image_data), or 0 with the message there instead.
EMSCRIPTEN_KEEPALIVE uint32_t sw_boot_image_finish(uint32_t makerHandle, const char* build, uint32_t buildLen,
                                                   const char* nodata, uint32_t nodataLen, const char* globals,
                                                   uint32_t globalsLen) {
  std::unique_ptr<ImageMaker> maker(reinterpret_cast<ImageMaker*>(uintptr_t(makerHandle)));
  try {
    std::string module;
    if (nodataLen) {
      module = sw::snapshot::noDataModuleId(std::string_view(nodata, nodataLen));
      if (module.empty()) {
        g_image = "not a sw.nodata section";
        return 0;
      }
    }
    sw::core::GuestMemoryView memory(maker->host);
    sw::snapshot::Tracker after;
    RowCollector rows;
    sw::snapshot::Stats stats;
    sw::snapshot::Options options;
    options.smallSegments = 1u << 20;  // one pass, no compaction: nothing was stored before
    // Blocks raw: the Worker upload is gzipped, and gzip compresses raw memory (the data segments' 20 MB of Perl
    // library, say) far better than per-block LZ output: Perl's upload would grow by 1.6 MB, raw shrinks it a little.
    options.compress = false;
    // From an unseeded tracker: every non-zero block, the data segments' included.
    if (!sw::snapshot::take(memory, sw::snapshot::Tracker{}, after, rows, stats, g_image, options)) return 0;
    std::vector<sw::snapshot::StoredChunk> chunks;
    for (const auto& [id, bytes] : rows.rows) chunks.push_back({id, bytes.data(), uint32_t(bytes.size())});
    g_image = sw::snapshot::encodeBootImage(std::string_view(build, buildLen), maker->engine, module, maker->handle,
                                            std::string_view(globals, globalsLen), after.manifest(), chunks);
    return uint32_t(g_image.size());
  } catch (const std::exception& x) {
    g_image = x.what();
    return 0;
  }
}

EMSCRIPTEN_KEEPALIVE const char* sw_boot_image_data() { return g_image.data(); }
EMSCRIPTEN_KEEPALIVE uint32_t sw_boot_image_len() { return uint32_t(g_image.size()); }
}
