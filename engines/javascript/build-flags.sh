# QuickJS compile flags and the driver's C files, shared by the wasm build (scripts/engines/javascript.sh) and the
# native test builds (engines/javascript/test/run.sh), so both compile the same QuickJS and driver. Sourced by both;
# part of the engine's hash.
# shellcheck shell=bash

# As upstream's Makefile sets them (also the native qjsc's flags).
QJS_VERSION_DEFINES=(-D_GNU_SOURCE '-DCONFIG_VERSION="2025-04-26"' -fwrapv)
# Fuel (docs/fuel.md, "QuickJS's interrupt poll"): QuickJS calls its interrupt handler every JS_INTERRUPT_COUNTER_INIT
# operations and every INTERRUPT_COUNTER_INIT regex backtracking steps (and at once when the interrupt word is set). In
# the unmetered and native builds each call charges JS_INTERRUPT_COUNTER_INIT units, so there one backtracking step
# weighs 4 units; the shipped module is charged by the Wasm-level meter. patches/fuel-interval.patch makes both
# settable.
QJS_FUEL_DEFINES=(-DJS_INTERRUPT_COUNTER_INIT=1000 -DINTERRUPT_COUNTER_INIT=250)
QJS_DEFINES=("${QJS_VERSION_DEFINES[@]}" "${QJS_FUEL_DEFINES[@]}")
# The driver (engines/javascript): the handle, evaluation and results (driver.c), a session's fs subset (fs.c), its
# import() and require (modules.c); driver_internal.h is what they share.
JS_DRIVER_C=(driver.c fs.c modules.c)
# liblzma's raw LZMA2 decoder (docs/intl.md, "How they are stored"): its files under the xz-utils source's src/liblzma,
# with our configuration (lzma/config.h, the decoders only). xz_cflags XZ_SRC sets XZ_CFLAGS for them (third-party
# code: no warnings) and XZ_API_CFLAGS for the driver, which includes <lzma.h>.
JS_XZ_C=(common/common common/filter_common common/filter_decoder lz/lz_decoder lzma/lzma_decoder lzma/lzma2_decoder)
JS_LZMA_CONFIG_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lzma"
xz_cflags() {
  local s="$1/src/liblzma"
  XZ_CFLAGS=(-DHAVE_CONFIG_H -w "-I$JS_LZMA_CONFIG_DIR" "-I$s/api" "-I$s/common" "-I$s/lz" "-I$s/lzma" "-I$s/rangecoder"
             "-I$s/check" "-I$s/simple" "-I$s/delta" "-I$1/src/common")
  XZ_API_CFLAGS=(-isystem "$s/api")
}
