// Benchmark (not a test): the fuel ordinary JavaScript programs use, on one or more engine.wasm builds side by side
// (bench/RESULTS.md, "Calls and the remaining builtins": what ordinary programs pay). Fuel is deterministic, so one
// run is enough. Each program runs on a fresh instance, as the Worker's stateless path does (bench/intl-engine.mjs).
//
//   node bench/fuel-programs.mjs [--engine OLD.wasm --engine NEW.wasm]   # default: engines/javascript/build/engine.wasm
//
// An engine without Intl chunks (a build from before Intl) runs without /stdlib: its Intl rows answer ReferenceError.
import path from "node:path";
import { parseArgs } from "node:util";
import { instance, text } from "./intl-engine.mjs";
import { COMPUTE } from "./compute-mix.mjs";

const { values: opts } = parseArgs({ options: { engine: { type: "string", multiple: true } } });
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const engines = opts.engine ?? [path.join(root, "engines/javascript/build/engine.wasm")];

const PROGRAMS = {
  "1 + 1": "1 + 1",
  "a function call (conformance example)": "var x = 1; function f() { return x + 1; } f()",
  "compute mix (bench/javascript.mjs)": COMPUTE,
  "fib(27)": "function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); } fib(27)",
  "100,000 string appends": 'let s = ""; for (let i = 0; i < 100000; i++) s += "x"; s.length',
  "sort of 10,000 numbers with a comparator": "Array.from({ length: 10000 }, (_, i) => (i * 7919) % 10007).sort((a, b) => a - b)[5000]",
  "20,000 chained promise jobs": "let p = Promise.resolve(0); for (let i = 0; i < 20000; i++) p = p.then((v) => v + 1); await p",
  "JSON round trip of 50,000 small objects": "JSON.parse(JSON.stringify(Array.from({ length: 50000 }, (_, i) => ({ id: i, name: 'n' + i })))).length",
  "JSON round trip of 100,000 small objects": "JSON.parse(JSON.stringify(Array.from({ length: 100000 }, (_, i) => ({ id: i, name: 'n' + i })))).length",
  "top-level counting loop to 1e7": "let i = 0; while (i < 1e7) i++; i",
  "the same loop over a block-local variable": "{ let i = 0; while (i < 1e7) i++; i }",
  'first new Intl.NumberFormat("de").format(1234.5)': 'new Intl.NumberFormat("de").format(1234.5)',
  'first new Intl.DateTimeFormat("en-US").format(0)': 'new Intl.DateTimeFormat("en-US").format(0)',
};

const rows = [];
for (const [name, code] of Object.entries(PROGRAMS)) {
  const row = [name];
  for (const engine of engines) {
    let inst;
    try { inst = instance({ engine, stdlib: true }); } catch { inst = instance({ engine, stdlib: false }); }
    const r = inst.evaluate(code);
    inst.close();
    const shown = text(r.outcome) ?? "";
    row.push(`${r.fuel.toLocaleString("en-US")} (${shown.length > 28 ? shown.slice(0, 28) + "…" : shown})`);
  }
  rows.push(row);
}
console.log(`| program | ${engines.map((e) => path.relative(process.cwd(), e)).join(" | ")} |`);
console.log(`| --- | ${engines.map(() => "---").join(" | ")} |`);
for (const r of rows) console.log(`| ${r.join(" | ")} |`);
