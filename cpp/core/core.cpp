#include "core.h"

#include <emscripten/emscripten.h>

#include <memory>
#include <string>

#include "../server/server.h"
#include "../wasmify/wasmify.h"
#include "builtin.h"
#include "exchange_view.h"

namespace {

using sw::core::address;
using sw::server::Action;
using sw::server::ActionKind;
using sw::server::Exchange;
using sw::server::InterpreterServer;

std::string g_lastError;

struct ExchangeBox {
  uint32_t server = 0;
  std::unique_ptr<Exchange> exchange;
  sw::core::PublishedView published;
};

InterpreterServer* serverOf(uint32_t h) { return reinterpret_cast<InterpreterServer*>(uintptr_t(h)); }
ExchangeBox* boxOf(uint32_t h) { return reinterpret_cast<ExchangeBox*>(uintptr_t(h)); }

const sw_action_view* publish(ExchangeBox* box, const Action& a) {
  if (a.kind == ActionKind::RunEngine) {
    const auto& engine = serverOf(box->server)->engine();
    if (!engine.builtin.empty()) {
      // A built-in Wasm engine runs synchronously, here; the exchange is settled when this returns.
      std::string payload = a.payload;  // `a` is the exchange's action, which the run replaces
      return publish(box, sw::core::runBuiltinEngine(box->server, *box->exchange, engine, payload));
    }
    // A JavaScript Engine: hand it the payload; the exchange waits for engineFinished/engineThrew.
    sw_host_engine_run(box->server, address(box), a.payload.data(), uint32_t(a.payload.size()));
    sw::core::ActionFields awaiting;
    awaiting.kind = sw::abi::ACTION_AWAIT_ENGINE;
    return box->published.publish(awaiting);
  }
  return box->published.publish(
      sw::core::actionFields(a, box->exchange->bodyBuffer(), box->exchange->bodyCapacity()));
}

// Runs one step; anything thrown becomes the protocol's generic 502.
template <typename F>
const sw_action_view* guarded(uint32_t h, F&& step) {
  ExchangeBox* box = boxOf(h);
  return sw::core::publishGuarded([&](const Action& a) { return publish(box, a); },
                                  [&]() -> const Action& { return step(*box->exchange); },
                                  [&]() -> const Action& { return box->exchange->fail(); });
}

}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE uint32_t sw_server_new(const char* engine, uint32_t engine_len) {
  try {
    auto info = sw::server::parseEngineInfo(std::string_view(engine, engine_len), g_lastError);
    if (!info) return 0;
    if (!info->builtin.empty() && !sw::wasmify::findBuiltinEngine(info->builtin)) {
      g_lastError = "engine.builtin must name a built-in engine (" + sw::wasmify::builtinEngineNames() + ")";
      return 0;
    }
    return address(new InterpreterServer(std::move(*info)));
  } catch (const std::exception& e) {
    g_lastError = e.what();
    return 0;
  }
}

EMSCRIPTEN_KEEPALIVE void sw_server_free(uint32_t server) {
  sw::core::releaseBuiltinResources(server);
  delete serverOf(server);
}

EMSCRIPTEN_KEEPALIVE const char* sw_last_error() { return g_lastError.c_str(); }

EMSCRIPTEN_KEEPALIVE uint32_t sw_exchange_new(uint32_t server) {
  try {
    auto box = std::make_unique<ExchangeBox>();
    box->server = server;
    box->exchange = serverOf(server)->newExchange();
    return address(box.release());
  } catch (...) {
    return 0;
  }
}

EMSCRIPTEN_KEEPALIVE void sw_exchange_free(uint32_t exchange) { delete boxOf(exchange); }

EMSCRIPTEN_KEEPALIVE char* sw_exchange_input(uint32_t exchange, uint32_t len) {
  try {
    return boxOf(exchange)->exchange->inputBuffer(len);
  } catch (...) {
    return nullptr;
  }
}

EMSCRIPTEN_KEEPALIVE const sw_action_view* sw_exchange_start(uint32_t exchange, uint32_t method_len,
                                                             uint32_t url_len, uint32_t headers_len,
                                                             uint32_t has_body, uint32_t has_interpreter) {
  return guarded(exchange, [&](Exchange& ex) -> const Action& {
    auto head = sw::core::requestHeadFrom(ex.input(), method_len, url_len, headers_len, has_body != 0);
    if (!head) return ex.fail();
    return ex.start(*head, has_interpreter != 0);
  });
}

EMSCRIPTEN_KEEPALIVE const sw_action_view* sw_exchange_body_received(uint32_t exchange, uint32_t n) {
  return guarded(exchange, [&](Exchange& ex) -> const Action& { return ex.bodyReceived(n); });
}

EMSCRIPTEN_KEEPALIVE const sw_action_view* sw_exchange_body_failed(uint32_t exchange) {
  return guarded(exchange, [&](Exchange& ex) -> const Action& { return ex.bodyFailed(); });
}

EMSCRIPTEN_KEEPALIVE const sw_action_view* sw_exchange_engine_finished(uint32_t exchange, uint32_t len) {
  return guarded(exchange, [&](Exchange& ex) -> const Action& {
    std::string_view in = ex.input();
    if (len > in.size()) return ex.fail();
    return ex.engineFinished(in.substr(0, len));
  });
}

EMSCRIPTEN_KEEPALIVE const sw_action_view* sw_exchange_engine_threw(uint32_t exchange, uint32_t flags,
                                                                    uint32_t len) {
  return guarded(exchange, [&](Exchange& ex) -> const Action& {
    std::string_view in = ex.input();
    if (len > in.size()) return ex.fail();
    std::optional<std::string> message;
    if (flags & sw::abi::ENGINE_THREW_MESSAGE) message = std::string(in.substr(0, len));
    return ex.engineThrew((flags & sw::abi::ENGINE_THREW_LIMIT) != 0,
                          message ? std::optional<std::string_view>(*message) : std::nullopt);
  });
}

EMSCRIPTEN_KEEPALIVE const sw_action_view* sw_exchange_engine_unserializable(uint32_t exchange, uint32_t len) {
  return guarded(exchange, [&](Exchange& ex) -> const Action& {
    std::string_view in = ex.input();
    if (len > in.size()) return ex.fail();
    return ex.engineOutcomeUnserializable(std::string(in.substr(0, len)));
  });
}

EMSCRIPTEN_KEEPALIVE const sw_action_view* sw_fallback_response() {
  // For when no exchange can be made (the engine description is invalid, or memory ran out).
  static ExchangeBox box;
  static InterpreterServer fallbackServer(sw::server::EngineInfo{"unknown", "unknown", "unknown", {}, false});
  try {
    box.exchange = fallbackServer.newExchange();
    return publish(&box, box.exchange->fail());
  } catch (...) {
    return nullptr;
  }
}

EMSCRIPTEN_KEEPALIVE const sw_action_view* sw_exchange_fail(uint32_t exchange) {
  return guarded(exchange, [&](Exchange& ex) -> const Action& { return ex.fail(); });
}
}
