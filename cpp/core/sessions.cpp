#include "sessions.h"

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "../json/json.h"
#include "../wasi/bridge.h"
#include "../wasmify/bridge.h"
#include "../wasmify/wasmify.h"
#include "builtin.h"
#include "guest.h"
#include "js_sessions.h"

namespace sw::core {

namespace {

class BuiltinSession final : public interp::Session {
 public:
  // `allowRecycled`: the instance may come from the server's pool (builtin.h); its memory is then rewritten in full by
  // boot() (the boot image) or by the restore's fill (every block of the snapshot, the rest zeroed).
  // `fromSnapshot`: the memory will come from a context's snapshot (restore), not from booting or the boot image.
  BuiltinSession(uint32_t server, const server::EngineInfo& engine, const wasmify::WasmifyDriver& driver,
                 const std::shared_ptr<wasi::Workspace>& workspace, bool allowRecycled, bool fromSnapshot)
      : engine_(engine), driver_(driver) {
    wasi::HostOptions o = builtinHostOptions(server);
    o.workspace = workspace;  // the mirror: the same tree for every instance of this Interpreter
    if (!guestScope_.open(server, std::move(o), allowRecycled, fromSnapshot))
      throw std::runtime_error(guestScope_.failure ? guestScope_.failure : "Engine initialization failed");
    host_ = guestScope_.host;
    guest_ = std::make_unique<wasmify::HostGuestCaller>(host_);
    memory_ = std::make_unique<GuestMemoryView>(host_);
    memory_->setHeld(std::move(guestScope_.held));  // a pooled instance's, if the core knows its memory exactly
  }
  // What the memory holds, if still known exactly (no guest call or write since), goes to the pool with the instance.
  ~BuiltinSession() override { guestScope_.held = memory_->takeHeld(); }

  wasmify::SessionOptions options(std::string_view cwd) const {
    wasmify::SessionOptions o;
    o.cwd = std::string(cwd);
    o.fuel = int64_t(fuelBudget(engine_));
    return o;
  }
  // A new context: from the engine's boot image when it has one (its memory after boot, shipped in the bundle), else
  // a full boot.
  void boot(uint32_t server, std::string_view cwd) {
    if (const snapshot::BootImage* image = builtinBootImage(server)) {
      std::string error;
      if (!loadBootImage(server, host_, guestScope_.recycled, error, memory_->held()))
        throw std::runtime_error(error);
      memory_->setBase(pristineBase(server));  // its snapshots are stored relative to the image
      auto s = wasmify::restoreWasmifySession(*guest_, driver_, {image->handle, "{}", true}, options(cwd));
      if (!s) throw std::runtime_error(s.failure().message);
      session_.emplace(std::move(s.value()));
      return;
    }
    if (guestScope_.recycled) throw std::runtime_error("Engine initialization failed: a pooled instance cannot boot");
    if (!mayBoot(server)) throw std::runtime_error(kNoImage);
    auto s = wasmify::bootWasmifySession(*guest_, driver_, options(cwd));
    if (!s) throw std::runtime_error(s.failure().message);
    session_.emplace(std::move(s.value()));
  }
  bool adopt(uint64_t handle, std::string_view extraJson, std::string_view cwd) {
    // A built-in engine's handle is its interpreter's address in the restored memory: 0 or beyond it is no handle.
    if (handle == 0 || handle >= uint64_t(memory_->pages()) * snapshot::kPageBytes) return false;
    // The guest's mutable globals as they were at the snapshot (for our engines only __stack_pointer, back at its
    // initial value between calls; set anyway, so an engine with more state in globals restores correctly).
    auto extra = json::parseCopy(extraJson);
    if (extra.ok() && extra.value.isObject()) {
      if (const json::Value* globals = extra.value.find("globals"); globals && !setGuestGlobals(host_, *globals)) {
        return false;
      }
    }
    wasmify::SessionSnapshot snap;
    snap.handle = handle;
    snap.extraJson = std::string(extraJson);
    auto s = wasmify::restoreWasmifySession(*guest_, driver_, snap, options(cwd));
    if (!s) return false;
    session_.emplace(std::move(s.value()));
    return true;
  }

  interp::SessionOutcome execute(std::string_view code, std::string_view envJson) override {
    wasi::hostOf(host_).stdio().reset();  // the output limits are per execute
    auto r = session_->execute(driver_, wasmify::ExecuteRequest{code, envJson, session_->cwd});
    if (!r) throw std::runtime_error(r.failure().message);
    return interp::SessionOutcome{wasmify::withUsage(std::move(r.value().outcomeJson), host_),
                                  std::move(r.value().cwd)};
  }
  bool recycled() const { return guestScope_.recycled; }
  // Fills the memory from a snapshot. With a boot image, the instance's base is the pristine memory (captured first,
  // by applying the image to this instance, if no instance did yet): the restore writes the image's blocks and the
  // snapshot's where they differ from what the memory holds -- nothing of a fresh module without data segments
  // (all zero), the image just applied, or a pooled instance's memory (hashed by the restore).
  bool fill(uint32_t server, const std::function<bool(snapshot::Memory&)>& fill) {
    std::span<const uint64_t> known;
    std::vector<uint64_t> zeros;
    if (builtinBootImage(server) && !pristineBase(server)) {
      std::string error;
      if (guestScope_.recycled || !loadBootImage(server, host_, false, error)) return false;
      known = pristineBase(server)->blocks;
    } else if (!guestScope_.recycled && !mayBoot(server)) {
      zeros.assign(std::size_t(memory_->pages()) * snapshot::kBlocksPerPage, 0);
      known = zeros;
    }
    memory_->setBase(pristineBase(server));
    memory_->setKnownBlocks(known);
    const bool ok = fill(*memory_);
    memory_->setKnownBlocks({});
    if (ok) memory_->markClean();  // the restore wrote what its tracker describes; the guest has not run since
    return ok;
  }
  // Right after a committed take: the memory is what the tracker says (a block not stored: zero or the image's,
  // compared byte for byte by the take), until the guest runs again.
  void holds(const snapshot::Tracker& tracker) override {
    memory_->setHeld(snapshot::Held::of(tracker));
    memory_->markClean();
  }
  bool invalid() const override { return !session_ || session_->invalid; }
  bool canSnapshot() override { return !invalid() && !wasi::hostOf(host_).hasOpenGuestFds(); }
  snapshot::Memory& memory() override { return *memory_; }
  uint64_t handle() const override { return session_ ? session_->instance.handle : 0; }
  // {"globals": {name: value}}: the guest's exported mutable globals, taken with the memory (between calls).
  std::string extraJson() const override {
    const uint32_t p = sw_host_guest_globals(host_);
    if (p == 0) throw std::runtime_error("cannot read the guest's globals");
    std::string text(reinterpret_cast<const char*>(uintptr_t(p)));
    std::free(reinterpret_cast<void*>(uintptr_t(p)));
    // The stack mark's globals are the core's bookkeeping, not the guest's state: a snapshot does not carry them.
    auto globals = json::parseCopy(text);
    if (!globals.ok() || !globals.value.isObject()) throw std::runtime_error("cannot read the guest's globals");
    json::Value kept = json::Value::object();
    for (const auto& [name, value] : globals.value.members()) {
      if (!std::string_view(name).starts_with("sw_stack_")) kept.set(std::string(name), value);
    }
    return "{\"globals\":" + json::stringify(kept) + "}";
  }

 private:
  const server::EngineInfo& engine_;
  const wasmify::WasmifyDriver& driver_;
  GuestScope guestScope_;  // declared first: released after everything that uses the instance
  uint32_t host_ = 0;
  std::unique_ptr<wasmify::HostGuestCaller> guest_;
  std::unique_ptr<GuestMemoryView> memory_;
  std::optional<wasmify::WasmifySession> session_;
};

class BuiltinFactory final : public interp::SessionFactory {
 public:
  BuiltinFactory(uint32_t server, const server::EngineInfo& engine, const wasmify::WasmifyDriver& driver)
      : server_(server), engine_(engine), driver_(driver) {}
  std::unique_ptr<interp::Session> boot(const std::shared_ptr<wasi::Workspace>& workspace,
                                        std::string_view cwd) override {
    auto s = std::make_unique<BuiltinSession>(server_, engine_, driver_, workspace, true, false);
    s->boot(server_, cwd);
    return s;
  }
  std::unique_ptr<interp::Session> restore(const std::shared_ptr<wasi::Workspace>& workspace, std::string_view cwd,
                                           const std::function<bool(snapshot::Memory&)>& fill, uint64_t handle,
                                           std::string_view extraJson) override {
    // A pooled instance first (its memory has the boot image's size, which a snapshot of the same build never
    // undercuts); should the snapshot still not fit it, a fresh instance.
    for (bool allowRecycled : {true, false}) {
      auto s = std::make_unique<BuiltinSession>(server_, engine_, driver_, workspace, allowRecycled, true);
      if (!s->fill(server_, fill)) {
        if (s->recycled()) continue;
        return nullptr;
      }
      if (!s->adopt(handle, extraJson, cwd)) return nullptr;
      return s;
    }
    return nullptr;
  }
  uint64_t baseImage() const override {
    const snapshot::BootImage* image = builtinBootImage(server_);
    return image ? image->id : 0;
  }

 private:
  uint32_t server_;
  const server::EngineInfo& engine_;
  const wasmify::WasmifyDriver& driver_;
};

}  // namespace

std::unique_ptr<interp::SessionFactory> makeSessionFactory(uint32_t server, const server::EngineInfo& engine) {
  if (const wasmify::BuiltinEngine* e = wasmify::findBuiltinEngine(engine.builtin)) {
    return std::make_unique<BuiltinFactory>(server, engine, e->driver);
  }
  // An Engine written in JavaScript with `sessions`: its instances live in the shim (js_sessions.cpp).
  return makeJsSessionFactory(server);
}

}  // namespace sw::core
