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
