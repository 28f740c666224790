// The SessionFactory the Interpreter Durable Object uses inside the core: code contexts of a built-in Wasm engine
// (EngineInfo::builtin), each instance a guest the shim instantiates under a WASI host whose /workspace is the
// Interpreter's mirror, driven over the wasmify session API (cpp/wasmify).
#pragma once

#include <cstdint>
#include <memory>

#include "../interp/interpreter.h"
#include "../server/server.h"

namespace sw::core {

std::unique_ptr<interp::SessionFactory> makeSessionFactory(uint32_t server, const server::EngineInfo& engine);

}  // namespace sw::core
