#!/usr/bin/env bash
# Builds sw-wasm-fuel (cpp/tools, docs/fuel-tool.md) natively, cached by the sha256 of its sources and this script,
# and prints the binary's path. Engine build scripts call it: tool="$(bash scripts/tools/wasm-fuel.sh)".
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
sources=(cpp/tools/wasm_fuel.h cpp/tools/wasm_fuel.cpp cpp/tools/wasm_fuel_main.cpp cpp/tools/scanner.h
         cpp/tools/scanner.cpp cpp/snapshot/hash.cpp cpp/snapshot/snapshot.h scripts/tools/wasm-fuel.sh)
key="$(cd "$SW_ROOT" && cat "${sources[@]}" | sha256sum | cut -c1-16)"
dir="$SW_CACHE/tools/wasm-fuel/$key"
bin="$dir/sw-wasm-fuel"
if [ ! -x "$bin" ]; then
  mkdir -p "$dir"
  # Build beside the target and rename, so a concurrent or interrupted build never leaves a broken binary.
  nice -n 10 g++ -O2 -std=c++20 -Wall -Wextra -I"$SW_ROOT/cpp" "$SW_ROOT/cpp/tools/wasm_fuel.cpp" \
    "$SW_ROOT/cpp/tools/wasm_fuel_main.cpp" "$SW_ROOT/cpp/tools/scanner.cpp" "$SW_ROOT/cpp/snapshot/hash.cpp" -o "$bin.tmp.$$" >&2
  mv -f "$bin.tmp.$$" "$bin"
fi
echo "$bin"
