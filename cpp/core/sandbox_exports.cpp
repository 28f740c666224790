// The C ABI of the caller's Sandbox Durable Object (cpp/sandbox). The shim (worker-shim/sandbox.js) creates one
// sw_sbx per Durable Object instance and one exchange per request (or alarm run), performs the Fetch and Call actions
// the exchange asks for and feeds their answers back; it never decides anything itself. No C++ exception crosses
// this boundary: a throw becomes the exchange's 502 INTERNAL_ERROR (or a null view, which the shim treats as a trap).
#include <emscripten/emscripten.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "../interp/interpreter.h"
#include "../sandbox/sandbox.h"
#include "byte_reader.h"
#include "do_sql.h"
#include "exchange_view.h"

namespace {

using sw::core::address;
using sw::sandbox::Sandbox;

static_assert(sw::abi::SBX_CALL_RESULT_MAX_BYTES == sw::sandbox::kMaxCallResultBytes);
static_assert(sw::abi::SBX_GET_FILES_MAX_BYTES == sw::sandbox::kMaxGetFilesRequestBytes);

struct SbxBox {
  std::unique_ptr<sw::core::JsSql> sql;
  std::unique_ptr<sw::core::JsAlarm> alarm;
  std::unique_ptr<Sandbox> sandbox;
  std::vector<char> input;
  // The last getFiles answer, kept alive while the shim copies it out.
  std::vector<sw::workspace::File> files;
  std::vector<sw_byte_span> spans;
  std::vector<double> times;
  sw_sbx_files_view filesView{};
};

struct SbxExchangeBox {
  std::unique_ptr<Sandbox::Exchange> exchange;
  sw::core::PublishedView published;
  std::vector<char> input;
};

SbxBox* boxOf(uint32_t h) { return reinterpret_cast<SbxBox*>(uintptr_t(h)); }
SbxExchangeBox* exOf(uint32_t h) { return reinterpret_cast<SbxExchangeBox*>(uintptr_t(h)); }

char* reserve(std::vector<char>& input, uint32_t len) {
  try {
    input.resize(std::size_t(len) + 1);
    return input.data();
  } catch (...) {
    return nullptr;
  }
}

const sw_action_view* publish(SbxExchangeBox* box, const sw::sandbox::Action& a) {
  using sw::sandbox::ActionKind;
  if (a.kind == ActionKind::Respond) return box->published.publish(sw::core::respondFields(uint32_t(a.kind), a.response));
  sw::core::ActionFields f;
  f.kind = uint32_t(a.kind);
  if (a.kind == ActionKind::ReadBody) {
    f.body = std::string_view(box->exchange->bodyBuffer(), box->exchange->bodyCapacity());
  } else {  // Fetch, Call
    f.body = a.body;
    f.target = a.binding;
    f.method = a.method;
    f.path = a.path;
    f.limit = a.bodyLimit;
  }
  return box->published.publish(f);
}

template <typename F>
const sw_action_view* guarded(uint32_t ex, F&& f) {
  SbxExchangeBox* box = exOf(ex);
  return sw::core::publishGuarded([&](const sw::sandbox::Action& a) { return publish(box, a); },
                                  [&]() -> const sw::sandbox::Action& { return f(*box->exchange); },
                                  [&]() -> const sw::sandbox::Action& { return box->exchange->fail(); });
}

}  // namespace

extern "C" {

// One Sandbox for a Durable Object instance. storage: the shim's id for ctx.storage (the SQL and alarm imports receive
// it). The strings come in one buffer: the object id (ctx.id.toString(), id_len bytes), SANDBOX_IDLE_TTL_MS as text
// (ttl_len bytes; has_ttl 0 when unset), then SANDBOX_FILE_API as text (file_api_len bytes; has_file_api 0 when
// unset).
// armed_alarm: getAlarm() at start-up, or NaN. Returns 0 on failure.
EMSCRIPTEN_KEEPALIVE uint32_t sw_sbx_new(uint32_t storage, const char* strings, uint32_t idLen, uint32_t ttlLen,
                                         uint32_t hasTtl, uint32_t fileApiLen, uint32_t hasFileApi,
                                         double armedAlarm) {
  try {
    auto box = std::make_unique<SbxBox>();
    box->sql = std::make_unique<sw::core::JsSql>(storage);
    box->alarm = std::make_unique<sw::core::JsAlarm>(storage);
    sw::sandbox::Config config;
    config.objectId = std::string(strings, idLen);
    config.idleTtlMs = sw::durable::parseIdleTtl(
        hasTtl ? std::optional<std::string_view>(std::string_view(strings + idLen, ttlLen)) : std::nullopt);
    config.fileApiDisabled = sw::sandbox::fileApiDisabledBy(
        hasFileApi ? std::optional<std::string_view>(std::string_view(strings + idLen + ttlLen, fileApiLen))
                   : std::nullopt);
    box->sandbox = std::make_unique<Sandbox>(*box->sql, *box->alarm, sw::server::systemClock(), std::move(config),
                                             armedAlarm);
    return address(box.release());
  } catch (const std::exception& e) {
    emscripten_log(EM_LOG_ERROR, "[sandbox-workers] Sandbox start failed: %s", e.what());
    return 0;
  } catch (...) {
    return 0;
  }
}

EMSCRIPTEN_KEEPALIVE void sw_sbx_free(uint32_t h) { delete boxOf(h); }

EMSCRIPTEN_KEEPALIVE char* sw_sbx_input(uint32_t h, uint32_t len) { return reserve(boxOf(h)->input, len); }

// getFiles(paths): the paths as JSON were copied into sw_sbx_input(h, len) (at most SBX_GET_FILES_MAX_BYTES; the shim
// passes len 0 for more, which answers []). Null when out of memory.
EMSCRIPTEN_KEEPALIVE const sw_sbx_files_view* sw_sbx_get_files(uint32_t h, uint32_t len) {
  SbxBox* box = boxOf(h);
  try {
    box->files.clear();
    if (len <= box->input.size() && len > 0)
      box->files = box->sandbox->filesFor(std::string_view(box->input.data(), len));
    std::vector<char>().swap(box->input);
    box->spans.clear();
    box->times.clear();
    for (const auto& f : box->files) {
      box->spans.push_back({address(f.path.data()), uint32_t(f.path.size())});
      box->spans.push_back({address(f.data.data()), uint32_t(f.data.size())});
      box->times.push_back(f.updatedAt);
    }
    box->filesView = {uint32_t(box->files.size()), address(box->spans.data()), address(box->times.data())};
    return &box->filesView;
  } catch (...) {
    return nullptr;
  }
}

// Drops the last getFiles answer once the shim copied it.
EMSCRIPTEN_KEEPALIVE void sw_sbx_get_files_done(uint32_t h) {
  SbxBox* box = boxOf(h);
  std::vector<sw::workspace::File>().swap(box->files);
  box->spans.clear();
  box->times.clear();
}

EMSCRIPTEN_KEEPALIVE uint32_t sw_sbx_exchange_new(uint32_t h) {
  try {
    auto box = std::make_unique<SbxExchangeBox>();
    box->exchange = std::make_unique<Sandbox::Exchange>(*boxOf(h)->sandbox);
    return address(box.release());
  } catch (...) {
    return 0;
  }
}

EMSCRIPTEN_KEEPALIVE void sw_sbx_exchange_free(uint32_t ex) { delete exOf(ex); }

EMSCRIPTEN_KEEPALIVE char* sw_sbx_exchange_input(uint32_t ex, uint32_t len) { return reserve(exOf(ex)->input, len); }

// method, url and headers ("name: value\r\n" block) were copied into sw_sbx_exchange_input, in that order.
EMSCRIPTEN_KEEPALIVE const sw_action_view* sw_sbx_exchange_start(uint32_t ex, uint32_t methodLen, uint32_t urlLen,
                                                                     uint32_t headersLen, uint32_t hasBody) {
  return guarded(ex, [&](Sandbox::Exchange& e) -> const sw::sandbox::Action& {
    const auto& in = exOf(ex)->input;
    auto head = sw::core::requestHeadFrom(std::string_view(in.data(), in.size()), methodLen, urlLen, headersLen,
                                          hasBody != 0);
    if (!head) return e.fail();
    return e.start(*head);
  });
}

EMSCRIPTEN_KEEPALIVE const sw_action_view* sw_sbx_exchange_alarm(uint32_t ex) {
  return guarded(ex, [&](Sandbox::Exchange& e) -> const sw::sandbox::Action& { return e.startAlarm(); });
}

EMSCRIPTEN_KEEPALIVE const sw_action_view* sw_sbx_exchange_body_received(uint32_t ex, uint32_t n) {
  return guarded(ex, [&](Sandbox::Exchange& e) -> const sw::sandbox::Action& { return e.bodyReceived(n); });
}

EMSCRIPTEN_KEEPALIVE const sw_action_view* sw_sbx_exchange_body_failed(uint32_t ex) {
  return guarded(ex, [&](Sandbox::Exchange& e) -> const sw::sandbox::Action& { return e.bodyFailed(); });
}

// A Fetch answered: outcome SBX_ANSWERED (status; the first len bytes of the answer's body, at most the action's limit
// + 1, in sw_sbx_exchange_input), SBX_NO_BINDING, or SBX_THREW (the message, len bytes, in the input).
EMSCRIPTEN_KEEPALIVE const sw_action_view* sw_sbx_exchange_fetched(uint32_t ex, uint32_t outcome, uint32_t status,
                                                                       uint32_t len) {
  return guarded(ex, [&](Sandbox::Exchange& e) -> const sw::sandbox::Action& {
    auto& in = exOf(ex)->input;
    if (len > in.size()) return e.fail();
    sw::sandbox::FetchAnswer a;
    a.kind = sw::sandbox::FetchAnswer::Kind(outcome);
    a.status = int(status);
    if (outcome == sw::abi::SBX_ANSWERED) a.body.assign(in.data(), len);
    else if (outcome == sw::abi::SBX_THREW) a.message.assign(in.data(), len);
    else if (outcome != sw::abi::SBX_NO_BINDING) return e.fail();
    std::vector<char>().swap(in);
    return e.fetched(std::move(a));
  });
}

// A Call answered: outcome SBX_ANSWERED with the encoded result in sw_sbx_exchange_input (u32 JSON length, the JSON,
// u32 file count, per file u8 1 = bytes follow (u32 length + bytes) or 0 = data was not a Uint8Array), SBX_THREW
// (the message), SBX_NO_BINDING or SBX_TOO_LARGE.
EMSCRIPTEN_KEEPALIVE const sw_action_view* sw_sbx_exchange_called(uint32_t ex, uint32_t outcome, uint32_t len) {
  return guarded(ex, [&](Sandbox::Exchange& e) -> const sw::sandbox::Action& {
    auto& in = exOf(ex)->input;
    if (len > in.size()) return e.fail();
    sw::sandbox::CallAnswer a;
    a.kind = sw::sandbox::CallAnswer::Kind(outcome);
    if (outcome == sw::abi::SBX_ANSWERED) {
      const auto* bytes = reinterpret_cast<const uint8_t*>(in.data());
      sw::core::ByteReader r{bytes, bytes + len};
      uint32_t count = 0;
      if (!r.bytes(a.json) || !r.u32(count)) return e.fail();
      a.files.reserve(std::min<uint32_t>(count, 4096));
      for (uint32_t i = 0; i < count; ++i) {
        if (r.p >= r.end) return e.fail();
        const uint8_t hasBytes = *r.p++;
        if (hasBytes) {
          std::string data;
          if (!r.bytes(data)) return e.fail();
          a.files.emplace_back(std::move(data));
        } else {
          a.files.emplace_back(std::nullopt);
        }
      }
    } else if (outcome == sw::abi::SBX_THREW) {
      a.message.assign(in.data(), len);
    } else if (outcome != sw::abi::SBX_NO_BINDING && outcome != sw::abi::SBX_TOO_LARGE) {
      return e.fail();
    }
    std::vector<char>().swap(in);
    return e.called(std::move(a));
  });
}

EMSCRIPTEN_KEEPALIVE const sw_action_view* sw_sbx_exchange_fail(uint32_t ex) {
  return guarded(ex, [&](Sandbox::Exchange& e) -> const sw::sandbox::Action& { return e.fail(); });
}
}
