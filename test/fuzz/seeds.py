"""Seed inputs for two fuzzers, written by scripts/fuzz-seeds.sh (deterministic: the same bytes every run).

    python3 test/fuzz/seeds.py archive OUT   a stored zip and a deflated zip (rejected) for the /stdlib archive parser
    python3 test/fuzz/seeds.py wasmify OUT   sw_fuzz_wasmify inputs (test/fuzz/fuzz_wasmify.cpp's encoding)
"""
import sys
import zipfile


def archive(d):
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


def wasmify(d):
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


if __name__ == "__main__":
    {"archive": archive, "wasmify": wasmify}[sys.argv[1]](sys.argv[2])
