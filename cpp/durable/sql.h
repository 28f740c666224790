// cpp/durable: the storage every Durable Object of the core keeps its state in (the Interpreter, protocol §4.6; the
// caller's Sandbox, §7.10; the gateway's Limiter).
//
// Each speaks SQL to an abstract Sql: in the Worker that is the Durable Object's own SQLite
// (ctx.storage.sql, reached through two imports of the core, cpp/core/do_sql.cpp); in Node tests it is node:sqlite
// behind the same imports (./testing's createTestState); natively it is libsqlite3 (sqlite_native.cpp, unit tests).
// All three are SQLite, so the statements are written once, here in C++.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "../abi/abi.h"

namespace sw::durable {

struct SqlValue {
  // The tags of the shim's SQL bridge (cpp/core/do_sql.cpp) too.
  enum class Type : uint8_t {
    Null = abi::SQL_NULL,
    Number = abi::SQL_NUMBER,
    Text = abi::SQL_TEXT,
    Blob = abi::SQL_BLOB,
  };
  Type type = Type::Null;
  double number = 0;
  std::string bytes;  // Text (UTF-8) or Blob

  bool isNull() const { return type == Type::Null; }
};
using SqlRow = std::vector<SqlValue>;

// A positional argument of a statement (`?`). Text and blobs are views: valid for the duration of exec().
struct SqlArg {
  SqlValue::Type type = SqlValue::Type::Null;
  double number = 0;
  std::string_view bytes;

  static SqlArg null() { return {}; }
  static SqlArg num(double v) { return {SqlValue::Type::Number, v, {}}; }
  static SqlArg text(std::string_view s) { return {SqlValue::Type::Text, 0, s}; }
  static SqlArg blob(std::string_view b) { return {SqlValue::Type::Blob, 0, b}; }
};

class SqlError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Sql {
 public:
  virtual ~Sql() = default;
  // Runs one statement; its result rows are appended to *rows when rows is non-null. Throws SqlError.
  virtual void exec(std::string_view sql, std::initializer_list<SqlArg> args, std::vector<SqlRow>* rows = nullptr) = 0;
  // Runs body() in one transaction: committed when it returns, rolled back when it throws (the exception is rethrown).
  virtual void transaction(const std::function<void()>& body) = 0;
};

// The Durable Object alarm. set/remove may complete asynchronously (the platform's output gate holds the response
// until they are durable); its owner caches the deadline it armed (protocol §4.7).
class Alarm {
 public:
  virtual ~Alarm() = default;
  virtual void set(double epochMs) = 0;
  virtual void remove() = 0;
};

}  // namespace sw::durable
