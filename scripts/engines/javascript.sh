#!/usr/bin/env bash
# Builds the JavaScript engine: QuickJS 2025-04-26 + our driver as a wasm32-wasi reactor,
# engines/javascript/build/engine.wasm + engine-build.json (+ engine-build.js for the Worker).
#
#   bash scripts/engines/javascript.sh            fetch (pinned, sha256-verified) + build, cached by source hash
#   bash scripts/engines/javascript.sh --src-dir  print the patched QuickJS source directory (native test builds)
#   (bash scripts/build-engines.sh builds every engine)
#
# Source: Debian trixie source package `quickjs` 2025.04.26-1, fetched with a private apt state directory (nothing
# under /etc/apt changes). Third-party sources are patched at build time on an extracted copy, never committed.
# Cache: $SW_CACHE/engines/javascript/<hash>/engine.wasm, <hash> = sha256 over the orig tarball's sha256, our driver
# sources, the TypeScript stripper bundle and this script (which holds every flag). A warm run only copies the cached
# file (and re-bundles the stripper with esbuild, ~0.1 s, to hash it).
# TypeScript (SPEC §6.2): engines/javascript/ts/strip.js + sucrase (exact-pinned devDependency) bundled by esbuild,
# compiled to QuickJS bytecode by a native qjsc built from the same patched tree, embedded in engine.wasm as
# build/ts-strip.c (also linked by the native driver tests); driver.c loads it only on the TypeScript fallback path.
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

QJS_SPEC="quickjs=2025.04.26-1"
QJS_TARBALL="quickjs_2025.04.26.orig.tar.xz"
QJS_SHA256="ec81da5b3249ed648dbc7df4a1654988910e66a118d9b71cb63534216efcfbbe"
QJS_DIR="quickjs-2025.04.26"
QJS_ENGINE_NAME="QuickJS 2025-04-26"
QJS_SOURCES=(quickjs libregexp libunicode cutils dtoa)

JS_ENGINE_DIR="$SW_ROOT/engines/javascript"
JS_DRIVER_SOURCES=(driver.c driver.h)
JS_EXPORTS=(sw_js_new sw_js_eval sw_js_free sw_alloc sw_free sw_js_interrupt_address __stack_pointer)
JS_TS_DIR="$JS_ENGINE_DIR/build/ts"   # strip.script.js (the bundle) and ts-strip.c (its bytecode as C)
ESBUILD="$SW_ROOT/node_modules/.bin/esbuild"

# Compile flags shared by the wasm and the native builds (CONFIG_VERSION as upstream's Makefile sets it).
# Fuel (docs/fuel.md): QuickJS polls its interrupt handler every JS_INTERRUPT_COUNTER_INIT operations (each poll
# charges that many units) and every INTERRUPT_COUNTER_INIT regex backtracking steps (so one step weighs 4 units: a
# catastrophic regex and `while (true) {}` burn 50,000,000 fuel in similar time). engines/javascript/test/run.sh
# reads QJS_FUEL_DEFINES from this line for the native build.
QJS_FUEL_DEFINES=(-DJS_INTERRUPT_COUNTER_INIT=1000 -DINTERRUPT_COUNTER_INIT=250)
QJS_DEFINES=(-D_GNU_SOURCE '-DCONFIG_VERSION="2025-04-26"' -fwrapv "${QJS_FUEL_DEFINES[@]}")
# clang-16 runs /usr/bin/wasm-opt by itself when linking at -O1+, and binaryen 108 rejects the module
# (TOOLCHAIN.md §2): compile at -O2, link at -O0.
WASM_CFLAGS=(--target=wasm32-wasi -O2 "${QJS_DEFINES[@]}")
# Stack: 1 MiB of linear memory at the bottom (--stack-first: an overflow runs off address 0 and traps instead of
# overwriting data). QuickJS's own stack check stops JS recursion at JS_SetMaxStackSize (≤ 256 KiB, driver.h), which
# leaves ≥ 768 KiB for C code that runs without the check (regexp compilation, JSON, GC, the driver, error paths).
# Memory: a fixed maximum of 64 MiB (SPEC §6.1); the JS heap itself is capped at 32 MiB by JS_SetMemoryLimit.
WASM_LDFLAGS=(--target=wasm32-wasi -O0 -mexec-model=reactor -Wl,--stack-first -Wl,-z,stack-size=1048576
              -Wl,--max-memory=67108864 -Wl,--strip-all)
for e in "${JS_EXPORTS[@]}" "${WASMIFY_EXPORTS[@]}"; do WASM_LDFLAGS+=("-Wl,--export=$e"); done

# Patches applied to the extracted copy (python: every pattern must match exactly once).
patch_quickjs() {
  python3 - "$1" <<'PY'
import sys, pathlib
root = pathlib.Path(sys.argv[1])
def sub(name, old, new):
    p = root / name
    s = p.read_text()
    if s.count(old) != 1:
        sys.exit(f"patch failed: {name}: pattern found {s.count(old)} times: {old!r}")
    p.write_text(s.replace(old, new))
# No threads on wasm32-wasi: drop CONFIG_ATOMICS (Atomics, SharedArrayBuffer waiting); keep CONFIG_STACK_CHECK.
sub("quickjs.c", "#if !defined(EMSCRIPTEN)\n#define CONFIG_ATOMICS",
    "#if !defined(EMSCRIPTEN) && !defined(__wasi__)\n#define CONFIG_ATOMICS")
# malloc_usable_size comes from <malloc.h> in wasi-libc too.
sub("quickjs.c", "#elif defined(__linux__) || defined(__GLIBC__)\n#include <malloc.h>",
    "#elif defined(__linux__) || defined(__GLIBC__) || defined(__wasi__)\n#include <malloc.h>")
# The interrupt polling interval (the fuel granularity) becomes a build flag; upstream's value is the default.
sub("quickjs.c", "#define JS_INTERRUPT_COUNTER_INIT 10000",
    "#ifndef JS_INTERRUPT_COUNTER_INIT\n#define JS_INTERRUPT_COUNTER_INIT 10000\n#endif")
# dtoa.c includes <setjmp.h> without using it; Debian's wasi-libc has none.
sub("dtoa.c", "#include <setjmp.h>\n", "#ifndef __wasi__\n#include <setjmp.h>\n#endif\n")
# Math.random() is seeded from the clock when a context is created; a boot image would give every request the same
# sequence. JS_SwSeedRandom lets the driver re-seed after the image is restored (engines/javascript/driver.c).
sub("quickjs.c", "static void js_random_init(JSContext *ctx)\n{",
    "void JS_SwSeedRandom(JSContext *ctx, uint64_t seed)\n{\n    ctx->random_state = seed ? seed : 1;\n}\n\n"
    "static void js_random_init(JSContext *ctx)\n{")
sub("libregexp.c", "#define INTERRUPT_COUNTER_INIT 10000",
    "#ifndef INTERRUPT_COUNTER_INIT\n#define INTERRUPT_COUNTER_INIT 10000\n#endif")
# QuickJS collects cycles only when an object allocation crosses malloc_gc_threshold, set to 1.5x the live size after
# each collection, and never on an allocation failure. Under a memory limit (our 32 MiB heap) a collection at > 2/3 of
# the limit would put the next one past the limit: cyclic garbage then piles up until a spurious out-of-memory, for
# the rest of a long-lived session. Schedule the next collection at most half-way into the remaining headroom.
sub("quickjs.c", """        rt->malloc_gc_threshold = rt->malloc_state.malloc_size +
            (rt->malloc_state.malloc_size >> 1);
    }""", """        rt->malloc_gc_threshold = rt->malloc_state.malloc_size +
            (rt->malloc_state.malloc_size >> 1);
        if (rt->malloc_state.malloc_limit > rt->malloc_state.malloc_size) {
            size_t room = (rt->malloc_state.malloc_limit - rt->malloc_state.malloc_size) >> 1;
            if (room < 65536) room = 65536;
            if (rt->malloc_gc_threshold > rt->malloc_state.malloc_size + room)
                rt->malloc_gc_threshold = rt->malloc_state.malloc_size + room;
        }
    }""")
PY
}

# Fetches the pinned source package into $SW_CACHE/debsrc-trixie and leaves a patched tree in $QJS_SRC.
fetch_quickjs() {
  local dir="$SW_CACHE/debsrc-trixie"
  if [ -f "$QJS_SRC/.verified" ]; then echo "    cached in $QJS_SRC"; return 0; fi
  mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$SW_DEPS"
  if ! { [ -f "$dir/$QJS_TARBALL" ] && echo "$QJS_SHA256  $dir/$QJS_TARBALL" | sha256sum -c --quiet -; }; then
    rm -f "$dir/$QJS_TARBALL"
    echo 'deb-src http://deb.debian.org/debian trixie main' >"$dir/sources.list"
    local opts=(-o "Dir::Etc::SourceList=$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
                -o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache" -o APT::Sandbox::User=root)
    apt-get "${opts[@]}" update -qq
    (cd "$dir" && apt-get "${opts[@]}" source --download-only -qq "$QJS_SPEC")
    echo "$QJS_SHA256  $dir/$QJS_TARBALL" | sha256sum -c --quiet - || { echo "sha256 mismatch for $QJS_TARBALL"; return 1; }
  fi
  local tmp="$QJS_SRC.tmp.$$"
  rm -rf "$tmp" && mkdir -p "$tmp"
  tar -xJf "$dir/$QJS_TARBALL" -C "$tmp"
  patch_quickjs "$tmp/$QJS_DIR"
  rm -rf "$QJS_SRC" && mv "$tmp/$QJS_DIR" "$QJS_SRC" && rm -rf "$tmp"
  touch "$QJS_SRC/.verified"
  echo "    $QJS_SPEC -> $QJS_SRC (patched)"
}

# The TypeScript stripper as one script whose completion value is the strip function (no globals touched):
# $JS_TS_DIR/strip.script.js. Deterministic for a given esbuild + sucrase; its sha256 is part of the engine hash.
bundle_ts_stripper() {
  [ -x "$ESBUILD" ] && [ -f "$SW_ROOT/node_modules/sucrase/package.json" ] ||
    { echo "esbuild/sucrase missing: run npm install"; return 1; }
  mkdir -p "$JS_TS_DIR"
  "$ESBUILD" "$JS_ENGINE_DIR/ts/strip.js" --bundle --format=cjs --minify --target=es2020 --platform=neutral \
    --main-fields=main,module --log-level=warning --outfile="$JS_TS_DIR/strip.cjs" || return 1
  { printf '(function(){var module={exports:{}},exports=module.exports;\n'; cat "$JS_TS_DIR/strip.cjs"
    printf '\nreturn module.exports.strip})()\n'; } >"$JS_TS_DIR/strip.script.js.tmp" &&
    mv "$JS_TS_DIR/strip.script.js.tmp" "$JS_TS_DIR/strip.script.js" && rm -f "$JS_TS_DIR/strip.cjs"
  echo "    $(stat -c %s "$JS_TS_DIR/strip.script.js") bytes, sucrase $(node -p 'require("'"$SW_ROOT"'/node_modules/sucrase/package.json").version' 2>/dev/null)"
}

# A native qjsc from the patched tree (bytecode must come from the very QuickJS that reads it).
QJSC_FLAGS=(-O2 -w -D_GNU_SOURCE '-DCONFIG_VERSION="2025-04-26"' -fwrapv)
native_qjsc() {
  local out="$SW_CACHE/engines/javascript/qjsc-$(basename "$QJS_SRC")"
  if [ ! -x "$out/qjsc" ]; then
    mkdir -p "$out"
    gcc "${QJSC_FLAGS[@]}" -I "$QJS_SRC" "$QJS_SRC"/{qjsc,quickjs,libregexp,libunicode,cutils,dtoa,quickjs-libc}.c \
      -lm -ldl -lpthread -o "$out/qjsc.tmp" >&2 && mv "$out/qjsc.tmp" "$out/qjsc" || return 1
  fi
  echo "$out/qjsc"
}

# $JS_TS_DIR/ts-strip.c: the stripper as stripped bytecode (sw_ts_strip, sw_ts_strip_size).
compile_ts_stripper() {
  local qjsc; qjsc=$(native_qjsc) || return 1
  (cd "$JS_TS_DIR" && "$qjsc" -c -s -N sw_ts_strip -o ts-strip.c.tmp strip.script.js) &&
    mv "$JS_TS_DIR/ts-strip.c.tmp" "$JS_TS_DIR/ts-strip.c"
}

# sha256 over everything that determines engine.wasm.
js_source_hash() {
  {
    echo "ts-stripper $(sha256sum <"$JS_TS_DIR/strip.script.js" | cut -d' ' -f1) $QJS_SRC"
    echo "quickjs $QJS_SHA256"
    echo "clang $(clang-16 --version | head -1)"
    sha256sum "${BASH_SOURCE[0]}"
    (cd "$JS_ENGINE_DIR" && sha256sum "${JS_DRIVER_SOURCES[@]}")
    wasmify_guest_hash_inputs
  } | sed "s|$SW_ROOT/||" | sha256sum | cut -d' ' -f1
}

build_js_engine() {
  local hash; hash=$(js_source_hash)
  local out="$SW_CACHE/engines/javascript/$hash"
  if [ ! -f "$out/engine.wasm" ]; then
    local work="$out.work.$$"
    rm -rf "$work" && mkdir -p "$work"
    local f pids=() rc=0
    # Reproducible: no cache or checkout path may reach the binary (assert() embeds __FILE__).
    local maps=("-ffile-prefix-map=$QJS_SRC=$QJS_DIR" "-ffile-prefix-map=$JS_ENGINE_DIR=engines/javascript")
    # Two cores: compile in parallel, quickjs.c (the long pole) first.
    for f in "${QJS_SOURCES[@]}"; do
      clang-16 "${WASM_CFLAGS[@]}" "${maps[@]}" -c "$QJS_SRC/$f.c" -o "$work/$f.o" & pids+=($!)
    done
    clang-16 "${WASM_CFLAGS[@]}" "${maps[@]}" -Wall -Wextra -Werror -isystem "$QJS_SRC" -I "$ENGINE_COMMON_DIR" \
      -c "$JS_ENGINE_DIR/driver.c" -o "$work/driver.o" & pids+=($!)
    clang-16 "${WASM_CFLAGS[@]}" -c "$JS_TS_DIR/ts-strip.c" -o "$work/ts_strip.o" & pids+=($!)
    # wasmify: the shared guest glue (scripts/engines/common.sh).
    compile_wasmify_guest "$work" "${WASM_CFLAGS[@]}" "${maps[@]}" || rc=1
    local p
    for p in "${pids[@]}"; do wait "$p" || rc=1; done
    [ $rc -eq 0 ] || { rm -rf "$work"; return 1; }
    clang-16 "${WASM_LDFLAGS[@]}" "$work"/*.o -lm -o "$work/engine.wasm" || { rm -rf "$work"; return 1; }
    mv "$work/engine.wasm" "$work/engine.wasm.tmp" && mkdir -p "$out"
    mv "$work/engine.wasm.tmp" "$out/engine.wasm" && rm -rf "$work"
    echo "    built $out/engine.wasm"
  else
    echo "    cached $out/engine.wasm"
  fi
  write_engine_build javascript "$QJS_ENGINE_NAME" "$hash" "$out/engine.wasm"
}

QJS_SRC="$SW_DEPS/$QJS_DIR-patched-$(printf '%s' "$QJS_SHA256 $(sed -n '/^patch_quickjs()/,/^}/p' "${BASH_SOURCE[0]}")" | sha256sum | cut -c1-12)"

if [ "${1:-}" = "--src-dir" ]; then
  fetch_quickjs >/dev/null && echo "$QJS_SRC"
  exit 0
fi

step "QuickJS source ($QJS_SPEC, sha256-pinned)" fetch_quickjs
step "TypeScript stripper (sucrase + esbuild)" bundle_ts_stripper
step "TypeScript stripper bytecode (native qjsc)" compile_ts_stripper
step "JavaScript engine (QuickJS -> wasm32-wasi reactor)" build_js_engine
