// Shared by bench/python-compute.mjs and bench/pyodide.mjs (benchmarks, not tests): a pystone-style program and our
// CPython booted as a session under our WASI host (the C++ core in Node, cpp/wasi, as the Worker runs it).
import fs from "node:fs";
import path from "node:path";
import { core, root, encoder, decoder, makeImportObject, bindGuestMemory, unbindGuestMemory, withBytes, engineArg } from
  "../engines/javascript/test/core-harness.mjs";

// pystone's shape (records, attribute access, small functions, integer and string work) in a few lines.
export const pystone = (loops) => `
class Record:
    __slots__ = ("ptr", "discr", "enum", "int_comp", "str_comp")
    def __init__(self, ptr=None, discr=0, enum=0, int_comp=0, str_comp=""):
        self.ptr, self.discr, self.enum, self.int_comp, self.str_comp = ptr, discr, enum, int_comp, str_comp
    def copy(self):
        return Record(self.ptr, self.discr, self.enum, self.int_comp, self.str_comp)

def func1(c1, c2):
    return 0 if c1 != c2 else 1

def func2(s1, s2):
    i = 1
    while i <= 1:
        if func1(s1[i], s2[i + 1]) == 0:
            i += 1
    return s1 > s2

def proc7(a, b):
    return a + b + 2

def proc8(arr1, arr2, a, b):
    loc = a + 5
    arr1[loc] = b
    arr1[loc + 1] = arr1[loc]
    arr1[loc + 30] = loc
    for idx in range(loc, loc + 2):
        arr2[loc][idx] = loc
    arr2[loc][loc - 1] += 1
    arr2[loc + 20][loc] = arr1[loc]

def main(loops):
    arr1 = [0] * 51
    arr2 = [x[:] for x in [arr1] * 51]
    glob = Record(None, 0, 2, 40, "DHRYSTONE PROGRAM, SOME STRING")
    nxt = Record(glob)
    total = 0
    s1 = "DHRYSTONE PROGRAM, 1'ST STRING"
    for i in range(loops):
        s2 = "DHRYSTONE PROGRAM, 2'ND STRING"
        b = not func2(s1, s2)
        i1, i2 = 2, 3
        while i1 < i2:
            i3 = 5 * i1 - i2
            i3 = proc7(i1, i2)
            i1 += 1
        proc8(arr1, arr2, i1, i3)
        r = nxt.copy()
        r.int_comp = proc7(r.int_comp, 10)
        total += r.int_comp + len(s2) + (1 if b else 0)
    return total

main(${Number(loops)})
`;

// Ours: the core's WASI host with /stdlib from stdlib.tar and /workspace, a session booted through cpp/wasmify.
export function bootOurs(module) {
  const archive = withBytes(fs.readFileSync(path.join(root, "engines/python/build/stdlib.tar")), (p, n) => core._sw_wasi_archive_new(p, n));
  const config = { args: ["sandbox"], env: [], workspace: true, preopens: [], stdio: "capture", referencePolicy: true };
  const host = withBytes(encoder.encode(JSON.stringify(config)), (p, n) => core._sw_wasi_host_new(p, n, archive));
  const instance = new WebAssembly.Instance(module, makeImportObject(core, host, module));
  bindGuestMemory(core, host, instance.exports.memory);
  core.wasmifyBind(host, instance);
  const s = withBytes(encoder.encode(""), (p, n) => core._sw_wasmify_session_boot(host, ...engineArg("python"), p, n, -1));
  if (!s) throw new Error("session boot failed");
  return {
    run(code) {
      const t0 = performance.now();
      const status = withBytes(encoder.encode(code), (cp, cn) => core._sw_wasmify_session_execute(s, cp, cn, 0, 0));
      const ms = performance.now() - t0;
      const out = decoder.decode(core.HEAPU8.subarray(core._sw_wasmify_result(), core._sw_wasmify_result() + core._sw_wasmify_result_len()));
      if (status !== 0) throw new Error(out);
      return { ms, outcome: JSON.parse(out) };
    },
    close() { core._sw_wasmify_session_free(s); unbindGuestMemory(core, host); core._sw_wasi_host_free(host); core._sw_wasi_archive_free(archive); },
  };
}
