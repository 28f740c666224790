// The Playground gateway's C ABI (cpp/gateway; its shim is gateway/worker.js): an exchange per request, each step
// answered with a sw_action_view (cpp/abi/abi.def). Like core.cpp, no C++ exception crosses this boundary.
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
  sw::core::PublishedView published;
};

GatewayBox* boxOf(uint32_t h) { return reinterpret_cast<GatewayBox*>(uintptr_t(h)); }

const sw_action_view* publish(GatewayBox* box, const Action& a) {
  if (a.kind == ActionKind::Respond) return box->published.publish(sw::core::respondFields(uint32_t(a.kind), a.response));
  sw::core::ActionFields f;
  f.kind = uint32_t(a.kind);
  if (a.kind == ActionKind::ReadBody) {
    f.body = std::string_view(a.buffer, a.capacity);
  } else if (a.kind != ActionKind::Asset) {  // Fetch, Limit, Relay, Sandbox
    f.limit = a.answerLimit;
    f.body = a.body;
    f.target = a.target;
    f.path = a.path;
    f.method = a.method;
    f.headers = &a.headers;
  }
  return box->published.publish(f);
}

template <typename F>
const sw_action_view* guarded(uint32_t h, F&& step) {
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
EMSCRIPTEN_KEEPALIVE const sw_action_view* sw_gateway_exchange_start(uint32_t exchange, uint32_t method_len,
                                                                      uint32_t url_len, uint32_t headers_len,
                                                                      uint32_t has_body, uint32_t has_assets) {
  return guarded(exchange, [&](Exchange& ex) -> const Action& {
    auto head = sw::core::requestHeadFrom(ex.input(), method_len, url_len, headers_len, has_body != 0);
    if (!head) return ex.fail();
    return ex.start(*head, has_assets != 0);
  });
}

EMSCRIPTEN_KEEPALIVE const sw_action_view* sw_gateway_body_received(uint32_t exchange, uint32_t n) {
  return guarded(exchange, [&](Exchange& ex) -> const Action& { return ex.bodyReceived(n); });
}

EMSCRIPTEN_KEEPALIVE const sw_action_view* sw_gateway_body_failed(uint32_t exchange) {
  return guarded(exchange, [&](Exchange& ex) -> const Action& { return ex.bodyFailed(); });
}

// The answer's body (at most the view's status + 1 bytes) was copied into sw_gateway_exchange_input(exchange, len).
EMSCRIPTEN_KEEPALIVE const sw_action_view* sw_gateway_fetched(uint32_t exchange, uint32_t status, uint32_t len) {
  return guarded(exchange, [&](Exchange& ex) -> const Action& {
    std::string_view in = ex.input();
    if (len > in.size()) return ex.fail();
    std::string body(in.substr(0, len));
    return ex.fetched(int(status), body);
  });
}

EMSCRIPTEN_KEEPALIVE const sw_action_view* sw_gateway_fetch_failed(uint32_t exchange) {
  return guarded(exchange, [&](Exchange& ex) -> const Action& { return ex.fetchFailed(); });
}

EMSCRIPTEN_KEEPALIVE const sw_action_view* sw_gateway_fail(uint32_t exchange) {
  return guarded(exchange, [&](Exchange& ex) -> const Action& { return ex.fail(); });
}
}
