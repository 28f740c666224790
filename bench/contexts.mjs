// Code-context snapshots, measured (issue "Code contexts", Measure): a JavaScript context doing small mutations —
// counter increments, appending to an array, defining a function — through the real core and engine (./testing: the
// same C++ Interpreter the Durable Object runs, over node:sqlite, on disk).
//
// Per execute: snapshot ms (the core's own context.snapshotMs), rows and bytes written to the chunks table; restore
// into a new Interpreter instance over the same storage (eviction); executeInContext latency resident vs restored;
// peak memory (the core's and the guest's linear memories, and the process RSS).
//
// Baseline, run side by side on the same memory images: the reference implementation's layout (protocol §4.5: 1 MiB raw
// chunks, every chunk holding a changed 64 KiB page rewritten in full, FNV-1a page hashes), its rows and bytes, and
// the time node:sqlite takes to write those chunks in one transaction.
//
//   node bench/contexts.mjs [--rounds N]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir, cpus } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { performance } from "node:perf_hooks";
import { createTestState, createTestInterpreter } from "../worker-shim/testing.js";
// After testing.js: its module hooks turn the .wasm imports of these into compiled modules, as in workerd.
const { getCore } = await import("../worker-shim/core.js");
const { javascriptEngine } = await import("../engines/javascript/engine.js");

const rounds = Number(process.argv[process.argv.indexOf("--rounds") + 1]) || 30;
const dir = mkdtempSync(path.join(tmpdir(), "sw-bench-contexts-"));
const dbPath = path.join(dir, "interpreter.sqlite");

// Counts what the Interpreter writes to the chunks table.
function instrument(state) {
  const counters = { rows: 0, bytes: 0, deletes: 0 };
  const exec = state.storage.sql.exec;
  state.storage.sql.exec = (query, ...args) => {
    if (/^INSERT INTO chunks/.test(query)) {
      counters.rows++;
      for (const a of args) if (a instanceof ArrayBuffer || ArrayBuffer.isView(a)) counters.bytes += a.byteLength;
    } else if (/^DELETE FROM chunks/.test(query)) {
      counters.deletes++;
    }
    return exec(query, ...args);
  };
  return counters;
}

const PAGE = 65536;
const CHUNK = 1048576;

// The reference layout's change detector: FNV-1a over little-endian 32-bit words, per non-zero page.
function pageHashes(bytes) {
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  const out = new Array(bytes.byteLength / PAGE);
  for (let p = 0; p < out.length; p++) {
    let h = 0x811c9dc5;
    let zero = true;
    for (let i = p * (PAGE / 4), end = i + PAGE / 4; i < end; i++) {
      const w = words[i];
      if (w !== 0) zero = false;
      h = Math.imul(h ^ w, 0x01000193) >>> 0;
    }
    out[p] = zero ? 0 : h || 1;
  }
  return out;
}

// Rows/bytes the reference would write going from `prev` hashes to `next`, and the time to write them.
function referenceWrite(db, memory, prev, next) {
  const touched = new Set();
  for (let p = 0; p < next.length; p++) if ((prev[p] ?? 0) !== next[p]) touched.add(Math.floor(p / 16));
  const t0 = performance.now();
  const upsert = db.prepare(
    "INSERT INTO chunks (context_id, chunk, data) VALUES ('c1', ?, ?) ON CONFLICT(context_id, chunk) DO UPDATE SET data = excluded.data");
  const del = db.prepare("DELETE FROM chunks WHERE context_id = 'c1' AND chunk = ?");
  let rows = 0;
  let bytes = 0;
  db.exec("BEGIN");
  for (const c of touched) {
    let nonZero = false;
    for (let p = c * 16; p < Math.min(next.length, c * 16 + 16); p++) if (next[p]) nonZero = true;
    if (nonZero) {
      const data = new Uint8Array(CHUNK);
      data.set(memory.subarray(c * CHUNK, Math.min(memory.length, (c + 1) * CHUNK)));
      upsert.run(c, data);
      rows++;
      bytes += CHUNK;
    } else {
      del.run(c);
    }
  }
  db.prepare("INSERT INTO contexts (id, value) VALUES ('c1', ?) ON CONFLICT(id) DO UPDATE SET value = excluded.value")
    .run(JSON.stringify({ executions: rows }));
  db.exec("COMMIT");
  return { rows: rows + 1, bytes, ms: performance.now() - t0 };
}

const workloads = [
  ["counter increment", (i) => `globalThis.counter = (globalThis.counter ?? 0) + 1`],
  ["append to an array", (i) => `globalThis.items ??= []; items.push({ i: ${i}, s: "item-${i}" }); items.length`],
  ["define a function", (i) => `function f${i}(x) { return x * ${i} + 1; } f${i}(2)`],
];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p99 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))];
const fmt = (x, d = 2) => (typeof x === "number" ? x.toFixed(d) : String(x));

const core = await getCore();
let peakWasm = 0;
let peakRss = 0;
const sample = () => {
  let wasm = core.HEAPU8.buffer.byteLength;
  for (const m of core.wasiMemories.values()) wasm += m.buffer.byteLength;
  peakWasm = Math.max(peakWasm, wasm);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
};

const refDb = new DatabaseSync(path.join(dir, "reference.sqlite"));
refDb.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF");
refDb.exec("CREATE TABLE chunks (context_id TEXT, chunk INTEGER, data BLOB, PRIMARY KEY (context_id, chunk)) WITHOUT ROWID");
refDb.exec("CREATE TABLE contexts (id TEXT PRIMARY KEY, value TEXT)");

// Both databases on disk without fsync per commit: this VM's fsync (~15-20 ms) is not what a Durable Object pays (its
// storage layer commits behind the output gate), and it would drown the difference being measured.
const state = createTestState({ path: dbPath });
state.db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF");
const counters = instrument(state);
let interpreter = createTestInterpreter(javascriptEngine, state);
const key = "bench";
const created = await interpreter.fetch(new Request("https://interpreter.internal/contexts", {
  method: "POST", headers: { "x-interpreter-key": key, "content-type": "application/json" }, body: JSON.stringify({ id: "c1" }),
}));
if (created.status !== 201) throw new Error(`create context: ${created.status} ${await created.text()}`);
const execute = async (code) => {
  const t0 = performance.now();
  const r = await interpreter.executeInContext(key, { contextId: "c1", code, workspace: { dirs: [], manifest: {} } }, () => []);
  const ms = performance.now() - t0;
  if (!r.ok || r.result.error) throw new Error(`execute failed: ${JSON.stringify(r).slice(0, 400)}`);
  sample();
  return { r, ms };
};
const guestMemory = () => [...core.wasiMemories.values()].at(-1);

// Warm-up: boot and the first (full) snapshot.
const first = await execute("var boot = 1");
let hashes = pageHashes(new Uint8Array(guestMemory().buffer));
referenceWrite(refDb, new Uint8Array(guestMemory().buffer), [], hashes);
console.log(`first execute (boot + full snapshot): ${fmt(first.ms)} ms, snapshot ${fmt(first.r.result.context.snapshotMs)} ms, ` +
  `${counters.rows} rows, ${(counters.bytes / 1024).toFixed(0)} KiB written; image ${first.r.result.context.snapshot.pages} pages ` +
  `(${(first.r.result.context.snapshot.bytes / 1048576).toFixed(1)} MiB non-zero), stored ${(first.r.result.context.snapshot.storedBytes / 1024).toFixed(0)} KiB`);

const table = [];
for (const [name, code] of workloads) {
  const ours = { snapshotMs: [], rows: [], bytes: [], latency: [] };
  const ref = { ms: [], rows: [], bytes: [] };
  for (let i = 0; i < rounds; i++) {
    const before = { ...counters };
    const { r, ms } = await execute(code(i));
    ours.snapshotMs.push(r.result.context.snapshotMs ?? 0);
    ours.rows.push(counters.rows - before.rows + 1); // + the context row
    ours.bytes.push(counters.bytes - before.bytes);
    ours.latency.push(ms);
    const mem = new Uint8Array(guestMemory().buffer);
    const next = pageHashes(mem);
    const w = referenceWrite(refDb, mem, hashes, next);
    hashes = next;
    ref.ms.push(w.ms);
    ref.rows.push(w.rows);
    ref.bytes.push(w.bytes);
  }
  table.push({ name, ours, ref });
}

// Restore into a new Interpreter instance over the same storage (eviction), then resident again.
const restoredLatency = [];
const restoreOnly = [];
for (let i = 0; i < Math.min(rounds, 15); i++) {
  interpreter = createTestInterpreter(javascriptEngine, createTestState({ db: state.db }));
  const { r, ms } = await execute("counter");
  restoredLatency.push(ms);
  restoreOnly.push(ms - (r.result.durationMs ?? 0));
}
const residentLatency = [];
for (let i = 0; i < Math.min(rounds, 15); i++) residentLatency.push((await execute("counter")).ms);

console.log(`\nmachine: ${cpus()[0]?.model} x${cpus().length}, node ${process.version}; ${rounds} rounds per workload`);
console.log("\nper execute (median; ours vs the reference layout on the same memory images):");
console.log("workload              | snapshot ms ours / ref (ratio) | rows ours / ref (ratio) | KiB written ours / ref");
for (const { name, ours, ref } of table) {
  const sm = median(ours.snapshotMs), rm = median(ref.ms);
  const ro = median(ours.rows), rr = median(ref.rows);
  console.log(`${name.padEnd(21)} | ${fmt(sm)} / ${fmt(rm)} (${fmt(rm / Math.max(sm, 0.001), 1)}x) | ` +
    `${ro} / ${rr} (${fmt(rr / ro, 1)}x) | ${(median(ours.bytes) / 1024).toFixed(1)} / ${(median(ref.bytes) / 1024).toFixed(0)}`);
}
console.log("\nexecuteInContext latency, ms (p50 / p99):");
const allResident = table.flatMap((t) => t.ours.latency);
console.log(`  resident (mutation + snapshot):   ${fmt(median(allResident))} / ${fmt(p99(allResident))}`);
console.log(`  resident (read only, no change):  ${fmt(median(residentLatency))} / ${fmt(p99(residentLatency))}`);
console.log(`  restored (new Interpreter, eviction): ${fmt(median(restoredLatency))} / ${fmt(p99(restoredLatency))}`);
console.log(`\npeak memory: wasm linear memories (core + guest) ${(peakWasm / 1048576).toFixed(1)} MiB, process RSS ${(peakRss / 1048576).toFixed(0)} MiB`);
console.log("reference published: 8-9 rows and +15-25 ms per JavaScript execute (~33 MiB image)");

state.db.close();
refDb.close();
rmSync(dir, { recursive: true, force: true });
