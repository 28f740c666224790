#include "sqlite_native.h"

#include <sqlite3.h>

namespace sw::durable {

NativeSqlite::NativeSqlite(const std::string& path) {
  if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) {
    std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw SqlError("sqlite3_open: " + message);
  }
}

NativeSqlite::~NativeSqlite() { sqlite3_close(db_); }

void NativeSqlite::exec(std::string_view sql, std::initializer_list<SqlArg> args, std::vector<SqlRow>* rows) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_, sql.data(), int(sql.size()), &stmt, nullptr) != SQLITE_OK)
    throw SqlError(std::string("prepare: ") + sqlite3_errmsg(db_));
  ++statements_;
  int i = 1;
  for (const SqlArg& a : args) {
    switch (a.type) {
      case SqlValue::Type::Null: sqlite3_bind_null(stmt, i); break;
      case SqlValue::Type::Number: sqlite3_bind_double(stmt, i, a.number); break;
      case SqlValue::Type::Text:
        sqlite3_bind_text(stmt, i, a.bytes.data(), int(a.bytes.size()), SQLITE_TRANSIENT);
        break;
      case SqlValue::Type::Blob:
        sqlite3_bind_blob(stmt, i, a.bytes.data(), int(a.bytes.size()), SQLITE_TRANSIENT);
        break;
    }
    ++i;
  }
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    if (!rows) continue;
    SqlRow row;
    const int n = sqlite3_column_count(stmt);
    for (int c = 0; c < n; ++c) {
      SqlValue v;
      switch (sqlite3_column_type(stmt, c)) {
        case SQLITE_INTEGER:
        case SQLITE_FLOAT:
          v.type = SqlValue::Type::Number;
          v.number = sqlite3_column_double(stmt, c);
          break;
        case SQLITE_TEXT:
          v.type = SqlValue::Type::Text;
          v.bytes.assign(reinterpret_cast<const char*>(sqlite3_column_text(stmt, c)),
                         std::size_t(sqlite3_column_bytes(stmt, c)));
          break;
        case SQLITE_BLOB: {
          v.type = SqlValue::Type::Blob;
          const void* p = sqlite3_column_blob(stmt, c);
          if (p) v.bytes.assign(static_cast<const char*>(p), std::size_t(sqlite3_column_bytes(stmt, c)));
          break;
        }
        default: break;
      }
      row.push_back(std::move(v));
    }
    rows->push_back(std::move(row));
  }
  sqlite3_finalize(stmt);
  if (rc != SQLITE_DONE) throw SqlError(std::string("step: ") + sqlite3_errmsg(db_));
}

void NativeSqlite::transaction(const std::function<void()>& body) {
  // Nested calls join the outer transaction (the Durable Object's transactionSync nests the same way).
  if (depth_ > 0) {
    body();
    return;
  }
  exec("BEGIN", {});
  ++depth_;
  try {
    body();
  } catch (...) {
    --depth_;
    exec("ROLLBACK", {});
    throw;
  }
  --depth_;
  exec("COMMIT", {});
}

}  // namespace sw::durable
