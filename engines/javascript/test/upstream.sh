#!/usr/bin/env bash
# QuickJS's own test scripts (tests/test_*.js from the source package), run natively with upstream's `qjs` built from
# the same patched tree as engine.wasm, invoked exactly as upstream's Makefile `test` target does.
# (test_worker_module.js is not a test: test_worker.js loads it as its worker.)
# The ones that need only the language (not std/os/workers/.so modules) also run through OUR engine.wasm under our
# host: upstream-engine.test.mjs.
source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/lib.sh"
src=$(bash "$SW_ROOT/scripts/engines/javascript.sh" --src-dir)
out="$SW_ROOT/engines/javascript/build/upstream-$(basename "$src")"
# ccache through Debian's masquerade directory (/usr/lib/ccache/gcc): CC must stay one word, qjsc bakes it in.
if [ ! -x "$out/qjs" ] || [ ! -f "$out/tests/bjson.so" ]; then
  rm -rf "$out" && cp -r "$src" "$out"
  (cd "$out" && PATH="${SW_CC_LAUNCHER:+/usr/lib/ccache:}$PATH" make -j2 qjs tests/bjson.so >make.log 2>&1) || { tail -20 "$out/make.log"; exit 1; }
fi
cd "$out"
tests=("tests/test_closure.js" "tests/test_language.js" "--std tests/test_builtin.js" "tests/test_loop.js"
       "tests/test_bigint.js" "tests/test_std.js" "tests/test_worker.js" "tests/test_cyclic_import.js"
       "tests/test_bjson.js")
failed=0
for t in "${tests[@]}"; do
  # shellcheck disable=SC2086
  if timeout 300 ./qjs $t >"$out/$(basename "${t##* }").log" 2>&1; then echo "ok   qjs $t"
  else echo "FAIL qjs $t"; tail -5 "$out/$(basename "${t##* }").log" | sed 's/^/     /'; failed=$((failed + 1)); fi
done
echo "$(( ${#tests[@]} - failed ))/${#tests[@]} upstream test scripts passed natively"
[ $failed -eq 0 ]
