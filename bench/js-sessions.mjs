#!/usr/bin/env node
// Benchmark (not a test): what an execute of a code context costs for an engine written in JavaScript, through the
// real core and shim in Node (./testing), for the three session styles of docs/engine-authors.md:
//   sync      the counter engine (test/integration/fixtures/counter/), every session call synchronous
//   async     the same engine with asynchronous sessions (execute answers a promise: one AwaitEngine step per call)
//   wasmify   the wasmify counter engine: a WasmifyDriver written in JavaScript run by ./wasmify (C++ hooks callbacks)
// Each: executeInContext of `add 1` on a resident instance (snapshot included), and the first execute after an eviction
// (restore included; async: two AwaitEngine steps). p50 / p99 in ms, the variants interleaved.
//
//   node bench/js-sessions.mjs [--requests 200]
import { readFileSync } from "node:fs";
import { cpus } from "node:os";
import { parseArgs } from "node:util";
import { createTestInterpreter, createTestState } from "../worker-shim/testing.js";
import { buildCounterGuest } from "../test/integration/fixtures/counter/build.mjs";
import { buildWasmifyCounterGuest } from "../test/integration/fixtures/wasmify-counter/build.mjs";

const { values } = parseArgs({ options: { requests: { type: "string", default: "200" } } });
const N = Number(values.requests);
const { makeCounterEngine } = await import("../test/integration/fixtures/counter/engine.js");
const { makeWasmifyCounterEngine } = await import("../test/integration/fixtures/wasmify-counter/engine.js");
const counter = new WebAssembly.Module(readFileSync(buildCounterGuest()));
const wasmify = new WebAssembly.Module(readFileSync(buildWasmifyCounterGuest()));
const variants = {
  sync: makeCounterEngine(counter),
  async: makeCounterEngine(counter, { async: true }),
  wasmify: makeWasmifyCounterEngine(wasmify),
};

const args = (code) => ({ contextId: "c1", code, envVars: {}, workspace: { dirs: [], manifest: {} } });
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

const state = {};
for (const [name, engine] of Object.entries(variants)) {
  const s = createTestState();
  const interpreter = createTestInterpreter(engine, s);
  const res = await interpreter.fetch(new Request("https://interpreter.internal/contexts", {
    method: "POST", headers: { "x-interpreter-key": "k", "content-type": "application/json" }, body: JSON.stringify({ id: "c1" }),
  }));
  if (res.status !== 201) throw new Error(`${name}: context not created`);
  await interpreter.executeInContext("k", args("add 1"), () => []);
  state[name] = { engine, s, interpreter, resident: [], restore: [] };
}

for (let i = 0; i < N; i++) {
  for (const v of Object.values(state)) {
    let t = performance.now();
    const r = await v.interpreter.executeInContext("k", args("add 1"), () => []);
    v.resident.push(performance.now() - t);
    if (!r.ok || r.result.error) throw new Error(JSON.stringify(r).slice(0, 300));
    v.interpreter = createTestInterpreter(v.engine, createTestState({ db: v.s.db }));
    t = performance.now();
    await v.interpreter.executeInContext("k", args("get"), () => []);
    v.restore.push(performance.now() - t);
  }
}

console.log(`${N} rounds per variant, Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model}`);
console.log("| variant | resident execute p50 / p99 ms | execute after eviction (restore) p50 / p99 ms |");
console.log("| --- | --- | --- |");
for (const [name, v] of Object.entries(state)) {
  const f = (xs) => `${pct(xs, 0.5).toFixed(2)} / ${pct(xs, 0.99).toFixed(2)}`;
  console.log(`| ${name} | ${f(v.resident)} | ${f(v.restore)} |`);
}
