#!/usr/bin/env bash
# Writes the fuzzers' seed corpora into OUT (default build/fuzz/seeds): generated, never committed as binaries.
#   OUT/snapshot  real take() output and a boot image, by build/fuzz/sw_fuzz_snapshot_seeds (test/fuzz/make_snapshot_seeds.cpp)
#   OUT/archive   a ustar and a pax tar (a long path, so pax headers appear), a ustar with a `.mounts` line, a stored
#                 zip, a deflated zip (rejected)
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
python3 - "$out/archive" <<'PY'
import sys, zipfile
d = sys.argv[1]
def entry(z, name, data, kind):
    info = zipfile.ZipInfo(name, (2020, 1, 1, 0, 0, 0))
    info.compress_type = kind
    z.writestr(info, data)
with zipfile.ZipFile(d + "/stored.zip", "w") as z:
    entry(z, "top.py", b"x = 1\n", zipfile.ZIP_STORED)
    entry(z, "pkg/", b"", zipfile.ZIP_STORED)
    entry(z, "pkg/__init__.py", b'print("hello")\n', zipfile.ZIP_STORED)
with zipfile.ZipFile(d + "/deflated.zip", "w") as z:
    entry(z, "a.py", b"a" * 100, zipfile.ZIP_DEFLATED)
PY

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

python3 - "$out/wasmify" <<'PY'
import sys
d = sys.argv[1]
def varint(v):
    out = b""
    while v >= 0x80:
        out += bytes([v & 0x7f | 0x80]); v >>= 7
    return out + bytes([v])
def u(n, v): return varint(n << 3) + varint(v)
def b(n, v): return varint(n << 3 | 2) + varint(len(v)) + v
# The hostile guest's tape (fuzz_wasmify.cpp): 2 = the export returns 0; 5 = a pointer (wasm_alloc) or, for a
# w_<service>_<method> export, a response of the next u16-length-prefixed bytes.
OK, PTR = b"\x02", b"\x05"
def resp(msg): return PTR + len(msg).to_bytes(2, "little") + msg
def call(msg): return PTR + resp(msg) + OK + OK  # wasm_alloc, the method, wasm_free(request), wasm_free(response)
outcome = b'{"logs":{"stdout":["1"],"stderr":[]},"results":[{"text":"1"}]}'
session = b'{"logs":{"stdout":[],"stderr":[]},"results":[],"cwd":"/workspace/a"}'
seeds = {
    "decode-new-request": b"\x00" + u(1, 33554432) + u(2, 1048576),
    "decode-eval-request": b"\x00" + u(1, 7) + b(2, b"print(1)") + u(3, 8) + b(4, b'{"A":"b"}'),
    "decode-eval-response": b"\x00" + b(1, outcome),
    "decode-failure": b"\x00" + b(2, b"Invalid handle"),
    "decode-session-eval": b"\x00" + u(1, 7) + b(2, b"x") + b(4, b"{}") + b(5, b"/workspace"),
    "decode-session-response": b"\x00" + b(1, session) + b(3, b"/workspace/a"),
    "decode-after-restore": b"\x00" + u(1, 7) + u(2, 1),
    "decode-wrong-wire-type": b"\x00" + b(1, b"\x07") + u(2, 3),
    "decode-truncated": b"\x00" + varint(1 << 3 | 2) + varint(100) + b"abc",
    "run-javascript": bytes([1]) + OK + OK + call(u(1, 7)) + call(u(1, 4096)) + call(b(1, outcome)),
    "run-python": bytes([5]) + OK + OK + call(u(1, 7)) + call(b(1, outcome)),
    "run-perl": bytes([9]) + OK + (PTR + OK) * 12,
    "run-ruby": bytes([13]) + OK + (PTR + OK) * 12,
    "session-javascript": bytes([2]) + OK + OK + call(u(1, 7)) + call(u(1, 4096)) +
        call(b(1, session) + b(3, b"/workspace/a")) + call(b(2, b"Invalid handle")),
    "session-python": bytes([6]) + OK + OK + call(u(1, 7)) + call(b(1, session) + b(3, b"/workspace/a")) +
        PTR + resp(b"\x0a\xff\xff\xff\xff\x0f") + OK + OK,
    "restore-javascript": bytes([3]) + (7).to_bytes(4, "little") + call(u(1, 4096)) + call(u(1, 1)) +
        call(b(1, session)),
    "restore-python": bytes([7]) + (7).to_bytes(4, "little") + call(u(1, 0)),
}
for name, data in seeds.items():
    open(d + "/" + name, "wb").write(data)
PY

wat2wasm --enable-all test/tools/guests/features.wat -o "$out/wasm/features.wasm"
clang-16 --target=wasm32-wasi -Os -Wl,--strip-all test/tools/guests/fuel_work.c -o "$out/wasm/fuel_work.wasm"
