// cpp/http: header blocks, URL paths and the runtime Worker's router (protocol §2.1).
#include <catch2/catch.hpp>

#include "http/http.h"

using namespace sw::http;

TEST_CASE("http: asciiLower only touches ASCII letters") {
  CHECK(asciiLower("Application/JSON; Charset=UTF-8") == "application/json; charset=utf-8");
  CHECK(asciiLower("") == "");
  CHECK(asciiLower("\xc3\x89" "A1_-") == "\xc3\x89" "a1_-");  // É stays as is
}

TEST_CASE("http: RequestHead::header finds the first header with a lower-case name") {
  RequestHead head;
  head.headers = {{"content-type", "application/json"}, {"x-a", "1"}, {"x-a", "2"}};
  REQUIRE(head.header("content-type"));
  CHECK(*head.header("content-type") == "application/json");
  CHECK(*head.header("x-a") == "1");
  CHECK_FALSE(head.header("content-length"));
  CHECK_FALSE(head.header("Content-Type"));  // names are stored and looked up lower-case
}

TEST_CASE("http: Response::json and Response::text carry cache-control: no-store") {
  auto j = Response::json(400, "{}");
  CHECK(j.status == 400);
  CHECK(j.body == "{}");
  REQUIRE(j.headers.size() == 2);
  CHECK(j.headers[0].name == "content-type");
  CHECK(j.headers[0].value == "application/json");
  CHECK(j.headers[1].name == "cache-control");
  CHECK(j.headers[1].value == "no-store");

  auto t = Response::text(404, "Not found");
  CHECK(t.status == 404);
  CHECK(t.body == "Not found");
  REQUIRE(t.headers.size() == 2);
  CHECK(t.headers[0].name == "content-type");
  CHECK(t.headers[0].value == "text/plain;charset=UTF-8");
  CHECK(t.headers[1].name == "cache-control");
  CHECK(t.headers[1].value == "no-store");
}

TEST_CASE("http: parseHeaderBlock") {
  SECTION("well-formed lines; names lower-cased, values trimmed") {
    auto h = parseHeaderBlock("Content-Type: application/json\r\nX-Thing:\t  a b \t\r\ncontent-length:12\r\n");
    REQUIRE(h.size() == 3);
    CHECK(h[0].name == "content-type");
    CHECK(h[0].value == "application/json");
    CHECK(h[1].name == "x-thing");
    CHECK(h[1].value == "a b");
    CHECK(h[2].name == "content-length");
    CHECK(h[2].value == "12");
  }
  SECTION("no trailing CRLF") {
    auto h = parseHeaderBlock("a: 1\r\nb: 2");
    REQUIRE(h.size() == 2);
    CHECK(h[1].name == "b");
    CHECK(h[1].value == "2");
  }
  SECTION("malformed lines are skipped") {
    auto h = parseHeaderBlock("no colon\r\n: empty name\r\n\r\nok: yes\r\n");
    REQUIRE(h.size() == 1);
    CHECK(h[0].name == "ok");
    CHECK(h[0].value == "yes");
  }
  SECTION("colons in values are kept; empty values allowed") {
    auto h = parseHeaderBlock("x-url: https://a:8080/b\r\nx-empty:\r\n");
    REQUIRE(h.size() == 2);
    CHECK(h[0].value == "https://a:8080/b");
    CHECK(h[1].name == "x-empty");
    CHECK(h[1].value == "");
  }
  SECTION("empty block") { CHECK(parseHeaderBlock("").empty()); }
}

TEST_CASE("http: serializeHeaderBlock round-trips through parseHeaderBlock") {
  std::vector<Header> in = {{"content-type", "application/json"}, {"x-interpreter-key", "abc"}, {"x-e", ""}};
  std::string block = serializeHeaderBlock(in);
  CHECK(block == "content-type: application/json\r\nx-interpreter-key: abc\r\nx-e: \r\n");
  auto out = parseHeaderBlock(block);
  REQUIRE(out.size() == in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    CHECK(out[i].name == in[i].name);
    CHECK(out[i].value == in[i].value);
  }
  CHECK(serializeHeaderBlock({}).empty());
}

TEST_CASE("http: urlPath") {
  CHECK(urlPath("https://sandbox.internal/execute") == "/execute");
  CHECK(urlPath("https://sandbox.internal/execute?x=1") == "/execute");
  CHECK(urlPath("https://sandbox.internal/execute#frag") == "/execute");
  CHECK(urlPath("https://sandbox.internal") == "/");
  CHECK(urlPath("https://sandbox.internal/") == "/");
  CHECK(urlPath("https://sandbox.internal?x=/y") == "/");  // a slash in the query is not the path
  CHECK(urlPath("https://sandbox.internal#/y") == "/");
  CHECK(urlPath("https://h/interpreters/abc/contexts?q=1") == "/interpreters/abc/contexts");
  CHECK(urlPath("https://h/a%20b") == "/a%20b");  // not percent-decoded
  CHECK(urlPath("https://h/execute?next=https://x/y") == "/execute");
  // relative forms
  CHECK(urlPath("/execute") == "/execute");
  CHECK(urlPath("/execute?u=https://x/y") == "/execute");  // "://" in the query is not a scheme
  CHECK(urlPath("") == "/");
  CHECK(urlPath("?x") == "/");
}

TEST_CASE("http: route (protocol §2.1, in evaluation order)") {
  SECTION("probe: exactly /interpreter, any method") {
    for (const char* m : {"GET", "POST", "DELETE", "HEAD", "PATCH"}) {
      INFO(m);
      CHECK(route(m, "/interpreter").route == Route::Probe);
    }
    CHECK(route("GET", "/interpreter/").route == Route::NotFound);
    CHECK(route("GET", "/Interpreter").route == Route::NotFound);
  }
  SECTION("interpreters: ^/interpreters/([^/]+)(/.*)?$") {
    auto m = route("GET", "/interpreters/abc");
    CHECK(m.route == Route::Interpreters);
    CHECK(m.interpreterKey == "abc");
    CHECK(m.interpreterRest == "/");

    m = route("POST", "/interpreters/abc/contexts");
    CHECK(m.route == Route::Interpreters);
    CHECK(m.interpreterKey == "abc");
    CHECK(m.interpreterRest == "/contexts");

    m = route("DELETE", "/interpreters/k.1_-/contexts/c1/execute");
    CHECK(m.route == Route::Interpreters);
    CHECK(m.interpreterKey == "k.1_-");
    CHECK(m.interpreterRest == "/contexts/c1/execute");

    m = route("GET", "/interpreters/abc/");
    CHECK(m.route == Route::Interpreters);
    CHECK(m.interpreterRest == "/");

    m = route("GET", "/interpreters/bad%20key/x");  // the router does not validate the key
    CHECK(m.route == Route::Interpreters);
    CHECK(m.interpreterKey == "bad%20key");

    CHECK(route("GET", "/interpreters/").route == Route::NotFound);
    CHECK(route("GET", "/interpreters").route == Route::NotFound);
    CHECK(route("GET", "/interpreters//x").route == Route::NotFound);
    CHECK(route("GET", "/interpretersx/a").route == Route::NotFound);
  }
  SECTION("anything else but /execute is 404, whatever the method") {
    for (const char* p : {"/", "/nope", "/execute/", "/Execute", "/execute/x", "/interpreterss"}) {
      INFO(p);
      CHECK(route("POST", p).route == Route::NotFound);
      CHECK(route("GET", p).route == Route::NotFound);
    }
  }
  SECTION("/execute: POST only") {
    CHECK(route("POST", "/execute").route == Route::Execute);
    for (const char* m : {"GET", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH", "post"}) {
      INFO(m);
      CHECK(route(m, "/execute").route == Route::MethodNotAllowed);
    }
  }
}
