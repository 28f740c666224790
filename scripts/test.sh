#!/usr/bin/env bash
# `npm test`: bootstrap if needed, build every flavour, run every test suite, print one summary.
# Every suite runs even if an earlier one failed; the exit code is non-zero if any failed.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$SW_ROOT"
export PATH="$SW_ROOT/node_modules/.bin:$PATH"

passed=()
failed=()
timings=()
suite() {
  local name="$1"; shift
  local t0; t0=$(sw_now_ms)
  local verdict=PASS
  if step "$name" "$@"; then passed+=("$name"); else failed+=("$name"); verdict=FAIL; fi
  timings+=("$(printf '%7.1f s  %s  %s' "$(( $(sw_now_ms) - t0 ))e-3" "$verdict" "$name")")
}

run_fuzzer() {
  local target="$1" corpus_src="$2"
  local corpus; corpus="$SW_ROOT/build/fuzz/corpus-$target"
  # The seeds must exist: a missing or empty seed directory is an error, not a silent empty start.
  if ! compgen -G "$corpus_src/*" >/dev/null; then echo "no seed corpus in $corpus_src"; return 1; fi
  mkdir -p "$corpus" && cp -n "$corpus_src"/* "$corpus"/ || return 1
  # -error_exitcode: any crash, leak or sanitizer report fails the suite.
  "build/fuzz/$target" -max_total_time="$FUZZ_SECONDS" -rss_limit_mb=2048 -error_exitcode=1 \
    -print_final_stats=1 "$corpus" >"build/fuzz/$target.log" 2>&1 || { tail -40 "build/fuzz/$target.log"; return 1; }
  grep -E "^stat::number_of_executed_units" "build/fuzz/$target.log" | sed 's/^/    /'
}

t_start=$(sw_now_ms)
step "bootstrap" bash scripts/bootstrap.sh
# First because it needs no build and takes about a second: every "protocol §N" citation names a section of
# docs/protocol/, and nothing cites a document a clone does not have (the seeds by number, the notes beside the repo).
suite "lint: protocol citations (docs/protocol/; nothing outside the repository)" \
  "$SW_NODE" --test --test-reporter=spec test/lint/protocol-citations.test.mjs
# Also build-free: no shared file names languages side by side (engines/<id>/engine.json is the one list).
suite "lint: language lists (engines/<id>/engine.json)" \
  "$SW_NODE" --test --test-reporter=spec test/lint/language-lists.test.mjs
# Build-free too: the caller's client reads the rules it states (caps, error statuses, sandbox id) from abi.def.
suite "lint: caller rules (cpp/abi/abi.def)" \
  "$SW_NODE" --test --test-reporter=spec test/lint/caller-rules.test.mjs
# And: no engine folder or build script restates a limit of its manifest (engines/<id>/engine.json is the one table).
suite "lint: engine limits (engines/<id>/engine.json)" \
  "$SW_NODE" --test --test-reporter=spec test/lint/engine-limits.test.mjs
suite "build native" bash scripts/build.sh native
suite "wasm fuel tool (native C++): a C guest and zeroperl, instrumented, under Node" \
  "$SW_NODE" --no-turbo-fast-api-calls --test --test-reporter=spec test/tools/wasm-fuel.test.mjs
suite "unit tests (native, ASan+UBSan)" build/native/sw_unit_tests --use-colour no
suite "build engines" bash scripts/build-engines.sh
suite "build wasm (and the engines' boot images)" bash scripts/build.sh wasm
suite "unit tests (Emscripten build under Node)" /usr/bin/node build/wasm/sw_unit_tests.cjs --use-colour no
suite "build fuzz" bash -c 'bash scripts/build.sh fuzz && bash scripts/fuzz-seeds.sh build/fuzz/seeds'
# libFuzzer targets are single-threaded: they run two at a time (CI has two cores), each for FUZZ_SECONDS, started
# together in the background; each row of the summary waits for its own target.
FUZZERS=(
  "sw_fuzz_request test/fuzz/corpus/request request parser and validator"
  "sw_fuzz_wasi_paths build/fuzz/seeds/paths WASI path resolution"
  "sw_fuzz_interpreter test/fuzz/corpus/interpreter Interpreter Durable Object"
  "sw_fuzz_sandbox test/fuzz/corpus/sandbox caller Sandbox Durable Object"
  "sw_fuzz_snapshot build/fuzz/seeds/snapshot snapshot reader and boot images"
  "sw_fuzz_wasm_fuel build/fuzz/seeds/wasm wasm fuel tool"
  "sw_fuzz_archive build/fuzz/seeds/archive /stdlib archive parser"
  "sw_fuzz_wasmify build/fuzz/seeds/wasmify wasmify host decoders against a hostile guest"
  "sw_fuzz_mirror test/fuzz/corpus/mirror Interpreter workspace mirror"
)
# The fuzzers share one budget of CPU seconds (FUZZ_BUDGET, default 180: 20 s per target, 90 s of wall time on two
# cores); FUZZ_SECONDS sets every target's seconds directly. The budget keeps npm test's time fixed as targets are added.
FUZZ_BUDGET="${FUZZ_BUDGET:-180}"
FUZZ_SECONDS="${FUZZ_SECONDS:-$(( FUZZ_BUDGET / ${#FUZZERS[@]} > 5 ? FUZZ_BUDGET / ${#FUZZERS[@]} : 5 ))}"
export -f run_fuzzer
export FUZZ_SECONDS SW_ROOT
mkdir -p build/fuzz && rm -f build/fuzz/*.rc
for f in "${FUZZERS[@]}"; do read -r target corpus _ <<<"$f"; echo "$target $corpus"; done |
  xargs -P 2 -L 1 bash -c 'run_fuzzer "$0" "$1" >"build/fuzz/$0.out" 2>&1; echo $? >"build/fuzz/$0.rc"' &
fuzz_pool=$!
wait_fuzzer() {
  while [ ! -f "build/fuzz/$1.rc" ]; do
    kill -0 "$fuzz_pool" 2>/dev/null || { [ -f "build/fuzz/$1.rc" ] || { echo "$1 never ran"; return 1; }; }
    sleep 1
  done
  cat "build/fuzz/$1.out"
  return "$(cat "build/fuzz/$1.rc")"
}
for f in "${FUZZERS[@]}"; do
  read -r target _ what <<<"$f"
  suite "fuzz: $what (${FUZZ_SECONDS}s)" wait_fuzzer "$target"
done
wait "$fuzz_pool"
suite "WASI host: C guests under the core (Node, then a workerd smoke subset)" bash test/wasi/run.sh
# node:wasi is a comparison, never a gate (docs/wasi-host.md): run it by hand.
suite "WASI conformance: our wasm32-wasip1 suite under the core with --full-wasi" \
  "$SW_NODE" test/wasi/conformance.mjs --no-node-wasi
# Each engine's own suite, as its manifest declares it (`tests.engine`: the suite's name and command; node is ours).
while IFS=$'\t' read -r -a engine_suite; do
  [ "${engine_suite[1]}" = node ] && engine_suite[1]="$SW_NODE"
  suite "${engine_suite[@]}" </dev/null
done < <("$SW_NODE" scripts/languages.mjs engine-suites)
# Test262 (the official conformance suite) for the modern features, from the workplace's shared folder beside the
# repository; it says so and passes when that folder is absent (docs/javascript-conformance.md).
suite "Test262 subset through the JavaScript engine (known failures: test/test262/known-failures.json)" \
  "$SW_NODE" test/test262/run.mjs
suite "TypeScript declarations (tsc --noEmit)" "$SW_NODE" node_modules/typescript/bin/tsc -p test/types/tsconfig.json
suite "CLI: sandbox-workers init (run directly and through its installed bin), then npm run pack tarballs installed and bundled by wrangler --dry-run" \
  "$SW_NODE" --test --test-force-exit --test-timeout=600000 --test-reporter=spec test/cli/init.test.mjs
# Two files at a time (node's default on two cores is one): one file's waits (workerd starting, Wasm compiling, a
# restart) overlap another's work. Each file is its own process with its own Miniflare and storage directory.
suite "integration tests (workerd via Miniflare), two files at a time" "$SW_NODE" --test --test-concurrency=2 --test-force-exit --test-timeout=600000 --test-reporter=spec test/integration/*.test.mjs
suite "Playground page in headless Chromium (playwright-core, the gateway and every runtime in workerd)" \
  "$SW_NODE" --test --test-force-exit --test-timeout=600000 --test-reporter=spec test/playground/page.test.mjs

echo
echo "Summary ($(sw_fmt_ms $(( $(sw_now_ms) - t_start ))) total), every suite in the order it ran:"
for t in "${timings[@]}"; do echo "  $t"; done
echo "suites: ${#passed[@]} passed, ${#failed[@]} failed"
[ ${#failed[@]} -eq 0 ]
