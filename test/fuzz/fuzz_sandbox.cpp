// libFuzzer target: hostile input to the caller's Sandbox Durable Object (cpp/sandbox) over real SQLite (in memory),
// with two fake bindings: JAVASCRIPT, a well-behaved runtime whose executeInContext pulls through getFiles
// (re-entering the Sandbox while its exchange waits) and returns a workspace diff made from the input, and X, a
// hostile one whose probe, context-creation answer and executeInContext result are the input itself.
//
// Input: a selector byte (taken modulo 9, so the seeds are text: '$' 0, '%' 1, ... ',' 8), then the rest.
//   0  POST /execute with `rest` as the body      1  POST /contexts      2  POST /env      3  POST /files
//   4  DELETE /contexts/<rest>
//   5  an execute on JAVASCRIPT whose result's diff (dirs, files, deleted) is made of `rest`'s 8-byte pieces
//   6  POST /contexts and POST /execute on X, which answers everything with `rest`
//   7  the alarm                                  8  a new Sandbox over the same storage (eviction), then DELETE /
// Invariants (a violation traps): every exchange ends in a Respond within a few steps, with a status in 200..599 and
// a JSON object body, and nothing throws out of the Sandbox.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "durable/sqlite_native.h"
#include "json/json.h"
#include "sandbox/sandbox.h"

using namespace sw;

namespace {

#define EXPECT(cond)               \
  do {                             \
    if (!(cond)) __builtin_trap(); \
  } while (0)

class FuzzClock final : public server::Clock {
 public:
  double monotonicMs() override { return now_ += 0.5; }
  int64_t epochMs() override { return int64_t(1767225600000.0 + (now_ += 7)); }

 private:
  double now_ = 0;
};

class NullAlarm final : public durable::Alarm {
 public:
  void set(double) override {}
  void remove() override {}
};

std::string str(std::string_view s) { return json::stringify(json::Value::string(std::string(s))); }

struct World {
  FuzzClock clock;
  NullAlarm alarm;
  durable::NativeSqlite sql{":memory:"};
  sandbox::Config config;
  std::unique_ptr<sandbox::Sandbox> sbx;
  std::string hostile;  // X's every answer
  std::string diffSeed;  // JAVASCRIPT's next diff

  World() {
    config.objectId = std::string(64, 'a');
    config.idleTtlMs = 1000;
    restart();
  }
  void restart() {
    sbx.reset();
    sbx = std::make_unique<sandbox::Sandbox>(sql, alarm, clock, config, std::nan(""));
  }

  sandbox::FetchAnswer fetch(const sandbox::Action& a) {
    sandbox::FetchAnswer out;
    out.kind = sandbox::FetchAnswer::Kind::Response;
    if (a.binding == "X") {
      out.status = 200 + int(hostile.size() % 7) * 50;  // 200, 250, ..., 500
      out.body = hostile;
      return out;
    }
    if (a.binding != "JAVASCRIPT") {
      out.kind = sandbox::FetchAnswer::Kind::NoBinding;
      return out;
    }
    out.status = 200;
    if (a.method == "GET") out.body = R"({"language":"javascript","engine":"e","contexts":true})";
    else if (a.method == "POST" && a.path == "/execute") out.body = R"({"results":[],"logs":{}})";
    else if (a.method == "POST") out.status = 201, out.body = a.body;
    else out.body = R"({"success":true})";
    return out;
  }

  sandbox::CallAnswer call(const sandbox::Action& a) {
    sandbox::CallAnswer out;
    out.kind = sandbox::CallAnswer::Kind::Result;
    if (a.binding == "X") {
      out.json = hostile;
      for (std::size_t i = 0; i < hostile.size() % 4; ++i) out.files.emplace_back(hostile.substr(0, i * 3));
      return out;
    }
    auto args = json::parseCopy(a.body);
    EXPECT(args.ok() && args.value.isObject());
    const json::Value* ws = args.value.find("workspace");
    EXPECT(ws && ws->find("manifest") && ws->find("dirs"));
    // Pull everything the manifest names, as an interpreter after an eviction does.
    std::string paths = "[";
    for (const auto& [path, hash] : ws->find("manifest")->members()) paths += (paths.size() > 1 ? "," : "") + str(path);
    paths += "]";
    (void)sbx->filesFor(paths);
    std::string dirs = "[", files = "[", deleted = "[";
    for (std::size_t i = 0; i + 8 <= diffSeed.size() && i < 256; i += 8) {
      const std::string path = "/workspace/" + diffSeed.substr(i + 1, 7);
      switch (uint8_t(diffSeed[i]) % 4) {
        case 0: dirs += (dirs.size() > 1 ? "," : "") + str(path); break;
        case 1:
          files += std::string(files.size() > 1 ? "," : "") + R"({"path":)" + str(path) + R"(,"data":null,"updatedAt":1})";
          out.files.emplace_back(diffSeed.substr(i));
          break;
        case 2: deleted += (deleted.size() > 1 ? "," : "") + str(path); break;
        default: dirs += (dirs.size() > 1 ? "," : "") + str(diffSeed.substr(i, 8)); break;  // maybe escaping
      }
    }
    out.json = R"({"ok":true,"result":{"code":"c","results":[],"context":{"cwd":"/workspace","snapshot":null},)"
               R"("workspace":{"dirs":)" + dirs + "],\"files\":" + files + "],\"deleted\":" + deleted + "]}}}";
    return out;
  }

  void drive(sandbox::Sandbox::Exchange& ex, const sandbox::Action* a, std::string_view body) {
    for (int step = 0; step < 16; ++step) {
      switch (a->kind) {
        case sandbox::ActionKind::Respond: {
          EXPECT(a->response.status >= 200 && a->response.status <= 599);
          auto parsed = json::parseCopy(a->response.body);
          // Relayed answers of X are its own bytes; every other answer is the Sandbox's JSON.
          EXPECT(a->response.body == hostile || (parsed.ok() && parsed.value.isObject()));
          return;
        }
        case sandbox::ActionKind::ReadBody: {
          const std::size_t n = std::min(body.size(), ex.bodyCapacity());
          std::memcpy(ex.bodyBuffer(), body.data(), n);
          a = &ex.bodyReceived(n);
          break;
        }
        case sandbox::ActionKind::Fetch: a = &ex.fetched(fetch(*a)); break;
        case sandbox::ActionKind::Call: a = &ex.called(call(*a)); break;
      }
    }
    __builtin_trap();  // an exchange that never ends
  }

  void request(const std::string& method, const std::string& path, std::string_view body = {}) {
    sandbox::Sandbox::Exchange ex(*sbx);
    http::RequestHead head;
    head.method = method;
    head.url = "https://sandbox.internal" + path;
    head.headers.push_back({"x-sandbox-id", "fuzz"});
    head.hasBody = !body.empty();
    drive(ex, &ex.start(head), body);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static World* world = new World();
  if (size == 0) return 0;
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (data[0] % 9) {
      case 0: world->request("POST", "/execute", rest); break;
      case 1: world->request("POST", "/contexts", rest); break;
      case 2: world->request("POST", "/env", rest); break;
      case 3: world->request("POST", "/files", rest); break;
      case 4: world->request("DELETE", "/contexts/" + std::string(rest.substr(0, 200))); break;
      case 5:
        world->diffSeed = std::string(rest);
        world->request("POST", "/execute", R"({"code":"1","binding":"JAVASCRIPT"})");
        break;
      case 6:
        world->hostile = std::string(rest);
        world->request("POST", "/contexts", R"({"binding":"X"})");
        world->request("POST", "/execute", R"({"code":"1","binding":"X"})");
        break;
      case 7: {
        sandbox::Sandbox::Exchange ex(*world->sbx);
        world->drive(ex, &ex.startAlarm(), {});
        break;
      }
      case 8:
        world->restart();
        world->request("GET", "/");
        if (rest.size() % 2) world->request("DELETE", "/");
        break;
    }
  } catch (...) {
    __builtin_trap();  // nothing may escape the Sandbox's API (the C ABI would turn it into a 502)
  }
  return 0;
}
