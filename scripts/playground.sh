#!/usr/bin/env bash
# `npm run playground`: bootstrap if needed, build the core, every engine and the page, and serve the Playground
# locally: the gateway with every language's runtime Worker behind its Service Bindings, one `wrangler dev` with
# several configs (the first is the gateway's, generated from the manifests into build/gateway/wrangler.jsonc; the
# others, each language's own, run beside it under their own names).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$SW_ROOT"
bash scripts/bootstrap.sh
bash scripts/build-engines.sh
bash scripts/build.sh core   # and the boot images
"$SW_NODE" scripts/build-playground.mjs
gateway_config="$("$SW_NODE" scripts/languages.mjs write | head -n 1)"
configs=(-c "$gateway_config")
while read -r config; do configs+=(-c "$config"); done < <("$SW_NODE" scripts/languages.mjs configs)
PORT="${PORT:-8788}"
cat <<MSG

The Playground is starting on http://127.0.0.1:$PORT/ (the page; GET /languages, POST /execute/<language> and
/languages/<language>/sandboxes/<id>/... are its routes). Try:

  curl -s http://127.0.0.1:$PORT/execute/python -H 'content-type: application/json' -d '{"code":"print(\"hi\")\n6 * 7"}'

MSG
export PATH="$SW_ROOT/node_modules/.bin:$PATH"   # wrangler needs Node >= 22: use the pinned one
exec wrangler dev "${configs[@]}" \
  --ip 127.0.0.1 --port "$PORT" --show-interactive-dev-session=false --var SANDBOX_FILE_API:enabled \
  --var PLAYGROUND_RATE_LIMIT:10000 --var PLAYGROUND_MAX_SANDBOXES:1000 \
  --var PLAYGROUND_MAX_TOTAL_SANDBOXES:100000
