#include "json.h"

namespace sw::json {

namespace {

// Decodes one WTF-8 sequence at s[i]. Returns the code point, or 0xFFFFFFFF for an invalid byte
// (consuming one byte). `len` receives the bytes consumed.
uint32_t decode(std::string_view s, std::size_t i, std::size_t& len, bool allowSurrogates) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  len = 1;
  if (b0 < 0x80) return b0;
  auto cont = [&](std::size_t k) -> int {
    if (i + k >= s.size()) return -1;
    const auto b = static_cast<unsigned char>(s[i + k]);
    return (b & 0xC0) == 0x80 ? (b & 0x3F) : -1;
  };
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    int c1 = cont(1);
    if (c1 < 0) return 0xFFFFFFFF;
    len = 2;
    return ((b0 & 0x1Fu) << 6) | uint32_t(c1);
  }
  if (b0 >= 0xE0 && b0 <= 0xEF) {
    int c1 = cont(1), c2 = c1 < 0 ? -1 : cont(2);
    if (c1 < 0 || c2 < 0) return 0xFFFFFFFF;
    uint32_t cp = ((b0 & 0x0Fu) << 12) | (uint32_t(c1) << 6) | uint32_t(c2);
    if (cp < 0x800) return 0xFFFFFFFF;                                    // overlong
    if (!allowSurrogates && cp >= 0xD800 && cp <= 0xDFFF) return 0xFFFFFFFF;
    len = 3;
    return cp;
  }
  if (b0 >= 0xF0 && b0 <= 0xF4) {
    int c1 = cont(1), c2 = c1 < 0 ? -1 : cont(2), c3 = c2 < 0 ? -1 : cont(3);
    if (c1 < 0 || c2 < 0 || c3 < 0) return 0xFFFFFFFF;
    uint32_t cp = ((b0 & 0x07u) << 18) | (uint32_t(c1) << 12) | (uint32_t(c2) << 6) | uint32_t(c3);
    if (cp < 0x10000 || cp > 0x10FFFF) return 0xFFFFFFFF;
    len = 4;
    return cp;
  }
  return 0xFFFFFFFF;
}

bool isJsWhitespace(uint32_t cp) {
  switch (cp) {
    case 0x09: case 0x0A: case 0x0B: case 0x0C: case 0x0D: case 0x20: case 0xA0: case 0x1680:
    case 0x2028: case 0x2029: case 0x202F: case 0x205F: case 0x3000: case 0xFEFF:
      return true;
    default:
      return cp >= 0x2000 && cp <= 0x200A;
  }
}

}  // namespace

void appendCodePoint(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(char(cp));
  } else if (cp < 0x800) {
    out.push_back(char(0xC0 | (cp >> 6)));
    out.push_back(char(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(char(0xE0 | (cp >> 12)));
    out.push_back(char(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(char(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(char(0xF0 | (cp >> 18)));
    out.push_back(char(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(char(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(char(0x80 | (cp & 0x3F)));
  }
}

std::size_t utf8EncodedLength(std::string_view s) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t len;
    uint32_t cp = decode(s, i, len, true);
    n += cp == 0xFFFFFFFF ? 3 : len;  // an invalid byte would be replaced by U+FFFD
    i += len;
  }
  return n;
}

std::size_t utf16Length(std::string_view s) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t len;
    uint32_t cp = decode(s, i, len, true);
    n += (cp != 0xFFFFFFFF && cp >= 0x10000) ? 2 : 1;
    i += len;
  }
  return n;
}

std::string truncateUtf16(std::string_view s, std::size_t maxUnits) {
  std::size_t units = 0, i = 0;
  while (i < s.size()) {
    std::size_t len;
    uint32_t cp = decode(s, i, len, true);
    std::size_t u = (cp != 0xFFFFFFFF && cp >= 0x10000) ? 2 : 1;
    if (units + u > maxUnits) break;
    units += u;
    i += len;
  }
  return std::string(s.substr(0, i));
}

bool isBlankJs(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    std::size_t len;
    uint32_t cp = decode(s, i, len, true);
    if (cp == 0xFFFFFFFF || !isJsWhitespace(cp)) return false;
    i += len;
  }
  return true;
}

bool isValidUtf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    std::size_t len;
    if (decode(s, i, len, false) == 0xFFFFFFFF) return false;
    i += len;
  }
  return true;
}

void appendEscaped(std::string& out, std::string_view s) {
  static const char* hex = "0123456789abcdef";
  std::size_t i = 0;
  while (i < s.size()) {
    // Fast path: a run of printable ASCII that needs no escaping.
    std::size_t j = i;
    while (j < s.size()) {
      auto c = static_cast<unsigned char>(s[j]);
      if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80) break;
      ++j;
    }
    out.append(s.data() + i, j - i);
    i = j;
    if (i >= s.size()) break;
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
          out += "\\u00";
          out.push_back(hex[c >> 4]);
          out.push_back(hex[c & 15]);
      }
      ++i;
      continue;
    }
    std::size_t len;
    uint32_t cp = decode(s, i, len, true);
    if (cp == 0xFFFFFFFF) {
      out += "\xEF\xBF\xBD";  // U+FFFD for a byte that is not UTF-8
    } else if (cp >= 0xD800 && cp <= 0xDFFF) {
      // A surrogate in WTF-8. A high followed by a low one is really one code point: emit it as UTF-8.
      std::size_t len2 = 0;
      uint32_t next = (cp <= 0xDBFF && i + len < s.size()) ? decode(s, i + len, len2, true) : 0xFFFFFFFF;
      if (next != 0xFFFFFFFF && next >= 0xDC00 && next <= 0xDFFF) {
        appendCodePoint(out, 0x10000 + ((cp - 0xD800) << 10) + (next - 0xDC00));
        len += len2;
      } else {
        out += "\\u";
        for (int shift = 12; shift >= 0; shift -= 4) out.push_back(hex[(cp >> shift) & 15]);
      }
    } else if (cp == 0x2028 || cp == 0x2029) {
      out += cp == 0x2028 ? "\\u2028" : "\\u2029";  // valid JSON either way; escaped for JS-embedding safety
    } else {
      out.append(s.data() + i, len);
    }
    i += len;
  }
}

}  // namespace sw::json
