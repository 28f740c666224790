// durable::Sql and durable::Alarm over the Durable Object's storage, through the core's imports (see do_sql.cpp).
#pragma once

#include <cstdint>
#include <string>

#include "../durable/sql.h"

namespace sw::core {

class JsSql final : public durable::Sql {
 public:
  explicit JsSql(uint32_t storage) : storage_(storage) {}
  void exec(std::string_view sql, std::initializer_list<durable::SqlArg> args,
            std::vector<durable::SqlRow>* rows = nullptr) override;
  void transaction(const std::function<void()>& body) override;

 private:
  uint32_t storage_;
  int depth_ = 0;
  std::string request_;
};

class JsAlarm final : public durable::Alarm {
 public:
  explicit JsAlarm(uint32_t storage) : storage_(storage) {}
  void set(double epochMs) override;
  void remove() override;

 private:
  uint32_t storage_;
};

}  // namespace sw::core
