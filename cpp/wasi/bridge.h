// Host handles inside the Emscripten core (cpp/wasi/exports.cpp): the uint32 a guest's WASI imports carry, created
// from C++ with any HostOptions (for example a code context's shared /workspace mirror). Release with
// sw_wasi_host_free(handle). Emscripten builds only.
#pragma once

#include <cstdint>

#include "wasi.h"

namespace sw::wasi {

uint32_t newHostHandle(HostOptions options);
Host& hostOf(uint32_t handle);

}  // namespace sw::wasi

extern "C" void sw_wasi_host_free(uint32_t h);
