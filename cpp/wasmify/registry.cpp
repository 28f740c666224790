// The registry of built-in engines: one line per language. A language's engine.wasm (engines/<name>/, built by
// scripts/engines/<name>.sh) speaks proto/wasmify/engine.proto through the shared guest glue, so what differs on the
// host side fits in an engine::Spec. docs/adding-an-engine.md lists the other files a new language touches.
#include <array>

#include "../json/json.h"

#include "wasmify.h"

namespace sw::wasmify {

namespace {

const WasmifyDriver& javascriptDriver() {
  // QuickJS: fuel in interrupt mode (a clean unwind keeps a session's realm), protocol §5.6's New limits.
  static const WasmifyDriver d = engine::makeDriver(
      {"javascript", kJavaScriptInitializationFailed, kJavaScriptHeapLimit, kJavaScriptStackLimit, true});
  return d;
}

const WasmifyDriver& pythonDriver() {
  // CPython: fuel in hard mode (the host traps the overdrawing charge; a session instance is then invalid,
  // protocol §10.5 item 116); the interpreter sizes itself.
  static const WasmifyDriver d = engine::makeDriver({"python", kInitializationFailed, 0, 0, false});
  return d;
}

const std::array<BuiltinEngine, 4>& registry() {
  static const std::array<BuiltinEngine, 4> engines{{
      // Our own builds (clang, wasi-libc): one mutable global, the exported __stack_pointer.
      {"javascript", javascriptDriver(), {}, true},
      {"python", pythonDriver(), {}, true},
      {"perl", perlDriver()},
      {"ruby", rubyDriver(), rubyImportStubs()},
  }};
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
