#!/usr/bin/env node --no-turbo-fast-api-calls
// Benchmark (not a test): the same engines/python/build/engine.wasm running a pystone-style compute loop under OUR
// WASI host (the C++ core in Node, cpp/wasi, as the Worker runs it) and under Node's own node:wasi
// (engines/python/test/harness.mjs), side by side in one process, rounds interleaved. Both run one SessionEval on a
// booted instance; only that call is timed. Both meters are unbounded (our host: budget -1; node:wasi: a JS counter),
// so the fuel charges (`sandbox.charge`) cost a call into the host on both sides.
//
//   node --no-turbo-fast-api-calls bench/python-compute.mjs [--runs 9] [--loops 20000] [--engine a.wasm --engine b.wasm]
//   --code FILE: run FILE's program instead of the pystone-style loop (its last expression is the compared result).
//   --engine (repeatable): engine.wasm files to run under our host side by side (e.g. the module before and after
//            the Wasm-level meter, docs/fuel.md), interleaved with node:wasi over the first; ratios to the first.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { core, root, encoder, decoder, makeImportObject, bindGuestMemory, unbindGuestMemory, withBytes, engineArg } from
  "../engines/javascript/test/core-harness.mjs";
import { boot as bootNodeWasi, loadModule } from "../engines/python/test/harness.mjs";

const { values: opts } = parseArgs({ options: { runs: { type: "string", default: "9" }, loops: { type: "string", default: "20000" },
  engine: { type: "string", multiple: true }, code: { type: "string" } } });
const RUNS = Number(opts.runs);

// pystone's shape (records, attribute access, small functions, integer and string work) in a few lines.
const PYSTONE = `
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

main(${Number(opts.loops)})
`;

// Ours: the core's WASI host with /stdlib from stdlib.tar and /workspace, a session booted through cpp/wasmify.
function bootOurs(module) {
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

function bootTheirs(module) {
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), "sw-pybench-"));
  const engine = bootNodeWasi(module, { workspace });
  return {
    run(code) {
      const r = engine.session(code, { budget: -1 });
      if (r.trap) throw r.trap;
      return { ms: r.ms, outcome: r.outcome };
    },
    close() { fs.rmSync(workspace, { recursive: true, force: true }); },
  };
}

const module = loadModule();
const variants = { "our host (core)": bootOurs(module), "node:wasi": bootTheirs(module) };
const extra = (opts.engine ?? []).map((f) => [f, new WebAssembly.Module(fs.readFileSync(f))]);
if (extra.length) {
  delete variants["our host (core)"];
  for (const [f, m] of extra) variants[`ours: ${f}`] = bootOurs(m);
}
const times = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
let expected;
for (let i = 0; i < RUNS + 1; i++) {
  const names = Object.keys(variants);
  for (let k = 0; k < names.length; k++) {
    const name = names[(i + k) % names.length];
    const { ms, outcome } = variants[name].run(opts.code ? fs.readFileSync(opts.code, "utf8") : PYSTONE);
    if (outcome.error) throw new Error(`${name}: ${JSON.stringify(outcome.error)}`);
    const result = outcome.results[0]?.text;
    expected ??= result;
    if (result !== expected) throw new Error(`${name}: result ${result} != ${expected}`);
    if (i > 0) times[name].push(ms); // round 0 warms both (tier-up)
  }
}
for (const v of Object.values(variants)) v.close();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`machine: ${os.cpus()[0]?.model} x${os.cpus().length}, node ${process.version}; ${RUNS} runs each, interleaved; loops ${opts.loops}`);
const first = Object.keys(times).find((k) => k !== "node:wasi");
const ours = median(times[first]), theirs = median(times["node:wasi"]);
for (const [name, xs] of Object.entries(times)) {
  console.log(`${name.padEnd(16)} median ${median(xs).toFixed(1)} ms  (min ${Math.min(...xs).toFixed(1)})  ` +
    `${(median(xs) / ours).toFixed(3)}x the first`);
}
if (!extra.length) console.log(`ratio ours / node:wasi: ${(ours / theirs).toFixed(3)}x`);
