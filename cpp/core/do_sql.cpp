// The Interpreter Durable Object's SQLite and alarm, reached through the core's imports (host_imports.js). The shim
// runs each statement with ctx.storage.sql.exec and hands the rows back in one buffer; transactions run the body
// inside ctx.storage.transactionSync by re-entering the core (sw_sql_transaction_body).
//
// Request:  u32 sql length, sql bytes, u32 argument count, per argument a tag byte (SQL_NULL, SQL_NUMBER: f64,
//           SQL_TEXT, SQL_BLOB: u32 length + bytes; cpp/abi/abi.def) then its payload.
// Answer (a buffer the shim allocates with _malloc; the core frees it): u32 length of the rest, u32 status (SQL_OK,
//           SQL_FAILED), then for a failure u32 length + message, else u32 row count, u32 column count, and per value
//           a tag byte (as above) and its payload.
#include "do_sql.h"

#include <emscripten/emscripten.h>

#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>

#include "byte_reader.h"

extern "C" {
uint32_t sw_host_sql_exec(uint32_t storage, const char* request, uint32_t len);
uint32_t sw_host_sql_transaction(uint32_t storage, uint32_t cookie);
void sw_host_alarm_set(uint32_t storage, double epochMs);
void sw_host_alarm_delete(uint32_t storage);
}

namespace sw::core {

namespace {

void putU32(std::string& out, uint32_t v) {
  char b[4];
  std::memcpy(b, &v, 4);  // wasm32 is little-endian
  out.append(b, 4);
}


struct Transaction {
  const std::function<void()>* body;
  std::exception_ptr error;
};

}  // namespace

void JsSql::exec(std::string_view sql, std::initializer_list<durable::SqlArg> args, std::vector<durable::SqlRow>* rows) {
  std::string& req = request_;
  req.clear();
  putU32(req, uint32_t(sql.size()));
  req.append(sql);
  putU32(req, uint32_t(args.size()));
  for (const auto& a : args) {
    req.push_back(char(a.type));
    switch (a.type) {
      case durable::SqlValue::Type::Null: break;
      case durable::SqlValue::Type::Number: {
        char b[8];
        std::memcpy(b, &a.number, 8);
        req.append(b, 8);
        break;
      }
      case durable::SqlValue::Type::Text:
      case durable::SqlValue::Type::Blob:
        putU32(req, uint32_t(a.bytes.size()));
        req.append(a.bytes);
        break;
    }
  }
  const uint32_t answer = sw_host_sql_exec(storage_, req.data(), uint32_t(req.size()));
  if (req.capacity() > (1u << 20)) std::string().swap(req);  // do not keep a chunk-sized buffer around
  if (answer == 0) throw durable::SqlError("SQLite bridge failed");
  std::unique_ptr<uint8_t, decltype(&std::free)> owned(reinterpret_cast<uint8_t*>(uintptr_t(answer)), &std::free);
  uint32_t total;
  std::memcpy(&total, owned.get(), 4);
  sw::core::ByteReader r{owned.get() + 4, owned.get() + 4 + total};
  uint32_t status;
  if (!r.u32(status)) throw durable::SqlError("SQLite bridge: truncated answer");
  if (status != sw::abi::SQL_OK) {
    std::string message;
    r.bytes(message);
    throw durable::SqlError(message.empty() ? "SQLite error" : message);
  }
  uint32_t rowCount, colCount;
  if (!r.u32(rowCount) || !r.u32(colCount)) throw durable::SqlError("SQLite bridge: truncated answer");
  if (!rows) return;
  for (uint32_t i = 0; i < rowCount; ++i) {
    durable::SqlRow row;
    row.reserve(colCount);
    for (uint32_t c = 0; c < colCount; ++c) {
      if (r.p >= r.end) throw durable::SqlError("SQLite bridge: truncated answer");
      durable::SqlValue v;
      v.type = durable::SqlValue::Type(*r.p++);
      bool ok = true;
      switch (v.type) {
        case durable::SqlValue::Type::Null: break;
        case durable::SqlValue::Type::Number: ok = r.f64(v.number); break;
        case durable::SqlValue::Type::Text:
        case durable::SqlValue::Type::Blob: ok = r.bytes(v.bytes); break;
        default: ok = false;
      }
      if (!ok) throw durable::SqlError("SQLite bridge: truncated answer");
      row.push_back(std::move(v));
    }
    rows->push_back(std::move(row));
  }
}

void JsSql::transaction(const std::function<void()>& body) {
  if (depth_ > 0) {  // nested: part of the outer transaction
    body();
    return;
  }
  Transaction t{&body, nullptr};
  ++depth_;
  const uint32_t rc = sw_host_sql_transaction(storage_, uint32_t(reinterpret_cast<uintptr_t>(&t)));
  --depth_;
  if (t.error) std::rethrow_exception(t.error);
  if (rc != 0) throw durable::SqlError("SQLite transaction failed");
}

void JsAlarm::set(double epochMs) { sw_host_alarm_set(storage_, epochMs); }
void JsAlarm::remove() { sw_host_alarm_delete(storage_); }

}  // namespace sw::core

extern "C" {
// Called by the shim from inside ctx.storage.transactionSync: runs the body; non-zero makes the shim throw, which
// rolls the transaction back.
EMSCRIPTEN_KEEPALIVE uint32_t sw_sql_transaction_body(uint32_t cookie) {
  auto* t = reinterpret_cast<sw::core::Transaction*>(uintptr_t(cookie));
  try {
    (*t->body)();
    return 0;
  } catch (...) {
    t->error = std::current_exception();
    return 1;
  }
}
}
