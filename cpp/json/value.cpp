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

void Value::dedupeKeys() {
  const std::size_t n = members_.size();
  if (n < 2) return;
  std::vector<uint32_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = uint32_t(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return members_[a].first < members_[b].first; });
  std::vector<bool> drop(n, false);
  bool any = false;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i + 1;
    while (j < n && members_[order[j]].first == members_[order[i]].first) ++j;
    if (j - i > 1) {
      // The first occurrence keeps its position, the last one's value wins (JavaScript object semantics).
      members_[order[i]].second = std::move(members_[order[j - 1]].second);
      for (std::size_t k = i + 1; k < j; ++k) drop[order[k]] = true;
      any = true;
    }
    i = j;
  }
  if (!any) return;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (drop[i]) continue;
    if (kept != i) members_[kept] = std::move(members_[i]);
    ++kept;
  }
  members_.resize(kept);
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
