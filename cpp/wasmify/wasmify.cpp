// The language-neutral half of cpp/wasmify: the message subset, invoke, and the interpreter host (wasmify.h).
#include "wasmify.h"

#include "../server/server.h"

namespace sw::wasmify {

// --- GuestCaller defaults ---------------------------------------------------------------------------------------

Result<uint32_t> GuestCaller::alloc(uint32_t len) {
  auto r = call("wasm_alloc", {len});
  if (!r) return r.failure();
  uint32_t ptr = uint32_t(r.value());
  if (ptr == 0) return engineFailure(std::string(kMethodFailed) + ": wasm_alloc");
  return ptr;
}

Result<Unit> GuestCaller::free(uint32_t ptr) {
  auto r = call("wasm_free", {ptr});
  if (!r) return r.failure();
  return Unit{};
}

// --- messages ---------------------------------------------------------------------------------------------------

namespace {

enum class VarintStatus { Ok, Overflow, Truncated };

VarintStatus readVarint(std::string_view in, std::size_t& pos, uint64_t& value) {
  value = 0;
  for (unsigned shift = 0;; shift += 7) {
    if (pos >= in.size()) return VarintStatus::Truncated;
    uint8_t b = uint8_t(in[pos++]);
    if (shift == 63 && (b & 0x7f) > 1) return VarintStatus::Overflow;  // bits beyond 64
    value |= uint64_t(b & 0x7f) << shift;
    if (!(b & 0x80)) return VarintStatus::Ok;
    if (shift == 63) return VarintStatus::Overflow;  // an 11th byte
  }
}

}  // namespace

Result<std::vector<Field>> parseMessage(std::string_view message) {
  std::vector<Field> fields;
  std::size_t pos = 0;
  while (pos < message.size()) {
    uint64_t key = 0;
    switch (readVarint(message, pos, key)) {
      case VarintStatus::Overflow: return engineFailure(kInvalidProtobuf);
      case VarintStatus::Truncated: return engineFailure(kTruncatedProtobuf);
      case VarintStatus::Ok: break;
    }
    Field f;
    f.wireType = uint8_t(key & 7);
    uint64_t number = key >> 3;
    if (number == 0 || number > 0x1fffffff) return engineFailure(kInvalidProtobuf);
    f.number = uint32_t(number);
    if (f.wireType == 0) {
      switch (readVarint(message, pos, f.varint)) {
        case VarintStatus::Overflow: return engineFailure(kInvalidProtobuf);
        case VarintStatus::Truncated: return engineFailure(kTruncatedProtobufField);
        case VarintStatus::Ok: break;
      }
    } else if (f.wireType == 2) {
      uint64_t len = 0;
      switch (readVarint(message, pos, len)) {
        case VarintStatus::Overflow: return engineFailure(kInvalidProtobuf);
        case VarintStatus::Truncated: return engineFailure(kTruncatedProtobufField);
        case VarintStatus::Ok: break;
      }
      if (len > message.size() - pos) return engineFailure(kTruncatedProtobufField);
      f.bytes = message.substr(pos, std::size_t(len));
      pos += std::size_t(len);
    } else {
      return engineFailure(kUnsupportedProtobufField);
    }
    fields.push_back(f);
  }
  return fields;
}

const Field* findField(const std::vector<Field>& fields, uint32_t number) {
  const Field* found = nullptr;
  for (const auto& f : fields) {
    if (f.number == number) found = &f;
  }
  return found;
}

void MessageWriter::putVarint(uint64_t v) {
  while (v >= 0x80) {
    out_.push_back(char(uint8_t(v) | 0x80));
    v >>= 7;
  }
  out_.push_back(char(uint8_t(v)));
}

MessageWriter& MessageWriter::varint(uint32_t field, uint64_t value) {
  putVarint(uint64_t(field) << 3);
  putVarint(value);
  return *this;
}

MessageWriter& MessageWriter::bytes(uint32_t field, std::string_view value) {
  putVarint((uint64_t(field) << 3) | 2);
  putVarint(value.size());
  out_.append(value);
  return *this;
}

std::string methodExport(uint32_t service, uint32_t method) {
  return "w_" + std::to_string(service) + "_" + std::to_string(method);
}

// --- invoke -----------------------------------------------------------------------------------------------------

Result<std::string> invoke(GuestCaller& guest, uint32_t service, uint32_t method, std::string_view request) {
  const std::string name = methodExport(service, method);
  if (request.size() > UINT32_MAX) return engineFailure(kInvalidProtobuf);
  const uint32_t len = uint32_t(request.size());
  auto ptr = guest.alloc(len);
  if (!ptr) return ptr.failure();
  if (len && !guest.write(ptr.value(), request.data(), len)) {
    return engineFailure(std::string(kMethodFailed) + ": request outside guest memory");
  }
  auto packed = guest.call(name, {ptr.value(), len});
  if (!packed) return packed.failure();  // the instance is gone: nothing more to free
  if (auto freed = guest.free(ptr.value()); !freed) return freed.failure();
  const uint32_t outPtr = uint32_t(packed.value() >> 32);
  const uint32_t outLen = uint32_t(packed.value());
  if (packed.value() == 0) return engineFailure(std::string(kMethodFailed) + ": " + name);
  if (outLen > kMaxResponseBytes) {
    (void)guest.free(outPtr);
    return engineFailure(kResponseLimitExceeded);
  }
  std::string response(outLen, '\0');
  if (outLen && !guest.read(outPtr, response.data(), outLen)) return engineFailure(kTruncatedProtobuf);
  if (auto freed = guest.free(outPtr); !freed) return freed.failure();
  return response;
}

// --- the interpreter host ---------------------------------------------------------------------------------------

Result<Instance> bootInstance(GuestCaller& guest, const WasmifyDriver& driver) {
  if (!guest.canBoot()) return engineFailure(kNoDataSegments);
  if (auto r = guest.call("_initialize", {}); !r) return r.failure();
  if (driver.boot) {
    auto handle = driver.boot(guest);
    if (!handle) return handle.failure();
    if (handle.value() == 0) return engineFailure(driver.initFailedMessage);
    Instance instance{guest, driver.service, handle.value()};
    if (driver.afterInit) {
      if (auto r = driver.afterInit(instance); !r) return r.failure();
    }
    return instance;
  }
  if (auto r = guest.call("wasm_init", {}); !r) return r.failure();
  auto response = invoke(guest, driver.service, driver.initMethod, driver.initRequest ? driver.initRequest() : "");
  if (!response) return response.failure();
  auto fields = parseMessage(response.value());
  if (!fields) return fields.failure();
  const Field* handle = findField(fields.value(), 1);
  if (handle && handle->wireType != 0) return engineFailure(kInvalidProtobuf);
  if (!handle || handle->varint == 0) return engineFailure(driver.initFailedMessage);
  Instance instance{guest, driver.service, handle->varint};
  if (driver.afterInit) {
    if (auto r = driver.afterInit(instance); !r) return r.failure();
  }
  return instance;
}

Result<std::string> runWasmify(GuestCaller& guest, const WasmifyDriver& driver, const ExecuteRequest& request) {
  if (!driver.runOnce) return engineFailure("Stateless execution is not supported");
  auto instance = bootInstance(guest, driver);
  if (!instance) return instance.failure();
  return driver.runOnce(instance.value(), request);
}

Result<SessionOutcome> WasmifySession::execute(const WasmifyDriver& driver, const ExecuteRequest& request) {
  auto call = begin(driver, request);
  if (!call) return call.failure();
  return end(driver.sessionExecute(instance, call.value()));
}

Result<ExecuteRequest> WasmifySession::begin(const WasmifyDriver& driver, const ExecuteRequest& request) {
  if (invalid) return engineFailure("Session instance is invalid");
  if (!driver.sessionExecute) return engineFailure("Sessions are not supported");
  instance.guest.resetFuel(fuel);
  ExecuteRequest call = request;
  call.cwd = cwd;
  return call;
}

Result<SessionOutcome> WasmifySession::end(Result<SessionOutcome> out) {
  if (!out) {
    // The call itself failed: the instance cannot be trusted (a trap unwound the guest mid-way, or the guest broke the
    // protocol). protocol §5.2: execute reports limits and errors as outcomes; the server drops the invalid instance.
    invalid = true;
    const char* name = out.failure().kind == FailureKind::Limit ? "ExecutionLimitError" : "EngineError";
    return SessionOutcome{server::failedOutcomeJson(name, out.failure().message, cwd), cwd};
  }
  if (!out->cwd.empty()) cwd = out->cwd;
  return out;
}

Result<WasmifySession> bootWasmifySession(GuestCaller& guest, const WasmifyDriver& driver,
                                          const SessionOptions& options) {
  if (!driver.sessionExecute) return engineFailure("Sessions are not supported");
  guest.resetFuel(options.fuel);
  auto instance = bootInstance(guest, driver);
  if (!instance) return instance.failure();
  WasmifySession session{instance.value(), options.cwd, options.fuel};
  if (!driver.sessionBoot.empty()) {
    if (!driver.evaluate) return engineFailure("Sessions are not supported");
    if (auto r = driver.evaluate(session.instance, driver.sessionBoot); !r) return r.failure();
  }
  return session;
}

Result<WasmifySession> restoreWasmifySession(GuestCaller& guest, const WasmifyDriver& driver,
                                             const SessionSnapshot& snapshot, const SessionOptions& options) {
  if (!driver.sessionExecute) return engineFailure("Sessions are not supported");
  if (snapshot.handle == 0) return engineFailure(driver.initFailedMessage);
  guest.resetFuel(options.fuel);
  WasmifySession session{Instance{guest, driver.service, snapshot.handle}, options.cwd, options.fuel};
  if (driver.afterRestore) {
    if (auto r = driver.afterRestore(session.instance, snapshot.bootImage); !r) return r.failure();
  }
  return session;
}

}  // namespace sw::wasmify
