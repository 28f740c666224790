// Host handles inside the Emscripten core (cpp/wasi/exports.cpp): the uint32 a guest's WASI imports carry, created
// from C++ with any HostOptions (for example a code context's shared /workspace mirror). Release with
// sw_wasi_host_free(handle). Emscripten builds only.
#pragma once

#include <cstdint>

#include "wasi.h"

namespace sw::wasi {

uint32_t newHostHandle(HostOptions options);
Host& hostOf(uint32_t handle);
// Counts what may have changed the guest's memory under `handle`: a call into the guest (wasmify's bridge), a write
// into it (the core's copies, every syscall's). Knowledge of what the memory holds (cpp/core's pool, snapshot::Held)
// is valid only while this has not moved (0 until anything touched it).
uint64_t memoryGeneration(uint32_t handle);
void touchMemory(uint32_t handle);

// Workspaces an Engine written in JavaScript may mount as /workspace (its SessionOptions.workspace handle): the
// Interpreter's mirror, registered by cpp/core/js_sessions.cpp while the session lives. Ids are never reused, so a
// handle kept past its session names nothing (sw_wasi_engine_host_new refuses it).
uint32_t registerWorkspace(std::shared_ptr<Workspace> workspace);
void unregisterWorkspace(uint32_t id);

// The fuel budget of an engine's limits.fuel: itself, or -1 (unmetered) when it is 0 or not a positive number.
int64_t fuelBudgetOf(double fuel);

}  // namespace sw::wasi

extern "C" void sw_wasi_host_free(uint32_t h);
