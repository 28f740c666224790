// Code contexts of an Engine written in JavaScript (protocol §5.1 `sessions`, §5.2): the SessionFactory the Interpreter
// uses when the engine is not built in but has `sessions`. The instances live in the shim (worker-shim/js_sessions.js);
// this file reaches them through the sw_host_session_* imports and keeps every rule on this side: the Interpreter's own
// execute algorithm (protocol §4.4, §5.3) runs unchanged over them, exactly as over a built-in engine's instances.
//
// * boot/restore hand the engine a SessionOptions whose `workspace` is the Interpreter's mirror, registered with the
//   WASI layer (wasi::registerWorkspace) for as long as the session lives, so ./wasi createWasi can mount it.
// * restore first decodes the stored snapshot into a sparse page image here (PageImage; with a boot image in use, over
//   the image's pristine memory), then serves the engine's SessionSnapshotSource.readPage from it; the Interpreter's
//   tracker describes that image.
// * snapshots are relative to the boot image when the engine has one in use (format 2, docs/snapshots.md), exactly as a
//   built-in engine's: the memory names the pristine memory as its base, and baseImage() the image.
// * snapshot() registers the engine's WebAssembly.Memory under this session's id with the WASI bridge, so
//   cpp/snapshot reads it through the same copy primitives it uses for a built-in engine's guest memory.
#include "js_sessions.h"

#include <emscripten/emscripten.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "../abi/abi.h"
#include "../abi/reply.h"
#include "../json/json.h"
#include "../wasi/bridge.h"
#include "builtin.h"
#include "exchange_view.h"
#include "guest.h"

extern "C" {
// host_imports.js -> worker-shim/js_sessions.js. Each returns a reply buffer (abi.def sw_reply_head), 0 when the shim
// could not allocate one.
uint32_t sw_host_session_open(uint32_t server, uint32_t session, uint32_t workspace, const char* cwd, uint32_t cwdLen,
                              const char* restore, uint32_t restoreLen, uint32_t source);
uint32_t sw_host_session_execute(uint32_t session, const char* code, uint32_t codeLen, const char* env,
                                 uint32_t envLen);
uint32_t sw_host_session_snapshot(uint32_t session);
// The answer of a call that returned a promise (SESSION_PROMISE), once the shim awaited it: as the synchronous call's
// reply would have been (boot/restore or execute).
uint32_t sw_host_session_settled(uint32_t session);
uint32_t sw_host_session_flags(uint32_t session);
uint32_t sw_host_session_can_snapshot(uint32_t session);
void sw_host_session_close(uint32_t session);
}

namespace sw::core {

namespace {

using abi::Reply;

Reply takeReply(uint32_t p) { return abi::takeReply(p, "the engine's answer could not be copied into the core"); }

// A decimal u64 (the snapshot handle), nothing else.
bool parseHandle(const std::string& text, uint64_t& out) {
  if (text.empty() || text.size() > 20) return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    const uint64_t d = uint64_t(c - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  out = v;
  return true;
}

}  // namespace

PageImage::PageImage(std::shared_ptr<const snapshot::Base> base) : base_(std::move(base)) {
  if (base_) pages_ = base_->pages;
}

namespace {

// Copies the base's page `p` (zero beyond it, or without a base) into `dst` (kPageBytes); false when it is all zero.
bool basePage(const snapshot::Base* base, uint32_t p, uint8_t* dst) {
  if (!base || p >= base->pages) {
    std::memset(dst, 0, snapshot::kPageBytes);
    return false;
  }
  const uint32_t first = p * snapshot::kBlocksPerPage;
  bool any = false;
  for (uint32_t b = first; b < first + snapshot::kBlocksPerPage; b++) any = any || base->blockHashAt(b) != 0;
  if (!any || !base->read(first, snapshot::kBlocksPerPage, dst)) {
    std::memset(dst, 0, snapshot::kPageBytes);
    return false;
  }
  return true;
}

}  // namespace

bool PageImage::read(uint64_t offset, uint8_t* dst, uint32_t len) {
  if (offset + len > uint64_t(pages_) * snapshot::kPageBytes) return false;
  while (len > 0) {
    const uint32_t page = uint32_t(offset / snapshot::kPageBytes);
    const uint32_t at = uint32_t(offset % snapshot::kPageBytes);
    const uint32_t n = std::min(len, snapshot::kPageBytes - at);
    if (page < data_.size() && !data_[page].empty()) {
      std::memcpy(dst, data_[page].data() + at, n);
    } else {
      basePage_.resize(snapshot::kPageBytes);
      basePage(base_.get(), page, basePage_.data());
      std::memcpy(dst, basePage_.data() + at, n);
    }
    dst += n, offset += n, len -= n;
  }
  return true;
}

bool PageImage::write(uint64_t offset, const uint8_t* src, uint32_t len) {
  if (offset + len > uint64_t(pages_) * snapshot::kPageBytes) return false;
  written_ = true;
  while (len > 0) {
    const uint32_t page = uint32_t(offset / snapshot::kPageBytes);
    const uint32_t at = uint32_t(offset % snapshot::kPageBytes);
    const uint32_t n = std::min(len, snapshot::kPageBytes - at);
    if (data_.size() <= page) data_.resize(page + 1);
    if (data_[page].empty()) {
      // A page nobody wrote yet: the base's bytes first, unless both they and `src` are zero (nothing changes).
      std::vector<uint8_t> bytes(snapshot::kPageBytes);
      if (basePage(base_.get(), page, bytes.data()) || !snapshot::isZero(src, n)) data_[page] = std::move(bytes);
    }
    if (!data_[page].empty()) std::memcpy(data_[page].data() + at, src, n);
    src += n, offset += n, len -= n;
  }
  return true;
}

bool PageImage::grow(uint32_t totalPages) {
  if (totalPages > snapshot::kMaxPages) return false;
  if (totalPages > pages_) pages_ = totalPages;
  return true;
}

std::span<const uint64_t> PageImage::knownBlocks() {
  if (!base_ || written_ || pages_ != base_->pages) return {};
  return base_->blocks;
}

const uint8_t* PageImage::page(uint32_t p) const {
  if (p >= pages_) return nullptr;
  if (p < data_.size() && !data_[p].empty()) {
    const auto& bytes = data_[p];
    return snapshot::isZero(bytes.data(), bytes.size()) ? nullptr : bytes.data();
  }
  basePage_.resize(snapshot::kPageBytes);
  return basePage(base_.get(), p, basePage_.data()) ? basePage_.data() : nullptr;
}

void PageImage::capture(snapshot::Memory& memory) {
  base_.reset();
  written_ = true;
  pages_ = memory.pages();
  data_.assign(pages_, {});
  std::vector<uint8_t> buffer(snapshot::kPageBytes);
  for (uint32_t p = 0; p < pages_; ++p) {
    if (!memory.read(uint64_t(p) * snapshot::kPageBytes, buffer.data(), snapshot::kPageBytes))
      throw std::runtime_error("cannot read the memory");
    if (!snapshot::isZero(buffer.data(), buffer.size())) data_[p] = buffer;
  }
}

bool PageImage::restoreInto(snapshot::Memory& memory) const {
  if (memory.pages() < pages_ && !memory.grow(pages_)) return false;
  std::vector<uint8_t> current(snapshot::kPageBytes);
  for (uint32_t p = 0; p < pages_; ++p) {
    const uint64_t at = uint64_t(p) * snapshot::kPageBytes;
    if (const uint8_t* bytes = page(p)) {
      if (!memory.write(at, bytes, snapshot::kPageBytes)) return false;
      continue;
    }
    // A page the image holds as zero: written only where the fresh memory is not zero already (its data segments).
    if (!memory.read(at, current.data(), snapshot::kPageBytes)) return false;
    if (snapshot::isZero(current.data(), current.size())) continue;
    std::memset(current.data(), 0, current.size());
    if (!memory.write(at, current.data(), snapshot::kPageBytes)) return false;
  }
  return true;
}

bool PageImage::restoreOverBase(snapshot::Memory& memory) const {
  if (!base_ || memory.pages() != base_->pages) return false;
  if (memory.pages() < pages_ && !memory.grow(pages_)) return false;
  // Beyond the base a grown memory is zero, as the image is there unless written.
  for (uint32_t p = 0; p < pages_ && p < data_.size(); ++p) {
    if (!data_[p].empty() && !memory.write(uint64_t(p) * snapshot::kPageBytes, data_[p].data(), snapshot::kPageBytes))
      return false;
  }
  return true;
}

namespace {

class JsSession final : public interp::Session {
 public:
  JsSession(uint32_t server, const std::shared_ptr<wasi::Workspace>& workspace, std::string_view cwd)
      : server_(server), workspaceId_(wasi::registerWorkspace(workspace)), cwd_(cwd), memory_(id()) {}
  ~JsSession() override {
    if (opened_) sw_host_session_close(id());
    wasi::unregisterWorkspace(workspaceId_);
  }

  // The shim's key for this instance, and the id its snapshot memory is registered under with the WASI bridge: the
  // object's address, unique among live sessions and never a WASI host's.
  uint32_t id() const { return address(this); }

  // sessions.boot(options) (restoreJson empty) or sessions.restore(options, source) over `image` (kept until the
  // engine's restore answered: its readPage serves from it). A promise leaves the session pending(); finishOpen then
  // reads what it settled to.
  void open(uint32_t server, std::string_view restoreJson, std::unique_ptr<PageImage> image) {
    image_ = std::move(image);
    restoring_ = !restoreJson.empty();
    Reply r = takeReply(sw_host_session_open(server, id(), workspaceId_, cwd_.data(), uint32_t(cwd_.size()),
                                             restoreJson.data(), uint32_t(restoreJson.size()), address(image_.get())));
    if (r.status == abi::SESSION_PROMISE) {
      opened_ = true;  // the shim holds the promise under this id: close drops it
      waiting_ = Waiting::Open;
      return;
    }
    opened(r);
  }

  bool pending() const override { return waiting_ != Waiting::None; }
  uint32_t awaitId() const override { return id(); }

  void finishOpen() override {
    if (waiting_ != Waiting::Open) return;
    waiting_ = Waiting::None;
    opened(takeReply(sw_host_session_settled(id())));
  }

  // onCwdChange(cwd) during a call (js_sessions.js forwards it through sw_session_cwd_changed).
  void cwdChanged(std::string cwd) { reportedCwd_ = std::move(cwd); }

  interp::SessionOutcome execute(std::string_view code, std::string_view envJson) override {
    snapshotRead_ = false;
    reportedCwd_.clear();
    Reply r = takeReply(sw_host_session_execute(id(), code.data(), uint32_t(code.size()), envJson.data(),
                                                uint32_t(envJson.size())));
    if (r.status == abi::SESSION_PROMISE) {
      waiting_ = Waiting::Execute;
      return {};
    }
    return outcome(r);
  }

  interp::SessionOutcome finishExecute() override {
    if (waiting_ != Waiting::Execute) throw std::logic_error("no execute is pending");
    waiting_ = Waiting::None;
    return outcome(takeReply(sw_host_session_settled(id())));
  }

  bool invalid() const override { return (sw_host_session_flags(id()) & abi::SESSION_INVALID) != 0; }
  bool canSnapshot() override { return !invalid() && sw_host_session_can_snapshot(id()) != 0; }

  // instance.snapshot(): once per round, on the first of memory()/handle()/extraJson() (the Interpreter asks for the
  // memory first). A failed snapshot() throws, which the Interpreter treats as a failed snapshot transaction: the
  // resident is dropped and the last good snapshot stays.
  // With a boot image in use, relative to its pristine memory (format 2, docs/snapshots.md): the take compares every
  // block with the image's byte for byte, so this holds for whatever instance the engine snapshots, as long as its
  // memory is no smaller than the image's; else (or without an image) every non-zero block is stored (format 1).
  snapshot::Memory& memory() override {
    readSnapshot();
    std::shared_ptr<const snapshot::Base> base = builtinBootImage(server_) ? pristineBase(server_) : nullptr;
    memory_.setBase(base && memory_.pages() >= base->pages ? base : nullptr);
    return memory_;
  }
  uint64_t handle() const override {
    readSnapshot();
    return handle_;
  }
  std::string extraJson() const override {
    readSnapshot();
    return extra_;
  }

 private:
  // The boot/restore answer (at once or settled).
  void opened(const Reply& r) {
    image_.reset();  // the engine's readPage is over
    opened_ = r.status == abi::SESSION_OK;  // the shim holds the instance only then: close it
    if (r.status != abi::SESSION_OK)
      throw std::runtime_error((restoring_ ? "sessions.restore failed: " : "Engine session failed to start: ") +
                               r.field(0));
  }

  // The execute answer (at once or settled).
  interp::SessionOutcome outcome(const Reply& r) {
    switch (r.status) {
      case abi::SESSION_OK:
        break;
      case abi::SESSION_THREW_LIMIT:
        throw interp::SessionLimitThrow(r.field(0).empty() ? "Execution limit exceeded" : r.field(0));
      case abi::SESSION_THREW:
        throw std::runtime_error(r.field(0).empty() ? "Execution failed" : r.field(0));
      case abi::SESSION_UNSERIALIZABLE:
        throw std::runtime_error("Engine returned an outcome that cannot be serialized: " + r.field(0));
      default:
        throw std::runtime_error(r.field(0).empty() ? "Execution failed" : r.field(0));
    }
    // SessionOutcome.cwd (protocol §5.1): the outcome's own cwd, else the last onCwdChange of this call, else the
    // instance's cwd, else unchanged.
    interp::SessionOutcome out;
    out.outcomeJson = r.field(0);
    auto parsed = json::parseCopy(out.outcomeJson);
    const json::Value* cwd = parsed.ok() && parsed.value.isObject() ? parsed.value.find("cwd") : nullptr;
    if (cwd && cwd->isString() && !cwd->asString().empty()) out.cwd = cwd->asString();
    else if (!reportedCwd_.empty()) out.cwd = reportedCwd_;
    else if (!r.field(1).empty()) out.cwd = r.field(1);
    else out.cwd = cwd_;
    cwd_ = out.cwd;
    return out;
  }

  void readSnapshot() const {
    if (snapshotRead_) return;
    Reply r = takeReply(sw_host_session_snapshot(id()));
    if (r.status == abi::SESSION_UNSERIALIZABLE)
      throw std::runtime_error("snapshot().extra cannot be serialized: " + r.field(0));
    // The memory is read while the snapshot's transaction is open: snapshot() must answer at once.
    if (r.status == abi::SESSION_PROMISE) throw std::runtime_error("snapshot() returned a promise: it must be synchronous");
    if (r.status != abi::SESSION_OK) throw std::runtime_error("snapshot() failed: " + r.field(0));
    if (!parseHandle(r.field(0), handle_)) throw std::runtime_error("snapshot().handle is not a 64-bit unsigned integer");
    extra_ = r.field(1).empty() ? "{}" : r.field(1);
    snapshotRead_ = true;
  }

  uint32_t server_;
  uint32_t workspaceId_;
  std::string cwd_;
  std::string reportedCwd_;
  GuestMemoryView memory_;
  std::unique_ptr<PageImage> image_;  // a restore's snapshot, until the engine's restore answered
  enum class Waiting : uint8_t { None, Open, Execute };
  Waiting waiting_ = Waiting::None;
  bool opened_ = false;
  bool restoring_ = false;
  mutable bool snapshotRead_ = false;
  mutable uint64_t handle_ = 0;
  mutable std::string extra_;
};

class JsSessionFactory final : public interp::SessionFactory {
 public:
  explicit JsSessionFactory(uint32_t server) : server_(server) {}

  std::unique_ptr<interp::Session> boot(const std::shared_ptr<wasi::Workspace>& workspace,
                                        std::string_view cwd) override {
    auto s = std::make_unique<JsSession>(server_, workspace, cwd);
    s->open(server_, {}, nullptr);
    return s;
  }

  // The snapshot is decoded (and verified) into a page image first; the engine then reads it page by page. With a
  // boot image in use the page image starts as the pristine memory, so a format 2 snapshot writes into it only what
  // differs from the image, and EngineInstances.restore writes only those pages over an instance reset to the image.
  // An image that cannot be decoded is nullptr; the engine's restore throwing throws with its message (a rejected
  // promise from restore too, through finishOpen). Either way the Interpreter reports why and boots fresh.
  std::unique_ptr<interp::Session> restore(const std::shared_ptr<wasi::Workspace>& workspace, std::string_view cwd,
                                           const std::function<bool(snapshot::Memory&)>& fill, uint64_t handle,
                                           std::string_view extraJson) override {
    std::shared_ptr<const snapshot::Base> base;
    if (builtinBootImage(server_)) {
      std::string error;
      base = jsPristineBase(server_, error);
      if (!base) throw std::runtime_error(error);
    }
    auto image = std::make_unique<PageImage>(std::move(base));
    if (!fill(*image)) return nullptr;
    std::string restoreJson = "{\"handle\":\"" + std::to_string(handle) + "\",\"extra\":" +
                              std::string(extraJson.empty() ? std::string_view("{}") : extraJson) + "}";
    auto s = std::make_unique<JsSession>(server_, workspace, cwd);
    s->open(server_, restoreJson, std::move(image));  // a throw says why: the Interpreter reports it and boots fresh
    return s;
  }

  // The engine's boot image when it declared one that is in use: a snapshot relative to another (or to one, when it
  // has none) is BUILD_CHANGED (docs/snapshots.md), exactly as for a built-in engine.
  uint64_t baseImage() const override {
    const snapshot::BootImage* image = builtinBootImage(server_);
    return image ? image->id : 0;
  }

 private:
  uint32_t server_;
};

}  // namespace

std::unique_ptr<interp::SessionFactory> makeJsSessionFactory(uint32_t server) {
  return std::make_unique<JsSessionFactory>(server);
}

void jsSessionCwdChanged(uint32_t session, std::string cwd) {
  reinterpret_cast<JsSession*>(uintptr_t(session))->cwdChanged(std::move(cwd));
}

}  // namespace sw::core

extern "C" {

// SessionSnapshotSource.readPage(page) of a restore in progress, or ./snapshot's images: the page's 64 KiB, or 0 for
// a page that is all zero (or beyond the image).
EMSCRIPTEN_KEEPALIVE const uint8_t* sw_page_image_page(uint32_t image, uint32_t page) {
  return reinterpret_cast<const sw::core::PageImage*>(uintptr_t(image))->page(page);
}
EMSCRIPTEN_KEEPALIVE uint32_t sw_page_image_pages(uint32_t image) {
  return reinterpret_cast<sw::core::PageImage*>(uintptr_t(image))->pages();
}

// ./snapshot captureMemory: a page image of the WebAssembly.Memory registered under `memory` (bindGuestMemory).
// Returns the image (free with sw_page_image_free), 0 on failure.
EMSCRIPTEN_KEEPALIVE uint32_t sw_page_image_capture(uint32_t memory) {
  try {
    auto image = std::make_unique<sw::core::PageImage>();
    sw::core::GuestMemoryView view(memory);
    image->capture(view);
    return sw::core::address(image.release());
  } catch (...) {
    return 0;
  }
}

// ./snapshot restoreMemory: grows the memory registered under `memory` to the image's pages and writes the image
// (zeroing the pages the image holds as zero). 1 = ok.
EMSCRIPTEN_KEEPALIVE uint32_t sw_page_image_restore(uint32_t image, uint32_t memory) {
  try {
    sw::core::GuestMemoryView view(memory);
    return reinterpret_cast<const sw::core::PageImage*>(uintptr_t(image))->restoreInto(view) ? 1 : 0;
  } catch (...) {
    return 0;
  }
}

EMSCRIPTEN_KEEPALIVE void sw_page_image_free(uint32_t image) {
  delete reinterpret_cast<sw::core::PageImage*>(uintptr_t(image));
}

// onCwdChange(cwd) of the session `session` (only while it is open: the shim drops the callback at close).
EMSCRIPTEN_KEEPALIVE void sw_session_cwd_changed(uint32_t session, const char* cwd, uint32_t len) {
  try {
    sw::core::jsSessionCwdChanged(session, std::string(cwd, len));
  } catch (...) {
  }
}

}  // extern "C"
