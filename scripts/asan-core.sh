#!/usr/bin/env bash
# The core built with ASan + UBSan (preset wasm-asan, build/wasm-asan; never shipped), driven by the integration suites
# in workerd: test/integration/faults.test.mjs when no file is given, else the files given (test/integration/*.test.mjs
# for all of them; docs/testing.md).
# SW_CORE_DIR makes the tests' Miniflare load this core under the shipped core's module names
# (test/integration/helpers.mjs); worker-shim/generated/ is not touched. A sanitizer report aborts the core (the shim
# sees a RuntimeError and answers 502, which fails the test) and is printed on stderr; any report in the output fails
# this script even if every test passed.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$SW_ROOT"
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(test/integration/faults.test.mjs)

bash scripts/build.sh asan
log="build/wasm-asan/tests.log"
# The build really is instrumented: a free of an address malloc never returned is reported.
step "ASan canary (a bad free is reported)" \
  bash -c '"$SW_NODE" scripts/asan-canary.mjs build/wasm-asan 2>&1 | grep -q "AddressSanitizer: attempting free"'
rc=0
step "integration tests on the ASan core: ${files[*]}" env SW_CORE_DIR=build/wasm-asan \
  "$SW_NODE" --test --test-force-exit --test-timeout=600000 --test-reporter=spec "${files[@]}" > >(tee "$log") 2>&1 ||
  rc=$?
wait
if grep -nE "AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:" "$log"; then
  echo "sanitizer reports above (full output: $log)"
  rc=1
fi
exit $rc
