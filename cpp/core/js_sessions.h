// Code contexts of an Engine written in JavaScript (js_sessions.cpp): the SessionFactory over the shim's
// sessions.boot/restore, and the sparse page image a snapshot is decoded into before the engine reads it.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "../interp/interpreter.h"
#include "../snapshot/snapshot.h"

namespace sw::core {

// A linear memory image held in the core, page by page, over a base or none: a page nobody wrote is the base's (the
// engine's pristine memory, docs/snapshots.md "Relative to the boot image"), zero without one, and takes no space.
// Restore decodes a snapshot into one (it is a snapshot::Memory), and the engine's SessionSnapshotSource.readPage
// serves its pages.
class PageImage final : public snapshot::Memory {
 public:
  // `base`: what the image holds before anything is written (its pages, its blocks' hashes as knownBlocks()).
  explicit PageImage(std::shared_ptr<const snapshot::Base> base = nullptr);
  uint32_t pages() override { return pages_; }
  bool read(uint64_t offset, uint8_t* dst, uint32_t len) override;
  bool write(uint64_t offset, const uint8_t* src, uint32_t len) override;
  bool grow(uint32_t totalPages) override;
  // Exactly the base's blocks until the first write (snapshot::restore then writes only what differs from it).
  std::span<const uint64_t> knownBlocks() override;
  std::shared_ptr<const snapshot::Base> base() override { return base_; }
  // The 64 KiB of page `p`, or nullptr when it is all zero or beyond the image. A page that is the base's is copied
  // into a buffer valid until the next call.
  const uint8_t* page(uint32_t p) const;
  // Copies every non-zero page of `memory`.
  void capture(snapshot::Memory& memory);
  // Grows `memory` to the image's pages and writes the image into it (pages the image holds as zero are zeroed where
  // `memory` is not zero already). False when the memory cannot grow or be written.
  bool restoreInto(snapshot::Memory& memory) const;
  // The same over a memory that holds exactly the base (an instance just reset to the pristine memory): only the
  // pages written since the image was made are written. False without a base, or as restoreInto.
  bool restoreOverBase(snapshot::Memory& memory) const;

 private:
  std::shared_ptr<const snapshot::Base> base_;
  uint32_t pages_ = 0;
  bool written_ = false;
  std::vector<std::vector<uint8_t>> data_;  // per page: empty = the base's page (zero beyond it, or without one)
  mutable std::vector<uint8_t> basePage_;   // page()'s copy of a base page
};

std::unique_ptr<interp::SessionFactory> makeJsSessionFactory(uint32_t server);
// The server's pristine memory (builtin.h pristineBase), captured first if no instance has started from its boot image
// in this isolate yet: by applying the image to a new instance, which then goes to the pool. Null without an image in
// use, or when that failed (`error`). (js_images.cpp)
std::shared_ptr<const snapshot::Base> jsPristineBase(uint32_t server, std::string& error);
// onCwdChange of the open session `session` (the JsSession's id).
void jsSessionCwdChanged(uint32_t session, std::string cwd);

}  // namespace sw::core
