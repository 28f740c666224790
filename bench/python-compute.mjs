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
import { bootOurs, pystone } from "./python-harness.mjs";
import { boot as bootNodeWasi, loadModule } from "../engines/python/test/harness.mjs";

const { values: opts } = parseArgs({ options: { runs: { type: "string", default: "9" }, loops: { type: "string", default: "20000" },
  engine: { type: "string", multiple: true }, code: { type: "string" } } });
const RUNS = Number(opts.runs);

const PYSTONE = pystone(opts.loops);

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
  console.log(`${name.padEnd(16)} median ${median(xs).toFixed(1)} ms  (min ${Math.min(...xs).toFixed(1)}, max ${Math.max(...xs).toFixed(1)})  ` +
    `${(median(xs) / ours).toFixed(3)}x the first`);
}
if (!extra.length) console.log(`ratio ours / node:wasi: ${(ours / theirs).toFixed(3)}x`);
