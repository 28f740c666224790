// Code contexts of an Engine written in JavaScript (js_sessions.cpp): the SessionFactory over the shim's
// sessions.boot/restore, and the sparse page image a snapshot is decoded into before the engine reads it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../interp/interpreter.h"
#include "../snapshot/snapshot.h"

namespace sw::core {

// A linear memory image held in the core, page by page; all-zero pages take no space. Restore decodes a snapshot into
// one (it is a snapshot::Memory), and the engine's SessionSnapshotSource.readPage serves its pages.
class PageImage final : public snapshot::Memory {
 public:
  uint32_t pages() override { return pages_; }
  bool read(uint64_t offset, uint8_t* dst, uint32_t len) override;
  bool write(uint64_t offset, const uint8_t* src, uint32_t len) override;
  bool grow(uint32_t totalPages) override;
  // The 64 KiB of page `p`, or nullptr when it is all zero or beyond the image.
  const uint8_t* page(uint32_t p) const;
  // Copies every non-zero page of `memory`.
  void capture(snapshot::Memory& memory);
  // Grows `memory` to the image's pages and writes the image into it (pages the image holds as zero are zeroed where
  // `memory` is not zero already). False when the memory cannot grow or be written.
  bool restoreInto(snapshot::Memory& memory) const;

 private:
  uint32_t pages_ = 0;
  std::vector<std::vector<uint8_t>> data_;  // per page: empty = zero
};

std::unique_ptr<interp::SessionFactory> makeJsSessionFactory(uint32_t server);
// onCwdChange of the open session `session` (the JsSession's id).
void jsSessionCwdChanged(uint32_t session, std::string cwd);

}  // namespace sw::core
