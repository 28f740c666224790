#include "json.h"

#include <algorithm>

namespace sw::json {

Value Value::boolean(bool b) {
  Value v;
  v.type_ = Type::Bool;
  v.bool_ = b;
  return v;
}

Value Value::number(double d, std::string raw) {
  Value v;
  v.type_ = Type::Number;
  v.number_ = d;
  v.text_ = std::move(raw);
  return v;
}

Value Value::string(std::string s) {
  Value v;
  v.type_ = Type::String;
  v.text_ = std::move(s);
  return v;
}

Value Value::array() {
  Value v;
  v.type_ = Type::Array;
  return v;
}

Value Value::object() {
  Value v;
  v.type_ = Type::Object;
  return v;
}

const Value* Value::find(std::string_view key) const {
  for (const auto& m : members_)
    if (m.first == key) return &m.second;
  return nullptr;
}

void Value::set(std::string key, Value v) {
  for (auto& m : members_) {
    if (m.first == key) {
      m.second = std::move(v);
      return;
    }
  }
  members_.emplace_back(std::move(key), std::move(v));
}

namespace {
// A canonical array index: "0" or [1-9][0-9]* below 2^32 - 1.
bool arrayIndex(const std::string& k, uint64_t& out) {
  if (k.empty() || k.size() > 10) return false;
  if (k.size() > 1 && k[0] == '0') return false;
  uint64_t v = 0;
  for (char c : k) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + uint64_t(c - '0');
  }
  if (v >= 0xFFFFFFFFull) return false;
  out = v;
  return true;
}
}  // namespace

void Value::orderLikeJavaScript() {
  bool any = false;
  uint64_t ignored;
  for (const auto& m : members_)
    if (arrayIndex(m.first, ignored)) { any = true; break; }
  if (!any) return;
  std::stable_sort(members_.begin(), members_.end(), [](const Member& a, const Member& b) {
    uint64_t ia = 0, ib = 0;
    bool xa = arrayIndex(a.first, ia), xb = arrayIndex(b.first, ib);
    if (xa && xb) return ia < ib;
    return xa && !xb;
  });
}

}  // namespace sw::json
