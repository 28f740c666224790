// cpp/sandbox: POST /files (protocol §7.7) over the Sandbox's tree (files.h), the bytes <-> text forms of its answers,
// and the getFiles answer (protocol §2.7).
#include "internal.h"

#include <cmath>

#include "../workspace/workspace.h"

namespace sw::sandbox {

namespace {

// JavaScript truthiness of a JSON value (recursive?, force?, includeHidden?).
bool truthy(const Value* v) {
  if (!v) return false;
  switch (v->type()) {
    case json::Type::Null: return false;
    case json::Type::Bool: return v->asBool();
    case json::Type::Number: return v->asNumber() != 0 && !std::isnan(v->asNumber());
    case json::Type::String: return !v->asString().empty();
    default: return true;
  }
}


// --- bytes <-> the files API's text forms ---------------------------------------------------------------------------

const char* kBase64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64Encode(std::string_view in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const uint32_t v = uint32_t(uint8_t(in[i])) << 16 | uint32_t(uint8_t(in[i + 1])) << 8 | uint8_t(in[i + 2]);
    out += kBase64[v >> 18];
    out += kBase64[(v >> 12) & 63];
    out += kBase64[(v >> 6) & 63];
    out += kBase64[v & 63];
  }
  if (i < in.size()) {
    uint32_t v = uint32_t(uint8_t(in[i])) << 16;
    if (i + 1 < in.size()) v |= uint32_t(uint8_t(in[i + 1])) << 8;
    out += kBase64[v >> 18];
    out += kBase64[(v >> 12) & 63];
    out += i + 1 < in.size() ? kBase64[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

// Standard or URL-safe alphabet, ASCII whitespace ignored, '=' padding only at the end; false when not base64.
bool base64Decode(std::string_view in, std::string& out) {
  out.clear();
  uint32_t acc = 0;
  int bits = 0;
  std::size_t digits = 0, padding = 0;
  for (char c : in) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') continue;
    if (c == '=') {
      ++padding;
      continue;
    }
    if (padding > 0) return false;
    int v;
    if (c >= 'A' && c <= 'Z') v = c - 'A';
    else if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
    else if (c >= '0' && c <= '9') v = c - '0' + 52;
    else if (c == '+' || c == '-') v = 62;
    else if (c == '/' || c == '_') v = 63;
    else return false;
    ++digits;
    acc = (acc << 6) | uint32_t(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += char((acc >> bits) & 0xff);
    }
  }
  if (digits % 4 == 1 || padding > 2) return false;
  if (padding > 0 && (digits + padding) % 4 != 0) return false;
  return true;
}

// TextDecoder("utf-8") semantics: every maximal invalid subpart becomes one U+FFFD.
std::string decodeLossy(std::string_view s) {
  if (json::isValidUtf8(s)) return std::string(s);
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    const uint8_t c = uint8_t(s[i]);
    if (c < 0x80) {
      out += char(c);
      ++i;
      continue;
    }
    int need = 0;
    uint8_t lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) need = 1;
    else if (c >= 0xE0 && c <= 0xEF) {
      need = 2;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      need = 3;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    }
    if (need == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    int got = 0;
    while (got < need && j < s.size()) {
      const uint8_t d = uint8_t(s[j]);
      if (d < lo || d > hi) break;
      lo = 0x80;
      hi = 0xBF;
      ++j;
      ++got;
    }
    if (got == need) out.append(s.data() + i, j - i);
    else out += "\xEF\xBF\xBD";
    i = j;
  }
  return out;
}

// A JSON string (WTF-8) as TextEncoder encodes it: a lone surrogate becomes U+FFFD.
std::string toUtf8(std::string_view wtf8) {
  if (json::isValidUtf8(wtf8)) return std::string(wtf8);
  std::string out;
  out.reserve(wtf8.size());
  for (std::size_t i = 0; i < wtf8.size(); ++i) {
    const uint8_t c = uint8_t(wtf8[i]);
    if (c == 0xED && i + 2 < wtf8.size() && (uint8_t(wtf8[i + 1]) & 0xE0) == 0xA0) {
      // A surrogate (ED A0..BF xx): a high one followed by a low one is one code point (JSON.parse would have joined
      // them), otherwise U+FFFD.
      const uint32_t cp = 0xD000 | (uint32_t(uint8_t(wtf8[i + 1]) & 0x3F) << 6) | (uint8_t(wtf8[i + 2]) & 0x3F);
      if (cp <= 0xDBFF && i + 5 < wtf8.size() && uint8_t(wtf8[i + 3]) == 0xED &&
          (uint8_t(wtf8[i + 4]) & 0xF0) == 0xB0) {
        const uint32_t low = 0xD000 | (uint32_t(uint8_t(wtf8[i + 4]) & 0x3F) << 6) | (uint8_t(wtf8[i + 5]) & 0x3F);
        json::appendCodePoint(out, 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00));
        i += 5;
      } else {
        out += "\xEF\xBF\xBD";
        i += 2;
      }
      continue;
    }
    out += char(c);
  }
  return out;
}

std::string_view operationOf(std::string_view op) {
  if (op == "read") return "file.read";
  if (op == "write") return "file.write";
  if (op == "mkdir") return "directory.create";
  if (op == "delete") return "file.delete";
  if (op == "rename") return "file.rename";
  if (op == "move") return "file.move";
  if (op == "list") return "directory.list";
  if (op == "exists") return "file.stat";
  return {};
}

}  // namespace

std::vector<workspace::File> Sandbox::filesFor(std::string_view pathsJson) const {
  if (config_.fileApiDisabled) return {};
  auto parsed = json::parseCopy(pathsJson);
  if (!parsed.ok() || !parsed.value.isArray()) return {};
  std::vector<std::string> paths;
  for (const auto& p : parsed.value.items())
    if (p.isString()) paths.push_back(p.asString());
  return files_.filesFor(paths);
}


// --- POST /files (protocol §7.7) ---------------------------------------------------------------------------------------

const Action& Sandbox::Exchange::files(const Value& body) {
  const Value* opValue = body.find("op");
  const std::string op = opValue && opValue->isString() ? opValue->asString() : "";
  const std::string_view operation = operationOf(op);
  if (operation.empty()) return invalid(400, "Unknown op");
  const Value* pathValue = body.find("path");
  if (!pathValue || !pathValue->isString() || pathValue->asString().empty()) return invalid(400, "path is required");
  const std::string& path = pathValue->asString();
  const Value* newPathValue = body.find("newPath");
  if ((op == "rename" || op == "move") &&
      (!newPathValue || !newPathValue->isString() || newPathValue->asString().empty()))
    return invalid(400, "newPath is required for " + op);
  const Value* encodingValue = body.find("encoding");
  std::string encoding = "utf-8";
  if (encodingValue) {
    if (!encodingValue->isString() || (encodingValue->asString() != "utf-8" && encodingValue->asString() != "base64"))
      return invalid(400, "encoding must be utf-8 or base64");
    encoding = encodingValue->asString();
  }
  const bool recursive = truthy(body.find("recursive"));

  Files& tree = owner_.files_;
  std::string normalized;
  FileError err;
  auto failed = [&]() -> const Action& {
    std::string code = server::errnoCode(err.errnoName);
    if (op == "mkdir" && err.errnoName != "EACCES" && err.errnoName != "ENOSPC") code = "FILESYSTEM_ERROR";
    std::string context;
    Writer w(context);
    w.beginObject();
    w.key("path").string(path);
    w.key("operation").string(operation);
    w.key("errno").string(err.errnoName);
    if (err.errnoName == "EFBIG") {
      w.key("maxSize").number(double(err.maxSize));
      w.key("actualSize").number(double(err.actualSize));
    }
    w.endObject();
    return respond(server::errorResponse(owner_.clock_, server::codeStatus(code), code, err.message, context, operation));
  };
  std::string out;
  Writer w(out);
  auto succeed = [&](Changes* changes) -> const Action& {
    if (changes && !changes->empty()) owner_.sql_.transaction([&] { owner_.persist(*changes); });
    owner_.touch();
    w.key("timestamp").string(owner_.nowIso());
    w.endObject();
    return respond(http::Response::json(200, std::move(out)));
  };
  w.beginObject();
  w.key("success").boolean(true);

  if (op == "read") {
    std::string bytes;
    if (!tree.read(path, normalized, bytes, err)) return failed();
    const bool binary = isBinary(bytes);
    w.key("path").string(normalized);
    if (encoding == "base64") w.key("content").string(base64Encode(bytes));
    else w.key("content").string(decodeLossy(bytes));
    w.key("encoding").string(encoding);
    w.key("isBinary").boolean(binary);
    w.key("mimeType").string(mimeTypeOf(normalized, binary));
    w.key("size").number(double(bytes.size()));
    return succeed(nullptr);
  }
  if (op == "write") {
    const Value* content = body.find("content");
    if (content && !content->isString()) return invalid(400, "content must be a string");
    std::string bytes;
    if (content) {
      if (encoding == "base64") {
        if (!base64Decode(content->asString(), bytes)) {
          err.errnoName = "EINVAL";
          err.message = "Invalid base64 content";
          return failed();
        }
      } else {
        bytes = toUtf8(content->asString());
      }
    }
    Changes changes;
    if (!tree.write(path, bytes, owner_.now(), normalized, changes, err)) return failed();
    w.key("path").string(normalized);
    return succeed(&changes);
  }
  if (op == "mkdir") {
    Changes changes;
    if (!tree.mkdir(path, recursive, normalized, changes, err)) return failed();
    w.key("path").string(normalized);
    w.key("recursive").boolean(recursive);
    return succeed(&changes);
  }
  if (op == "delete") {
    Changes changes;
    if (!tree.remove(path, recursive, truthy(body.find("force")), normalized, changes, err)) return failed();
    w.key("path").string(normalized);
    return succeed(&changes);
  }
  if (op == "rename" || op == "move") {
    Changes changes;
    std::string newNormalized;
    if (!tree.rename(path, newPathValue->asString(), normalized, newNormalized, changes, err)) return failed();
    w.key("path").string(normalized);
    w.key("newPath").string(newNormalized);
    return succeed(&changes);
  }
  if (op == "list") {
    std::vector<ListEntry> entries;
    if (!tree.list(path, recursive, truthy(body.find("includeHidden")), normalized, entries, err)) return failed();
    w.key("path").string(normalized);
    w.key("files").beginArray();
    for (const auto& e : entries) {
      w.beginObject();
      w.key("name").string(e.name);
      w.key("absolutePath").string(e.absolutePath);
      w.key("relativePath").string(e.relativePath);
      w.key("type").string(e.directory ? "directory" : "file");
      w.key("size").number(e.directory ? 0 : double(e.size));
      w.key("modifiedAt").string(e.directory ? owner_.meta_->createdAt : server::isoTime(int64_t(e.updatedAt)));
      w.key("mode").string(e.directory ? "drwxr-xr-x" : "-rw-r--r--");
      w.key("permissions").beginObject();
      w.key("readable").boolean(true);
      w.key("writable").boolean(true);
      w.key("executable").boolean(e.directory);
      w.endObject();
      w.endObject();
    }
    w.endArray();
    w.key("count").number(double(entries.size()));
    return succeed(nullptr);
  }
  // exists: never fails; the path is normalized where it can be.
  workspace::Error normErr;
  if (!workspace::normalizePath("/workspace", path, normalized, normErr)) normalized = path;
  w.key("path").string(normalized);
  w.key("exists").boolean(tree.exists(path));
  return succeed(nullptr);
}

}  // namespace sw::sandbox
