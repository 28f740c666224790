#include <cstdlib>
#include <cstring>

#include "json.h"
#include "simdjson.h"

namespace sw::json {

namespace od = simdjson::ondemand;

namespace {

bool isWs(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string_view trimToken(std::string_view t) {
  while (!t.empty() && isWs(t.back())) t.remove_suffix(1);
  return t;
}

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool readHex4(const char*& p, uint32_t& out) {
  out = 0;
  for (int i = 0; i < 4; ++i) {
    int h = hexDigit(p[i]);
    if (h < 0) return false;
    out = (out << 4) | uint32_t(h);
  }
  p += 4;
  return true;
}

// Decodes the string literal whose contents start at `p` (just past the opening quote). The input was already
// structurally validated by simdjson's stage 1 (quotes balance, UTF-8 is valid), and is padded, so scanning to the
// closing quote is safe. Escapes are validated here; lone surrogates become WTF-8.
bool unescape(const char* p, std::string& out) {
  out.clear();
  for (;;) {
    const char* run = p;
    while (*p != '"' && *p != '\\' && static_cast<unsigned char>(*p) >= 0x20) ++p;
    out.append(run, std::size_t(p - run));
    char c = *p;
    if (c == '"') return true;
    if (c != '\\') return false;  // a raw control character
    ++p;
    switch (*p++) {
      case '"': out.push_back('"'); break;
      case '\\': out.push_back('\\'); break;
      case '/': out.push_back('/'); break;
      case 'b': out.push_back('\b'); break;
      case 'f': out.push_back('\f'); break;
      case 'n': out.push_back('\n'); break;
      case 'r': out.push_back('\r'); break;
      case 't': out.push_back('\t'); break;
      case 'u': {
        uint32_t cp;
        if (!readHex4(p, cp)) return false;
        if (cp >= 0xD800 && cp <= 0xDBFF && p[0] == '\\' && p[1] == 'u') {
          const char* q = p + 2;
          uint32_t low;
          if (readHex4(q, low) && low >= 0xDC00 && low <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            p = q;
          }
        }
        appendCodePoint(out, cp);
        break;
      }
      default:
        return false;
    }
  }
}

bool validNumber(std::string_view t) {
  std::size_t i = 0, n = t.size();
  if (i < n && t[i] == '-') ++i;
  if (i >= n) return false;
  if (t[i] == '0') {
    ++i;
  } else if (t[i] >= '1' && t[i] <= '9') {
    while (i < n && t[i] >= '0' && t[i] <= '9') ++i;
  } else {
    return false;
  }
  if (i < n && t[i] == '.') {
    ++i;
    std::size_t start = i;
    while (i < n && t[i] >= '0' && t[i] <= '9') ++i;
    if (i == start) return false;
  }
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < n && (t[i] == '+' || t[i] == '-')) ++i;
    std::size_t start = i;
    while (i < n && t[i] >= '0' && t[i] <= '9') ++i;
    if (i == start) return false;
  }
  return i == n;
}

ParseError fromSimdjson(simdjson::error_code e) {
  switch (e) {
    case simdjson::SUCCESS: return ParseError::None;
    case simdjson::UTF8_ERROR: return ParseError::Utf8;
    case simdjson::DEPTH_ERROR: return ParseError::Depth;
    case simdjson::CAPACITY: return ParseError::Capacity;
    default: return ParseError::Syntax;
  }
}

// Scalar token (atom or number) to a Value.
ParseError scalarFromToken(std::string_view token, Value& out) {
  token = trimToken(token);
  if (token == "true") { out = Value::boolean(true); return ParseError::None; }
  if (token == "false") { out = Value::boolean(false); return ParseError::None; }
  if (token == "null") { out = Value::null(); return ParseError::None; }
  if (!validNumber(token)) return ParseError::Syntax;
  std::string raw(token);
  double d = std::strtod(raw.c_str(), nullptr);  // overflow gives ±HUGE_VAL, like JSON.parse's Infinity
  out = Value::number(d, std::move(raw));
  return ParseError::None;
}

ParseError stringFrom(od::raw_json_string raw, Value& out) {
  std::string s;
  if (!unescape(raw.raw(), s)) return ParseError::Syntax;
  out = Value::string(std::move(s));
  return ParseError::None;
}

ParseError walk(od::value v, Value& out, std::size_t depth);

ParseError walkObject(od::object obj, Value& out, std::size_t depth) {
  out = Value::object();
  for (auto field : obj) {
    od::raw_json_string rawKey;
    if (auto e = field.key().get(rawKey)) return fromSimdjson(e);
    std::string key;
    if (!unescape(rawKey.raw(), key)) return ParseError::Syntax;
    od::value child;
    if (auto e = field.value().get(child)) return fromSimdjson(e);
    Value v;
    if (auto e = walk(child, v, depth + 1); e != ParseError::None) return e;
    out.append(std::move(key), std::move(v));
  }
  out.dedupeKeys();
  out.orderLikeJavaScript();
  return ParseError::None;
}

ParseError walkArray(od::array arr, Value& out, std::size_t depth) {
  out = Value::array();
  for (auto element : arr) {
    od::value child;
    if (auto e = element.get(child)) return fromSimdjson(e);
    Value v;
    if (auto e = walk(child, v, depth + 1); e != ParseError::None) return e;
    out.push(std::move(v));
  }
  return ParseError::None;
}

ParseError walk(od::value v, Value& out, std::size_t depth) {
  if (depth > kMaxDepth) return ParseError::Depth;
  od::json_type t;
  if (auto e = v.type().get(t)) return fromSimdjson(e);
  switch (t) {
    case od::json_type::object: {
      od::object obj;
      if (auto e = v.get_object().get(obj)) return fromSimdjson(e);
      return walkObject(obj, out, depth);
    }
    case od::json_type::array: {
      od::array arr;
      if (auto e = v.get_array().get(arr)) return fromSimdjson(e);
      return walkArray(arr, out, depth);
    }
    case od::json_type::string: {
      od::raw_json_string raw;
      if (auto e = v.get_raw_json_string().get(raw)) return fromSimdjson(e);
      return stringFrom(raw, out);
    }
    default:
      return scalarFromToken(v.raw_json_token(), out);
  }
}

od::parser& sharedParser() {
  // One parser per core instance: parsing is synchronous, so requests never interleave inside it.
  static od::parser parser;
  return parser;
}

}  // namespace

ParseResult parsePadded(const char* data, std::size_t len) {
  ParseResult result;
  auto& parser = sharedParser();
  od::document doc;
  if (auto e = parser.iterate(data, len, len + kPadding).get(doc)) {
    result.error = fromSimdjson(e);
    return result;
  }
  bool scalar = false;
  if (auto e = doc.is_scalar().get(scalar)) {
    result.error = fromSimdjson(e);
    return result;
  }
  ParseError err;
  if (scalar) {
    od::json_type t;
    if (auto e = doc.type().get(t)) {
      result.error = fromSimdjson(e);
      return result;
    }
    std::size_t end = 0;  // offset just past the scalar token
    if (t == od::json_type::string) {
      od::raw_json_string raw;
      if (auto e = doc.get_raw_json_string().get(raw)) {
        result.error = fromSimdjson(e);
        return result;
      }
      err = stringFrom(raw, result.value);
      // find the unescaped closing quote
      end = std::size_t(raw.raw() - data);
      while (end < len && data[end] != '"') end += data[end] == '\\' ? 2 : 1;
      ++end;
    } else {
      std::string_view token;
      if (auto e = doc.raw_json_token().get(token)) {
        result.error = fromSimdjson(e);
        return result;
      }
      err = scalarFromToken(token, result.value);
      end = std::size_t(token.data() - data) + trimToken(token).size();
    }
    // A scalar document must be the only token: anything after it is a second value.
    while (end < len && isWs(data[end])) ++end;
    if (err == ParseError::None && end != len) err = ParseError::Syntax;
  } else {
    od::value root;
    if (auto e = doc.get_value().get(root)) {
      result.error = fromSimdjson(e);
      return result;
    }
    err = walk(root, result.value, 1);
    // Everything must have been consumed: current_location() is out of bounds exactly at the end.
    const char* location = nullptr;
    if (err == ParseError::None && doc.current_location().get(location) != simdjson::OUT_OF_BOUNDS)
      err = ParseError::Syntax;
  }
  result.error = err;
  if (!result.ok()) result.value = Value();
  return result;
}

ParseResult parseCopy(std::string_view text) {
  std::string padded;
  padded.reserve(text.size() + kPadding);
  padded.append(text);
  padded.append(kPadding, '\0');
  return parsePadded(padded.data(), text.size());
}

}  // namespace sw::json
