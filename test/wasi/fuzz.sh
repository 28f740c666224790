#!/usr/bin/env bash
# Runs the path-resolution fuzz target (fuzz preset, clang-16 + libFuzzer + ASan/UBSan) for a bounded time.
# usage: bash test/wasi/fuzz.sh [seconds, default 30]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${1:-30}"
[ -f build/fuzz/build.ninja ] || cmake --preset fuzz >/dev/null
cmake --build --preset fuzz --target sw_fuzz_wasi_paths sw_fuzz_snapshot_seeds
bash scripts/fuzz-seeds.sh build/fuzz/seeds  # the seeds are generated, not committed
mkdir -p build/fuzz/corpus-wasi-paths && cp -n build/fuzz/seeds/paths/* build/fuzz/corpus-wasi-paths/
exec ./build/fuzz/sw_fuzz_wasi_paths -max_total_time="$seconds" -print_final_stats=0 build/fuzz/corpus-wasi-paths
