// What the shim and an exchange — the Worker's (core.cpp), an Interpreter route's (interp_exports.cpp), the Sandbox's
// (sandbox_exports.cpp), the gateway's (gateway_exports.cpp) — hand each other: the request head in one input buffer,
// and each next action as a sw_action_view (cpp/abi/abi.def), written by the one marshaller below.
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

// One action as the shim sees it: views into memory that outlives the published sw_action_view (the exchange's
// action and buffers). Each exchange says what its own action means in these terms; publishView writes them.
struct ActionFields {
  uint32_t kind = 0;
  uint32_t status = 0;                                   // Respond
  std::string_view body;                                 // Respond; ReadBody: the buffer, its capacity; a request's
  const std::vector<http::Header>* headers = nullptr;    // Respond and outgoing requests
  std::string_view target;                               // whom an outgoing request or call goes to
  std::string_view path;
  std::string_view method;
  std::size_t limit = 0;                                 // at most limit + 1 bytes are read
};

// A Respond action's fields: status, body, headers.
ActionFields respondFields(uint32_t kind, const http::Response& response);

// The one marshaller: fills `view` from `fields`; `headerBlock` keeps the serialized headers alive while the shim
// reads them. Returns &view.
const sw_action_view* publishView(const ActionFields& fields, sw_action_view& view, std::string& headerBlock);

// The fields of the Worker's and the Interpreter's actions: Respond, ReadBody (into `body`, `bodyCapacity` bytes),
// Forward.
ActionFields actionFields(const server::Action& action, char* body, std::size_t bodyCapacity);

// Where the marshalled view and its header block live: one per exchange.
struct PublishedView {
  sw_action_view view{};
  std::string headerBlock;
  const sw_action_view* publish(const ActionFields& fields) { return publishView(fields, view, headerBlock); }
};

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
