// cpp/http: the request/response model the core speaks, and the runtime Worker's router (protocol §2.1).
// No I/O here: the shim hands in a request head and body bytes, and gets back a Response to send.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sw::http {

struct Header {
  std::string name;  // lower-case
  std::string value;
};

struct RequestHead {
  std::string method;  // as sent (Fetch upper-cases the standard ones)
  std::string url;     // absolute URL, as in Request.url
  std::vector<Header> headers;
  bool hasBody = false;  // Request.body !== null

  // Value of the first header with this (lower-case) name.
  std::optional<std::string_view> header(std::string_view lowerName) const;
};

struct Response {
  int status = 200;
  std::vector<Header> headers;
  std::string body;

  static Response json(int status, std::string body);
  static Response text(int status, std::string body);
};

// "Name: value\r\n" lines, each header on its own line; names are lower-cased. Malformed lines are skipped.
std::vector<Header> parseHeaderBlock(std::string_view block);
std::string serializeHeaderBlock(const std::vector<Header>& headers);

// The path of an absolute URL ("/" when empty), without query or fragment. Not percent-decoded.
std::string urlPath(std::string_view url);

// Where a request goes (protocol §2.1, evaluated in this order).
enum class Route : uint8_t { Probe, Interpreters, NotFound, MethodNotAllowed, Execute };

struct RouteMatch {
  Route route = Route::NotFound;
  std::string interpreterKey;   // Route::Interpreters: the raw first segment after /interpreters/
  std::string interpreterRest;  // Route::Interpreters: the remainder ("/" when empty)
};

RouteMatch route(std::string_view method, std::string_view path);

// Lower-cases ASCII letters.
std::string asciiLower(std::string_view s);

// decodeURIComponent of a path segment: false on a malformed escape or a result that is not valid UTF-8.
bool percentDecode(std::string_view in, std::string& out);
// encodeURIComponent of UTF-8 bytes (a NUL byte is escaped too).
std::string percentEncode(std::string_view in);

}  // namespace sw::http
