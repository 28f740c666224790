// What the shim and an HTTP exchange — the Worker's (core.cpp) or an Interpreter route's (interp_exports.cpp) — hand
// each other: the request head in one input buffer, and each next action as a sw_action_view (cpp/abi/abi.def).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "../http/http.h"
#include "../server/server.h"
#include "core.h"

namespace sw::core {

// A core address as the shim sees it (wasm32).
inline uint32_t address(const void* p) { return uint32_t(reinterpret_cast<uintptr_t>(p)); }

// The head the shim copied into one input buffer: method, URL, then a "name: value\r\n" header block. nullopt when the
// lengths overrun the input.
std::optional<http::RequestHead> requestHeadFrom(std::string_view input, uint32_t methodLen, uint32_t urlLen,
                                                 uint32_t headersLen, bool hasBody);

// Fills `view` for a Respond, ReadBody (into `body`, `bodyCapacity` bytes) or Forward action. `headerBlock` keeps the
// serialized headers alive while the shim reads them.
void publishAction(const server::Action& action, char* body, std::size_t bodyCapacity, sw_action_view& view,
                   std::string& headerBlock);

// One step of an exchange, published: anything `step` throws becomes `fail()`'s answer, and a throw from that too a
// null view, which the shim treats like a trap. No C++ exception reaches JavaScript.
template <typename Publish, typename Step, typename Fail>
auto publishGuarded(Publish&& publish, Step&& step, Fail&& fail) -> decltype(publish(step())) {
  try {
    return publish(step());
  } catch (...) {
    try {
      return publish(fail());
    } catch (...) {
      return nullptr;
    }
  }
}

}  // namespace sw::core
