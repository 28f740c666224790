// cpp/core: the C ABI the JavaScript shim calls (the only exports of the Emscripten module), and the one import
// through which the core asks the shim to run a JavaScript Engine.
//
// Ownership: every handle returned here is freed by the matching *_free call. Strings and buffers are passed as
// (pointer, length) in the core's memory. No C++ exception crosses this boundary: each entry point catches
// everything and turns it into the protocol's 502 INTERNAL_ERROR response.
#pragma once

#include <cstdint>

#include "../abi/abi.h"  // sw_action_view and the numbers in it

extern "C" {

// Implemented by the shim: start engine.run(payload) for this exchange. The shim settles the run later with
// sw_exchange_engine_finished / sw_exchange_engine_threw; this call never re-enters the core.
void sw_host_engine_run(uint32_t server, uint32_t exchange, const char* payload, uint32_t payload_len);
// Implemented by the shim, for a built-in Wasm engine (EngineInfo::builtin): instantiate the engine's compiled module
// under WASI host `host` and register it with the WASI and wasmify bridges (1 = ok, 0 = failed); release drops it.
// The engine then runs synchronously, driven from C++, with its WASI calls re-entering the core (cpp/core/builtin.cpp).
uint32_t sw_host_instantiate_guest(uint32_t server, uint32_t host);
void sw_host_release_guest(uint32_t host);

// engine: JSON engine description (see server::parseEngineInfo). Returns 0 on error (message via sw_last_error).
uint32_t sw_server_new(const char* engine, uint32_t engine_len);
void sw_server_free(uint32_t server);
const char* sw_last_error();

uint32_t sw_exchange_new(uint32_t server);
void sw_exchange_free(uint32_t exchange);
// Scratch buffer in the exchange for the shim to copy the request head or an outcome into.
char* sw_exchange_input(uint32_t exchange, uint32_t len);
// method, url and headers (a "name: value\r\n" block) are copied into one input buffer, in that order.
const sw_action_view* sw_exchange_start(uint32_t exchange, uint32_t method_len, uint32_t url_len,
                                        uint32_t headers_len, uint32_t has_body, uint32_t has_interpreter);
const sw_action_view* sw_exchange_body_received(uint32_t exchange, uint32_t n);
const sw_action_view* sw_exchange_body_failed(uint32_t exchange);
// The outcome JSON was copied into sw_exchange_input(exchange, len).
const sw_action_view* sw_exchange_engine_finished(uint32_t exchange, uint32_t len);
// flags: ENGINE_THREW_LIMIT when the thrown value was an ExecutionLimitError, ENGINE_THREW_MESSAGE when it carried a
// message, which was copied into sw_exchange_input(exchange, len).
const sw_action_view* sw_exchange_engine_threw(uint32_t exchange, uint32_t flags, uint32_t len);
// JSON.stringify threw on the engine's outcome; its message was copied into sw_exchange_input(exchange, len).
const sw_action_view* sw_exchange_engine_unserializable(uint32_t exchange, uint32_t len);
const sw_action_view* sw_exchange_fail(uint32_t exchange);
// The 502 INTERNAL_ERROR response, for when no exchange can be created at all.
const sw_action_view* sw_fallback_response();
}
