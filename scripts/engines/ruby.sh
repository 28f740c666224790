#!/usr/bin/env bash
# Builds the Ruby engine's files: the prebuilt ruby.wasm of @ruby/4.0-wasm-wasi 2.10.1 (CRuby 4.0.0, a wasm32-wasi
# preview1 reactor we cannot relink) as engines/ruby/build/engine.wasm, and a trimmed standard library
# engines/ruby/build/stdlib.tar (mounted read-only at /stdlib, fd 3). engines/ruby/README.md says why this variant
# (not ruby+stdlib.wasm) and what the C++ driver does with it.
#
#   bash scripts/engines/ruby.sh      fetch (npm pack, pinned, sha256-verified) + build, cached by source hash
#
# ruby.wasm does not speak the wasmify ABI: the core drives it through its own exports (cpp/wasmify/ruby.cpp), and the
# driver's Ruby half (engines/ruby/driver.rb) is stdlib.tar's sandbox_driver.rb, loaded at boot.
#
# Stages, each cached under $SW_CACHE/engines/ruby by a hash of what determines it:
#   npm/          the package tarball as npm pack fetched it (sha256-checked on every run)
#   stdlib-<h>    stdlib.tar: the Ruby files engines/ruby/stdlib.txt's libraries load, read out of ruby+stdlib.wasm
#                 (engines/ruby/buildtool.mjs) plus driver.rb as sandbox_driver.rb and our own libraries
#                 (engines/ruby/lib: bigdecimal), as a ustar archive with sorted
#                 names, mtime 0, read-only modes
#   engine-<h>    engine.wasm: ruby.wasm fuel-metered and capped at 96 MiB by our tool (scripts/tools/wasm-fuel.sh)
# Then write_engine_build: engines/ruby/build/{engine.wasm,stdlib.tar,engine-build.json,engine-build.js}; the boot
# image is scripts/build.sh's (scripts/boot-images.mjs).
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
source "$(dirname "${BASH_SOURCE[0]}")/meter.sh"

RB_PACKAGE="@ruby/4.0-wasm-wasi@2.10.1"
RB_TARBALL="ruby-4.0-wasm-wasi-2.10.1.tgz"
RB_SHA256="48ba7538badb10f829c13be0f79e109c7ed14a1d29f45a42a5d384eef18dc2ce"   # observed 2026-12-03
RB_ENGINE_NAME="CRuby 4.0.0 / ruby.wasm 2.10.1"
RB_MAX_PAGES=$(( $(sw_memory_bytes ruby) / 65536 ))   # the manifest's limits.memoryBytes (protocol §6.1)
RB_CACHE="$SW_CACHE/engines/ruby"
RB_ENGINE_DIR="$SW_ROOT/engines/ruby"
RB_NODE=("$SW_NODE" --no-turbo-fast-api-calls --no-warnings)   # TOOLCHAIN: node:wasi needs the flag past 32 MiB


fetch_package() {
  local dir="$RB_CACHE/npm"
  if [ -f "$dir/$RB_TARBALL" ] && echo "$RB_SHA256  $dir/$RB_TARBALL" | sha256sum -c --quiet - 2>/dev/null; then
    echo "    cached $dir/$RB_TARBALL"
  else
    mkdir -p "$dir" && rm -f "$dir/$RB_TARBALL"
    (cd "$dir" && PATH="$(dirname "$SW_NODE"):$PATH" npm pack --silent "$RB_PACKAGE" >/dev/null)
    echo "$RB_SHA256  $dir/$RB_TARBALL" | sha256sum -c --quiet - ||
      { echo "sha256 mismatch for $RB_TARBALL: $(sha256sum <"$dir/$RB_TARBALL")"; return 1; }
  fi
  RB_DIST="$RB_CACHE/dist-${RB_SHA256:0:16}"
  if [ ! -f "$RB_DIST/ruby.wasm" ]; then
    rm -rf "$RB_DIST.tmp" && mkdir -p "$RB_DIST.tmp"
    tar -xzf "$dir/$RB_TARBALL" -C "$RB_DIST.tmp" package/dist/ruby.wasm package/dist/ruby+stdlib.wasm \
      package/dist/LICENSE package/dist/NOTICE
    mv "$RB_DIST.tmp/package/dist" "$RB_DIST.dist" && rm -rf "$RB_DIST.tmp" && mv "$RB_DIST.dist" "$RB_DIST"
  fi
  echo "    $RB_TARBALL: sha256 ok"
}

build_stdlib() {
  local key; key=$(printf '%s\n' "$RB_SHA256" "$("${RB_NODE[@]}" --version)" "$(tar --version | head -1)" \
                     "$(declare -f build_stdlib)" \
                     "$(cd "$RB_ENGINE_DIR" && sha256sum stdlib.txt buildtool.mjs driver.rb && find lib -type f | LC_ALL=C sort | xargs sha256sum)" | hash_of)
  STDLIB_OUT="$RB_CACHE/stdlib-$key"
  if [ -f "$STDLIB_OUT/stdlib.tar" ]; then echo "    cached $STDLIB_OUT/stdlib.tar"; return 0; fi
  local work="$STDLIB_OUT.work.$$"
  rm -rf "$work" && mkdir -p "$work/root"
  nice -n 10 "${RB_NODE[@]}" "$RB_ENGINE_DIR/buildtool.mjs" stdlib "$RB_DIST/ruby+stdlib.wasm" \
    "$RB_ENGINE_DIR/stdlib.txt" "$work/root" || { rm -rf "$work"; return 1; }
  cp "$RB_ENGINE_DIR/driver.rb" "$work/root/sandbox_driver.rb"
  cp -R "$RB_ENGINE_DIR/lib/." "$work/root/"   # our own libraries: bigdecimal (README "BigDecimal")
  (cd "$work/root" && find . -type f | LC_ALL=C sort >../files &&
    tar --no-recursion --format=ustar --owner=0 --group=0 --numeric-owner --mtime=@0 --mode=a=r \
      -cf ../stdlib.tar -T ../files) || { rm -rf "$work"; return 1; }
  mkdir -p "$STDLIB_OUT" && mv "$work/stdlib.tar" "$STDLIB_OUT/stdlib.tar" && rm -rf "$work"
  echo "    $(stat -c %s "$STDLIB_OUT/stdlib.tar") bytes ($(gzip -9 -c "$STDLIB_OUT/stdlib.tar" | wc -c) gzip -9)"
}

# engine.wasm: ruby.wasm with the fuel meter (imports sandbox.charge) and its memory capped at RB_MAX_PAGES.
build_engine() {
  local fuel_tool; fuel_tool=$(bash "$SW_ROOT/scripts/tools/wasm-fuel.sh") || return 1
  local key; key=$(printf '%s\n' "$RB_SHA256" "$RB_MAX_PAGES" "$(sha256sum <"$fuel_tool")" "$(declare -f build_engine)" \
                     "$(meter_options ruby)" |
                     hash_of)
  ENGINE_OUT="$RB_CACHE/engine-$key"
  if [ -f "$ENGINE_OUT/engine.wasm" ]; then echo "    cached $ENGINE_OUT/engine.wasm"; return 0; fi
  local work="$ENGINE_OUT.work.$$"
  rm -rf "$work" && mkdir -p "$work"
  local -a meter; read -r -a meter <<<"$(meter_options ruby)"
  nice -n 10 "$fuel_tool" "$RB_DIST/ruby.wasm" "$work/engine.wasm" --max-pages "$RB_MAX_PAGES" "${meter[@]}" ||
    { rm -rf "$work"; return 1; }
  mkdir -p "$ENGINE_OUT" && mv "$work/engine.wasm" "$ENGINE_OUT/engine.wasm" && rm -rf "$work"
  echo "    $(stat -c %s "$ENGINE_OUT/engine.wasm") bytes ($(gzip -9 -c "$ENGINE_OUT/engine.wasm" | wc -c) gzip -9)"
}

mkdir -p "$RB_CACHE"
exec 9>"$RB_CACHE/.lock"
flock 9

step "Ruby package ($RB_PACKAGE; sha256-pinned)" fetch_package
step "stdlib.tar (trimmed, from ruby+stdlib.wasm)" build_stdlib
step "engine.wasm (fuel-metered, $RB_MAX_PAGES pages)" build_engine
step "engines/ruby/build" write_engine_build ruby "$RB_ENGINE_NAME" \
  "$(printf '%s\n' "$(basename "$STDLIB_OUT")" "$(basename "$ENGINE_OUT")" | hash_of)" \
  "$ENGINE_OUT/engine.wasm" "$STDLIB_OUT/stdlib.tar"
