#!/usr/bin/env bash
# Benchmark (not a test): the cost of reading Intl chunks stored LZMA2-compressed (docs/intl.md, "Every CLDR locale:
# the measured design"). Builds liblzma's raw LZMA2 decoder alone for wasm32-wasi from Debian bookworm's xz-utils
# source package (fetched with a private apt state, sha256-checked, into $SW_CACHE; nothing committed), prints its
# size, meters it with our fuel tool under the JavaScript engine's options (scripts/engines/meter.sh), and decodes
# chunks of an archive in it, printing the fuel per decoded byte.
#
#   bash bench/intl-lzma-decoder.sh ARCHIVE [CHUNK...]     # ARCHIVE: intl/<chunk>.qbc members (bench/intl-all-locales.mjs)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"
source "$SW_ROOT/scripts/engines/common.sh"
source "$SW_ROOT/scripts/engines/meter.sh"
XZ_SPEC="xz-utils=5.4.1-1+deb12u1"
XZ_TARBALL="xz-utils_5.4.1.orig.tar.xz"
XZ_SHA256="5d9827aa1875b21c288f78864bb26d2650b436ea8d2cad364e4921eb6266a5a5"
archive="${1:?usage: bash bench/intl-lzma-decoder.sh ARCHIVE [CHUNK...]}"; shift
fetch_debsrc "$SW_CACHE" bookworm "$XZ_SPEC" "$XZ_TARBALL" "$XZ_SHA256"
work="${SCRATCH:-/tmp/intl-lzma}"; rm -rf "$work" && mkdir -p "$work/o"
tar -xf "$SW_CACHE/apt-bookworm/$XZ_TARBALL" -C "$work"
# liblzma's configuration and WASI shim are the engine's (engines/javascript/lzma).
S="$work/xz-5.4.1/src/liblzma" HERE="$SW_ROOT/bench/intl-lzma" CONF="$SW_ROOT/engines/javascript/lzma"
CC=(clang-16 --target=wasm32-wasi -Oz -DHAVE_CONFIG_H -D_WASI_EMULATED_SIGNAL -include "$CONF/wasi-sigset.h" -I"$CONF"
    -I"$S/api" -I"$S/common" -I"$S/lz" -I"$S/lzma" -I"$S/rangecoder" -I"$S/check" -I"$S/simple" -I"$S/delta"
    -I"$work/xz-5.4.1/src/common")
for f in "$HERE/dec.c" "$S"/common/{common,filter_buffer_decoder,filter_common,filter_decoder}.c "$S/lz/lz_decoder.c" \
         "$S"/lzma/{lzma_decoder,lzma2_decoder}.c; do
  "${CC[@]}" -c "$f" -o "$work/o/$(basename "${f%.c}").o"
done
# Link at -O0: clang-16 runs wasm-opt by itself at -O1+ (docs/adding-an-engine.md "Toolchain facts").
LD=(clang-16 --target=wasm32-wasi -O0 -mexec-model=reactor -Wl,--no-entry -Wl,--gc-sections -Wl,--strip-all)
"${LD[@]}" "$work"/o/*.o -o "$work/dec.wasm"
printf '#include <stdlib.h>\n__attribute__((export_name("buf"))) void *buf(size_t n) { return malloc(n); }\n' >"$work/m.c"
"${CC[@]}" -c "$work/m.c" -o "$work/m.o" && "${LD[@]}" "$work/m.o" -o "$work/malloc.wasm"
echo "decoder reactor: $(stat -c %s "$work/dec.wasm") bytes raw, $(gzip -9 <"$work/dec.wasm" | wc -c) gzip -9;" \
     "libc malloc alone: $(stat -c %s "$work/malloc.wasm") raw, $(gzip -9 <"$work/malloc.wasm" | wc -c) gzip -9"
tool=$(bash "$SW_ROOT/scripts/tools/wasm-fuel.sh")
# Metered as the engine is, less the stack mark (this reactor's stack does not come first; the mark is for snapshots).
read -r -a opts <<<"$(meter_options javascript | sed 's/ --stack-mark//')"
"$tool" "$work/dec.wasm" "$work/dec.metered.wasm" "${opts[@]}" >/dev/null
"$SW_NODE" "$SW_ROOT/bench/intl-lzma/run.mjs" "$work/dec.metered.wasm" "$archive" "$@"
