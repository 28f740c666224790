#!/usr/bin/env node --no-turbo-fast-api-calls
// Benchmark (not a test): our Python beside Pyodide, the Python users already pick for WebAssembly, in Node on the
// same machine in one run (issue 26 item 5; bench/RESULTS.md "Our Python beside Pyodide").
//
//   node --no-turbo-fast-api-calls bench/pyodide.mjs [--cold 5] [--warm 200] [--runs 9] [--loops 5000] [--engine F ...]
//   --engine (repeatable): more engine.wasm files of ours for the warm and compute rows (e.g. the module before the
//            fuel meter, ~/.cache/sandbox-workers/engines/python/engine-<key>/engine.wasm: Pyodide has no meter)
//
// Three measurements, each side by side:
//   cold     a new Node process to the first result of `1 + 1`, --cold times each, alternating. Inside the child,
//            from process start (performance.now()): Pyodide's loadPyodide() and runPython; ours: compile
//            engines/python/build/engine.wasm, instantiate it under our WASI host (the C++ core), boot the session
//            and run one SessionEval. The parent also reports the whole child's wall time (Node's own start
//            included, the same for both).
//   warm     `1 + 1` again and again on one booted interpreter (--warm times), p50 and p99.
//   compute  the pystone-style program of bench/python-compute.mjs (--loops), --runs rounds interleaved after one
//            warm-up round each, p50 and p99; both must print the same result.
// Ours runs unmetered here (budget -1: fuel is charged but never runs out), as in bench/python-compute.mjs, so both
// sides do the same work; Pyodide has no meter at all. What this does not cover: workerd (Pyodide is not a Workers
// runtime we can serve the same way), our boot images and instance pool (the Worker's cold path uses them; here
// ours boots from nothing, like Pyodide), and packages (Pyodide's loadPackage fetches from a CDN: not measured).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";

const self = fileURLToPath(import.meta.url);
const root = path.resolve(path.dirname(self), "..");
const { values: opts } = parseArgs({ options: {
  cold: { type: "string", default: "5" }, warm: { type: "string", default: "200" }, runs: { type: "string", default: "9" },
  loops: { type: "string", default: "5000" }, child: { type: "string" }, engine: { type: "string", multiple: true } } });

async function bootPyodide() {
  const { loadPyodide } = await import("pyodide");
  const py = await loadPyodide();
  return {
    run(code) {
      const t0 = performance.now();
      const value = py.runPython(code);
      return { ms: performance.now() - t0, text: String(value) };
    },
    version: py.version,
    python: py.runPython("import sys; sys.version.split()[0]"),
  };
}

async function bootOursModule(module) {
  const { bootOurs } = await import("./python-harness.mjs");
  const ours = bootOurs(module);
  return {
    run(code) {
      const { ms, outcome } = ours.run(code);
      if (outcome.error) throw new Error(JSON.stringify(outcome.error));
      return { ms, text: outcome.results[0]?.text };
    },
    close: () => ours.close(),
  };
}

const enginePath = path.join(root, "engines/python/build/engine.wasm");

// --child pyodide|ours: one cold start, printed as JSON.
if (opts.child) {
  let text;
  if (opts.child === "pyodide") {
    text = (await bootPyodide()).run("1 + 1").text;
  } else {
    const module = new WebAssembly.Module(fs.readFileSync(enginePath));
    text = (await bootOursModule(module)).run("1 + 1").text;
  }
  if (text !== "2") throw new Error(`${opts.child}: 1 + 1 gave ${text}`);
  console.log(JSON.stringify({ ms: performance.now() }));
  process.exit(0);
}

const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
const fmt = (x) => x.toFixed(1);
const row = (name, xs) => `| ${name} | ${fmt(pct(xs, 0.5))} | ${fmt(pct(xs, 0.99))} | ${xs.length} |`;

console.log(`machine: ${os.cpus()[0]?.model} x${os.cpus().length}, node ${process.version}, load ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`);

// Cold: alternate the two, so a change in the machine's load hits both.
const cold = { pyodide: [], ours: [] }, coldWall = { pyodide: [], ours: [] };
for (let i = 0; i < Number(opts.cold); i++) {
  for (const who of i % 2 ? ["ours", "pyodide"] : ["pyodide", "ours"]) {
    const t0 = performance.now();
    const out = execFileSync(process.execPath, ["--no-turbo-fast-api-calls", self, "--child", who], { encoding: "utf8" });
    coldWall[who].push(performance.now() - t0);
    cold[who].push(JSON.parse(out.trim().split("\n").pop()).ms);
  }
}

const pyodide = await bootPyodide();
const ours = await bootOursModule(new WebAssembly.Module(fs.readFileSync(enginePath)));
console.log(`pyodide ${pyodide.version} (Python ${pyodide.python}); ours engines/python/build/engine.wasm ` +
  `(${JSON.parse(fs.readFileSync(path.join(root, "engines/python/build/engine-build.json"), "utf8")).version ?? "CPython"})`);

const sides = { pyodide, ours };
for (const file of opts.engine ?? []) sides[`ours: ${file}`] = await bootOursModule(new WebAssembly.Module(fs.readFileSync(file)));
const names = Object.keys(sides);
function interleaved(code, rounds, expect) {
  const times = Object.fromEntries(names.map((n) => [n, []]));
  for (let i = 0; i < rounds + 1; i++) {
    for (let k = 0; k < names.length; k++) {
      const who = names[(i + k) % names.length];  // rotated, so no side always runs right after another
      const { ms, text } = sides[who].run(code);
      if (text !== expect(text)) throw new Error(`${who}: ${text}`);
      if (i > 0) times[who].push(ms);  // round 0 warms both (V8 tiers the hot functions up)
    }
  }
  return times;
}
const warm = interleaved("1 + 1", Number(opts.warm), () => "2");
let computed;
const compute = interleaved((await import("./python-harness.mjs")).pystone(opts.loops), Number(opts.runs),
  (t) => (computed ??= t));
for (const [name, side] of Object.entries(sides)) if (name !== "pyodide") side.close();

console.log(`\n| measurement (ms) | p50 | p99 | n |\n| --- | ---: | ---: | ---: |`);
for (const who of ["pyodide", "ours"]) console.log(row(`cold: process start to the first 1 + 1, ${who}`, cold[who]));
for (const who of ["pyodide", "ours"]) console.log(row(`cold: the whole child process (wall), ${who}`, coldWall[who]));
for (const who of names) console.log(row(`warm 1 + 1, ${who}`, warm[who]));
for (const who of names) console.log(row(`pystone-style, ${opts.loops} loops, ${who}`, compute[who]));
const ratio = (t) => (pct(t.pyodide, 0.5) / pct(t.ours, 0.5)).toFixed(2);
console.log(`\nPyodide / ours at p50: cold ${ratio(cold)}x, warm 1 + 1 ${ratio(warm)}x, compute ${ratio(compute)}x ` +
  `(above 1: ours is faster); both computed ${computed}`);
