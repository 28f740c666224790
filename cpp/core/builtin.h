// Built-in Wasm engines, driven by the core itself (see builtin.cpp).
#pragma once

#include <cstdint>
#include <string>

#include "../server/server.h"

namespace sw::core {

// Runs `payload` ({code, envVars?}) on a fresh instance of the server's built-in engine and settles the exchange.
const server::Action& runBuiltinEngine(uint32_t serverHandle, server::Exchange& exchange,
                                       const server::EngineInfo& engine, const std::string& payload);

}  // namespace sw::core
