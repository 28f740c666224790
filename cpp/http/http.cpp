#include "http.h"

#include <cstring>

#include "../json/json.h"

namespace sw::http {

std::string asciiLower(std::string_view s) {
  std::string out(s);
  for (auto& c : out)
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  return out;
}

bool percentDecode(std::string_view in, std::string& out) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  out.clear();
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '%') {
      out += in[i];
      continue;
    }
    if (i + 2 >= in.size()) return false;
    const int hi = hex(in[i + 1]), lo = hex(in[i + 2]);
    if (hi < 0 || lo < 0) return false;
    out += char(hi * 16 + lo);
    i += 2;
  }
  return json::isValidUtf8(out);
}

std::string percentEncode(std::string_view in) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : in) {
    if (c != 0 && ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                   std::strchr("-_.!~*'()", c))) {
      out += char(c);
      continue;
    }
    out += '%';
    out += hex[c >> 4];
    out += hex[c & 15];
  }
  return out;
}

std::optional<std::string_view> RequestHead::header(std::string_view lowerName) const {
  for (const auto& h : headers)
    if (h.name == lowerName) return std::string_view(h.value);
  return std::nullopt;
}

Response Response::json(int status, std::string body) {
  Response r;
  r.status = status;
  r.headers = {{"content-type", "application/json"}, {"cache-control", "no-store"}};
  r.body = std::move(body);
  return r;
}

Response Response::text(int status, std::string body) {
  Response r;
  r.status = status;
  r.headers = {{"content-type", "text/plain;charset=UTF-8"}, {"cache-control", "no-store"}};
  r.body = std::move(body);
  return r;
}

std::vector<Header> parseHeaderBlock(std::string_view block) {
  std::vector<Header> out;
  while (!block.empty()) {
    auto eol = block.find("\r\n");
    std::string_view line = block.substr(0, eol);
    block = eol == std::string_view::npos ? std::string_view() : block.substr(eol + 2);
    auto colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) continue;
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    out.push_back({asciiLower(line.substr(0, colon)), std::string(value)});
  }
  return out;
}

std::string serializeHeaderBlock(const std::vector<Header>& headers) {
  std::string out;
  for (const auto& h : headers) {
    out += h.name;
    out += ": ";
    out += h.value;
    out += "\r\n";
  }
  return out;
}

std::string urlPath(std::string_view url) {
  std::size_t start = 0;
  // "://" starts an authority only before the first '/', '?' or '#' (not inside a relative URL's query).
  if (auto scheme = url.find("://"); scheme != std::string_view::npos && scheme < url.find_first_of("/?#")) {
    start = url.find_first_of("/?#", scheme + 3);  // the authority ends at the path, query or fragment
    if (start == std::string_view::npos || url[start] != '/') return "/";
  }
  std::string_view rest = url.substr(start);
  if (auto cut = rest.find_first_of("?#"); cut != std::string_view::npos) rest = rest.substr(0, cut);
  if (rest.empty()) return "/";
  return std::string(rest);
}

RouteMatch route(std::string_view method, std::string_view path) {
  RouteMatch m;
  if (path == "/interpreter") {
    m.route = Route::Probe;
    return m;
  }
  // ^/interpreters/([^/]+)(/.*)?$
  constexpr std::string_view prefix = "/interpreters/";
  if (path.substr(0, prefix.size()) == prefix) {
    std::string_view tail = path.substr(prefix.size());
    auto slash = tail.find('/');
    std::string_view key = tail.substr(0, slash);
    if (!key.empty()) {
      m.route = Route::Interpreters;
      m.interpreterKey = std::string(key);
      m.interpreterRest = slash == std::string_view::npos ? "/" : std::string(tail.substr(slash));
      return m;
    }
  }
  if (path != "/execute") {
    m.route = Route::NotFound;
  } else if (method != "POST") {
    m.route = Route::MethodNotAllowed;
  } else {
    m.route = Route::Execute;
  }
  return m;
}

}  // namespace sw::http
