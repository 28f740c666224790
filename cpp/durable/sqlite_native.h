// A native Sql over libsqlite3 (unit tests only; the Worker uses the Durable Object's SQLite through the core's
// imports). Same engine, so the Durable Objects' statements are tested as they run in production.
#pragma once

#include <memory>
#include <string>

#include "sql.h"

struct sqlite3;

namespace sw::durable {

class NativeSqlite final : public Sql {
 public:
  // path ":memory:" or a file (two instances over one file = a Durable Object evicted and recreated).
  explicit NativeSqlite(const std::string& path);
  ~NativeSqlite() override;
  void exec(std::string_view sql, std::initializer_list<SqlArg> args, std::vector<SqlRow>* rows = nullptr) override;
  void transaction(const std::function<void()>& body) override;
  // Statements run since construction (tests count writes).
  uint64_t statements() const { return statements_; }

 private:
  sqlite3* db_ = nullptr;
  int depth_ = 0;
  uint64_t statements_ = 0;
};

}  // namespace sw::durable
