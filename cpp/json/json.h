// cpp/json: the JSON model used at every boundary of the core.
//
// Reading uses simdjson On-Demand to walk the *whole* document (so a syntax error anywhere is caught, as
// JSON.parse would) into a small ordered tree with JavaScript object semantics: a duplicate key keeps its first
// position and takes the last value, and array-index keys come first in ascending order. Strings are decoded to
// WTF-8, so a lone surrogate escape ("\ud800") survives a round trip instead of failing the parse.
//
// Writing is a small append-only writer that always produces valid JSON: control characters and lone surrogates
// are escaped, invalid UTF-8 becomes U+FFFD.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sw::json {

// Bytes of slack simdjson needs readable past the end of an input buffer.
constexpr std::size_t kPadding = 64;
// Nesting deeper than this is rejected as invalid JSON (bounds the recursion of the walk).
constexpr std::size_t kMaxDepth = 512;

enum class Type : uint8_t { Null, Bool, Number, String, Array, Object };

class Value {
 public:
  using Member = std::pair<std::string, Value>;

  Value() = default;
  static Value null() { return Value(); }
  static Value boolean(bool b);
  static Value number(double d, std::string raw);
  static Value string(std::string s);
  static Value array();
  static Value object();

  Type type() const { return type_; }
  bool isNull() const { return type_ == Type::Null; }
  bool isBool() const { return type_ == Type::Bool; }
  bool isNumber() const { return type_ == Type::Number; }
  bool isString() const { return type_ == Type::String; }
  bool isArray() const { return type_ == Type::Array; }
  bool isObject() const { return type_ == Type::Object; }

  bool asBool() const { return bool_; }
  double asNumber() const { return number_; }
  // Number as written in the source (re-emitted verbatim so numbers round-trip exactly).
  const std::string& rawNumber() const { return text_; }
  const std::string& asString() const { return text_; }
  const std::vector<Value>& items() const { return items_; }
  std::vector<Value>& items() { return items_; }
  const std::vector<Member>& members() const { return members_; }

  // Object access. find() returns nullptr when absent.
  const Value* find(std::string_view key) const;
  bool has(std::string_view key) const { return find(key) != nullptr; }
  // Sets a member with JavaScript semantics (an existing key keeps its position). Linear: for building many
  // members use append() then dedupeKeys().
  void set(std::string key, Value v);
  // Appends a member without looking for its key; dedupeKeys() then applies set()'s semantics to all of them at
  // once in O(n log n) (the parser builds objects this way: n keys must not cost n^2).
  void append(std::string key, Value v) { members_.emplace_back(std::move(key), std::move(v)); }
  void dedupeKeys();
  void push(Value v) { items_.push_back(std::move(v)); }
  // Reorders members like a JavaScript object: array-index keys first, ascending.
  void orderLikeJavaScript();

 private:
  Type type_ = Type::Null;
  bool bool_ = false;
  double number_ = 0;
  std::string text_;
  std::vector<Value> items_;
  std::vector<Member> members_;
};

enum class ParseError : uint8_t { None, Syntax, Utf8, Depth, Capacity };

struct ParseResult {
  ParseError error = ParseError::None;
  Value value;
  bool ok() const { return error == ParseError::None; }
};

// Parses a complete JSON text. `data` must be followed by at least kPadding readable bytes (their content is
// irrelevant); use parseCopy() when that cannot be guaranteed.
ParseResult parsePadded(const char* data, std::size_t len);
ParseResult parseCopy(std::string_view text);

// Appends JSON text to a string. Every string passed in is treated as WTF-8 and escaped as needed.
class Writer {
 public:
  explicit Writer(std::string& out) : out_(out) {}

  Writer& beginObject();
  Writer& endObject();
  Writer& beginArray();
  Writer& endArray();
  Writer& key(std::string_view k);
  Writer& string(std::string_view s);
  Writer& number(double d);
  Writer& integer(int64_t i);
  Writer& boolean(bool b);
  Writer& null();
  Writer& value(const Value& v);
  // Inserts pre-serialized JSON verbatim (caller guarantees validity).
  Writer& raw(std::string_view json);
  // Inserts the members of a pre-serialized object ("{...}") into the object being written, after its own.
  Writer& members(std::string_view objectJson);

 private:
  void separate();
  std::string& out_;
  // One entry per open container: true once it has a member/element.
  std::vector<bool> stack_;
  bool afterKey_ = false;
};

// Escapes `s` as the contents of a JSON string literal (without the quotes).
void appendEscaped(std::string& out, std::string_view s);
// Serializes a value to a new string.
std::string stringify(const Value& v);
// `s` as a JSON string literal, quotes included.
std::string quote(std::string_view s);

// Readers for stored rows and other parties' answers, where a missing or mistyped member falls back instead of failing:
// the member `key` of an object (nullptr when `v` is not an object or has no such member), a string or a number.
const Value* member(const Value& v, std::string_view key);
std::string stringOr(const Value* v, std::string_view fallback);
double numberOr(const Value* v, double fallback);
// Formats a double the way JavaScript's Number.prototype.toString does (shortest round-trip form).
std::string formatNumber(double d);

// --- UTF-8 / WTF-8 helpers, with JavaScript string semantics ---

// Byte length of the UTF-8 encoding JavaScript's TextEncoder would produce (lone surrogates become U+FFFD).
std::size_t utf8EncodedLength(std::string_view wtf8);
// Length in UTF-16 code units (JavaScript's String.prototype.length).
std::size_t utf16Length(std::string_view wtf8);
// True if the string is empty after JavaScript's String.prototype.trim().
bool isBlankJs(std::string_view wtf8);
// True if the bytes are well-formed UTF-8 (no surrogates, no overlongs).
bool isValidUtf8(std::string_view bytes);
// Appends code point `cp` (surrogates allowed, encoded as WTF-8).
void appendCodePoint(std::string& out, uint32_t cp);
// Truncates to at most `maxUnits` UTF-16 code units, never splitting a code point.
std::string truncateUtf16(std::string_view wtf8, std::size_t maxUnits);

}  // namespace sw::json
