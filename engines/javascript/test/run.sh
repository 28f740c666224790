#!/usr/bin/env bash
# The JavaScript engine's tests: build engine.wasm (scripts/build-engines.sh), then
#   1. the driver's native tests (driver_test.c + QuickJS, gcc, ASan+UBSan): protocol §10.3 items 24-46, 48-50, sessions;
#      and intl_test.c: the collator and case mapping (intl_collator.c) over the host's ICU 72.1, with hostile inputs;
#   2. QuickJS's own tests/test_*.js natively with upstream's qjs (and, step 6, the language-only ones through OUR
#      engine.wasm under our host: upstream-engine.test.mjs);
#   3. the smoke test: engine.wasm under our WASI host (the C++ core) in Node;
#   4. the wasmify ABI end to end: engine.wasm driven through cpp/wasmify (docs/abi.md);
#   5. sessions end to end (protocol §10.5 items 106-114, 127): cpp/wasmify's session host over engine.wasm with a workspace;
#   6. QuickJS's test_closure/language/loop/bigint/builtin/cyclic_import.js through that session host.
# Every part runs; the exit code is non-zero if any failed.
source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/lib.sh"
cd "$SW_ROOT"
dir="$SW_ROOT/engines/javascript"
failed=()

build_native_test() {
  local src; src=$(bash scripts/engines/javascript.sh --src-dir)
  local out="$dir/build/native"
  # QuickJS's defines, the interrupt intervals (the fuel scale, docs/fuel.md) among them, exactly as the wasm build's.
  source "$dir/build-flags.sh"
  local flags=(-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
               "${QJS_DEFINES[@]}")
  local stamp; stamp=$(printf '%s %s' "$src" "${flags[*]}" | sha256sum | cut -c1-16)
  mkdir -p "$out"
  if [ "$(cat "$out/qjs.stamp" 2>/dev/null)" != "$stamp" ]; then
    local f pids=() rc=0
    for f in quickjs libregexp libunicode cutils dtoa; do $SW_CC_LAUNCHER gcc "${flags[@]}" -w -c "$src/$f.c" -o "$out/$f.o" & pids+=($!); done
    for f in "${pids[@]}"; do wait "$f" || rc=1; done
    [ $rc -eq 0 ] || return 1
    echo "$stamp" >"$out/qjs.stamp"
  fi
  # liblzma's decoder (the Intl chunks are stored LZMA2-compressed), from the same source and configuration as engine.wasm's.
  local xz; xz=$(bash scripts/engines/javascript.sh --xz-dir) || return 1
  xz_cflags "$xz"
  local xzo=()
  for c in "${JS_XZ_C[@]}"; do
    xzo+=("$out/xz_$(basename "$c").o")
    $SW_CC_LAUNCHER gcc "${flags[@]}" "${XZ_CFLAGS[@]}" -c "$xz/src/liblzma/$c.c" -o "${xzo[-1]}" || return 1
  done
  local c plain=("${xzo[@]}") icu=("${xzo[@]}")
  for c in "${JS_DRIVER_C[@]}"; do plain+=("$out/${c%.c}.o"); icu+=("$out/${c%.c}-icu.o"); done
  for c in "${JS_DRIVER_C[@]}"; do
    $SW_CC_LAUNCHER gcc "${flags[@]}" -Wall -Wextra -Werror -isystem "$src" "${XZ_API_CFLAGS[@]}" -I "$SW_ROOT/engines/common" -c "$dir/$c" -o "$out/${c%.c}.o" || return 1
  done
  # The TypeScript stripper's bytecode, as scripts/engines/javascript.sh generated it for engine.wasm.
  $SW_CC_LAUNCHER gcc -O1 -c "$dir/build/ts/ts-strip.c" -o "$out/ts-strip.o" &&
  $SW_CC_LAUNCHER gcc "${flags[@]}" -Wall -Wextra -Werror -isystem "$src" "$dir/test/driver_test.c" "${plain[@]}" "$out/ts-strip.o" \
    "$out"/{quickjs,libregexp,libunicode,cutils,dtoa}.o -lm -o "$out/driver_test" &&
  # The collator (intl_collator.c) natively against the host's ICU 72.1 (libicu-dev), for intl_test.c.
  local icu_data; icu_data=$(bash scripts/engines/icu.sh --out-dirs | cut -d' ' -f2) &&
  for c in "${JS_DRIVER_C[@]}"; do
    $SW_CC_LAUNCHER gcc "${flags[@]}" -DSW_JS_HAVE_ICU_COLLATOR -Wall -Wextra -Werror -isystem "$src" "${XZ_API_CFLAGS[@]}" \
      -I "$SW_ROOT/engines/common" -I "$icu_data" -c "$dir/$c" -o "$out/${c%.c}-icu.o" || return 1
  done &&
  $SW_CC_LAUNCHER gcc "${flags[@]}" -DSW_JS_HAVE_ICU_COLLATOR -Wall -Wextra -Werror -isystem "$src" -I "$icu_data" \
    -c "$dir/intl_collator.c" -o "$out/intl_collator.o" &&
  $SW_CC_LAUNCHER gcc "${flags[@]}" -Wall -Wextra -Werror "$dir/test/intl_test.c" "${icu[@]}" "$out/intl_collator.o" "$out/ts-strip.o" \
    "$out"/{quickjs,libregexp,libunicode,cutils,dtoa}.o -licui18n -licuuc -licudata -lm -o "$out/intl_test"
}

core_present() {
  [ -f worker-shim/generated/core.wasm ] && [ -f worker-shim/generated/wasi_imports.mjs ] &&
    [ -f worker-shim/generated/abi.mjs ] || bash scripts/build.sh core
}

run() { local name="$1"; shift; step "$name" "$@" || failed+=("$name"); }

step "build engine.wasm" bash scripts/build-engines.sh javascript || exit 1
run "build native driver test (gcc, ASan+UBSan)" build_native_test
# The Intl chunks as the core mounts them at /stdlib/intl (the native driver reads SW_JS_INTL_DIR instead).
extract_intl() { rm -rf "$dir/build/native/stdlib" && mkdir -p "$dir/build/native/stdlib" && tar -xf "$dir/build/stdlib.tar" -C "$dir/build/native/stdlib"; }
run "Intl chunks for the native driver" extract_intl
run "driver tests (native)" env ASAN_OPTIONS=detect_leaks=1 SW_JS_INTL_DIR="$dir/build/native/stdlib/intl" "$dir/build/native/driver_test"
run "Intl.Collator / localeCompare / case mapping, hostile inputs (native, host ICU 72.1)" \
  env ASAN_OPTIONS=detect_leaks=1 SW_JS_INTL_DIR="$dir/build/native/stdlib/intl" "$dir/build/native/intl_test"
run "QuickJS tests/test_*.js (native qjs)" bash "$dir/test/upstream.sh"
run "core module present" core_present
run "smoke: engine.wasm under our WASI host (Node)" "$SW_NODE" "$dir/test/smoke.mjs"
run "wasmify ABI: engine.wasm driven by the core's C++ (Node)" "$SW_NODE" --test "$dir/test/wasmify.test.mjs"
run "sessions: engine.wasm sessions and restore through the core's C++ (Node)" "$SW_NODE" --test "$dir/test/session.test.mjs"
run "QuickJS tests/test_*.js through our engine.wasm and session host (Node)" \
  env SW_QJS_SRC="$(bash scripts/engines/javascript.sh --src-dir)" "$SW_NODE" --test "$dir/test/upstream-engine.test.mjs"

if [ ${#failed[@]} -gt 0 ]; then echo "FAILED: ${failed[*]}"; exit 1; fi
echo "all JavaScript engine tests passed"
