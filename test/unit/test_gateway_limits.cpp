// cpp/gateway/limits: the Playground's per-client limits (issue 23): the vars, the client key, the Exchange asking the
// Limiter before it forwards, the 429s, and (natively, over libsqlite3) the Limiter's sliding window and sandbox cap
// with a fake clock, at their boundaries. The attack from outside, in workerd: gateway-limits.test.mjs.
#include <catch2/catch.hpp>

#include "fakes.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>

#include "gateway/gateway.h"
#include "gateway/limits.h"
#include "json/json.h"
#include "gateway_languages.h"
#if !defined(__EMSCRIPTEN__)
#include "durable/sqlite_native.h"
#endif

using namespace sw;
using gateway::ActionKind;

namespace {

using sw::test::FakeAlarm;
using sw::test::FakeClock;

http::RequestHead head(std::string method, std::string path, std::vector<http::Header> headers = {},
                       bool hasBody = false) {
  http::RequestHead h;
  h.method = std::move(method);
  h.url = "https://playground.example" + path;
  h.headers = std::move(headers);
  h.hasBody = hasBody;
  return h;
}

std::string keyOf(std::optional<std::string> ip) {
  http::RequestHead h = head("GET", "/");
  if (ip) h.headers.push_back({"cf-connecting-ip", *ip});
  return gateway::clientKey(h);
}

json::Value bodyOf(const http::Response& r) {
  auto parsed = json::parseCopy(r.body);
  REQUIRE(parsed.ok());
  return std::move(parsed.value);
}

std::string headerOf(const http::Response& r, std::string_view name) {
  for (const auto& h : r.headers)
    if (h.name == name) return h.value;
  return "";
}

const char* kVars = R"({"PLAYGROUND_RATE_LIMIT":"3","PLAYGROUND_RATE_WINDOW_SECONDS":"60","PLAYGROUND_MAX_SANDBOXES":"2",
  "SANDBOX_IDLE_TTL_MS":"3600000","OTHER":"x"})";

// POST /execute/javascript from `ip`, up to the action after its body.
const gateway::Action& execute(gateway::Exchange& ex, std::string ip) {
  const auto& a = ex.start(head("POST", "/execute/javascript",
                                {{"content-type", "application/json"}, {"cf-connecting-ip", std::move(ip)}}, true),
                           true);
  REQUIRE(a.kind == ActionKind::ReadBody);
  const std::string body = R"({"code":"1"})";
  std::memcpy(a.buffer, body.data(), body.size());
  return ex.bodyReceived(body.size());
}

}  // namespace

TEST_CASE("gateway limits: the vars, their defaults and their errors") {
  std::string error;
  auto l = gateway::parseLimits(kVars, error);
  REQUIRE(l);
  CHECK(l->requests == 3);
  CHECK(l->windowMs == 60000);
  CHECK(l->sandboxes == 2);
  CHECK(l->sandboxIdleMs == 3600000);
  // Unset or empty: on, at the defaults; the idle TTL as the Sandbox reads it (its own default: a day).
  auto d = gateway::parseLimits(R"({"PLAYGROUND_RATE_LIMIT":""})", error);
  REQUIRE(d);
  CHECK(d->requests == 60);
  CHECK(d->windowMs == 60000);
  CHECK(d->sandboxes == 10);
  CHECK(d->sandboxIdleMs == 86400000);
  CHECK(d->totalSandboxes == 100);
  CHECK(d->any());
  auto off = gateway::parseLimits(
      R"({"PLAYGROUND_RATE_LIMIT":"0","PLAYGROUND_MAX_SANDBOXES":"0","PLAYGROUND_MAX_TOTAL_SANDBOXES":"0"})", error);
  REQUIRE(off);
  CHECK_FALSE(off->any());
  for (auto [vars, message] : std::initializer_list<std::pair<const char*, const char*>>{
           {R"({"PLAYGROUND_RATE_LIMIT":"lots"})", R"(PLAYGROUND_RATE_LIMIT must be an integer from 0 to 100000 (got "lots"))"},
           {R"({"PLAYGROUND_RATE_LIMIT":"1.5"})", R"(PLAYGROUND_RATE_LIMIT must be an integer from 0 to 100000 (got "1.5"))"},
           {R"({"PLAYGROUND_RATE_LIMIT":"-1"})", R"(PLAYGROUND_RATE_LIMIT must be an integer from 0 to 100000 (got "-1"))"},
           {R"({"PLAYGROUND_RATE_WINDOW_SECONDS":"0"})", R"(PLAYGROUND_RATE_WINDOW_SECONDS must be an integer from 1 to 86400 (got "0"))"},
           {R"({"PLAYGROUND_MAX_SANDBOXES":"10001"})", R"(PLAYGROUND_MAX_SANDBOXES must be an integer from 0 to 10000 (got "10001"))"},
           {R"({"PLAYGROUND_MAX_TOTAL_SANDBOXES":"x"})", R"(PLAYGROUND_MAX_TOTAL_SANDBOXES must be an integer from 0 to 1000000 (got "x"))"},
       }) {
    error.clear();
    CHECK_FALSE(gateway::parseLimits(vars, error));
    CHECK(error == message);
  }
}

TEST_CASE("gateway limits: the client key is CF-Connecting-IP, an IPv6 client its /64, else one shared key") {
  CHECK(keyOf("203.0.113.7") == "ip:203.0.113.7");
  CHECK(keyOf("2001:db8:1:2::1") == "ip6:2001:db8:1:2::/64");
  CHECK(keyOf("2001:0DB8:0001:0002:ffff:0:0:9") == "ip6:2001:db8:1:2::/64");
  CHECK(keyOf("::1") == "ip6:0:0:0:0::/64");
  CHECK(keyOf("::ffff:203.0.113.7") == "ip:203.0.113.7");
  CHECK(keyOf(std::nullopt) == "shared");
  for (const char* bad : {"", "not an address", "203.0.113", "203.0.113.256", "01.2.3.4", "1.2.3.4.5", "2001:db8::1::2",
                          "2001:db8:1:2:3:4:5:6:7", "12345::1", "shared"})
    CHECK(keyOf(bad) == "shared");
}

TEST_CASE("gateway limits: a configured Exchange asks the client's Limiter before it relays, then relays") {
  FakeClock clock;
  gateway::Exchange ex(clock);
  ex.configure(gateway_test::withLanguages(kVars));
  const auto& a = execute(ex, "203.0.113.7");
  REQUIRE(a.kind == ActionKind::Limit);
  CHECK(a.target == "ip:203.0.113.7");
  CHECK(a.method == "POST");
  CHECK(a.path == "/admit");
  CHECK(a.body == R"({"requests":3,"windowMs":60000,"sandboxes":0,"sandboxIdleMs":3600000})");
  const auto& relay = ex.fetched(200, R"({"allowed":true})");
  REQUIRE(relay.kind == ActionKind::Relay);
  CHECK(relay.target == "JAVASCRIPT");
  CHECK(relay.body == R"({"code":"1"})");
}

TEST_CASE("gateway limits: a sandbox route names its sandbox to the Limiter; GET /languages and the page do not ask") {
  gateway::Exchange ex;
  ex.configure(gateway_test::withLanguages(kVars));
  const auto& a = ex.start(head("GET", "/languages/python/sandboxes/my-box/contexts"), true);
  REQUIRE(a.kind == ActionKind::Limit);
  CHECK(a.target == "shared");
  CHECK(a.body ==
        R"({"requests":3,"windowMs":60000,"sandboxes":2,"sandboxIdleMs":3600000,"sandbox":"my-box"})");
  // Then the Limiter of all clients together (the total cap, default 100), with that id and no rate.
  const auto& total = ex.fetched(200, R"({"allowed":true,"added":true})");
  REQUIRE(total.kind == ActionKind::Limit);
  CHECK(total.target == "all-clients");
  CHECK(total.body == R"({"requests":0,"windowMs":0,"sandboxes":100,"sandboxIdleMs":3600000,"sandbox":"my-box"})");
  const auto& forward = ex.fetched(200, R"({"allowed":true,"added":true})");
  REQUIRE(forward.kind == ActionKind::Sandbox);
  CHECK(forward.target == "my-box");
  CHECK(forward.path == "/contexts");
  gateway::Exchange languages;
  languages.configure(gateway_test::withLanguages(kVars));
  CHECK(languages.start(head("GET", "/languages"), true).kind == ActionKind::Fetch);
  gateway::Exchange page;
  page.configure(gateway_test::withLanguages(kVars));
  CHECK(page.start(head("GET", "/index.html"), true).kind == ActionKind::Asset);
  // Validation answers first: a refused request never reaches the Limiter.
  gateway::Exchange bad;
  bad.configure(gateway_test::withLanguages(kVars));
  CHECK(bad.start(head("GET", "/languages/php/sandboxes/x"), true).response.status == 400);
}

TEST_CASE("gateway limits: the Limiter's refusals are 429s naming the rule, with Retry-After") {
  FakeClock clock;
  gateway::Exchange ex(clock);
  ex.configure(gateway_test::withLanguages(kVars));
  execute(ex, "203.0.113.7");
  const auto& r = ex.fetched(200, R"({"allowed":false,"limit":"requests","retryAfterMs":12001})");
  REQUIRE(r.kind == ActionKind::Respond);
  CHECK(r.response.status == 429);
  CHECK(headerOf(r.response, "retry-after") == "13");
  CHECK(r.response.body ==
        R"({"code":"VALIDATION_FAILED","message":"Rate limit exceeded: at most 3 requests per 60 s from one client",)"
        R"("context":{"limit":"requests","max":3,"windowSeconds":60},"httpStatus":429,"timestamp":"2026-01-01T00:00:00.000Z"})");

  gateway::Exchange sb(clock);
  sb.configure(gateway_test::withLanguages(kVars));
  sb.start(head("DELETE", "/languages/lua/sandboxes/third"), true);
  const auto& s = sb.fetched(200, R"({"allowed":false,"limit":"sandboxes","retryAfterMs":0.5})");
  CHECK(s.response.status == 429);
  CHECK(headerOf(s.response, "retry-after") == "1");
  auto body = bodyOf(s.response);
  CHECK(body.find("message")->asString() ==
        "Sandbox limit exceeded: at most 2 sandboxes per client; a sandbox counts until it has been idle for 3600 s");
  CHECK(json::stringify(*body.find("context")) == R"({"limit":"sandboxes","max":2,"idleSeconds":3600})");

  // Ids kept for good (idle TTL 0) never free a slot: no Retry-After.
  gateway::Exchange forever(clock);
  forever.configure(gateway_test::withLanguages(R"({"PLAYGROUND_MAX_SANDBOXES":"1","SANDBOX_IDLE_TTL_MS":"0"})"));
  forever.start(head("GET", "/languages/lua/sandboxes/second"), true);
  const auto& f = forever.fetched(200, R"({"allowed":false,"limit":"sandboxes"})");
  CHECK(f.response.status == 429);
  CHECK(headerOf(f.response, "retry-after").empty());
  CHECK(bodyOf(f.response).find("message")->asString() ==
        "Sandbox limit exceeded: at most 1 sandboxes per client; sandboxes are kept for good");
}

TEST_CASE("gateway limits: fail closed: a Limiter that throws or answers nonsense is 502, a bad var 500") {
  for (int status : {200, 500}) {
    gateway::Exchange ex;
    ex.configure(gateway_test::withLanguages(kVars));
    execute(ex, "203.0.113.7");
    const auto& r = ex.fetched(status, status == 200 ? R"({"allowed":"yes"})" : R"({"allowed":true})");
    CHECK(r.response.status == 502);
    CHECK(bodyOf(r.response).find("message")->asString() == "Engine execution failed");
  }
  gateway::Exchange threw;
  threw.configure(gateway_test::withLanguages(kVars));
  execute(threw, "203.0.113.7");
  CHECK(threw.fetchFailed().response.status == 502);
  gateway::Exchange bad;
  bad.configure(gateway_test::withLanguages(R"({"PLAYGROUND_MAX_SANDBOXES":"many"})"));
  const auto& r = bad.start(head("GET", "/languages/lua/sandboxes/x"), true);
  CHECK(r.response.status == 500);
  CHECK(bodyOf(r.response).find("message")->asString() ==
        R"(Invalid gateway configuration: PLAYGROUND_MAX_SANDBOXES must be an integer from 0 to 10000 (got "many"))");
  // Every limit "0": nothing to ask.
  gateway::Exchange off;
  off.configure(gateway_test::withLanguages(
      R"({"PLAYGROUND_RATE_LIMIT":"0","PLAYGROUND_MAX_SANDBOXES":"0","PLAYGROUND_MAX_TOTAL_SANDBOXES":"0"})"));
  CHECK(execute(off, "203.0.113.7").kind == ActionKind::Relay);
  // The total cap's Limiter failing is 502 too.
  gateway::Exchange total;
  total.configure(gateway_test::withLanguages(kVars));
  total.start(head("GET", "/languages/lua/sandboxes/x"), true);
  REQUIRE(total.fetched(200, R"({"allowed":true})").kind == ActionKind::Limit);
  CHECK(total.fetchFailed().response.status == 502);
}

TEST_CASE("gateway limits: the total cap refuses a new sandbox with 429, and the client's record of it is taken back") {
  FakeClock clock;
  gateway::Exchange ex(clock);
  ex.configure(gateway_test::withLanguages(R"({"PLAYGROUND_RATE_LIMIT":"3","PLAYGROUND_MAX_SANDBOXES":"2",
    "PLAYGROUND_MAX_TOTAL_SANDBOXES":"4","SANDBOX_IDLE_TTL_MS":"3600000"})"));
  ex.start(head("GET", "/languages/lua/sandboxes/fifth", {{"cf-connecting-ip", "203.0.113.9"}}), true);
  REQUIRE(ex.fetched(200, R"({"allowed":true,"added":true})").kind == ActionKind::Limit);
  const auto& undo = ex.fetched(200, R"({"allowed":false,"limit":"sandboxes","retryAfterMs":2500})");
  REQUIRE(undo.kind == ActionKind::Limit);
  CHECK(undo.target == "ip:203.0.113.9");
  CHECK(undo.body == R"({"undo":true,"hit":true,"sandbox":"fifth"})");
  // Whatever the undo answers, the request is refused.
  const auto& r = ex.fetched(500, "");
  REQUIRE(r.kind == ActionKind::Respond);
  CHECK(r.response.status == 429);
  CHECK(headerOf(r.response, "retry-after") == "3");
  CHECK(r.response.body ==
        R"({"code":"VALIDATION_FAILED","message":"The Playground is full: at most 4 sandboxes in use across all clients; )"
        R"(a sandbox counts until it has been idle for 3600 s","context":{"limit":"totalSandboxes","max":4,"idleSeconds":3600},)"
        R"("httpStatus":429,"timestamp":"2026-01-01T00:00:00.000Z"})");
  // No rate and an id the client already held: nothing to take back.
  gateway::Exchange plain(clock);
  plain.configure(gateway_test::withLanguages(
      R"({"PLAYGROUND_RATE_LIMIT":"0","PLAYGROUND_MAX_SANDBOXES":"2","PLAYGROUND_MAX_TOTAL_SANDBOXES":"4"})"));
  plain.start(head("GET", "/languages/lua/sandboxes/held"), true);
  REQUIRE(plain.fetched(200, R"({"allowed":true})").kind == ActionKind::Limit);
  CHECK(plain.fetched(200, R"({"allowed":false,"limit":"sandboxes"})").response.status == 429);
}

#if !defined(__EMSCRIPTEN__)  // libsqlite3 backs the Limiter natively

namespace {

std::string admitJson(double requests, double windowMs, double sandboxes, double idleMs, std::string sandbox = "") {
  gateway::Limits l;
  l.requests = requests;
  l.windowMs = windowMs;
  l.sandboxes = sandboxes;
  l.sandboxIdleMs = idleMs;
  return gateway::admitRequestJson(l, sandbox);
}

}  // namespace

TEST_CASE("Limiter: a sliding window: N admitted, the next refused until the oldest leaves, never 2N at a boundary") {
  durable::NativeSqlite sql(":memory:");
  FakeAlarm alarm;
  FakeClock clock;
  gateway::Limiter limiter(sql, alarm, clock);
  const std::string req = admitJson(3, 60000, 0, 0);
  const int64_t t0 = clock.epoch;
  CHECK(limiter.admit(req) == R"({"allowed":true})");
  clock.epoch = t0 + 30000;
  CHECK(limiter.admit(req) == R"({"allowed":true})");
  CHECK(limiter.admit(req) == R"({"allowed":true})");
  CHECK(limiter.admit(req) == R"({"allowed":false,"limit":"requests","retryAfterMs":30000})");
  // 1 ms before the first leaves the window: still refused; at the instant it leaves: one slot, not three.
  clock.epoch = t0 + 59999;
  CHECK(limiter.admit(req) == R"({"allowed":false,"limit":"requests","retryAfterMs":1})");
  clock.epoch = t0 + 60000;
  CHECK(limiter.admit(req) == R"({"allowed":true})");
  CHECK(limiter.admit(req) == R"({"allowed":false,"limit":"requests","retryAfterMs":30000})");
  // The alarm clears what expired (a tenth of the window late at most, so a busy client does not rewrite it).
  REQUIRE_FALSE(std::isnan(alarm.armed));
  CHECK(alarm.armed >= double(t0 + 120000));
  CHECK(alarm.armed <= double(t0 + 126000));
  clock.epoch = int64_t(alarm.armed);
  limiter.alarm();
  std::vector<durable::SqlRow> rows;
  sql.exec("SELECT COUNT(*) FROM limiter_hits", {}, &rows);
  CHECK(rows[0][0].number == 0);
  CHECK(limiter.admit(req) == R"({"allowed":true})");
}

TEST_CASE("Limiter: the sandbox cap: known ids pass, a new one past the cap is refused until one has been idle") {
  durable::NativeSqlite sql(":memory:");
  FakeAlarm alarm;
  FakeClock clock;
  gateway::Limiter limiter(sql, alarm, clock);
  const int64_t t0 = clock.epoch;
  auto admit = [&](std::string id) { return limiter.admit(admitJson(0, 0, 2, 3600000, std::move(id))); };
  CHECK(admit("a") == R"({"allowed":true,"added":true})");
  clock.epoch = t0 + 1000;
  CHECK(admit("b") == R"({"allowed":true,"added":true})");
  CHECK(admit("c") == R"({"allowed":false,"limit":"sandboxes","retryAfterMs":3599000})");
  // Using "a" again keeps it counted from now on; "b" is the first to be wiped.
  clock.epoch = t0 + 2000;
  CHECK(admit("a") == R"({"allowed":true})");
  CHECK(admit("c") == R"({"allowed":false,"limit":"sandboxes","retryAfterMs":3599000})");
  clock.epoch = t0 + 1000 + 3600000;
  CHECK(admit("c") == R"({"allowed":true,"added":true})");
  CHECK(admit("b") == R"({"allowed":false,"limit":"sandboxes","retryAfterMs":1000})");
  // A stateless execute names no sandbox: only the rate applies.
  CHECK(limiter.admit(admitJson(0, 0, 2, 3600000)) == R"({"allowed":true})");
}

TEST_CASE("Limiter: rules together; refusals are not recorded; idle TTL 0 counts for good; state survives eviction") {
  const auto dir = std::filesystem::temp_directory_path() / "sw-limiter-test";
  std::filesystem::create_directories(dir);
  const std::string db = (dir / "limiter.sqlite").string();
  std::filesystem::remove(db);
  FakeClock clock;
  {
    durable::NativeSqlite sql(db);
    FakeAlarm alarm;
    gateway::Limiter limiter(sql, alarm, clock);
    CHECK(limiter.admit(admitJson(3, 60000, 1, 0, "a")) == R"({"allowed":true,"added":true})");
    CHECK(limiter.admit(admitJson(3, 60000, 1, 0, "b")) == R"({"allowed":false,"limit":"sandboxes"})");
    CHECK(limiter.admit(admitJson(3, 60000, 1, 0, "a")) == R"({"allowed":true})");
  }
  {
    // A new instance over the same storage (the Durable Object was evicted): the counts are still there.
    durable::NativeSqlite sql(db);
    FakeAlarm alarm;
    gateway::Limiter limiter(sql, alarm, clock);
    CHECK(limiter.admit(admitJson(3, 60000, 1, 0, "a")) == R"({"allowed":true})");
    CHECK(limiter.admit(admitJson(3, 60000, 1, 0, "a")) ==
          R"({"allowed":false,"limit":"requests","retryAfterMs":60000})");
    clock.epoch += 86400000;
    limiter.alarm();
    CHECK(limiter.admit(admitJson(3, 60000, 1, 0, "b")) == R"({"allowed":false,"limit":"sandboxes"})");
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("Limiter: an undo takes back the newest request row and the sandbox id") {
  durable::NativeSqlite sql(":memory:");
  FakeAlarm alarm;
  FakeClock clock;
  gateway::Limiter limiter(sql, alarm, clock);
  CHECK(limiter.admit(admitJson(2, 60000, 1, 3600000, "a")) == R"({"allowed":true,"added":true})");
  CHECK(limiter.admit(admitJson(2, 60000, 1, 3600000, "b")) == R"({"allowed":false,"limit":"sandboxes","retryAfterMs":3600000})");
  CHECK(limiter.admit(gateway::undoRequestJson(true, "a")) == R"({"allowed":true})");
  // Both slots are free again: "b" is new and admitted, then one more request fits the rate.
  CHECK(limiter.admit(admitJson(2, 60000, 1, 3600000, "b")) == R"({"allowed":true,"added":true})");
  CHECK(limiter.admit(admitJson(2, 60000, 1, 3600000, "b")) == R"({"allowed":true})");
  CHECK(limiter.admit(admitJson(2, 60000, 1, 3600000, "b")) == R"({"allowed":false,"limit":"requests","retryAfterMs":60000})");
  CHECK(limiter.admit(R"({"undo":true})") == R"({"allowed":false,"limit":"invalid"})");
}

TEST_CASE("Limiter: a malformed request is refused as invalid (the gateway then answers 502)") {
  durable::NativeSqlite sql(":memory:");
  FakeAlarm alarm;
  FakeClock clock;
  gateway::Limiter limiter(sql, alarm, clock);
  for (const char* bad : {"", "[]", R"({"requests":1})", R"({"requests":1,"windowMs":0,"sandboxes":0,"sandboxIdleMs":0})",
                          R"({"requests":0,"windowMs":0,"sandboxes":1,"sandboxIdleMs":0,"sandbox":7})"})
    CHECK(limiter.admit(bad) == R"({"allowed":false,"limit":"invalid"})");
  CHECK_FALSE(gateway::parseAdmission(R"({"allowed":false,"limit":"invalid"})"));
}

#endif
