// The C ABI of the Playground's Limiter Durable Object (cpp/gateway/limits.h; its shim is worker-shim/limiter.js): one
// sw_limiter per Durable Object instance over its ctx.storage (do_sql.cpp's imports). The shim hands in a request's
// body and sends back the answer the core wrote; every decision is gateway::Limiter's. No C++ exception crosses.
#include <emscripten/emscripten.h>

#include <memory>
#include <string>
#include <vector>

#include "../gateway/limits.h"
#include "do_sql.h"
#include "exchange_view.h"

namespace {

using sw::core::address;

struct LimiterBox {
  std::unique_ptr<sw::core::JsSql> sql;
  std::unique_ptr<sw::core::JsAlarm> alarm;
  std::unique_ptr<sw::gateway::Limiter> limiter;
  std::vector<char> input;
  std::string answer;
  sw_byte_span span{};
};

LimiterBox* boxOf(uint32_t h) { return reinterpret_cast<LimiterBox*>(uintptr_t(h)); }

}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE uint32_t sw_limiter_new(uint32_t storage) {
  try {
    auto box = std::make_unique<LimiterBox>();
    box->sql = std::make_unique<sw::core::JsSql>(storage);
    box->alarm = std::make_unique<sw::core::JsAlarm>(storage);
    box->limiter = std::make_unique<sw::gateway::Limiter>(*box->sql, *box->alarm, sw::server::systemClock());
    return address(box.release());
  } catch (...) {
    return 0;
  }
}

EMSCRIPTEN_KEEPALIVE void sw_limiter_free(uint32_t h) { delete boxOf(h); }

EMSCRIPTEN_KEEPALIVE char* sw_limiter_input(uint32_t h, uint32_t len) {
  try {
    boxOf(h)->input.resize(std::size_t(len) + 1);
    return boxOf(h)->input.data();
  } catch (...) {
    return nullptr;
  }
}

// The request body (len bytes) is in sw_limiter_input's buffer; the answer (JSON) is the returned span, valid until
// the next call. Null when the storage failed: the shim answers 502 and the gateway fails closed.
EMSCRIPTEN_KEEPALIVE const sw_byte_span* sw_limiter_admit(uint32_t h, uint32_t len) {
  LimiterBox* box = boxOf(h);
  try {
    if (len >= box->input.size()) return nullptr;
    box->answer = box->limiter->admit(std::string_view(box->input.data(), len));
    box->span.ptr = address(box->answer.data());
    box->span.len = uint32_t(box->answer.size());
    return &box->span;
  } catch (const std::exception& e) {
    emscripten_log(EM_LOG_ERROR, "[sandbox-workers] Limiter failed: %s", e.what());
    return nullptr;
  } catch (...) {
    return nullptr;
  }
}

EMSCRIPTEN_KEEPALIVE uint32_t sw_limiter_alarm(uint32_t h) {
  try {
    boxOf(h)->limiter->alarm();
    return 1;
  } catch (...) {
    return 0;
  }
}
}
