#include <catch2/catch.hpp>

#include "json/json.h"

using namespace sw::json;

TEST_CASE("parse: objects keep JavaScript semantics") {
  auto r = parseCopy(R"({"b":1,"a":2,"b":3,"2":"x","1":"y"})");
  REQUIRE(r.ok());
  REQUIRE(r.value.isObject());
  const auto& m = r.value.members();
  REQUIRE(m.size() == 4);
  CHECK(m[0].first == "1");  // array-index keys first, ascending
  CHECK(m[1].first == "2");
  CHECK(m[2].first == "b");  // duplicate keeps its first position...
  CHECK(m[2].second.rawNumber() == "3");  // ...and takes the last value
  CHECK(m[3].first == "a");
}

TEST_CASE("parse: an object of 100,000 keys is built in O(n log n), duplicates resolved like JavaScript") {
  // Built with a linear key scan this took minutes (n^2 / 2 string comparisons); issue 13.
  constexpr int kKeys = 100000;
  std::string text = "{";
  for (int i = 0; i < kKeys; ++i) text += "\"k" + std::to_string(i) + "\":" + std::to_string(i) + ",";
  text += "\"k7\":\"again\",\"k3\":1,\"k7\":\"last\"}";
  auto r = parseCopy(text);
  REQUIRE(r.ok());
  const auto& m = r.value.members();
  REQUIRE(m.size() == std::size_t(kKeys));
  CHECK(m[7].first == "k7");
  CHECK(m[7].second.asString() == "last");  // first position, last value
  CHECK(m[3].second.rawNumber() == "1");
  CHECK(m[kKeys - 1].first == "k" + std::to_string(kKeys - 1));
  CHECK(r.value.find("k99999")->rawNumber() == "99999");
}

TEST_CASE("parse: rejects what JSON.parse rejects") {
  for (const char* bad : {"", "{", "}", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "01", "1.", ".5", "-", "1e", "+1",
                          "tru", "nul", "falsey", "\"\\x\"", "\"\\u12g4\"", "{} x", "[] []", "1 2", "\"a\" \"b\"",
                          "{\"a\":[1,2}", "\"\t\"", "NaN", "Infinity", "'x'", "{\"a\":1}}", "[1]]"}) {
    INFO(bad);
    CHECK_FALSE(parseCopy(bad).ok());
  }
}

TEST_CASE("parse: accepts what JSON.parse accepts") {
  for (const char* good : {"0", "-0", "1e400", "-1.5E-3", "true", "null", "\"\"", " [ ] ", "{}", "\"\\/\"",
                           "[[[[[]]]]]", "{\"\":{\"\":[]}}", "\"\\ud800\"", "\"\\udc00\\ud800\""}) {
    INFO(good);
    CHECK(parseCopy(good).ok());
  }
}

TEST_CASE("parse: invalid UTF-8 is an error") {
  CHECK(parseCopy("\"\xff\"").error == ParseError::Utf8);
  CHECK(parseCopy("{\"a\":\"\xc3\x28\"}").error == ParseError::Utf8);
  CHECK(parseCopy("\"\xed\xa0\x80\"").error == ParseError::Utf8);  // a raw (encoded) surrogate is not UTF-8
}

TEST_CASE("parse: nesting is bounded") {
  std::string deep(kMaxDepth + 10, '[');
  deep += std::string(kMaxDepth + 10, ']');
  CHECK_FALSE(parseCopy(deep).ok());
  std::string ok(100, '[');
  ok += std::string(100, ']');
  CHECK(parseCopy(ok).ok());
}

TEST_CASE("parse: strings decode escapes, surrogate pairs and lone surrogates") {
  auto r = parseCopy(R"(["a\"b\\c\/\b\f\n\r\t", "\u00e9\u4e16", "\ud83d\ude00", "\ud800x"])");
  REQUIRE(r.ok());
  const auto& items = r.value.items();
  CHECK(items[0].asString() == "a\"b\\c/\b\f\n\r\t");
  CHECK(items[1].asString() == "\xc3\xa9\xe4\xb8\x96");
  CHECK(items[2].asString() == "\xf0\x9f\x98\x80");
  CHECK(items[3].asString() == "\xed\xa0\x80x");  // WTF-8
}

TEST_CASE("writer: escaping") {
  std::string out;
  Writer(out).string(std::string("q\"b\\n\n\x01\x1f\x7f", 9));
  CHECK(out == R"("q\"b\\n\n\u0001\u001f)" "\x7f\"");
  out.clear();
  Writer(out).string("\xed\xa0\x80");  // lone high surrogate
  CHECK(out == R"("\ud800")");
  out.clear();
  Writer(out).string("\xed\xa0\xbd\xed\xb8\x80");  // a WTF-8 surrogate pair is one code point
  CHECK(out == "\"\xf0\x9f\x98\x80\"");
  out.clear();
  Writer(out).string("a\xff" "b\xc3");  // invalid UTF-8 becomes U+FFFD
  CHECK(out == "\"a\xef\xbf\xbd" "b\xef\xbf\xbd\"");
  out.clear();
  Writer(out).string("\xe2\x80\xa8 \xe4\xb8\x96");
  CHECK(out == "\"\\u2028 \xe4\xb8\x96\"");
}

TEST_CASE("writer: members() splices an object's members after the open object's own") {
  std::string out;
  Writer w(out);
  w.beginObject().members(R"({"a":1,"b":[2]})").key("c").boolean(true).members("{}").members(R"({"d":null})");
  w.endObject();
  CHECK(out == R"({"a":1,"b":[2],"c":true,"d":null})");
}

TEST_CASE("writer: round trip preserves everything") {
  const char* text = R"({"a":[1,-2.50,1e400,true,false,null],"s":"\u0000\ud800\u00e9","o":{}})";
  auto r = parseCopy(text);
  REQUIRE(r.ok());
  std::string out = stringify(r.value);
  CHECK(out == "{\"a\":[1,-2.50,1e400,true,false,null],\"s\":\"\\u0000\\ud800\xc3\xa9\",\"o\":{}}");
  CHECK(parseCopy(out).ok());
}

TEST_CASE("formatNumber matches Number.prototype.toString") {
  CHECK(formatNumber(0) == "0");
  CHECK(formatNumber(-0.0) == "0");
  CHECK(formatNumber(2) == "2");
  CHECK(formatNumber(-17) == "-17");
  CHECK(formatNumber(0.1) == "0.1");
  CHECK(formatNumber(1.5) == "1.5");
  CHECK(formatNumber(123.456) == "123.456");
  CHECK(formatNumber(1e21) == "1e+21");
  CHECK(formatNumber(1.5e300) == "1.5e+300");
  CHECK(formatNumber(1e-7) == "1e-7");
  CHECK(formatNumber(0.000001) == "0.000001");
  CHECK(formatNumber(12345678901234567890.0) == "12345678901234567000");
  CHECK(formatNumber(0.1 + 0.2) == "0.30000000000000004");
  CHECK(formatNumber(1.0 / 0.0) == "null");
}

TEST_CASE("utf8 helpers follow JavaScript string semantics") {
  CHECK(utf8EncodedLength("abc") == 3);
  CHECK(utf8EncodedLength("\xe4\xb8\x96") == 3);
  CHECK(utf8EncodedLength("\xed\xa0\x80") == 3);  // lone surrogate -> U+FFFD, 3 bytes
  CHECK(utf16Length("\xf0\x9f\x98\x80") == 2);
  CHECK(utf16Length("a\xe4\xb8\x96") == 2);
  CHECK(isBlankJs(""));
  CHECK(isBlankJs(" \t\r\n\v\f"));
  CHECK(isBlankJs("\xc2\xa0\xe2\x80\xa8\xef\xbb\xbf\xe3\x80\x80"));  // NBSP, LS, BOM, ideographic space
  CHECK_FALSE(isBlankJs(" x "));
  CHECK_FALSE(isBlankJs("\xe2\x80\x8b"));  // zero-width space is not whitespace
  CHECK(isValidUtf8("h\xc3\xa9"));
  CHECK_FALSE(isValidUtf8("\xc0\x80"));  // overlong
  CHECK(truncateUtf16("a\xf0\x9f\x98\x80" "b", 2) == "a");
  CHECK(truncateUtf16("abc", 2) == "ab");
}
