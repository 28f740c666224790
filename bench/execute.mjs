#!/usr/bin/env node
// Benchmark (not a test): POST /execute on the C++ runtime Worker (wrangler.jsonc's config; shim + Emscripten core +
// the calc engine, test/integration/fixtures/calc.js) versus a plain-JavaScript baseline Worker
// (bench/baseline-worker.js: the same protocol §2.3 validation with JSON.parse, the same calc engine), both in one
// Miniflare (workerd).
//
//   PATH=$PWD/node_modules/.bin:$PATH node bench/execute.mjs [--requests 2000] [--concurrency 8] [--rounds 10]
//        [--warmup 300] [--iterations 20000] [--json out.json]
//
// Three measurements, each interleaving the two targets in rounds (order alternating) to spread noise evenly:
//   http     Node → dispatchFetch → Miniflare entry Worker → target Worker. End to end; includes undici, the
//            loopback HTTP hop and Miniflare's entry Worker, which are the same for both targets.
//   binding  a driver Worker inside workerd calls the target through a Service Binding (how callers reach a
//            runtime Worker) with the same concurrency; no Node or HTTP parsing in the loop.
//   isolate  the driver calls each request handler directly in its own isolate, sequentially: shim+core
//            (`handleRequest` from worker-shim/core.js) vs the baseline's `fetch`, plus the calc engine alone and the
//            Request construction alone, to show where per-request time goes.
// Clocks inside workerd tick in whole milliseconds, so in-workerd numbers are totals over many requests.
import path from "node:path";
import os from "node:os";
import { readFileSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { parseArgs } from "node:util";
import net from "node:net";
import { ROOT, runtimeWorkerOptions, helperWorkerOptions, startMiniflare, wranglerWorker, collectModules } from "../test/integration/helpers.mjs";

const { values: opts } = parseArgs({
  options: {
    requests: { type: "string", default: "2000" },
    concurrency: { type: "string", default: "8" },
    rounds: { type: "string", default: "10" },
    warmup: { type: "string", default: "300" },
    iterations: { type: "string", default: "20000" },
    json: { type: "string" },
    "skip-profile": { type: "boolean", default: false },
  },
});
const REQUESTS = Number(opts.requests);
const CONCURRENCY = Number(opts.concurrency);
const ROUNDS = Number(opts.rounds);
const WARMUP = Number(opts.warmup);
const ITERATIONS = Number(opts.iterations);

const BODY = '{"code":"1 + 2 * X","envVars":{"X":"3"}}';
const EXPECT = '"results":[{"text":"7"}]';
const TARGETS = ["cpp", "baseline"];

// The driver Worker (an inline module named bench/__driver.js; imports are relative to it).
const DRIVER = `
import { handleRequest } from "../worker-shim/core.js";
import { engine } from "../engines/calc/engine.js";
import baseline from "./baseline-worker.js";

const BODY = ${JSON.stringify(BODY)};
const EXPECT = ${JSON.stringify(EXPECT)};
const request = () => new Request("https://sandbox.internal/execute", { method: "POST", headers: { "content-type": "application/json" }, body: BODY });
const check = (text) => { if (!text.includes(EXPECT)) throw new Error("unexpected response: " + text.slice(0, 300)); };

const handlers = {
  cpp: async () => check(await (await handleRequest(engine, request(), {})).text()),
  baseline: async () => check(await (await baseline.fetch(request())).text()),
  engine: async () => { const o = await engine.run({ code: "1 + 2 * X", envVars: { X: "3" } }); if (o.results[0].text !== "7") throw new Error("engine"); },
  request: async () => { await request().text(); },
  json: async () => { JSON.stringify({ code: "x", ...JSON.parse(BODY) }); },
};

export default {
  async fetch(req, env) {
    const url = new URL(req.url);
    const target = url.searchParams.get("target");
    const n = Number(url.searchParams.get("n"));
    if (url.pathname === "/binding") {
      const service = { cpp: env.CPP, baseline: env.BASELINE }[target];
      const c = Number(url.searchParams.get("c"));
      let next = 0;
      const t0 = performance.now();
      await Promise.all(Array.from({ length: c }, async () => {
        while (next++ < n) check(await (await service.fetch(request())).text());
      }));
      return Response.json({ elapsedMs: performance.now() - t0 });
    }
    if (url.pathname === "/isolate") {
      const run = handlers[target];
      const t0 = performance.now();
      for (let i = 0; i < n; i++) await run();
      return Response.json({ elapsedMs: performance.now() - t0 });
    }
    return new Response("driver: /binding or /isolate", { status: 404 });
  },
};
`;

function driverOptions() {
  const { workerOptions, rules } = wranglerWorker();
  const driverPath = path.join(ROOT, "bench/__driver.js");
  const deps = [
    ...collectModules(path.join(ROOT, "worker-shim/core.js"), rules),
    ...collectModules(path.join(ROOT, "engines/calc/engine.js"), rules),
    ...collectModules(path.join(ROOT, "bench/baseline-worker.js"), rules),
  ];
  const unique = [...new Map(deps.map((m) => [m.path, m])).values()];
  return {
    name: "driver",
    compatibilityDate: workerOptions.compatibilityDate,
    compatibilityFlags: workerOptions.compatibilityFlags,
    modulesRoot: ROOT,
    modules: [{ type: "ESModule", path: driverPath, contents: DRIVER }, ...unique],
    serviceBindings: { CPP: "cpp", BASELINE: "baseline" },
    routes: ["driver.bench/*"],
  };
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
const fmt = (n, d = 0) => n.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d });

async function httpBatch(mf, target, n, concurrency, latencies) {
  const url = `https://${target}.bench/execute`;
  let next = 0;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < n) {
        const s = process.hrtime.bigint();
        const res = await mf.dispatchFetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: BODY });
        const text = await res.text();
        if (res.status !== 200 || !text.includes(EXPECT)) throw new Error(`${target}: unexpected ${res.status} ${text.slice(0, 300)}`);
        latencies?.push(Number(process.hrtime.bigint() - s) / 1e6);
      }
    }),
  );
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

async function driver(mf, mode, params) {
  const res = await mf.dispatchFetch(`https://driver.bench/${mode}?${new URLSearchParams(params)}`);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`driver ${mode} ${JSON.stringify(params)}: ${res.status} ${text.slice(0, 500)}`);
  return JSON.parse(text).elapsedMs;
}

const roundOrder = (r, targets) => (r % 2 === 0 ? targets : [...targets].reverse());

function machine() {
  const cpu = (() => {
    try {
      return execFileSync("lscpu", { encoding: "utf8" }).match(/Model name:\s*(.+)/)?.[1]?.trim();
    } catch {
      return os.cpus()[0]?.model;
    }
  })();
  const pkg = (p) => JSON.parse(readFileSync(path.join(ROOT, "node_modules", p, "package.json"), "utf8")).version;
  return { nproc: os.availableParallelism(), cpu, node: process.version, wrangler: pkg("wrangler"), miniflare: pkg("miniflare"), workerd: pkg("@cloudflare/workerd-linux-64") };
}

// --- CPU profile of the driver isolate through the V8 inspector (Miniflare `inspectorPort`) --------------------------

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

async function inspector(port, workerName) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/core:user:${workerName}`);
  await new Promise((resolve, reject) => {
    ws.addEventListener("open", resolve, { once: true });
    ws.addEventListener("error", reject, { once: true });
  });
  let id = 1000;
  const pending = new Map();
  ws.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    // workerd's inspector answers some commands with an echo of the request (no `result`); any reply will do.
    if (message.id && pending.has(message.id)) {
      pending.get(message.id)(message);
      pending.delete(message.id);
    }
  });
  const send = (method, params = {}) =>
    new Promise((resolve) => {
      const i = ++id;
      pending.set(i, resolve);
      ws.send(JSON.stringify({ id: i, method, params }));
    });
  return { send, close: () => ws.close() };
}

function category({ functionName, url }) {
  if (url.endsWith("worker-shim/core.js")) return "shim (worker-shim/core.js)";
  if (url.endsWith("generated/core.mjs")) return "Emscripten glue (core.mjs)";
  if (url.includes("worker-shim/")) return "shim (other worker-shim modules)";
  if (url.startsWith("wasm://") || url.endsWith(".wasm")) return "C++ core (wasm)";
  if (url.includes("engines/calc/")) return "calc engine";
  if (url.endsWith("baseline-worker.js")) return "baseline (baseline-worker.js)";
  if (url.endsWith("__driver.js")) return "benchmark driver";
  if (functionName === "(garbage collector)") return "GC";
  if (functionName === "(program)" || functionName === "(idle)" || functionName === "(root)") return "(program/idle)";
  return "workerd/V8 built-ins (Request, streams, TextEncoder, JSON, …)";
}

/** Self time per category and per function, from a V8 CPU profile. */
function summarize(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i + 1] ?? 0;
    self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + dt);
  }
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const categories = new Map();
  const functions = new Map();
  for (const [nodeId, us] of self) {
    const frame = byId.get(nodeId).callFrame;
    const cat = category(frame);
    categories.set(cat, (categories.get(cat) ?? 0) + us);
    const name = `${frame.functionName || "(anonymous)"} ${frame.url ? path.basename(frame.url) : ""}${frame.url ? ":" + (frame.lineNumber + 1) : ""}`.trim();
    functions.set(name, (functions.get(name) ?? 0) + us);
  }
  const sorted = (m) => [...m].sort((a, b) => b[1] - a[1]).map(([name, us]) => ({ name, us, share: us / total }));
  return { totalUs: total, categories: sorted(categories), functions: sorted(functions) };
}

async function profileIsolate(mf, port, target, n) {
  const session = await inspector(port, "driver");
  try {
    await session.send("Profiler.enable");
    await session.send("Profiler.setSamplingInterval", { interval: 50 });
    await session.send("Profiler.start");
    await driver(mf, "isolate", { target, n });
    const { result } = await session.send("Profiler.stop");
    return summarize(result.profile);
  } finally {
    session.close();
  }
}

async function main() {
  const env = machine();
  console.log(`machine: ${env.nproc} CPUs, ${env.cpu}; node ${env.node}; wrangler ${env.wrangler}; miniflare ${env.miniflare}; workerd ${env.workerd}`);
  console.log(`request: POST /execute ${BODY}`);
  const workers = () => [
    runtimeWorkerOptions({ name: "cpp", entry: "calc.js", routes: ["cpp.bench/*"] }),
    helperWorkerOptions({ name: "baseline", entry: path.join(ROOT, "bench/baseline-worker.js"), routes: ["baseline.bench/*"] }),
    driverOptions(),
  ];
  let mf = await startMiniflare(workers());
  const report = { machine: env, params: { REQUESTS, CONCURRENCY, ROUNDS, WARMUP, ITERATIONS }, http: {}, binding: {}, isolate: {} };
  try {
    // Warm-up: every path once through JIT tiers.
    for (const t of TARGETS) {
      await httpBatch(mf, t, WARMUP, CONCURRENCY);
      await driver(mf, "binding", { target: t, n: WARMUP, c: CONCURRENCY });
      await driver(mf, "isolate", { target: t, n: WARMUP });
    }
    for (const t of ["engine", "request", "json"]) await driver(mf, "isolate", { target: t, n: WARMUP });

    // http
    const per = Math.ceil(REQUESTS / ROUNDS);
    const http = Object.fromEntries(TARGETS.map((t) => [t, { ms: 0, n: 0, lat: [] }]));
    for (let r = 0; r < ROUNDS; r++) {
      for (const t of roundOrder(r, TARGETS)) {
        http[t].ms += await httpBatch(mf, t, per, CONCURRENCY, http[t].lat);
        http[t].n += per;
      }
    }
    // binding
    const binding = Object.fromEntries(TARGETS.map((t) => [t, { ms: 0, n: 0 }]));
    for (let r = 0; r < ROUNDS; r++) {
      for (const t of roundOrder(r, TARGETS)) {
        binding[t].ms += await driver(mf, "binding", { target: t, n: per, c: CONCURRENCY });
        binding[t].n += per;
      }
    }
    // isolate
    const isoTargets = ["cpp", "baseline", "engine", "request", "json"];
    const isoPer = Math.ceil(ITERATIONS / ROUNDS);
    const isolate = Object.fromEntries(isoTargets.map((t) => [t, { ms: 0, n: 0 }]));
    for (let r = 0; r < ROUNDS; r++) {
      for (const t of roundOrder(r, isoTargets)) {
        isolate[t].ms += await driver(mf, "isolate", { target: t, n: isoPer });
        isolate[t].n += isoPer;
      }
    }

    // Report
    console.log(`\nhttp: ${http.cpp.n} requests per target, concurrency ${CONCURRENCY}, ${ROUNDS} interleaved rounds (Node dispatchFetch)`);
    console.log("target     req/s     p50 ms   p90 ms   p99 ms   max ms");
    for (const t of TARGETS) {
      const lat = http[t].lat.sort((a, b) => a - b);
      const row = { rps: (http[t].n / http[t].ms) * 1000, p50: quantile(lat, 0.5), p90: quantile(lat, 0.9), p99: quantile(lat, 0.99), max: lat.at(-1) };
      report.http[t] = row;
      console.log(`${t.padEnd(9)} ${fmt(row.rps).padStart(7)}   ${fmt(row.p50, 2).padStart(6)}   ${fmt(row.p90, 2).padStart(6)}   ${fmt(row.p99, 2).padStart(6)}   ${fmt(row.max, 2).padStart(6)}`);
    }
    const httpRatio = report.http.cpp.rps / report.http.baseline.rps;
    const p50Ratio = report.http.cpp.p50 / report.http.baseline.p50;
    console.log(`C++/baseline: throughput ${fmt(httpRatio, 3)}x, p50 latency ${fmt(p50Ratio, 3)}x, p99 latency ${fmt(report.http.cpp.p99 / report.http.baseline.p99, 3)}x`);

    console.log(`\nbinding: ${binding.cpp.n} requests per target, concurrency ${CONCURRENCY}, driver Worker → Service Binding`);
    console.log("target     req/s    mean ms/request (wall / n)");
    for (const t of TARGETS) {
      const row = { rps: (binding[t].n / binding[t].ms) * 1000, meanMs: binding[t].ms / binding[t].n };
      report.binding[t] = row;
      console.log(`${t.padEnd(9)} ${fmt(row.rps).padStart(7)}   ${fmt(row.meanMs, 3)}`);
    }
    console.log(`C++/baseline: throughput ${fmt(report.binding.cpp.rps / report.binding.baseline.rps, 3)}x`);

    console.log(`\nisolate: ${isolate.cpp.n} sequential calls per target inside one isolate (no transport)`);
    console.log("target     calls/s   µs/call");
    for (const t of isoTargets) {
      const row = { cps: (isolate[t].n / isolate[t].ms) * 1000, usPerCall: (isolate[t].ms * 1000) / isolate[t].n };
      report.isolate[t] = row;
      console.log(`${t.padEnd(9)} ${fmt(row.cps).padStart(8)}   ${fmt(row.usPerCall, 2).padStart(7)}`);
    }
    const cppUs = report.isolate.cpp.usPerCall;
    const baseUs = report.isolate.baseline.usPerCall;
    console.log(`C++/baseline: time per call ${fmt(cppUs / baseUs, 3)}x (${fmt(cppUs - baseUs, 2)} µs more per request)`);
    console.log("  (engine = calc engine.run alone; request = new Request + body.text(); json = JSON.parse + stringify of the payload)");
  } finally {
    await mf.dispose();
  }

  if (!opts["skip-profile"]) {
    // A separate Miniflare with the V8 inspector enabled: an attached inspector slows everything down, so the
    // numbers above are taken without it and only the shares below come from here.
    const inspectorPort = await freePort();
    mf = await startMiniflare(workers(), { inspectorPort });
    try {
      const n = ITERATIONS;
      for (const t of TARGETS) await driver(mf, "isolate", { target: t, n: WARMUP });
      console.log(`\nprofile: V8 CPU profile (inspector attached, so absolute times are inflated) of the driver isolate,`);
      console.log(`${n} sequential in-isolate calls per target; self time by category and top functions`);
      for (const t of TARGETS) {
        const p = await profileIsolate(mf, inspectorPort, t, n);
        report.profile ??= {};
        report.profile[t] = { ...p, functions: p.functions.slice(0, 40) };
        console.log(`  ${t}: ${fmt(p.totalUs / 1000, 0)} ms sampled = ${fmt(p.totalUs / n, 2)} µs/call`);
        for (const c of p.categories) console.log(`    ${fmt(c.us / n, 2).padStart(7)} µs/call  ${fmt(c.share * 100, 1).padStart(5)}%  ${c.name}`);
        console.log("    top functions (self):");
        for (const f of p.functions.slice(0, 12)) console.log(`    ${fmt(f.us / n, 2).padStart(7)} µs/call  ${fmt(f.share * 100, 1).padStart(5)}%  ${f.name}`);
        const wasm = p.functions.filter((f) => f.name.startsWith("wasm-function"));
        if (wasm.length) {
          console.log("    top C++ core functions (self; indices as in `wasm-objdump -x worker-shim/generated/core.wasm`):");
          for (const f of wasm.slice(0, 6)) console.log(`    ${fmt(f.us / n, 2).padStart(7)} µs/call  ${fmt(f.share * 100, 1).padStart(5)}%  ${f.name.split(" ")[0]}`);
        }
      }
    } finally {
      await mf.dispose();
    }
  }
  if (opts.json) writeFileSync(opts.json, JSON.stringify(report, null, 2));
}

await main();
