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

# The pool: suites that need nothing from each other run SW_TEST_JOBS at a time (default 2: CI has two cores and most
# of these suites keep one busy). Each pooled suite writes its output to a log that is printed whole when it ends, so
# the output stays readable; its row in the summary is its own wall time, spent beside another suite.
SW_TEST_JOBS="${SW_TEST_JOBS:-2}"
POOL_DIR="$SW_ROOT/build/test-pool"
# Interrupted or killed, npm test takes its pooled suites with it (each runs in its own process group: a suite's
# children, a fuzzer or a workerd, go too) instead of leaving them running in the background.
pool_stop() {
  local p
  for p in "${pool_pids[@]}"; do kill -- "-$p" 2>/dev/null || kill "$p" 2>/dev/null; done
  exit 130
}
trap pool_stop INT TERM
pool_names=()
pool_pids=()
pool_printed=()
pool_done() { [ -f "$POOL_DIR/$1.rc" ]; }
pool_running() {
  local i n=0
  for i in "${!pool_pids[@]}"; do
    pool_done "$i" && continue
    # A job that died without writing its verdict (killed) is a failed suite, not a slot held forever.
    if ! kill -0 "${pool_pids[$i]}" 2>/dev/null; then echo "FAIL 0" >"$POOL_DIR/$i.rc"; continue; fi
    n=$((n + 1))
  done
  echo "$n"
}
# Prints every finished suite's log (once) and records its verdict and seconds.
pool_collect() {
  local i verdict ms
  for i in "${!pool_pids[@]}"; do
    [ -n "${pool_printed[$i]:-}" ] && continue
    pool_done "$i" || continue
    pool_printed[$i]=1
    cat "$POOL_DIR/$i.log"
    read -r verdict ms <"$POOL_DIR/$i.rc"
    if [ "$verdict" = PASS ]; then passed+=("${pool_names[$i]}"); else failed+=("${pool_names[$i]}"); fi
    timings+=("$(printf '%7.1f s  %s  %s' "${ms}e-3" "$verdict" "${pool_names[$i]} (pooled)")")
  done
}
pool_suite() {
  local name="$1"; shift
  while [ "$(pool_running)" -ge "$SW_TEST_JOBS" ]; do wait -n 2>/dev/null || true; pool_collect; done
  local i=${#pool_pids[@]}
  pool_names+=("$name")
  set -m   # job control: the subshell gets a process group of its own (pool_stop kills the whole group)
  (
    t0=$(sw_now_ms)
    if step "$name" "$@" >"$POOL_DIR/$i.log" 2>&1 </dev/null; then v=PASS; else v=FAIL; fi
    echo "$v $(( $(sw_now_ms) - t0 ))" >"$POOL_DIR/$i.rc.tmp" && mv "$POOL_DIR/$i.rc.tmp" "$POOL_DIR/$i.rc"
  ) &
  pool_pids+=($!)
  set +m
}
pool_wait() {
  while [ "$(pool_running)" -gt 0 ]; do wait -n 2>/dev/null || true; pool_collect; done
  pool_collect
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
# The builds, side by side in the pool below: the engines' builds have one-core stretches (configure scripts, LTO
# links, archive steps) that the C++ builds fill; measured, that buys little (cold 1,020 s against 1,052 s one after
# another, warm about 59 s against 70; docs/testing.md). The boot images need the engines and the core; the fuzz build
# reuses the native build's library objects (ccache): both come after.
rm -rf "$POOL_DIR" && mkdir -p "$POOL_DIR"
pool_suite "build engines" bash scripts/build-engines.sh
pool_suite "build wasm (core module, unit tests)" bash scripts/build.sh wasm-only
pool_suite "build native" bash scripts/build.sh native
pool_wait
suite "boot images" bash scripts/build.sh boot-images
suite "build fuzz" bash -c 'bash scripts/build.sh fuzz && bash scripts/fuzz-seeds.sh build/fuzz/seeds'

# Everything built: the suites below read the builds and write only their own temporary files (an engine suite's
# build step is a cache hit that rewrites nothing, scripts/engines/common.sh `install_file`), so they run in the pool,
# the longest first. The integration files and the page come after it: each runs several workerd processes itself.
# Each engine's own suite, as its manifest declares it (`tests.engine`: the suite's name and command; node is ours).
while IFS=$'\t' read -r -a engine_suite; do
  [ "${engine_suite[1]}" = node ] && engine_suite[1]="$SW_NODE"
  pool_suite "${engine_suite[@]}"
done < <("$SW_NODE" scripts/languages.mjs engine-suites)
pool_suite "CLI: sandbox-workers init (run directly and through its installed bin), then npm run pack tarballs installed and bundled by wrangler --dry-run" \
  "$SW_NODE" --test --test-force-exit --test-timeout=600000 --test-reporter=spec test/cli/init.test.mjs
pool_suite "unit tests (Emscripten build under Node)" /usr/bin/node build/wasm/sw_unit_tests.cjs --use-colour no
# Test262 (the official conformance suite) for the modern features, from the workplace's shared folder beside the
# repository; it says so and passes when that folder is absent (docs/javascript-conformance.md).
pool_suite "Test262 subset through the JavaScript engine (known failures: test/test262/known-failures.json)" \
  "$SW_NODE" test/test262/run.mjs
pool_suite "unit tests (native, ASan+UBSan)" build/native/sw_unit_tests --use-colour no
# libFuzzer targets are single-threaded pool jobs like the rest, each for FUZZ_SECONDS from its seed corpus.
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
# The fuzzers share one budget of CPU seconds (FUZZ_BUDGET, default 180: 20 s per target); FUZZ_SECONDS sets every
# target's seconds directly. The budget keeps npm test's time fixed as targets are added.
FUZZ_BUDGET="${FUZZ_BUDGET:-180}"
FUZZ_SECONDS="${FUZZ_SECONDS:-$(( FUZZ_BUDGET / ${#FUZZERS[@]} > 5 ? FUZZ_BUDGET / ${#FUZZERS[@]} : 5 ))}"
for f in "${FUZZERS[@]}"; do
  read -r target corpus what <<<"$f"
  pool_suite "fuzz: $what (${FUZZ_SECONDS}s)" run_fuzzer "$target" "$corpus"
done
pool_suite "WASI host: C guests under the core (Node, then a workerd smoke subset)" bash test/wasi/run.sh
# node:wasi is a comparison, never a gate (docs/wasi-host.md): run it by hand.
pool_suite "WASI conformance: our wasm32-wasip1 suite under the core with --full-wasi" \
  "$SW_NODE" test/wasi/conformance.mjs --no-node-wasi
pool_suite "wasm fuel tool (native C++): a C guest and zeroperl, instrumented, under Node; the memory scanner" \
  "$SW_NODE" --no-turbo-fast-api-calls --test --test-reporter=spec test/tools/wasm-fuel.test.mjs \
  test/tools/scanner.test.mjs
pool_suite "TypeScript declarations (tsc --noEmit)" "$SW_NODE" node_modules/typescript/bin/tsc -p test/types/tsconfig.json
pool_wait
# Two files at a time (node's default on two cores is one): one file's waits (workerd starting, Wasm compiling, a
# restart) overlap another's work. Each file is its own process with its own Miniflare and storage directory; the
# output ends with every file's seconds.
suite "integration tests (workerd via Miniflare), two files at a time" "$SW_NODE" scripts/test-files.mjs \
  --concurrency 2 --timeout 600000 test/integration/*.test.mjs
suite "Playground page in headless Chromium (playwright-core, the gateway and every runtime in workerd)" \
  "$SW_NODE" --test --test-force-exit --test-timeout=600000 --test-reporter=spec test/playground/page.test.mjs

echo
echo "Summary ($(sw_fmt_ms $(( $(sw_now_ms) - t_start ))) total), every suite in the order it ended (pooled: ${SW_TEST_JOBS} at a time):"
for t in "${timings[@]}"; do echo "  $t"; done
echo "suites: ${#passed[@]} passed, ${#failed[@]} failed"
[ ${#failed[@]} -eq 0 ]
