#!/usr/bin/env bash
# The Python engine's tests: build engine.wasm and stdlib.tar (scripts/engines/python.sh, cached), then
#   1. the smoke test: engine.wasm under Node's own node:wasi, driven through its wasmify exports by hand (no core):
#      protocol §10.3 items 51-57, fuel in the eval loop and inside builtins, sessions, the bad-input list;
#   2. CPython's own test modules through our engine under OUR host (the core in Node), when upstream.test.mjs exists.
# The Worker itself (workerd, boot image, contexts) is test/integration/python.test.mjs.
source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/lib.sh"
cd "$SW_ROOT"
dir="$SW_ROOT/engines/python"
failed=()
run() { local name="$1"; shift; step "$name" "$@" || failed+=("$name"); }

step "build engine.wasm and stdlib.tar" bash scripts/build-engines.sh python || exit 1
# node:wasi crashes past 32 MiB of guest memory without this flag (docs/adding-an-engine.md "Toolchain facts").
run "smoke: engine.wasm under node:wasi" "$SW_NODE" --no-turbo-fast-api-calls --no-warnings "$dir/test/smoke.mjs"
if [ -f "$dir/test/upstream.test.mjs" ]; then
  run "CPython's own tests through our engine and host (Node)" "$SW_NODE" --test "$dir/test/upstream.test.mjs"
fi

if [ ${#failed[@]} -gt 0 ]; then echo "FAILED: ${failed[*]}"; exit 1; fi
echo "all Python engine tests passed"
