// cpp/abi/reply.h: the one C++ decoder of the reply buffer (abi.def sw_reply_head / sw_reply_field) that the shim
// writes for the sw_host_session_* imports (cpp/core/js_sessions.cpp) and sw_host_wasmify_hook
// (cpp/wasmify/exports.cpp). The buffer comes from JavaScript, so nothing in it is trusted: every length is checked
// against the size the head declares, and a buffer that does not add up is a failed reply, never a read beyond it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "abi.h"

namespace sw::abi {

struct Reply {
  uint32_t status = SESSION_FAILED;
  std::vector<std::string> fields;
  std::string field(std::size_t i) const { return i < fields.size() ? fields[i] : std::string(); }
};

inline Reply failedReply(std::string message) {
  Reply r;
  r.fields.push_back(std::move(message));
  return r;
}

// Decodes the reply buffer at `bytes`; reads at most the head and then the size the head declares.
inline Reply decodeReply(const uint8_t* bytes) {
  auto u32 = [&](std::size_t at) {
    uint32_t v;
    std::memcpy(&v, bytes + at, 4);
    return v;
  };
  const std::size_t size = u32(offsetof(sw_reply_head, bytes));
  if (size < sizeof(sw_reply_head)) return failedReply("malformed reply buffer: shorter than its head");
  Reply r;
  r.status = u32(offsetof(sw_reply_head, status));
  const uint32_t count = u32(offsetof(sw_reply_head, count));
  std::size_t at = sizeof(sw_reply_head);
  for (uint32_t i = 0; i < count; ++i) {
    if (size - at < sizeof(sw_reply_field)) return failedReply("malformed reply buffer: a field past its end");
    const uint32_t len = u32(at + offsetof(sw_reply_field, len));
    at += sizeof(sw_reply_field);
    if (size - at < len) return failedReply("malformed reply buffer: a field past its end");
    r.fields.emplace_back(reinterpret_cast<const char*>(bytes + at), len);
    at += len;
  }
  if (at != size) return failedReply("malformed reply buffer: bytes after its last field");
  return r;
}

// Decodes and frees the buffer the shim allocated at core address `p`; 0 (the shim could not allocate one) is a
// failed reply saying `nullMessage`.
inline Reply takeReply(uint32_t p, std::string_view nullMessage) {
  if (p == 0) return failedReply(std::string(nullMessage));
  void* buffer = reinterpret_cast<void*>(uintptr_t(p));
  Reply r = decodeReply(static_cast<const uint8_t*>(buffer));
  std::free(buffer);
  return r;
}

}  // namespace sw::abi
