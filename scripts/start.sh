#!/usr/bin/env bash
# `npm start [-- <language>]`: bootstrap if needed, build the core module and the engine, and serve that language's
# runtime Worker on 127.0.0.1:8787 (default: the manifest that says default: true, JavaScript).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$SW_ROOT"
bash scripts/bootstrap.sh
# The language's manifest (engines/<id>/engine.json, scripts/languages.mjs) gives its config and sample request.
language="${1:-$("$SW_NODE" scripts/languages.mjs default)}"
config="$("$SW_NODE" scripts/languages.mjs config "$language")" || exit 2
body="$("$SW_NODE" scripts/languages.mjs start-body "$language")"
# An Engine written only in JavaScript has no build script (scripts/engines/<id>.sh) and nothing to build.
if [ -f "scripts/engines/$language.sh" ]; then bash scripts/build-engines.sh "$language"; fi
bash scripts/build.sh core   # and the boot image
PORT="${PORT:-8787}"
cat <<MSG

The $language runtime Worker is starting on http://127.0.0.1:$PORT. Try:

  curl -s http://127.0.0.1:$PORT/execute -H 'content-type: application/json' -d '$body'

MSG
export PATH="$SW_ROOT/node_modules/.bin:$PATH"   # wrangler needs Node >= 22: use the pinned one
exec wrangler dev -c "$config" --ip 127.0.0.1 --port "$PORT" --show-interactive-dev-session=false
