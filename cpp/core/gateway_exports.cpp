// The Playground gateway's C ABI (cpp/gateway; its shim is gateway/worker.js): an exchange per request, each step
// answered with a sw_gateway_view (cpp/abi/abi.def). Like core.cpp, no C++ exception crosses this boundary.
#include <emscripten/emscripten.h>

#include <memory>
#include <string>

#include "../gateway/gateway.h"
#include "exchange_view.h"

namespace {

using sw::core::address;
using sw::gateway::Action;
using sw::gateway::ActionKind;
using sw::gateway::Exchange;

struct GatewayBox {
  std::unique_ptr<Exchange> exchange;
  sw_gateway_view view{};
  std::string headerBlock;  // keeps the serialized headers alive for the view
};

GatewayBox* boxOf(uint32_t h) { return reinterpret_cast<GatewayBox*>(uintptr_t(h)); }

const sw_gateway_view* publish(GatewayBox* box, const Action& a) {
  sw_gateway_view& v = box->view;
  v = {};
  v.kind = uint32_t(a.kind);
  box->headerBlock.clear();
  switch (a.kind) {
    case ActionKind::Respond:
      v.status = uint32_t(a.response.status);
      v.body_ptr = address(a.response.body.data());
      v.body_len = uint32_t(a.response.body.size());
      box->headerBlock = sw::http::serializeHeaderBlock(a.response.headers);
      break;
    case ActionKind::ReadBody:
      v.body_ptr = address(a.buffer);
      v.body_len = uint32_t(a.capacity);
      break;
    case ActionKind::Fetch:
    case ActionKind::Limit:
    case ActionKind::Relay:
    case ActionKind::Sandbox:
      v.status = uint32_t(a.answerLimit);
      v.body_ptr = address(a.body.data());
      v.body_len = uint32_t(a.body.size());
      v.target_ptr = address(a.target.data());
      v.target_len = uint32_t(a.target.size());
      v.path_ptr = address(a.path.data());
      v.path_len = uint32_t(a.path.size());
      v.method_ptr = address(a.method.data());
      v.method_len = uint32_t(a.method.size());
      box->headerBlock = sw::http::serializeHeaderBlock(a.headers);
      break;
    case ActionKind::Asset:
      break;
  }
  if (!box->headerBlock.empty()) {
    v.headers_ptr = address(box->headerBlock.data());
    v.headers_len = uint32_t(box->headerBlock.size());
  }
  return &v;
}

template <typename F>
const sw_gateway_view* guarded(uint32_t h, F&& step) {
  GatewayBox* box = boxOf(h);
  return sw::core::publishGuarded([&](const Action& a) { return publish(box, a); },
                                  [&]() -> const Action& { return step(*box->exchange); },
                                  [&]() -> const Action& { return box->exchange->fail(); });
}

}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE uint32_t sw_gateway_exchange_new() {
  try {
    auto box = std::make_unique<GatewayBox>();
    box->exchange = std::make_unique<Exchange>();
    return address(box.release());
  } catch (...) {
    return 0;
  }
}

EMSCRIPTEN_KEEPALIVE void sw_gateway_exchange_free(uint32_t exchange) { delete boxOf(exchange); }

EMSCRIPTEN_KEEPALIVE char* sw_gateway_exchange_input(uint32_t exchange, uint32_t len) {
  try {
    return boxOf(exchange)->exchange->inputBuffer(len);
  } catch (...) {
    return nullptr;
  }
}

// The Worker's string vars as a JSON object were copied into sw_gateway_exchange_input (before the head): they set
// the per-client limits (cpp/gateway/limits.h). 1 when done, 0 when the exchange could not take them.
EMSCRIPTEN_KEEPALIVE uint32_t sw_gateway_exchange_configure(uint32_t exchange, uint32_t len) {
  try {
    std::string_view in = boxOf(exchange)->exchange->input();
    if (len > in.size()) return 0;
    boxOf(exchange)->exchange->configure(in.substr(0, len));
    return 1;
  } catch (...) {
    return 0;
  }
}

// method, url and headers were copied into sw_gateway_exchange_input, in that order (as for sw_exchange_start).
EMSCRIPTEN_KEEPALIVE const sw_gateway_view* sw_gateway_exchange_start(uint32_t exchange, uint32_t method_len,
                                                                      uint32_t url_len, uint32_t headers_len,
                                                                      uint32_t has_body, uint32_t has_assets) {
  return guarded(exchange, [&](Exchange& ex) -> const Action& {
    auto head = sw::core::requestHeadFrom(ex.input(), method_len, url_len, headers_len, has_body != 0);
    if (!head) return ex.fail();
    return ex.start(*head, has_assets != 0);
  });
}

EMSCRIPTEN_KEEPALIVE const sw_gateway_view* sw_gateway_body_received(uint32_t exchange, uint32_t n) {
  return guarded(exchange, [&](Exchange& ex) -> const Action& { return ex.bodyReceived(n); });
}

EMSCRIPTEN_KEEPALIVE const sw_gateway_view* sw_gateway_body_failed(uint32_t exchange) {
  return guarded(exchange, [&](Exchange& ex) -> const Action& { return ex.bodyFailed(); });
}

// The answer's body (at most the view's status + 1 bytes) was copied into sw_gateway_exchange_input(exchange, len).
EMSCRIPTEN_KEEPALIVE const sw_gateway_view* sw_gateway_fetched(uint32_t exchange, uint32_t status, uint32_t len) {
  return guarded(exchange, [&](Exchange& ex) -> const Action& {
    std::string_view in = ex.input();
    if (len > in.size()) return ex.fail();
    std::string body(in.substr(0, len));
    return ex.fetched(int(status), body);
  });
}

EMSCRIPTEN_KEEPALIVE const sw_gateway_view* sw_gateway_fetch_failed(uint32_t exchange) {
  return guarded(exchange, [&](Exchange& ex) -> const Action& { return ex.fetchFailed(); });
}

EMSCRIPTEN_KEEPALIVE const sw_gateway_view* sw_gateway_fail(uint32_t exchange) {
  return guarded(exchange, [&](Exchange& ex) -> const Action& { return ex.fail(); });
}
}
