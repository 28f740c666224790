#!/usr/bin/env bash
# Benchmark (not a test): ICU4C 72.1's code size for wasm32-wasi (docs/intl.md, "ICU code for wasm32-wasi").
# Compiles ICU's common + i18n libraries from Debian bookworm's `icu` source package (the tarball that
# bench/intl-options.mjs fetches and sha256-checks) with clang-16 and Debian's wasm32 libc++, -Oz, then links three
# small reactors against them as an archive (only what is reachable comes in, --gc-sections):
#   empty.wasm  no ICU (libc baseline)
#   coll.wasm   ucol_open + ucol_strcoll (a Collator-only engine)             bench/intl-icu/coll.c
#   all.wasm    the C APIs an ECMA-402 implementation calls (V8's set, roughly) bench/intl-icu/all.c
# Data is ICU's stub (no data): this is code only. Single-threaded stand-ins for std::mutex (engines/javascript/icu/nothreads.h, the engine build's)
# because Debian's wasm32 libc++ has no threads; a real port would patch umutex instead.
#
#   node bench/intl-options.mjs --no-engine && JOBS=1 nice -n 19 bash bench/intl-icu-code.sh   # ~20 min on 2 busy cores
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/intl-icu"
SCRATCH="${SCRATCH:-/tmp/intl-scratch}"
TGZ="$SCRATCH/debsrc/icu_72.1.orig.tar.gz"
SHA256=a2d2d38217092a7ed56635e34467f92f976b370e20182ad325edea6681a71d68
echo "$SHA256  $TGZ" | sha256sum -c --quiet - || { echo "run node bench/intl-options.mjs first (fetches $TGZ)"; exit 1; }
SRC="$SCRATCH/icu/icu/source"
[ -d "$SRC/i18n" ] || { mkdir -p "$SCRATCH/icu" && tar -xzf "$TGZ" -C "$SCRATCH/icu"; }
OUT="$SCRATCH/icuobj"
mkdir -p "$OUT/common" "$OUT/i18n" "$OUT/stub" "$SCRATCH/icu-link"
CXX=(clang++-16 --target=wasm32-wasi -Oz -std=c++17 -fno-exceptions -nostdinc++ -isystem /usr/lib/llvm-16/include/wasm32-wasi/c++/v1
  -include "$HERE/../engines/javascript/icu/nothreads.h" -DU_STATIC_IMPLEMENTATION -DU_COMMON_IMPLEMENTATION -DU_I18N_IMPLEMENTATION
  -DU_HAVE_ATOMIC=1 -DU_HAVE_MMAP=0 -DU_HAVE_TZSET=0 -DU_HAVE_TIMEZONE=0 -DU_HAVE_TZNAME=0 -DUCONFIG_NO_LEGACY_CONVERSION=1
  -DHAVE_DLOPEN=0 -DU_ENABLE_DYLOAD=0 -D_WASI_EMULATED_SIGNAL -I"$SRC/common" -I"$SRC/i18n" -ffunction-sections -fdata-sections -w)
export CXX_STR="${CXX[*]}"   # for the xargs workers (no spaces in these paths)
for d in common i18n; do
  for f in "$SRC/$d"/*.cpp; do echo "$f $OUT/$d/$(basename "${f%.cpp}").o"; done
done | xargs -P "${JOBS:-1}" -n 2 bash -c '[ -f "$2" ] || $CXX_STR -c "$1" -o "$2"' _
[ -f "$OUT/stub/stubdata.o" ] || "${CXX[@]}" -c "$SRC/stubdata/stubdata.cpp" -o "$OUT/stub/stubdata.o"
echo "ICU objects: $(ls "$OUT"/common/*.o | wc -l) common, $(ls "$OUT"/i18n/*.o | wc -l) i18n (of $(ls "$SRC"/common/*.cpp | wc -l) + $(ls "$SRC"/i18n/*.cpp | wc -l) sources)"
cd "$SCRATCH/icu-link"
rm -f libicu.a
llvm-ar-14 rcs libicu.a "$OUT"/common/*.o "$OUT"/i18n/*.o
CC=(clang-16 --target=wasm32-wasi -Oz -DU_STATIC_IMPLEMENTATION -I"$SRC/common" -I"$SRC/i18n")
# Link at -O0: clang-16 runs /usr/bin/wasm-opt by itself at -O1+, and binaryen 108 rejects the module
# (docs/adding-an-engine.md "Toolchain facts").
LD=(clang++-16 --target=wasm32-wasi -O0 -mexec-model=reactor -Wl,--gc-sections -Wl,--strip-all)
printf '__attribute__((export_name("sw_nop"))) int sw_nop(int x) { return x + 1; }\n' > empty.c
for p in empty coll all; do
  src="$HERE/$p.c"; [ "$p" = empty ] && src=empty.c
  "${CC[@]}" -c "$src" -o "$p.o"
  "${LD[@]}" "$p.o" libicu.a "$OUT/stub/stubdata.o" -lwasi-emulated-signal -o "$p.wasm"
  echo "$p.wasm: $(stat -c %s "$p.wasm") bytes raw, $(gzip -9 -c "$p.wasm" | wc -c) gzip -9"
done
