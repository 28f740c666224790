// The registry of built-in engines, generated from the manifests: every engines/<id>/engine.json with a `builtin`
// section is one row (cpp/languages/gen_languages.py writes builtin_engines.gen.inc at build time). A language's
// engine.wasm (engines/<id>/, built by scripts/engines/<id>.sh) speaks proto/wasmify/engine.proto through the shared
// guest glue, so what differs on the host side fits in an engine::Spec; a prebuilt engine names its hand-written
// driver (cpp/wasmify/<id>.cpp). docs/adding-an-engine.md lists the files a new language touches.
#include <vector>

#include "../json/json.h"

#include "wasmify.h"

namespace sw::wasmify {

namespace {

// One manifest's row: functions, so each driver is built on first use (as a function-local static) in any order.
struct BuiltinRow {
  std::string_view name;
  const WasmifyDriver& (*driver)();
  std::span<const ImportStub> (*importStubs)();
  bool resetAfterTrap;
};

}  // namespace

#include "builtin_engines.gen.inc"

namespace {

// In the manifests' order (`order`): builtinEngineNames() and the fuzz target's selector follow it.
const std::vector<BuiltinEngine>& registry() {
  static const std::vector<BuiltinEngine> engines = [] {
    std::vector<BuiltinEngine> out;
    for (const BuiltinRow& row : kBuiltinRows) out.push_back({row.name, row.driver(), row.importStubs(), row.resetAfterTrap});
    return out;
  }();
  return engines;
}

}  // namespace

const BuiltinEngine* findBuiltinEngine(std::string_view name) {
  for (const auto& e : registry()) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

std::string builtinEngineNames() {
  std::string out;
  for (const auto& e : registry()) {
    if (!out.empty()) out += ", ";
    out += e.name;
  }
  return out;
}

std::string importStubsJson(const BuiltinEngine& engine) {
  json::Value rows = json::Value::array();
  for (const ImportStub& stub : engine.importStubs) {
    json::Value row = json::Value::object();
    row.set("module", json::Value::string(std::string(stub.module)));
    row.set("name", json::Value::string(std::string(stub.name)));
    switch (stub.kind) {
      case ImportStubKind::FirstArgument: row.set("kind", json::Value::string("first-argument")); break;
      case ImportStubKind::Zero: row.set("kind", json::Value::string("zero")); break;
      case ImportStubKind::Throw:
        row.set("kind", json::Value::string("throw"));
        row.set("message", json::Value::string(std::string(stub.message)));
        break;
    }
    rows.push(std::move(row));
  }
  return json::stringify(rows);
}

}  // namespace sw::wasmify
