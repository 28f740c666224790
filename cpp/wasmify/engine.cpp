// The built-in engines' messages (nanopb, generated at build time from proto/wasmify/engine.proto) and the
// WasmifyDriver every built-in engine shares (engine::makeDriver).
#include <pb_common.h>
#include <pb_decode.h>
#include <pb_encode.h>

#include "engine.pb.h"
#include "wasmify.h"

namespace sw::wasmify::engine {

static_assert(uint32_t(kEval) == uint32_t(sw_wasmify_engine_Method_METHOD_EVAL));
static_assert(uint32_t(kInterruptAddress) == uint32_t(sw_wasmify_engine_Method_METHOD_INTERRUPT_ADDRESS));
static_assert(uint32_t(kNew) == uint32_t(sw_wasmify_engine_Method_METHOD_NEW));
static_assert(uint32_t(kFree) == uint32_t(sw_wasmify_engine_Method_METHOD_FREE));
static_assert(uint32_t(kSessionEval) == uint32_t(sw_wasmify_engine_Method_METHOD_SESSION_EVAL));
static_assert(uint32_t(kAfterRestore) == uint32_t(sw_wasmify_engine_Method_METHOD_AFTER_RESTORE));

namespace {

bool encodeString(pb_ostream_t* stream, const pb_field_t* field, void* const* arg) {
  const auto* s = static_cast<const std::string_view*>(*arg);
  if (s->empty()) return true;  // proto3: an empty string is not written
  return pb_encode_tag_for_field(stream, field) &&
         pb_encode_string(stream, reinterpret_cast<const pb_byte_t*>(s->data()), s->size());
}

bool decodeString(pb_istream_t* stream, const pb_field_t*, void** arg) {
  auto* s = static_cast<std::string*>(*arg);
  s->resize(stream->bytes_left);
  return pb_read(stream, reinterpret_cast<pb_byte_t*>(s->data()), s->size());
}

void bindEncode(pb_callback_t& cb, const std::string_view& value) {
  cb.funcs.encode = encodeString;
  cb.arg = const_cast<std::string_view*>(&value);
}

void bindDecode(pb_callback_t& cb, std::string& out) {
  cb.funcs.decode = decodeString;
  cb.arg = &out;
}

template <typename Msg>
std::string encode(const pb_msgdesc_t* fields, const Msg& msg) {
  std::size_t size = 0;
  if (!pb_get_encoded_size(&size, fields, &msg)) return {};
  std::string out(size, '\0');
  pb_ostream_t stream = pb_ostream_from_buffer(reinterpret_cast<pb_byte_t*>(out.data()), size);
  if (!pb_encode(&stream, fields, &msg)) return {};
  out.resize(stream.bytes_written);
  return out;
}

// The protocol §5.6 subset first (exact error strings), then nanopb.
template <typename Msg>
Result<Unit> decode(std::string_view bytes, const pb_msgdesc_t* fields, Msg& msg) {
  auto parsed = parseMessage(bytes);
  if (!parsed) return parsed.failure();
  // A known field with the other wire type is malformed (nanopb would hand a varint to a bytes callback).
  pb_field_iter_t iter;
  if (pb_field_iter_begin(&iter, fields, &msg)) {
    for (const Field& f : parsed.value()) {
      if (!pb_field_iter_find(&iter, f.number)) continue;
      const bool lengthDelimited = PB_LTYPE(iter.type) >= PB_LTYPE_BYTES;
      if (lengthDelimited != (f.wireType == 2)) return engineFailure(kInvalidProtobuf);
    }
  }
  pb_istream_t stream = pb_istream_from_buffer(reinterpret_cast<const pb_byte_t*>(bytes.data()), bytes.size());
  if (!pb_decode(&stream, fields, &msg)) return engineFailure(kInvalidProtobuf);
  return Unit{};
}

// source_len (0: not sent) must be the source's length, or the request is malformed.
bool sourceLenMatches(uint32_t sourceLen, const std::string& source) {
  return sourceLen == 0 || sourceLen == source.size();
}

}  // namespace

std::string encodeNewRequest(const NewRequest& request) {
  sw_wasmify_engine_NewRequest msg = sw_wasmify_engine_NewRequest_init_zero;
  msg.heap_limit = request.heapLimit;
  msg.stack_limit = request.stackLimit;
  return encode(&sw_wasmify_engine_NewRequest_msg, msg);
}

Result<NewRequest> decodeNewRequest(std::string_view bytes) {
  sw_wasmify_engine_NewRequest msg = sw_wasmify_engine_NewRequest_init_zero;
  if (auto r = decode(bytes, &sw_wasmify_engine_NewRequest_msg, msg); !r) return r.failure();
  return NewRequest{msg.heap_limit, msg.stack_limit};
}

std::string encodeNewResponse(uint32_t handle) {
  sw_wasmify_engine_NewResponse msg = sw_wasmify_engine_NewResponse_init_zero;
  msg.handle = handle;
  return encode(&sw_wasmify_engine_NewResponse_msg, msg);
}

Result<uint32_t> decodeNewResponse(std::string_view bytes) {
  sw_wasmify_engine_NewResponse msg = sw_wasmify_engine_NewResponse_init_zero;
  if (auto r = decode(bytes, &sw_wasmify_engine_NewResponse_msg, msg); !r) return r.failure();
  return msg.handle;
}

std::string encodeEvalRequest(const EvalRequest& request) {
  sw_wasmify_engine_EvalRequest msg = sw_wasmify_engine_EvalRequest_init_zero;
  std::string_view source = request.source, env = request.envJson;
  msg.handle = request.handle;
  msg.source_len = uint32_t(source.size());
  bindEncode(msg.source, source);
  bindEncode(msg.env_json, env);
  return encode(&sw_wasmify_engine_EvalRequest_msg, msg);
}

Result<EvalRequest> decodeEvalRequest(std::string_view bytes) {
  EvalRequest out;
  sw_wasmify_engine_EvalRequest msg = sw_wasmify_engine_EvalRequest_init_zero;
  bindDecode(msg.source, out.source);
  bindDecode(msg.env_json, out.envJson);
  if (auto r = decode(bytes, &sw_wasmify_engine_EvalRequest_msg, msg); !r) return r.failure();
  if (!sourceLenMatches(msg.source_len, out.source)) return engineFailure(kInvalidProtobuf);
  out.handle = msg.handle;
  return out;
}

std::string encodeEvalResponse(const EvalResponse& response) {
  sw_wasmify_engine_EvalResponse msg = sw_wasmify_engine_EvalResponse_init_zero;
  std::string_view outcome = response.outcomeJson, failure = response.failure;
  bindEncode(msg.outcome_json, outcome);
  bindEncode(msg.failure, failure);
  return encode(&sw_wasmify_engine_EvalResponse_msg, msg);
}

Result<EvalResponse> decodeEvalResponse(std::string_view bytes) {
  EvalResponse out;
  sw_wasmify_engine_EvalResponse msg = sw_wasmify_engine_EvalResponse_init_zero;
  bindDecode(msg.outcome_json, out.outcomeJson);
  bindDecode(msg.failure, out.failure);
  if (auto r = decode(bytes, &sw_wasmify_engine_EvalResponse_msg, msg); !r) return r.failure();
  return out;
}

std::string encodeSessionEvalRequest(const SessionEvalRequest& request) {
  sw_wasmify_engine_SessionEvalRequest msg = sw_wasmify_engine_SessionEvalRequest_init_zero;
  std::string_view source = request.source, env = request.envJson, cwd = request.cwd;
  msg.handle = request.handle;
  msg.source_len = uint32_t(source.size());
  bindEncode(msg.source, source);
  bindEncode(msg.env_json, env);
  bindEncode(msg.cwd, cwd);
  return encode(&sw_wasmify_engine_SessionEvalRequest_msg, msg);
}

Result<SessionEvalRequest> decodeSessionEvalRequest(std::string_view bytes) {
  SessionEvalRequest out;
  sw_wasmify_engine_SessionEvalRequest msg = sw_wasmify_engine_SessionEvalRequest_init_zero;
  bindDecode(msg.source, out.source);
  bindDecode(msg.env_json, out.envJson);
  bindDecode(msg.cwd, out.cwd);
  if (auto r = decode(bytes, &sw_wasmify_engine_SessionEvalRequest_msg, msg); !r) return r.failure();
  if (!sourceLenMatches(msg.source_len, out.source)) return engineFailure(kInvalidProtobuf);
  out.handle = msg.handle;
  return out;
}

std::string encodeSessionEvalResponse(const SessionEvalResponse& response) {
  sw_wasmify_engine_SessionEvalResponse msg = sw_wasmify_engine_SessionEvalResponse_init_zero;
  std::string_view outcome = response.outcomeJson, failure = response.failure, cwd = response.cwd;
  bindEncode(msg.outcome_json, outcome);
  bindEncode(msg.failure, failure);
  bindEncode(msg.cwd, cwd);
  return encode(&sw_wasmify_engine_SessionEvalResponse_msg, msg);
}

Result<SessionEvalResponse> decodeSessionEvalResponse(std::string_view bytes) {
  SessionEvalResponse out;
  sw_wasmify_engine_SessionEvalResponse msg = sw_wasmify_engine_SessionEvalResponse_init_zero;
  bindDecode(msg.outcome_json, out.outcomeJson);
  bindDecode(msg.failure, out.failure);
  bindDecode(msg.cwd, out.cwd);
  if (auto r = decode(bytes, &sw_wasmify_engine_SessionEvalResponse_msg, msg); !r) return r.failure();
  return out;
}

std::string encodeInterruptAddressResponse(uint32_t address) {
  sw_wasmify_engine_InterruptAddressResponse msg = sw_wasmify_engine_InterruptAddressResponse_init_zero;
  msg.address = address;
  return encode(&sw_wasmify_engine_InterruptAddressResponse_msg, msg);
}

Result<uint32_t> decodeInterruptAddressResponse(std::string_view bytes) {
  sw_wasmify_engine_InterruptAddressResponse msg = sw_wasmify_engine_InterruptAddressResponse_init_zero;
  if (auto r = decode(bytes, &sw_wasmify_engine_InterruptAddressResponse_msg, msg); !r) return r.failure();
  return msg.address;
}

std::string encodeFreeRequest(uint32_t handle) {
  sw_wasmify_engine_FreeRequest msg = sw_wasmify_engine_FreeRequest_init_zero;
  msg.handle = handle;
  return encode(&sw_wasmify_engine_FreeRequest_msg, msg);
}

Result<uint32_t> decodeFreeRequest(std::string_view bytes) {
  sw_wasmify_engine_FreeRequest msg = sw_wasmify_engine_FreeRequest_init_zero;
  if (auto r = decode(bytes, &sw_wasmify_engine_FreeRequest_msg, msg); !r) return r.failure();
  return msg.handle;
}

std::string encodeAfterRestoreRequest(const AfterRestoreRequest& request) {
  sw_wasmify_engine_AfterRestoreRequest msg = sw_wasmify_engine_AfterRestoreRequest_init_zero;
  msg.handle = request.handle;
  msg.boot_image = request.bootImage ? 1 : 0;
  return encode(&sw_wasmify_engine_AfterRestoreRequest_msg, msg);
}

Result<AfterRestoreRequest> decodeAfterRestoreRequest(std::string_view bytes) {
  sw_wasmify_engine_AfterRestoreRequest msg = sw_wasmify_engine_AfterRestoreRequest_init_zero;
  if (auto r = decode(bytes, &sw_wasmify_engine_AfterRestoreRequest_msg, msg); !r) return r.failure();
  return AfterRestoreRequest{msg.handle, msg.boot_image != 0};
}

std::string encodeAfterRestoreResponse(uint32_t ok) {
  sw_wasmify_engine_AfterRestoreResponse msg = sw_wasmify_engine_AfterRestoreResponse_init_zero;
  msg.ok = ok;
  return encode(&sw_wasmify_engine_AfterRestoreResponse_msg, msg);
}

Result<uint32_t> decodeAfterRestoreResponse(std::string_view bytes) {
  sw_wasmify_engine_AfterRestoreResponse msg = sw_wasmify_engine_AfterRestoreResponse_init_zero;
  if (auto r = decode(bytes, &sw_wasmify_engine_AfterRestoreResponse_msg, msg); !r) return r.failure();
  return msg.ok;
}

namespace {

// The engine's messages carry the handle as a u32.
Result<uint32_t> wireHandle(const Instance& instance) {
  if (instance.handle > UINT32_MAX) return engineFailure(kInvalidProtobuf);
  return uint32_t(instance.handle);
}

// Eval and SessionEval answer alike: the driver's `failure`, or an outcome, which is never empty.
template <typename Response>
Result<Response> evalAnswer(Result<std::string> response, Result<Response> (*decodeResponse)(std::string_view)) {
  if (!response) return response.failure();
  auto decoded = decodeResponse(response.value());
  if (!decoded) return decoded.failure();
  if (!decoded->failure.empty()) return engineFailure(decoded->failure);
  if (decoded->outcomeJson.empty()) return engineFailure(kInvalidProtobuf);
  return decoded;
}

Result<std::string> eval(Instance& instance, std::string_view code, std::string_view envJson) {
  auto handle = wireHandle(instance);
  if (!handle) return handle.failure();
  EvalRequest request{handle.value(), std::string(code), std::string(envJson)};
  auto answer = evalAnswer(instance.invoke(kEval, encodeEvalRequest(request)), decodeEvalResponse);
  if (!answer) return answer.failure();
  // A Wasm-metered engine's last partial batch (docs/fuel-tool.md): usage is exact and the budget holds.
  if (auto r = instance.guest.flushFuel(); !r) return r.failure();
  return std::move(answer->outcomeJson);
}

Result<SessionOutcome> sessionEval(Instance& instance, const ExecuteRequest& request) {
  auto handle = wireHandle(instance);
  if (!handle) return handle.failure();
  SessionEvalRequest r{handle.value(), std::string(request.code), std::string(request.envJson),
                       std::string(request.cwd)};
  auto answer = evalAnswer(instance.invoke(kSessionEval, encodeSessionEvalRequest(r)), decodeSessionEvalResponse);
  if (!answer) return answer.failure();
  if (auto f = instance.guest.flushFuel(); !f) return f.failure();
  return SessionOutcome{std::move(answer->outcomeJson), std::move(answer->cwd)};
}

// The host's meter must know the interrupt word of this instance: after a fresh boot and after a restore (the new
// WASI host has never seen it; the address itself is a static of the engine, the same in every instance).
Result<Unit> registerInterrupt(Instance& instance) {
  auto response = instance.invoke(kInterruptAddress, "");
  if (!response) return response.failure();
  auto address = decodeInterruptAddressResponse(response.value());
  if (!address) return address.failure();
  instance.guest.setFuelInterrupt(address.value());
  return Unit{};
}

// The engine's own re-seeding after its memory was written from a snapshot or the boot image.
Result<Unit> afterRestore(Instance& instance, bool bootImage) {
  auto handle = wireHandle(instance);
  if (!handle) return handle.failure();
  auto response = instance.invoke(kAfterRestore, encodeAfterRestoreRequest({handle.value(), bootImage}));
  if (!response) return response.failure();
  auto ok = decodeAfterRestoreResponse(response.value());
  if (!ok) return ok.failure();
  if (ok.value() != 1) return engineFailure(std::string(kMethodFailed) + ": AfterRestore");
  return Unit{};
}

}  // namespace

WasmifyDriver makeDriver(const Spec& spec) {
  WasmifyDriver d;
  d.language = spec.language;
  d.service = kService;
  d.initMethod = kNew;
  d.initRequest = [heap = spec.heapLimit, stack = spec.stackLimit] { return encodeNewRequest({heap, stack}); };
  d.initFailedMessage = spec.initFailedMessage;
  if (spec.interrupt) d.afterInit = registerInterrupt;
  d.afterRestore = [interrupt = spec.interrupt](Instance& instance, bool bootImage) -> Result<Unit> {
    if (interrupt) {
      if (auto r = registerInterrupt(instance); !r) return r.failure();
    }
    return afterRestore(instance, bootImage);
  };
  d.evaluate = [](Instance& instance, std::string_view code) { return eval(instance, code, ""); };
  d.runOnce = [](Instance& instance, const ExecuteRequest& request) {
    return eval(instance, request.code, request.envJson);
  };
  d.sessionExecute = sessionEval;  // no sessionBoot: the first SessionEval sets the handle up as a session
  return d;
}

}  // namespace sw::wasmify::engine
