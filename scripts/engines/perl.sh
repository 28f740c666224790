#!/usr/bin/env bash
# Builds the Perl engine: engines/perl/build/engine.wasm (zeroperl, Perl 5.42.0, from the npm package
# @6over3/zeroperl-ts 1.0.10, pinned and sha256-verified), fuel-metered and capped at its manifest's memory limit by our
# own tool (cpp/tools/wasm_fuel.cpp, docs/fuel-tool.md); stdlib.tar with the driver's Perl half (engines/perl/
# sandbox_driver.pl, mounted read-only at /stdlib) and our POSIX and Storable (engines/perl/lib/, /stdlib/lib at the
# end of @INC); engine-build.json and engine-build.js.
#
# zeroperl is a prebuilt module that does not speak the wasmify ABI, so the host drives it through its own exports
# (cpp/wasmify/perl.cpp). Its Perl library (/zeroperl/lib, 16 MB) is embedded in its data segments behind a lookup
# that claims every path under /zeroperl; our tool moves those files out of the module (`--extract-files /zeroperl`,
# docs/fuel-tool.md) into stdlib.tar's zeroperl/, which the archive's `.mounts` line has the WASI host preopen at
# /zeroperl, read-only (docs/wasi-host.md): a program's `require` reads a module from there, so only the modules it
# loads take memory. Nothing is compiled here but our tool. Cached under $SW_CACHE/engines/perl/engine-<hash of every
# input>.
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
source "$(dirname "${BASH_SOURCE[0]}")/meter.sh"

PERL_NPM="@6over3/zeroperl-ts@1.0.10"
PERL_TGZ="6over3-zeroperl-ts-1.0.10.tgz"
PERL_TGZ_SHA256="c46c5ffff4f2c2216137a6b34b4eb03f5554e17a2b88979463c5f61dffb36fed"
PERL_ENGINE_NAME="Perl 5.42.0 / zeroperl 1.0.10"
PERL_MAX_PAGES=$(( $(sw_memory_bytes perl) / 65536 ))   # the manifest's limits.memoryBytes (protocol §6.1)
PERL_CACHE="$SW_CACHE/engines/perl"
PERL_ENGINE_DIR="$SW_ROOT/engines/perl"

fetch_zeroperl() {
  mkdir -p "$PERL_CACHE/npm"
  local tgz="$PERL_CACHE/npm/$PERL_TGZ"
  if [ ! -f "$tgz" ]; then
    (cd "$PERL_CACHE/npm" && npm pack --silent "$PERL_NPM" >/dev/null) || { echo "npm pack $PERL_NPM failed"; return 1; }
  fi
  echo "$PERL_TGZ_SHA256  $tgz" | sha256sum -c --quiet - || { echo "sha256 mismatch: $tgz"; rm -f "$tgz"; return 1; }
}

build() {
  fetch_zeroperl || return 1
  local fuel_tool; fuel_tool=$(bash "$SW_ROOT/scripts/tools/wasm-fuel.sh") || return 1
  local key; key=$(
    {
      echo "$PERL_TGZ_SHA256 $PERL_MAX_PAGES $(sha256sum <"$fuel_tool") $(meter_options perl)"
      declare -f build
      (cd "$PERL_ENGINE_DIR" && sha256sum sandbox_driver.pl lib/*.pm)
      tar --version | head -1
    } | hash_of)
  OUT="$PERL_CACHE/engine-$key"
  if [ -f "$OUT/engine.wasm" ] && [ -f "$OUT/stdlib.tar" ]; then echo "    cached $OUT"; return 0; fi
  local work="$OUT.work.$$"
  rm -rf "$work" && mkdir -p "$work/root"
  tar -xzf "$PERL_CACHE/npm/$PERL_TGZ" -C "$work" package/dist/esm/zeroperl.wasm || { rm -rf "$work"; return 1; }
  # The library out of the module: root/zeroperl/lib/..., mounted at /zeroperl (the prefix its lookup claimed).
  "$fuel_tool" --extract-files /zeroperl "$work/package/dist/esm/zeroperl.wasm" "$work/nolib.wasm" "$work/root" ||
    { rm -rf "$work"; return 1; }
  printf '/zeroperl zeroperl\n' >"$work/root/.mounts"
  local -a meter; read -r -a meter <<<"$(meter_options perl)"
  "$fuel_tool" "$work/nolib.wasm" "$work/engine.wasm" --max-pages "$PERL_MAX_PAGES" "${meter[@]}" ||
    { rm -rf "$work"; return 1; }
  cp "$PERL_ENGINE_DIR/sandbox_driver.pl" "$work/root/"
  mkdir -p "$work/root/lib" && cp "$PERL_ENGINE_DIR"/lib/*.pm "$work/root/lib/"
  (cd "$work/root" && find . -type f | LC_ALL=C sort >../files &&
    tar --no-recursion --format=ustar --owner=0 --group=0 --numeric-owner --mtime=@0 --mode=a=r \
      -cf ../stdlib.tar -T ../files) || { rm -rf "$work"; return 1; }
  mkdir -p "$OUT" && mv "$work/engine.wasm" "$work/stdlib.tar" "$OUT/" && rm -rf "$work"
}

build || exit 1
write_engine_build perl "$PERL_ENGINE_NAME" "$(basename "$OUT" | sed 's/^engine-//')" "$OUT/engine.wasm" "$OUT/stdlib.tar"
