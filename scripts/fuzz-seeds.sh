#!/usr/bin/env bash
# Writes the fuzzers' seed corpora into OUT (default build/fuzz/seeds): generated, never committed as binaries.
#   OUT/snapshot  real take() output and a boot image, by build/fuzz/sw_fuzz_snapshot_seeds (test/fuzz/make_snapshot_seeds.cpp)
#   OUT/archive   a ustar and a pax tar (a long path, so pax headers appear), a ustar with a `.mounts` line, a stored
#                 zip, a deflated zip (rejected; the zips and OUT/wasmify by test/fuzz/seeds.py)
#   OUT/paths     WASI path-operation programs for sw_fuzz_wasi_paths (test/wasi/fuzz_path_resolution.cpp's encoding)
#   OUT/wasmify   sw_fuzz_wasmify inputs (test/fuzz/fuzz_wasmify.cpp's encoding): engine.proto messages to decode, and
#                 tapes of well-behaved guest answers for each built-in driver (stateless, session, restore)
#   OUT/wasm      modules for sw_fuzz_wasm_fuel: test/tools/guests/features.wat (SIMD, legacy exceptions, bulk memory,
#                 atomics, tail calls, reference types) and fuel_work.c compiled for wasm32-wasi
# Needs the fuzz build (bash scripts/build.sh fuzz). Deterministic: the same bytes on every run.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-build/fuzz/seeds}"
rm -rf "$out" && mkdir -p "$out/snapshot" "$out/archive" "$out/paths" "$out/wasm" "$out/wasmify"

build/fuzz/sw_fuzz_snapshot_seeds "$out/snapshot" >/dev/null

tree="$(mktemp -d)"
trap 'rm -rf "$tree"' EXIT
long="pkg/$(printf 'd%.0s' {1..60})/$(printf 'e%.0s' {1..50})"
mkdir -p "$tree/$long"
printf 'print("hello")\n' >"$tree/pkg/__init__.py"
printf 'x = 1\n' >"$tree/top.py"
printf 'y = 2\n' >"$tree/$long/long_module_name.py"
tarflags=(-C "$tree" -b1 --sort=name --mtime=2020-01-01T00:00:00Z --owner=0 --group=0 --numeric-owner --mode=u+rw,go+r)
tar "${tarflags[@]}" --format=ustar -cf "$out/archive/ustar.tar" pkg/__init__.py top.py
tar "${tarflags[@]}" --format=pax --pax-option=delete=atime,delete=ctime -cf "$out/archive/pax.tar" \
  pkg/__init__.py "$long/long_module_name.py" top.py
printf '/zeroperl pkg\n' >"$tree/.mounts"  # a mount (docs/wasi-host.md, "The mounts"), as Perl's stdlib.tar has
tar "${tarflags[@]}" --format=ustar -cf "$out/archive/mounts.tar" .mounts pkg/__init__.py top.py
python3 test/fuzz/seeds.py archive "$out/archive"

# name hex: one program each (opcode, fd, length-prefixed paths, ...), as the path fuzzer decodes its input.
python3 -c '
import sys
for line in sys.stdin.read().split("\n"):
    if line.strip():
        name, hex_ = line.split()
        open(sys.argv[1] + "/" + name, "wb").write(bytes.fromhex(hex_))
' "$out/paths" <<'SEEDS'
close-reopen 0005012e02000706000006022e2e020007050001050171
escapes 0005042e2e2f78010000050b2f6574632f7061737377640000000309612f2e2e2f2e2e2f7800000005032f2f780100030503610062
mkdir-open-write-rename 01050161000507612f662e747874010005060028040507612f662e74787405622e747874050605004000
rmdir-unlink-disable 01050164010503642f6502050164020503642f650800000105017a08000003050164
stdlib-readonly 0103036e6577000304782e70790100040501610178030603004000
symlinks-full-wasi 0905016c016c0a05016c0001050164090503642f6d022e2e0a0505642f6d2f640009050161012f
SEEDS

python3 test/fuzz/seeds.py wasmify "$out/wasmify"

wat2wasm --enable-all test/tools/guests/features.wat -o "$out/wasm/features.wasm"
clang-16 --target=wasm32-wasi -Os -Wl,--strip-all test/tools/guests/fuel_work.c -o "$out/wasm/fuel_work.wasm"
