#!/usr/bin/env node
// Benchmark (not a test): the JavaScript runtime (QuickJS 2025-04-26 in Wasm, engines/javascript/build/engine.wasm,
// driven by the C++ core over the wasmify ABI) — issue 4's "Measure" section, in one run:
//
//   (a) http     cold stateless POST /execute of `1 + 1` in workerd (Miniflare, the real Worker from wrangler.jsonc):
//                every request instantiates a fresh engine. Sequential p50/p99, then requests/second at concurrency C.
//                For "where the time goes" the same Miniflare also serves the calc Worker (same shim + core, trivial
//                engine: the transport + shim + core floor) and a driver Worker that calls the shim's handleRequest
//                for the JavaScript engine directly in its isolate (workerd without transport).
//   (b) floor    the same engine.wasm under our WASI host in Node through the core, no HTTP: new WASI host +
//                instantiate + wasmify run of `1 + 1` per iteration, p50/p99, with a per-phase breakdown (each guest
//                export the core calls is timed by wrapping it). Ratio (a)/(b).
//   (c) compute  a fib/loop/string/JSON mix (one source) through our engine in Node and in workerd, and through
//                quickjs-emscripten (npm, release-sync variant) in Node. Fresh context per run for both; also the
//                eval alone (ours: the guest's Eval export; quickjs-emscripten: context.evalCode).
//   sizes        engine.wasm, core.wasm and quickjs-emscripten's wasm, raw and gzip -9.
// (a) and (b) run interleaved in rounds, (c)'s variants in a rotated order each round: background load (and workerd
// finishing work after a request) must hit every variant alike.
//
//   PATH=$PWD/node_modules/.bin:$PATH node bench/javascript.mjs [--requests 300] [--warmup 50] [--concurrency 4]
//        [--compute-runs 21] [--json out.json] [--engine other-engine.wasm ...] [--no-workerd] [--parts]
//   --engine (repeatable): the engine.wasm files to measure in Node; the first one serves (b), every one gets its
//            rows in (c), interleaved with the others and with quickjs-emscripten (before/after in one run).
//   --parts  (c) also runs each part of the mix alone (fib, loop, string, JSON, sort), every engine and
//            quickjs-emscripten interleaved, eval only: where a difference on the mix comes from.
//   --json-detail  with --parts: also JSON.parse / JSON.stringify of numbers and of objects alone (not in the mix).
//   --cpu-time  (c)'s "eval only" columns are this process's CPU time (process.cpuUsage) instead of wall time: on
//            a shared machine (load above the core count) wall time also counts the time the thread waited for a CPU.
import path from "node:path";
import os from "node:os";
import fs from "node:fs";
import zlib from "node:zlib";
import { execFileSync } from "node:child_process";
import { parseArgs } from "node:util";
import { createRequire } from "node:module";
import { COMPUTE } from "./compute-mix.mjs";
import { ROOT, runtimeWorkerOptions, startMiniflare, wranglerWorker, collectModules } from "../test/integration/helpers.mjs";
import { core, encoder, decoder, makeImportObject, bindGuestMemory, unbindGuestMemory, withBytes, engineArg } from "../engines/javascript/test/core-harness.mjs";

const { values: opts } = parseArgs({
  options: {
    requests: { type: "string", default: "300" },
    warmup: { type: "string", default: "50" },
    concurrency: { type: "string", default: "4" },
    "compute-runs": { type: "string", default: "21" },
    json: { type: "string" },
    engine: { type: "string", multiple: true }, // other engine.wasm files for the Node measurements (workerd always serves the build)
    parts: { type: "boolean", default: false },
    "cpu-time": { type: "boolean", default: false },
    "json-detail": { type: "boolean", default: false },
    "no-workerd": { type: "boolean", default: false }, // Node only: skip (a) and the workerd row of (c)
  },
});
const REQUESTS = Number(opts.requests);
const WARMUP = Number(opts.warmup);
const CONCURRENCY = Number(opts.concurrency);
const COMPUTE_RUNS = Number(opts["compute-runs"]);
const FUEL = 50_000_000; // engines/javascript/engine.js limits.fuel

const COMPUTE_EXPECT = "fib=46368 acc=";
// The mix's parts, each alone (--parts), with the mix's sizes; each completion value is checked against
// quickjs-emscripten's.
const PARTS = {
  fib: `function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); } "fib=" + fib(24)`,
  loop: `let acc = 0; for (let i = 0; i < 300000; i++) acc = (acc + i * i) % 1000003; "acc=" + acc`,
  string: `let s = ""; for (let i = 0; i < 30000; i++) s += String.fromCharCode(97 + (i % 26));
"words=" + s.split("a").map((w) => w.toUpperCase()).join("-").length`,
  json: `const data = { items: Array.from({ length: 2000 }, (_, i) => ({ id: i, name: "item" + i, tags: ["x", "y", "z"], v: i / 3 })) };
let jsonLen = 0; for (let k = 0; k < 5; k++) { const t = JSON.stringify(data); jsonLen += t.length + JSON.parse(t).items.length; } "json=" + jsonLen`,
  sort: `"sorted=" + Array.from({ length: 20000 }, (_, i) => (i * 7919) % 20011).sort((a, b) => a - b)[100]`,
};
// --json-detail: the JSON part split by direction and by kind of value (each includes building its input once).
const JSON_PARTS = {
  "json:parse numbers": `const t = JSON.stringify(Array.from({ length: 20000 }, (_, i) => i / 3)); let n = 0; for (let k = 0; k < 5; k++) n += JSON.parse(t).length; "n=" + n`,
  "json:stringify numbers": `const a = Array.from({ length: 20000 }, (_, i) => i / 3); let n = 0; for (let k = 0; k < 5; k++) n += JSON.stringify(a).length; "n=" + n`,
  "json:parse objects": `const t = JSON.stringify(Array.from({ length: 2000 }, (_, i) => ({ id: i, name: "item" + i, tags: ["x", "y", "z"] }))); let n = 0; for (let k = 0; k < 5; k++) n += JSON.parse(t).length; "n=" + n`,
  "json:stringify objects": `const a = Array.from({ length: 2000 }, (_, i) => ({ id: i, name: "item" + i, tags: ["x", "y", "z"] })); let n = 0; for (let k = 0; k < 5; k++) n += JSON.stringify(a).length; "n=" + n`,
};

const partsToRun = () => (opts["json-detail"] ? { ...PARTS, ...JSON_PARTS } : PARTS);

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { n: s.length, p50: quantile(s, 0.5), p99: quantile(s, 0.99), min: s[0], max: s.at(-1), mean: s.reduce((a, b) => a + b, 0) / s.length };
};
const fmt = (n, d = 2) => (n === undefined ? "-" : n.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d }));
const now = () => Number(process.hrtime.bigint()) / 1e6;
const cpuNow = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

function machine() {
  const cpu = (() => {
    try {
      return execFileSync("lscpu", { encoding: "utf8" }).match(/Model name:\s*(.+)/)?.[1]?.trim();
    } catch {
      return os.cpus()[0]?.model;
    }
  })();
  const pkg = (p) => JSON.parse(fs.readFileSync(path.join(ROOT, "node_modules", p, "package.json"), "utf8")).version;
  const build = JSON.parse(fs.readFileSync(path.join(ROOT, "engines/javascript/build/engine-build.json"), "utf8"));
  return {
    nproc: os.availableParallelism(),
    cpu,
    load: os.loadavg().map((x) => x.toFixed(2)).join(" "),
    node: process.version,
    wrangler: pkg("wrangler"),
    miniflare: pkg("miniflare"),
    workerd: pkg("@cloudflare/workerd-linux-64"),
    quickjsEmscripten: pkg("quickjs-emscripten"),
    engine: build.engine,
    engineBuild: build.build.slice(0, 12),
  };
}

// --- sizes ---------------------------------------------------------------------------------------------------------

// The clock of the per-export phases and of quickjs-emscripten's eval (--cpu-time: CPU time; (a)/(b) stay wall time).
let evalClock = now;
const enginePaths = (opts.engine?.length ? opts.engine : [path.join(ROOT, "engines/javascript/build/engine.wasm")]).map((f) => path.resolve(f));
const enginePath = enginePaths[0];
const NO_WORKERD = opts["no-workerd"];
const require = createRequire(import.meta.url);
const qjsVariantDir = path.dirname(require.resolve("@jitl/quickjs-wasmfile-release-sync/package.json", { paths: [path.dirname(require.resolve("quickjs-emscripten"))] }));
const qjsWasmPath = path.join(qjsVariantDir, "dist/emscripten-module.wasm");

function sizes() {
  const one = (file) => {
    const bytes = fs.readFileSync(file);
    return { raw: bytes.length, gzip9: zlib.gzipSync(bytes, { level: 9 }).length };
  };
  return {
    engine: one(enginePath),
    core: one(path.join(ROOT, "worker-shim/generated/core.wasm")),
    quickjsEmscripten: one(qjsWasmPath),
  };
}

// --- (b) our engine under our host in Node -----------------------------------------------------------------------

const engineModules = enginePaths.map((f) => new WebAssembly.Module(fs.readFileSync(f)));
const engineModule = engineModules[0];
// Row labels for the engines: "ours" alone, else "ours[i] file-name".
const engineLabels = enginePaths.map((f, i) => (enginePaths.length === 1 ? "ours" : `ours[${i}] ${path.basename(f)}`));
const HOST_CONFIG = encoder.encode(JSON.stringify({ args: ["sandbox"], env: [], workspace: false, preopens: [], stdio: "capture", referencePolicy: true }));
const EXPORT_PHASE = { _initialize: "_initialize", wasm_init: "wasm_init", w_0_24: "New", w_0_21: "InterruptAddress", w_0_14: "Eval", w_0_25: "Free" };

/**
 * One stateless run exactly as the Worker does it (worker-shim/core.js hostInstantiateGuest + the core's
 * sw_wasmify_js_run). With `phases`, every guest export is wrapped to add its time to phases[name]; with
 * `charge` = "count" the sandbox.charge import is counted, = "noop" it is replaced by a no-op (no core re-entry).
 */
function runOurs(code, { phases, charge, fuel = FUEL, module = engineModule } = {}) {
  const t0 = now();
  const host = withBytes(HOST_CONFIG, (p, n) => core._sw_wasi_host_new(p, n, 0));
  if (!host) throw new Error("sw_wasi_host_new failed");
  const imports = makeImportObject(core, host, module);
  if (charge === "noop") imports.sandbox.charge = () => {};
  else if (charge === "count") {
    const real = imports.sandbox.charge;
    imports.sandbox.charge = (units) => { phases.chargeCalls = (phases.chargeCalls ?? 0) + 1; phases.chargeUnits = (phases.chargeUnits ?? 0) + Number(units); return real(units); };
  }
  const t1 = now();
  const instance = new WebAssembly.Instance(module, imports);
  const t2 = now();
  bindGuestMemory(core, host, instance.exports.memory);
  let exports = instance.exports;
  if (phases) {
    exports = { ...instance.exports };
    for (const [name, phase] of Object.entries(EXPORT_PHASE)) {
      const fn = instance.exports[name];
      exports[name] = (...args) => {
        const s = evalClock();
        try { return fn(...args); } finally { phases[phase] = (phases[phase] ?? 0) + (evalClock() - s); }
      };
    }
  }
  core.wasmifyBind(host, { exports });
  let text, status;
  const t3 = now();
  try {
    const src = encoder.encode(code);
    status = withBytes(src, (cp, cn) => core._sw_wasmify_run(host, ...engineArg('javascript'), cp, cn, 0, 0, fuel));
    const ptr = core._sw_wasmify_result(), len = core._sw_wasmify_result_len();
    text = decoder.decode(core.HEAPU8.subarray(ptr, ptr + len));
  } finally {
    var t4 = now();
    core.wasmifyUnbind(host);
    unbindGuestMemory(core, host);
    core._sw_wasi_host_free(host);
  }
  const t5 = now();
  if (phases) {
    phases.hostNew = (phases.hostNew ?? 0) + (t1 - t0);
    phases.instantiate = (phases.instantiate ?? 0) + (t2 - t1);
    phases.run = (phases.run ?? 0) + (t4 - t3);
    phases.release = (phases.release ?? 0) + (t5 - t4);
  }
  if (status !== 0) throw new Error(`engine status ${status}: ${text.slice(0, 300)}`);
  return { ms: t5 - t0, text };
}

/** `n` floor runs of `1 + 1`, latencies appended to `lat`. */
function floorBatch(n, lat) {
  for (let i = 0; i < n; i++) {
    const r = runOurs("1 + 1");
    if (!r.text.includes('"results":[{"text":"2"}]')) throw new Error("floor: " + r.text);
    lat.push(r.ms);
  }
}

/** Median time per phase over `n` runs (every guest export wrapped in a timer, so a separate pass). */
function floorPhases(n) {
  const per = {};
  for (let i = 0; i < n; i++) {
    const phases = {};
    runOurs("1 + 1", { phases });
    phases.coreOverhead = phases.run - ["_initialize", "wasm_init", "New", "InterruptAddress", "Eval", "Free"].reduce((a, k) => a + (phases[k] ?? 0), 0);
    for (const [k, v] of Object.entries(phases)) (per[k] ??= []).push(v);
  }
  return Object.fromEntries(Object.entries(per).map(([k, v]) => [k, stats(v).p50]));
}

// --- quickjs-emscripten -----------------------------------------------------------------------------------------

const { newQuickJSWASMModuleFromVariant, newVariant, shouldInterruptAfterDeadline } = await import("quickjs-emscripten-core");
const { default: RELEASE_SYNC } = await import("@jitl/quickjs-wasmfile-release-sync");
const qjsWasmModule = new WebAssembly.Module(fs.readFileSync(qjsWasmPath));
const qjsVariant = newVariant(RELEASE_SYNC, { wasmModule: qjsWasmModule });
const qjsShared = await newQuickJSWASMModuleFromVariant(qjsVariant);

/** Fresh runtime + context (in `mod`, default the shared module instance), eval, dispose. */
function runQjs(code, { mod = qjsShared, sandbox = true, times } = {}) {
  const t0 = now();
  const runtime = mod.newRuntime();
  if (sandbox) {
    // What a sandbox sets: a memory cap like ours (32 MiB) and a deadline interrupt handler.
    runtime.setMemoryLimit(32 * 1024 * 1024);
    runtime.setMaxStackSize(512 * 1024);
    runtime.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + 30_000));
  }
  const ctx = runtime.newContext();
  const t1 = now(), c1 = evalClock();
  const result = ctx.evalCode(code);
  const t2 = now(), c2 = evalClock();
  let value;
  if (result.error) {
    const e = ctx.dump(result.error);
    result.error.dispose();
    throw new Error("quickjs-emscripten: " + JSON.stringify(e));
  }
  value = ctx.dump(result.value);
  result.value.dispose();
  ctx.dispose();
  runtime.dispose();
  const t3 = now();
  if (times) { times.context = (times.context ?? 0) + (t1 - t0); times.eval = (times.eval ?? 0) + (t2 - t1); times.dispose = (times.dispose ?? 0) + (t3 - t2); }
  return { ms: t3 - t0, evalMs: c2 - c1, value };
}

/** A new Emscripten module instance (precompiled WebAssembly.Module, like ours) + runtime + context + eval. */
async function runQjsColdInstance(code) {
  const t0 = now();
  const mod = await newQuickJSWASMModuleFromVariant(qjsVariant);
  const t1 = now();
  const r = runQjs(code, { mod });
  return { ms: now() - t0, instantiateMs: t1 - t0, value: r.value };
}

// --- workerd ------------------------------------------------------------------------------------------------------

const DRIVER = `
import { handleRequest } from "../worker-shim/core.js";
import { javascriptEngine } from "../engines/javascript/engine.js";
export default {
  async fetch(req) {
    const url = new URL(req.url);
    const n = Number(url.searchParams.get("n"));
    const body = await req.text();
    const t0 = performance.now();
    let last;
    for (let i = 0; i < n; i++) {
      const res = await handleRequest(javascriptEngine, new Request("https://sandbox.internal/execute", { method: "POST", headers: { "content-type": "application/json" }, body }), {});
      last = await res.text();
    }
    return Response.json({ elapsedMs: performance.now() - t0, last });
  },
};
`;

function driverOptions() {
  const { workerOptions, rules } = wranglerWorker();
  const deps = [...collectModules(path.join(ROOT, "worker-shim/core.js"), rules), ...collectModules(path.join(ROOT, "engines/javascript/engine.js"), rules)];
  return {
    name: "driver",
    compatibilityDate: workerOptions.compatibilityDate,
    compatibilityFlags: workerOptions.compatibilityFlags,
    modulesRoot: ROOT,
    modules: [{ type: "ESModule", path: path.join(ROOT, "bench/__jsdriver.js"), contents: DRIVER }, ...new Map(deps.map((m) => [m.path, m])).values()],
    routes: ["driver.bench/*"],
  };
}

const ONE_PLUS_ONE = JSON.stringify({ code: "1 + 1" });
const CALC_BODY = JSON.stringify({ code: "1 + 1" }); // the calc engine evaluates arithmetic too

async function post(mf, host, body, expect) {
  const s = now();
  const res = await mf.dispatchFetch(`https://${host}/execute`, { method: "POST", headers: { "content-type": "application/json" }, body });
  const text = await res.text();
  const ms = now() - s;
  if (res.status !== 200 || !text.includes(expect)) throw new Error(`${host}: ${res.status} ${text.slice(0, 300)}`);
  return { ms, text };
}

async function concurrent(mf, host, body, expect, n, c) {
  let next = 0;
  const t0 = now();
  await Promise.all(Array.from({ length: c }, async () => { while (next++ < n) await post(mf, host, body, expect); }));
  return (n / (now() - t0)) * 1000;
}

async function inIsolate(mf, body, n) {
  const res = await mf.dispatchFetch(`https://driver.bench/?n=${n}`, { method: "POST", body });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`driver: ${res.status} ${text.slice(0, 300)}`);
  const j = JSON.parse(text);
  return { usPerCall: (j.elapsedMs * 1000) / n, last: j.last };
}

// --- main ---------------------------------------------------------------------------------------------------------

const row = (name, s, rps) =>
  console.log(`${name.padEnd(40)} ${fmt(s.p50).padStart(7)}  ${fmt(s.p99).padStart(7)}  ${fmt(s.min).padStart(7)}  ${fmt(s.mean).padStart(7)}  ${rps === undefined ? "" : fmt(rps, 0).padStart(7)}`);
const OK2 = '"results":[{"text":"2"}]';

/**
 * (a) and (b) together: ROUNDS rounds, each running a batch of every variant in a rotated order — js and calc over
 * HTTP (sequential), the in-isolate driver, the Node floor — so that background load hits all of them alike.
 * Then requests/second at concurrency C (js, calc), and the floor's per-phase pass.
 */
const ROUNDS = 10;
async function measureOnePlusOne(mf) {
  for (let i = 0; i < WARMUP; i++) {
    runOurs("1 + 1");
    if (mf) {
      await post(mf, "js.bench", ONE_PLUS_ONE, OK2);
      await post(mf, "nospare.bench", ONE_PLUS_ONE, OK2);
      await post(mf, "calc.bench", CALC_BODY, OK2);
    }
  }
  if (mf) await inIsolate(mf, ONE_PLUS_ONE, WARMUP);
  const per = Math.ceil(REQUESTS / ROUNDS);
  const lat = { js: [], nospare: [], calc: [], floor: [] };
  let isoMs = 0;
  const tasks = [() => floorBatch(per, lat.floor)];
  if (mf) {
    tasks.push(async () => { for (let i = 0; i < per; i++) lat.js.push((await post(mf, "js.bench", ONE_PLUS_ONE, OK2)).ms); });
    tasks.push(async () => { for (let i = 0; i < per; i++) lat.nospare.push((await post(mf, "nospare.bench", ONE_PLUS_ONE, OK2)).ms); });
    tasks.push(async () => { for (let i = 0; i < per; i++) lat.calc.push((await post(mf, "calc.bench", CALC_BODY, OK2)).ms); });
    tasks.push(async () => {
      const iso = await inIsolate(mf, ONE_PLUS_ONE, per);
      if (!iso.last.includes(OK2)) throw new Error("driver: " + iso.last);
      isoMs += (iso.usPerCall / 1000) * per;
    });
  }
  for (let r = 0; r < ROUNDS; r++) for (let k = 0; k < tasks.length; k++) await tasks[(r + k) % tasks.length]();
  const floor = { ...stats(lat.floor), phases: floorPhases(REQUESTS) };
  if (!mf) return { floor };
  const http = { js: stats(lat.js), nospare: stats(lat.nospare), calc: stats(lat.calc), isolateMs: isoMs / (per * ROUNDS) };
  http.jsRps = await concurrent(mf, "js.bench", ONE_PLUS_ONE, OK2, REQUESTS * 2, CONCURRENCY);
  http.calcRps = await concurrent(mf, "calc.bench", CALC_BODY, OK2, REQUESTS * 2, CONCURRENCY);
  return { http, floor };
}

async function main() {
  const env = machine();
  const report = { machine: env, params: { REQUESTS, WARMUP, CONCURRENCY, COMPUTE_RUNS, FUEL, engine: path.relative(ROOT, enginePath), engines: enginePaths.map((f) => path.relative(ROOT, f)), cpuTime: opts["cpu-time"] }, ratios: {} };
  console.log(`machine: ${env.nproc} CPUs, ${env.cpu}, load ${env.load}; node ${env.node}; wrangler ${env.wrangler}; miniflare ${env.miniflare}; ` +
    `workerd ${env.workerd}; quickjs-emscripten ${env.quickjsEmscripten}; engine ${env.engine} (${env.engineBuild}, ${report.params.engine})`);

  const sz = (report.sizes = sizes());
  console.log("\nsizes (bytes)             raw    gzip -9");
  for (const [k, v] of Object.entries(sz)) console.log(`${k.padEnd(18)} ${fmt(v.raw, 0).padStart(9)}  ${fmt(v.gzip9, 0).padStart(9)}`);

  // The compute source gives the same answer in both engines.
  const qjsAnswer = runQjs(COMPUTE).value;
  for (const module of engineModules) {
    const oursAnswer = JSON.parse(runOurs(COMPUTE, { module }).text).results[0].text;
    if (!oursAnswer.includes(qjsAnswer) || !qjsAnswer.startsWith(COMPUTE_EXPECT)) throw new Error(`compute answers differ: ours ${oursAnswer} / quickjs-emscripten ${qjsAnswer}`);
  }
  if (opts.parts) {
    for (const [name, code] of Object.entries(partsToRun())) {
      const q = runQjs(code).value;
      if (!(name in JSON_PARTS) && !qjsAnswer.includes(q)) throw new Error(`part ${name}: ${q} is not in the mix's answer`);
      for (const module of engineModules) {
        const o = JSON.parse(runOurs(code, { module }).text).results[0].text;
        if (!o.includes(q)) throw new Error(`part ${name}: ours ${o} / quickjs-emscripten ${q}`);
      }
    }
  }
  console.log(`\ncompute answer (both engines): ${qjsAnswer}`);

  const mf = NO_WORKERD
    ? null
    : await startMiniflare([
        runtimeWorkerOptions({ name: "js", routes: ["js.bench/*"] }),
        runtimeWorkerOptions({ name: "nospare", entry: "javascript-nospare.js", routes: ["nospare.bench/*"] }),
        runtimeWorkerOptions({ name: "calc", entry: "calc.js", routes: ["calc.bench/*"] }),
        driverOptions(),
      ]);
  try {
    // (a) workerd, then (b) right after it so that machine load is comparable.
    const both = await measureOnePlusOne(mf);
    const http = (report.http = both.http ?? null);
    const fl = (report.floor = both.floor);
    // quickjs-emscripten, `1 + 1`, for scale.
    for (let i = 0; i < WARMUP; i++) runQjs("1 + 1");
    const qjsOne = [];
    for (let i = 0; i < REQUESTS; i++) qjsOne.push(runQjs("1 + 1").ms);
    const qjsOneCold = [];
    for (let i = 0; i < REQUESTS; i++) qjsOneCold.push((await runQjsColdInstance("1 + 1")).ms);
    report.qjsOnePlusOne = { freshContext: stats(qjsOne), freshInstance: stats(qjsOneCold) };

    const head = (what) => console.log(`${what.padEnd(40)}     p50      p99      min     mean`);
    if (http) {
      console.log(`\n(a) POST /execute {"code":"1 + 1"} in workerd via Miniflare dispatchFetch: ${REQUESTS} sequential requests after ${WARMUP} warm-up, in ${ROUNDS} rounds interleaved with (b) (ms); req/s at concurrency ${CONCURRENCY} over ${REQUESTS * 2} requests`);
      head("target");
      console.log("".padEnd(40 + 36) + `  req/s @${CONCURRENCY}`);
      row("js (real Worker: fresh QuickJS/request)", http.js, http.jsRps);
      row("js without the spare instance", http.nospare);
      row("calc (same shim + core, trivial engine)", http.calc, http.calcRps);
      console.log(`in-isolate handleRequest(javascriptEngine) from a driver Worker (no transport): ${fmt(http.isolateMs, 3)} ms/request (mean of ${REQUESTS}, same rounds)`);
    }
    console.log(`\n(b) floor: engine.wasm under our WASI host in Node through the core, no HTTP: ${REQUESTS} runs of 1 + 1 (ms)`);
    head("what");
    row("ours: host_new+instantiate+run+free", fl);
    row("quickjs-emscripten: fresh runtime+ctx", report.qjsOnePlusOne.freshContext);
    row("quickjs-emscripten: fresh instance+ctx", report.qjsOnePlusOne.freshInstance);
    console.log(`ours, median per phase (a second pass of ${REQUESTS} runs, every guest export wrapped in a timer):`);
    const PH = {
      hostNew: "sw_wasi_host_new + makeImportObject",
      instantiate: "new WebAssembly.Instance(engine.wasm)",
      run: "sw_wasmify_js_run, of which:",
      _initialize: "  guest _initialize",
      wasm_init: "  guest wasm_init",
      New: "  guest New (JS_NewRuntime+NewContext+globals)",
      InterruptAddress: "  guest InterruptAddress",
      Eval: "  guest Eval (compile+run+outcome JSON)",
      coreOverhead: "  the rest: core C++ (protobuf, copies) + bridge",
      release: "unbind + sw_wasi_host_free",
    };
    for (const [k, label] of Object.entries(PH)) if (fl.phases[k] !== undefined) console.log(`  ${label.padEnd(48)} ${fmt(fl.phases[k], 3).padStart(7)} ms`);
    if (http) {
      const ratio = {
        p50: http.js.p50 / fl.p50,
        p99: http.js.p99 / fl.p99,
        isolateOverFloor: http.isolateMs / fl.p50,
        transportMs: http.js.p50 - http.isolateMs,
        calcP50: http.calc.p50,
        engineInHttpMs: http.js.p50 - http.calc.p50,
      };
      report.ratios.httpOverFloor = ratio;
      console.log(`(a)/(b): p50 ${fmt(ratio.p50)}x, p99 ${fmt(ratio.p99)}x (issue target: <= 1.3x)`);
      console.log(`  where (a)'s p50 goes: in-isolate handleRequest ${fmt(http.isolateMs, 3)} ms (= ${fmt(ratio.isolateOverFloor)}x the Node floor p50); ` +
        `the rest, ${fmt(ratio.transportMs, 3)} ms, is transport (Node undici -> Miniflare entry Worker -> Worker). ` +
        `calc's p50 (same transport + shim + core, no QuickJS) is ${fmt(http.calc.p50, 3)} ms; js - calc = ${fmt(ratio.engineInHttpMs, 3)} ms`);
    }

    // (c) compute, all variants interleaved so that load hits them alike.
    const R = COMPUTE_RUNS;
    if (opts["cpu-time"]) evalClock = cpuNow;
    for (let i = 0; i < 3; i++) { for (const module of engineModules) runOurs(COMPUTE, { module }); runQjs(COMPUTE); }
    const COMPUTE_BODY = JSON.stringify({ code: COMPUTE });
    if (mf) { await post(mf, "js.bench", COMPUTE_BODY, COMPUTE_EXPECT); await inIsolate(mf, COMPUTE_BODY, 1); }
    const c = { ours: [], oursEval: [], oursNoopCharge: [], oursNoopChargeEval: [], qjs: [], qjsEval: [], qjsNoHandler: [], qjsNoHandlerEval: [], qjsInstance: [], workerdHttp: [], workerdIsolate: [] };
    let chargeCalls = 0, chargeUnits = 0;
    // One task per variant; each round runs them in a rotated order, so that no variant always follows the same
    // one (e.g. workerd finishing background work after a request) and background load hits all alike.
    const tasks = [
      () => { const phases = {}; c.ours.push(runOurs(COMPUTE, { phases, charge: "count" }).ms); c.oursEval.push(phases.Eval); chargeCalls = phases.chargeCalls; chargeUnits = phases.chargeUnits; },
      () => { const phases = {}; c.oursNoopCharge.push(runOurs(COMPUTE, { phases, charge: "noop" }).ms); c.oursNoopChargeEval.push(phases.Eval); },
      () => { const r = runQjs(COMPUTE); c.qjs.push(r.ms); c.qjsEval.push(r.evalMs); },
      () => { const r = runQjs(COMPUTE, { sandbox: false }); c.qjsNoHandler.push(r.ms); c.qjsNoHandlerEval.push(r.evalMs); },
      async () => c.qjsInstance.push((await runQjsColdInstance(COMPUTE)).ms),
    ];
    // The other engines (--engine ...): total and eval, with the real sandbox.charge.
    for (let e = 1; e < engineModules.length; e++) {
      c[`ours${e}`] = []; c[`ours${e}Eval`] = [];
      tasks.push(() => { const phases = {}; c[`ours${e}`].push(runOurs(COMPUTE, { phases, module: engineModules[e] }).ms); c[`ours${e}Eval`].push(phases.Eval); });
    }
    if (mf) {
      tasks.push(async () => c.workerdHttp.push((await post(mf, "js.bench", COMPUTE_BODY, COMPUTE_EXPECT)).ms));
      tasks.push(async () => {
        const iso = await inIsolate(mf, COMPUTE_BODY, 1);
        if (!iso.last.includes(COMPUTE_EXPECT)) throw new Error("driver: " + iso.last.slice(0, 300));
        c.workerdIsolate.push(iso.usPerCall / 1000);
      });
    }
    for (let i = 0; i < R; i++) {
      for (let k = 0; k < tasks.length; k++) await tasks[(i + k) % tasks.length]();
    }
    const cs = Object.fromEntries(Object.entries(c).filter(([, v]) => v.length).map(([k, v]) => [k, stats(v)]));
    report.compute = { runs: R, chargeCalls, chargeUnits, ...cs };
    console.log(`\n(c) ${opts["cpu-time"] ? "[eval only = CPU time] " : ""}compute mix (fib(24); 300k-iteration arithmetic loop; 30k-char string build/split/map/join; 5x JSON stringify+parse of 2,000 objects; sort of 20,000 numbers): ${R} rounds, variants in rotated order (ms)`);
    console.log("what                                                            median total   eval only: p50      p99");
    const crow = (name, t, e) => console.log(`${name.padEnd(64)} ${fmt(t.p50).padStart(8)}   ${e ? fmt(e.p50).padStart(8) + " " + fmt(e.p99).padStart(8) : ""}`);
    crow(`${engineLabels[0]}, Node: fresh host+instance (eval = guest Eval export)`, cs.ours, cs.oursEval);
    for (let e = 1; e < engineModules.length; e++) crow(`${engineLabels[e]}, Node: same`, cs[`ours${e}`], cs[`ours${e}Eval`]);
    crow("ours, Node: same, sandbox.charge replaced by a JS no-op", cs.oursNoopCharge, cs.oursNoopChargeEval);
    if (mf) crow("ours, workerd: POST /execute (HTTP latency)", cs.workerdHttp);
    if (mf) crow("ours, workerd: in-isolate handleRequest (driver Worker)", cs.workerdIsolate);
    crow("quickjs-emscripten, Node: fresh runtime+ctx (mem limit+interrupt)", cs.qjs, cs.qjsEval);
    crow("quickjs-emscripten, Node: fresh runtime+ctx (no limits)", cs.qjsNoHandler, cs.qjsNoHandlerEval);
    crow("quickjs-emscripten, Node: fresh module instance+runtime+ctx", cs.qjsInstance);
    console.log(`sandbox.charge calls per run: ${fmt(chargeCalls, 0)}, charging ${fmt(chargeUnits, 0)} fuel of ${fmt(FUEL, 0)} (the first engine: one call per interrupt handler call of a module before the meter, docs/fuel.md)`);
    const cr = {
      total: cs.ours.p50 / cs.qjs.p50,
      eval: cs.oursEval.p50 / cs.qjsEval.p50,
      evalVsNoLimits: cs.oursEval.p50 / cs.qjsNoHandlerEval.p50,
      workerdHttpOverQjs: cs.workerdHttp ? cs.workerdHttp.p50 / cs.qjs.p50 : undefined,
      workerdIsolateOverNode: cs.workerdIsolate ? cs.workerdIsolate.p50 / cs.ours.p50 : undefined,
      chargeOverhead: cs.oursEval.p50 / cs.oursNoopChargeEval.p50,
    };
    report.ratios.compute = cr;
    console.log(`ours/quickjs-emscripten (Node, fresh context, with limits): total ${fmt(cr.total)}x, eval only ${fmt(cr.eval)}x (eval vs no-limits quickjs-emscripten ${fmt(cr.evalVsNoLimits)}x)`);
    if (mf) console.log(`workerd: HTTP / quickjs-emscripten Node total ${fmt(cr.workerdHttpOverQjs)}x; in-isolate workerd / ours in Node ${fmt(cr.workerdIsolateOverNode)}x`);
    console.log(`fuel metering: eval with the real sandbox.charge / with a no-op = ${fmt(cr.chargeOverhead, 3)}x`);
    for (let e = 1; e < engineModules.length; e++) {
      cr[`engine${e}`] = { total: cs[`ours${e}`].p50 / cs.qjs.p50, eval: cs[`ours${e}Eval`].p50 / cs.qjsEval.p50, evalOverFirst: cs[`ours${e}Eval`].p50 / cs.oursEval.p50 };
      console.log(`${engineLabels[e]}/quickjs-emscripten: total ${fmt(cr[`engine${e}`].total)}x, eval only ${fmt(cr[`engine${e}`].eval)}x; eval / ${engineLabels[0]}'s ${fmt(cr[`engine${e}`].evalOverFirst, 3)}x`);
    }

    if (opts.parts) {
      // Each part alone: every engine and quickjs-emscripten (with limits), rotated each round; eval only.
      console.log(`\n(c) parts of the mix, each alone: ${R} rounds, variants in rotated order; eval only${opts["cpu-time"] ? " (CPU time)" : ""}, ms p50 / p99, and ours/quickjs-emscripten by p50`);
      console.log(`${"part".padEnd(8)} ${[...engineLabels, "quickjs-emscripten"].map((l) => l.slice(0, 30).padStart(30)).join(" ")}   ratio(s)`);
      report.parts = {};
      for (const [name, code] of Object.entries(partsToRun())) {
        for (let i = 0; i < 2; i++) { for (const module of engineModules) runOurs(code, { module }); runQjs(code); }
        const lists = engineModules.map(() => []), qjsList = [];
        const ptasks = engineModules.map((module, e) => () => { const phases = {}; runOurs(code, { phases, module }); lists[e].push(phases.Eval); });
        ptasks.push(() => qjsList.push(runQjs(code).evalMs));
        for (let i = 0; i < R; i++) for (let k = 0; k < ptasks.length; k++) ptasks[(i + k) % ptasks.length]();
        const st = lists.map(stats), qs = stats(qjsList);
        report.parts[name] = { engines: st, qjs: qs, ratios: st.map((x) => x.p50 / qs.p50) };
        const cell = (x) => `${fmt(x.p50)} / ${fmt(x.p99)}`.padStart(30);
        console.log(`${name.padEnd(8)}${name.length > 8 ? "\n" + "".padEnd(8) : ""} ${[...st, qs].map(cell).join(" ")}   ${st.map((x) => fmt(x.p50 / qs.p50) + "x").join(" ")}`);
      }
    }
  } finally {
    await mf?.dispose();
  }
  report.machine.loadAtEnd = os.loadavg().map((x) => x.toFixed(2)).join(" ");
  console.log(`\nload average at the end: ${report.machine.loadAtEnd}`);
  if (opts.json) fs.writeFileSync(opts.json, JSON.stringify(report, null, 2));
  console.log(opts.json ? `\nwrote ${opts.json}` : "");
}

await main();
