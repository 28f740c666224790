#!/usr/bin/env bash
# `npm start [-- <language>]`: bootstrap if needed, build the core module and the engine, and serve that language's
# runtime Worker on 127.0.0.1:8787 (default: javascript).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$SW_ROOT"
language="${1:-javascript}"
case "$language" in
  javascript)
    config="wrangler.jsonc"
    body='{"code":"console.log(\"hi\"); [1, 2, 3].map((n) => n * Number(process.env.X))","envVars":{"X":"12"}}' ;;
  python)
    config="engines/python/wrangler.jsonc"
    body='{"code":"import os\nprint(\"hi\")\n[n * int(os.environ[\"X\"]) for n in (1, 2, 3)]","envVars":{"X":"12"}}' ;;
  perl)
    config="engines/perl/wrangler.jsonc"
    body='{"code":"print \"hi\\n\"; [map { $_ * $ENV{X} } 1 .. 3]","envVars":{"X":"12"}}' ;;
  ruby)
    config="engines/ruby/wrangler.jsonc"
    body='{"code":"puts \"hi\"\n[1, 2, 3].map { |n| n * ENV[\"X\"].to_i }","envVars":{"X":"12"}}' ;;
  lua)
    config="engines/lua/wrangler.jsonc"
    body='{"code":"print(\"hi\")\nlocal t = {} for n = 1, 3 do t[n] = n * tonumber(os.getenv(\"X\")) end return t","envVars":{"X":"12"}}' ;;
  *) echo "unknown language: $language (javascript, python, perl, ruby, lua)"; exit 2 ;;
esac
bash scripts/bootstrap.sh
bash scripts/build-engines.sh "$language"
bash scripts/build.sh core   # and the boot image
PORT="${PORT:-8787}"
cat <<MSG

The $language runtime Worker is starting on http://127.0.0.1:$PORT. Try:

  curl -s http://127.0.0.1:$PORT/execute -H 'content-type: application/json' -d '$body'

MSG
export PATH="$SW_ROOT/node_modules/.bin:$PATH"   # wrangler needs Node >= 22: use the pinned one
exec wrangler dev -c "$config" --ip 127.0.0.1 --port "$PORT" --show-interactive-dev-session=false
