#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "json.h"

namespace sw::json {

void Writer::separate() {
  if (afterKey_) {
    afterKey_ = false;
    return;
  }
  if (!stack_.empty()) {
    if (stack_.back()) out_.push_back(',');
    stack_.back() = true;
  }
}

Writer& Writer::beginObject() {
  separate();
  out_.push_back('{');
  stack_.push_back(false);
  return *this;
}

Writer& Writer::endObject() {
  out_.push_back('}');
  stack_.pop_back();
  return *this;
}

Writer& Writer::beginArray() {
  separate();
  out_.push_back('[');
  stack_.push_back(false);
  return *this;
}

Writer& Writer::endArray() {
  out_.push_back(']');
  stack_.pop_back();
  return *this;
}

Writer& Writer::key(std::string_view k) {
  separate();
  out_.push_back('"');
  appendEscaped(out_, k);
  out_ += "\":";
  afterKey_ = true;
  return *this;
}

Writer& Writer::string(std::string_view s) {
  separate();
  out_.push_back('"');
  appendEscaped(out_, s);
  out_.push_back('"');
  return *this;
}

Writer& Writer::number(double d) {
  separate();
  out_ += formatNumber(d);
  return *this;
}

Writer& Writer::integer(int64_t i) {
  separate();
  out_ += std::to_string(i);
  return *this;
}

Writer& Writer::boolean(bool b) {
  separate();
  out_ += b ? "true" : "false";
  return *this;
}

Writer& Writer::null() {
  separate();
  out_ += "null";
  return *this;
}

Writer& Writer::raw(std::string_view json) {
  separate();
  out_.append(json);
  return *this;
}

Writer& Writer::members(std::string_view objectJson) {
  if (objectJson.size() <= 2) return *this;  // "{}": nothing to add
  separate();
  out_.append(objectJson.substr(1, objectJson.size() - 2));
  return *this;
}

Writer& Writer::value(const Value& v) {
  switch (v.type()) {
    case Type::Null: return null();
    case Type::Bool: return boolean(v.asBool());
    case Type::Number:
      return v.rawNumber().empty() ? number(v.asNumber()) : raw(v.rawNumber());
    case Type::String: return string(v.asString());
    case Type::Array:
      beginArray();
      for (const auto& item : v.items()) value(item);
      return endArray();
    case Type::Object:
      beginObject();
      for (const auto& m : v.members()) {
        key(m.first);
        value(m.second);
      }
      return endObject();
  }
  return *this;
}

std::string stringify(const Value& v) {
  std::string out;
  Writer(out).value(v);
  return out;
}

std::string quote(std::string_view s) {
  std::string out;
  Writer(out).string(s);
  return out;
}

const Value* member(const Value& v, std::string_view key) { return v.isObject() ? v.find(key) : nullptr; }

std::string stringOr(const Value* v, std::string_view fallback) {
  return v && v->isString() ? v->asString() : std::string(fallback);
}

double numberOr(const Value* v, double fallback) { return v && v->isNumber() ? v->asNumber() : fallback; }

std::string formatNumber(double d) {
  if (!std::isfinite(d)) return "null";  // what JSON.stringify does with NaN and ±Infinity
  if (d == 0) return "0";
  if (std::fabs(d) < 1e21 && d == std::trunc(d) && std::fabs(d) < 9007199254740992.0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", d);
    return buf;
  }
  // Shortest digit string that round-trips, then ECMAScript Number::toString layout.
  char buf[40];
  int precision = 1;
  for (; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*e", precision - 1, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  std::string s(buf);
  bool negative = s[0] == '-';
  if (negative) s.erase(0, 1);
  auto ePos = s.find('e');
  int exponent = std::atoi(s.c_str() + ePos + 1);
  std::string digits;
  for (std::size_t i = 0; i < ePos; ++i)
    if (s[i] != '.') digits.push_back(s[i]);
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  const int k = int(digits.size());
  const int n = exponent + 1;  // decimal point position
  std::string out = negative ? "-" : "";
  if (k <= n && n <= 21) {
    out += digits + std::string(std::size_t(n - k), '0');
  } else if (0 < n && n <= 21) {
    out += digits.substr(0, std::size_t(n)) + "." + digits.substr(std::size_t(n));
  } else if (-6 < n && n <= 0) {
    out += "0." + std::string(std::size_t(-n), '0') + digits;
  } else {
    out += digits.substr(0, 1);
    if (k > 1) out += "." + digits.substr(1);
    out += (n - 1 >= 0) ? "e+" : "e-";
    out += std::to_string(std::abs(n - 1));
  }
  return out;
}

}  // namespace sw::json
