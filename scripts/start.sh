#!/usr/bin/env bash
# `npm start`: bootstrap if needed, build the core module, and serve the runtime Worker on 127.0.0.1:8787.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$SW_ROOT"
bash scripts/bootstrap.sh
bash scripts/build-engines.sh
bash scripts/build.sh core
PORT="${PORT:-8787}"
cat <<MSG

The runtime Worker is starting on http://127.0.0.1:$PORT. Try:

  curl -s http://127.0.0.1:$PORT/execute -H 'content-type: application/json' -d '{"code":"console.log(\"hi\"); [1, 2, 3].map((n) => n * Number(process.env.X))","envVars":{"X":"12"}}'

MSG
export PATH="$SW_ROOT/node_modules/.bin:$PATH"   # wrangler needs Node >= 22: use the pinned one
exec wrangler dev --ip 127.0.0.1 --port "$PORT" --show-interactive-dev-session=false
