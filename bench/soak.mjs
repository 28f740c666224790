#!/usr/bin/env node
// Soak benchmark (issue 13 part 8), not a test: it fails only on an error, never on a number.
//
// One code context receives many small executes, each changing its state a little (a counter; a list that gains an
// entry and is trimmed to its last 100, so the program's live data stays bounded), through the real core and engine
// (./testing: the same C++ Interpreter the Durable Object runs) over an on-disk node:sqlite file. One Interpreter
// instance throughout (a resident context: snapshot after every execute, no restore); after each execute the soak
// waits for what it left in waitUntil (the next instance, prepared off the timed path), as between two requests.
//
// Every --every executes (default 500) it samples, after a full GC (so the heap numbers are live data, not GC timing):
//   process.memoryUsage() rss / heapUsed / external / arrayBuffers;
//   the core's linear memory and the guest linear memories it holds (wasm MiB);
//   the SQLite file: bytes on disk (main file + -wal), page_count and freelist_count;
//   the context's snapshot storedBytes (SnapshotInfo, what its rows hold) and the last execute's latency.
// Then it reports the least-squares slope per 1,000 executes of each, over all samples and over the second half (the
// steady state, after the allocators and the SQLite file have settled), and a verdict from the second half's slope:
// "flat" when that slope, projected over the whole run's length, stays within 2% of the first sample or within an
// absolute noise floor (1 MiB for memory, 64 KiB / 16 pages for the file, 0.5 KiB stored, 0.5 ms), else "grows" /
// "falls".
//
//   node bench/soak.mjs [--languages javascript,python] [--executes N] [--every 500] [--json out.json]
// --executes defaults to 10,000 for JavaScript and 2,000 for Python (~3 minutes together on 2 CPUs);
// `--languages python --executes 10000` runs Python's full 10,000.
import fs from "node:fs";
import path from "node:path";
import v8 from "node:v8";
import vm from "node:vm";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir, cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { createTestInterpreter, createTestState } from "../worker-shim/testing.js";

const { getCore } = await import("../worker-shim/core.js");
const { values: opts } = parseArgs({
  options: {
    languages: { type: "string", default: "javascript,python" },
    executes: { type: "string" },
    every: { type: "string", default: "500" },
    json: { type: "string" },
  },
});
const DEFAULT_EXECUTES = { javascript: 10000, python: 2000 };
const EVERY = Number(opts.every);

const ENGINES = {
  javascript: async () => (await import("../engines/javascript/engine.js")).javascriptEngine,
  python: async () => (await import("../engines/python/engine.js")).pythonEngine,
};
// Execute i (1-based) answers i.
const PROGRAMS = {
  javascript:
    "globalThis.counter = (globalThis.counter ?? 0) + 1;\n" +
    "globalThis.items ??= [];\n" +
    "items.push({ n: counter, s: 'item-' + counter });\n" +
    "if (items.length > 100) items.splice(0, items.length - 100);\n" +
    "counter",
  python:
    "counter = globals().get('counter', 0) + 1\n" +
    "items = globals().get('items', [])\n" +
    "items.append({'n': counter, 's': 'item-%d' % counter})\n" +
    "del items[:-100]\n" +
    "counter",
};

const collect = (v8.setFlagsFromString("--expose-gc"), vm.runInNewContext("gc"));
const core = await getCore();
const MiB = 1024 * 1024;

function slope(points) {
  // Least squares of y on x; x in thousands of executes.
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  let sxy = 0, sxx = 0;
  for (const p of points) { sxy += (p.x - mx) * (p.y - my); sxx += (p.x - mx) ** 2; }
  return sxx ? sxy / sxx : 0;
}

async function soak(language, executes) {
  const engine = await ENGINES[language]();
  const dir = mkdtempSync(path.join(tmpdir(), "sw-soak-"));
  const file = path.join(dir, "interpreter.sqlite");
  // The Interpreter hands the preparation of its next engine instance (the spare) to waitUntil, on a timer; the soak
  // waits for it after each execute, as an isolate between two requests would. (Without that, back-to-back awaits
  // never let the timer run: the timers pile up — ~0.45 MiB of Timeout/Promise/closures per 1,000 executes — and
  // no spare is ever prepared.)
  const pending = [];
  const state = Object.assign(createTestState({ path: file }), { waitUntil: (p) => pending.push(p) });
  // No fsync per commit (as bench/contexts.mjs): this VM's fsync (~15-20 ms, more when the disk is shared) is not what
  // a Durable Object pays, and this measures growth, not the disk. The file is still written at every commit.
  state.db.exec("PRAGMA synchronous = OFF");
  const interpreter = createTestInterpreter(engine, state);
  const key = "soak";
  const res = await interpreter.fetch(new Request("https://interpreter.internal/contexts", {
    method: "POST", headers: { "x-interpreter-key": key, "content-type": "application/json" }, body: JSON.stringify({ id: "c1" }),
  }));
  if (res.status !== 201) throw new Error(`${language}: creating the context: ${res.status} ${await res.text()}`);
  const pragma = (name) => Object.values(state.db.prepare(`PRAGMA ${name}`).get())[0];
  const fileBytes = () => [file, `${file}-wal`].reduce((s, f) => s + (fs.existsSync(f) ? fs.statSync(f).size : 0), 0);
  const wasmBytes = () => {
    let b = core.HEAPU8.buffer.byteLength;
    for (const m of core.wasiMemories.values()) b += m.buffer.byteLength;
    return b;
  };
  const samples = [];
  const errors = [];
  let window = [];
  const t0 = performance.now();
  for (let i = 1; i <= executes; i++) {
    const s = performance.now();
    const r = await interpreter.executeInContext(key, { contextId: "c1", code: PROGRAMS[language], envVars: {}, workspace: { dirs: [], manifest: {} } }, () => []);
    window.push(performance.now() - s);
    await Promise.all(pending.splice(0));
    const text = r.result?.results?.[0]?.text;
    if (!r.ok || r.result.error || text !== String(i)) {
      errors.push(`execute ${i}: ${JSON.stringify(r).slice(0, 400)}`);
      if (errors.length >= 5) break;
    }
    if (i % EVERY === 0) {
      collect();
      const m = process.memoryUsage();
      const snap = r.result?.context?.snapshot ?? {};
      const sortedWindow = window.sort((a, b) => a - b);
      samples.push({
        executes: i,
        rssMiB: m.rss / MiB, heapUsedMiB: m.heapUsed / MiB, externalMiB: m.external / MiB, arrayBuffersMiB: m.arrayBuffers / MiB,
        wasmMiB: wasmBytes() / MiB,
        fileKiB: fileBytes() / 1024, pageCount: pragma("page_count"), freelistCount: pragma("freelist_count"),
        storedKiB: (snap.storedBytes ?? NaN) / 1024,
        p50Ms: sortedWindow[Math.floor(sortedWindow.length / 2)], p99Ms: sortedWindow[Math.min(sortedWindow.length - 1, Math.floor(sortedWindow.length * 0.99))],
      });
      window = [];
      process.stderr.write(`${language} ${i}: ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    }
  }
  const seconds = (performance.now() - t0) / 1000;
  state.db.close();
  rmSync(dir, { recursive: true, force: true });
  return { executes, seconds, samples, errors };
}

// Metric → [label, absolute noise floor in its unit].
const METRICS = {
  rssMiB: ["rss MiB", 1], heapUsedMiB: ["heapUsed MiB", 1], externalMiB: ["external MiB", 1], arrayBuffersMiB: ["arrayBuffers MiB", 1],
  wasmMiB: ["wasm memories MiB", 1], fileKiB: ["SQLite file KiB", 64], pageCount: ["SQLite page_count", 16],
  freelistCount: ["SQLite freelist_count", 16], storedKiB: ["snapshot storedBytes KiB", 0.5 ], p50Ms: ["execute p50 ms", 0.5],
};

const results = {};
for (const language of opts.languages.split(",")) {
  const executes = Number(opts.executes ?? DEFAULT_EXECUTES[language]);
  results[language] = await soak(language, executes);
}

const cpu = cpus();
console.log(`machine: ${cpu[0]?.model} x${cpu.length}, node ${process.version}, load average ${loadavg().map((x) => x.toFixed(2)).join(" ")}`);
for (const [language, r] of Object.entries(results)) {
  console.log(`\n${language}: ${r.executes} executes in one context in ${r.seconds.toFixed(1)} s (${(r.executes / r.seconds).toFixed(0)}/s), errors: ${r.errors.length}`);
  for (const e of r.errors) console.log(`  ${e}`);
  const cols = Object.keys(METRICS);
  console.log(`executes | ${cols.map((c) => METRICS[c][0]).join(" | ")}`);
  for (const s of r.samples) console.log(`${String(s.executes).padStart(8)} | ${cols.map((c) => s[c].toFixed(c === "pageCount" || c === "freelistCount" ? 0 : 2)).join(" | ")}`);
  console.log(`\nmetric | first | last | slope per 1,000 executes (all samples) | fitted change over the run | slope per 1,000 (second half) | second-half slope × run length | verdict`);
  r.slopes = {};
  for (const c of cols) {
    const pts = r.samples.map((s) => ({ x: s.executes / 1000, y: s[c] })).filter((p) => Number.isFinite(p.y));
    if (pts.length < 2) continue;
    const all = slope(pts);
    const half = slope(pts.slice(Math.floor(pts.length / 2)));
    const span = (pts.at(-1).x - pts[0].x);
    const change = all * span;
    const projected = half * span;
    const verdict = Math.abs(projected) <= Math.max(0.02 * Math.abs(pts[0].y), METRICS[c][1]) ? "flat" : projected > 0 ? "GROWS" : "falls";
    r.slopes[c] = { all, secondHalf: half, change, projected, verdict };
    console.log(`${METRICS[c][0]} | ${pts[0].y.toFixed(2)} | ${pts.at(-1).y.toFixed(2)} | ${all.toFixed(3)} | ${change.toFixed(2)} | ${half.toFixed(3)} | ${projected.toFixed(2)} | ${verdict}`);
  }
}
if (opts.json) fs.writeFileSync(opts.json, JSON.stringify(results, null, 2));
if (Object.values(results).some((r) => r.errors.length)) process.exitCode = 1;
