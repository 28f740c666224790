#!/usr/bin/env node
// Benchmark (not a test): every built-in engine with and without its boot image (docs/boot-images.md), side by side in
// one run, through the real core and shim in Node (./testing's hooks load the Worker's modules as workerd would):
//
//   (a) stateless  cold POST /execute of `1 + 1` through worker-shim/core.js handleRequest — what the Worker's fetch
//                  handler does per request, without the HTTP transport: a fresh WASI host and fresh engine state per
//                  request, booted (_initialize, wasm_init, New: "boot", from engine.wasm: booting needs the data
//                  segments), or started from the boot image in a newly instantiated module ("image, new instance": the
//                  instance pool turned off; of the module the Worker ships, engine-nodata.wasm, which has no data
//                  segments, and "image, new instance, data segments": of engine.wasm, which has them, as shipped
//                  before), in the previous request's instance reset to the image ("image, pooled instance"), or with
//                  the Worker's spare instance (prepared after each response, off the timed path: "image, spare
//                  ready" — what sequential requests to an idle isolate see). p50 / p99, interleaved.
//   (a') http      the same in workerd (Miniflare): sequential POST /execute to a Worker per variant
//                  (test/integration/fixtures/engine-variant-<name>.js), boot vs image, each with and without the spare.
//   (a'') first    the first request of a fresh isolate in workerd: a new Miniflare per sample and module (engine.wasm
//                  or engine-nodata.wasm, each with the image), ms p50 / p99 of its first POST /execute `1 + 1`
//                  (core and engine instantiated, image decoded and applied, pristine memory captured; whatever V8
//                  compiles on first use), and the Miniflare start (the script load, which compiles the modules).
//   (b) contexts   the first execute of a new context (image vs boot, includes its first full snapshot), a small
//                  execute's snapshot (rows, KiB, ms), and a restore into a new Interpreter over the same storage
//                  (eviction): executeInContext latency p50 / p99, the restore taking a newly instantiated module
//                  (pool off) or, after the isolate was idle (its spare prepared), a pooled instance, also with a
//                  full GC in that idle time (the previous Interpreters' engine memories are garbage by then; an
//                  Engine written in JavaScript has no spare: a stateless request in that idle time leaves the pooled
//                  instance); and the newly instantiated module after a full GC (the previous Interpreters' engine
//                  memories collected first, as an isolate that evicts them now and then rather than back to back
//                  would have them; without it, V8 frees 12 dead 50 MiB memories while the restores fault in theirs);
//                  also that latency less the call's own snapshot (its snapshotMs: the take reads all of memory).
//   (c) sizes      engine.wasm, engine-nodata.wasm, stdlib.tar, boot-image.bin raw and gzip -9.
//   (d) instantiate new WebAssembly.Instance of engine.wasm (with data segments) and of engine-nodata.wasm, ms p50.
//                  An Engine written in JavaScript with a boot image ships engine.wasm whole: its engine-nodata.wasm is
//                  made here, in a temporary directory, by the same tool (sw-wasm-fuel --strip-data), and (a) gets the
//                  variant "image, new instance, no data segments" (the Engine with that module: what shipping it would
//                  give), to tell whether stripping would pay (issue 26 item 2).
//   (e) first touch  24 MiB written into a new WebAssembly.Memory, and into the same memory again: what the machine
//                  charges for faulting in the pages a new instance's image (or data segments) fills; and one byte
//                  per page read from a new 24 MiB memory, and again: what a snapshot's scan pays for a new
//                  instance's pages nothing wrote (zero), ms p50. Also with --only contexts.
//
//   node bench/engines.mjs [--requests 60] [--contexts 15] [--fresh 5] [--engines javascript,python,perl,ruby]
//                          [--no-http] [--only contexts] [--root <checkout>] [--json out.json] [--no-scanner]
//                          [--no-stack-mark]
//
// --only contexts runs (b) alone. --root loads the core, the shim and the engines from another checkout (built), e.g.
// a worktree of the main branch, so that old and new code run the same bench on the same machine. A Worker serves one
// engine: for an engine's cold paths (a new instance) run one engine per process, as bench/RESULTS.md does
// (`for l in ...; do node bench/engines.mjs --engines $l ...; done`); in one process the engines measured first leave
// garbage and compiled code that weigh on the later ones (Perl's new-instance restore measured 2x slower that way).
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { cpus, tmpdir } from "node:os";
import { execFileSync } from "node:child_process";
import { parseArgs } from "node:util";
import v8 from "node:v8";
import vm from "node:vm";
import { pathToFileURL } from "node:url";

const { values: opts } = parseArgs({
  options: {
    requests: { type: "string", default: "60" },
    contexts: { type: "string", default: "15" },
    engines: { type: "string", default: "javascript,python,perl,ruby" },
    fresh: { type: "string", default: "5" },
    "no-http": { type: "boolean", default: false },
    only: { type: "string" },
    root: { type: "string" },
    json: { type: "string" },
    "no-scanner": { type: "boolean", default: false },
    "no-stack-mark": { type: "boolean", default: false },
  },
});
const ROOT = path.resolve(opts.root ?? path.join(path.dirname(new URL(import.meta.url).pathname), ".."));
const load = (file) => import(pathToFileURL(path.join(ROOT, file)).href);
const { createTestInterpreter, createTestState } = await load("worker-shim/testing.js");
const { runtimeWorkerOptions, startMiniflare } = await load("test/integration/helpers.mjs");

const { handleRequest, getCore, serverFor } = await load("worker-shim/core.js");
const core = await getCore();
// --no-scanner: snapshots copy guest memory out and hash it in the core, as before the scanner module (docs/snapshots.md
// "Scanning in place"): the same build with and without it, for a side-by-side comparison (in-isolate variants only).
if (opts["no-scanner"]) core.swScanner = null;
// --no-stack-mark: snapshots read the whole stack, as before the stack mark (docs/snapshots.md "The stack mark").
if (opts["no-stack-mark"]) core.swStackMark = false;
// An Engine object of its own (its own server in the core) whose instance pool has `slots` slots.
const withPool = (engine, slots) => {
  const e = { ...engine };
  core._sw_builtin_set_pool_slots(serverFor(core, e), slots);
  return e;
};
const REQUESTS = opts.only === "contexts" ? 0 : Number(opts.requests);
const CONTEXTS = Number(opts.contexts);
const FRESH = opts.only === "contexts" ? 0 : Number(opts.fresh);
const HTTP = !opts["no-http"] && opts.only !== "contexts";

const ENGINES = {
  javascript: async () => (await load("engines/javascript/engine.js")).javascriptEngine,
  python: async () => (await load("engines/python/engine.js")).pythonEngine,
  perl: async () => (await load("engines/perl/engine.js")).perlEngine,
  ruby: async () => (await load("engines/ruby/engine.js")).rubyEngine,
  // An Engine written in JavaScript: with a boot image (`bootImage`, docs/engine-authors.md "A boot image") the same
  // variants as a built-in engine except the spare and the data segments (it ships engine.wasm whole); without one,
  // one variant. No (a') (the variant Worker serves built-in engines only). Not in the default list.
  lua: async () => (await load("engines/lua/engine.js")).luaEngine,
};

const sorted = (xs) => [...xs].sort((a, b) => a - b);
const p50 = (xs) => sorted(xs)[Math.floor(xs.length / 2)];
const p99 = (xs) => sorted(xs)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))];
const fmt = (x, d = 2) => x.toFixed(d);

// One request; with `spare`, the Worker's ExecutionContext: the next request's instance is prepared after the response
// (ctx.waitUntil), and the bench waits for that outside the timed part, as an idle isolate would between requests.
async function stateless(engine, spare = false) {
  const pending = [];
  const ctx = spare ? { waitUntil: (p) => pending.push(p) } : undefined;
  const t0 = performance.now();
  const response = await handleRequest(engine, new Request("https://runtime.internal/execute", {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ code: "1 + 1" }),
  }), {}, ctx);
  const body = await response.json();
  const ms = performance.now() - t0;
  await Promise.all(pending);
  if (body.results?.[0]?.text !== "2") throw new Error(`unexpected result: ${JSON.stringify(body).slice(0, 300)}`);
  lastUsage = body.usage;
  return ms;
}
let lastUsage; // the usage of the last stateless request (memoryBytes: the engine's linear memory at the end)

// A full GC on demand (the "GC while idle" variant): each restore leaves the previous Interpreter and its engine
// memory (~11 MB for Python) as garbage, far faster than a real isolate evicts Durable Objects.
const collect = (v8.setFlagsFromString("--expose-gc"), vm.runInNewContext("gc"));

async function contexts(engine, label, { idle = false, gc = false } = {}) {
  const pending = [];
  const newState = (o) => Object.assign(createTestState(o), { waitUntil: (p) => pending.push(p) });
  const state = newState();
  // What the Interpreter writes to the chunks table (rows and bytes per snapshot).
  const written = { rows: 0, bytes: 0 };
  const exec = state.storage.sql.exec;
  state.storage.sql.exec = (query, ...args) => {
    if (/^INSERT INTO chunks/.test(query)) {
      written.rows++;
      for (const a of args) if (a instanceof ArrayBuffer || ArrayBuffer.isView(a)) written.bytes += a.byteLength;
    }
    return exec(query, ...args);
  };
  let interpreter = createTestInterpreter(engine, state);
  const key = "bench";
  const call = async (id, code) => {
    const t0 = performance.now();
    const r = await interpreter.executeInContext(key, { contextId: id, code, workspace: { dirs: [], manifest: {} } }, () => []);
    const ms = performance.now() - t0;
    if (!r.ok || r.result.error) throw new Error(`${label}: ${JSON.stringify(r).slice(0, 300)}`);
    return { r, ms };
  };
  const create = async (id) => {
    const res = await interpreter.fetch(new Request("https://interpreter.internal/contexts", {
      method: "POST", headers: { "x-interpreter-key": key, "content-type": "application/json" }, body: JSON.stringify({ id }),
    }));
    if (res.status !== 201) throw new Error(`create: ${res.status}`);
  };
  const counter = {
    python: ["counter = 0", "counter += 1\ncounter"],
    perl: ["our $counter = 0; 1", "++$counter"],
    ruby: ["$counter = 0", "$counter += 1"],
    lua: ["counter = 0", "counter = counter + 1; return counter"],
  }[engine.language] ?? ["var counter = 0", "++counter"];
  const first = [];
  for (let i = 0; i < Math.min(CONTEXTS, 8); i++) {
    await create(`c${i}`);
    first.push((await call(`c${i}`, counter[0])).ms);
  }
  // Small executes in one context: rows and bytes written per snapshot.
  const kib = [], snapMs = [], rows = [], bytes = [];
  for (let i = 0; i < CONTEXTS; i++) {
    const before = { ...written };
    const { r } = await call("c0", counter[1]);
    snapMs.push(r.result.context.snapshotMs ?? 0);
    kib.push((r.result.context.snapshot.storedBytes ?? 0) / 1024);
    rows.push(written.rows - before.rows);
    bytes.push(written.bytes - before.bytes);
  }
  // Restore into a new Interpreter over the same storage (eviction).
  // `idle`: the isolate first runs what the previous response left in waitUntil (the spare), as between requests.
  // `beforeSnapshot`: the same call without its own snapshot (the take after the execute reads the whole memory).
  const restore = [], beforeSnapshot = [];
  for (let i = 0; i < CONTEXTS; i++) {
    if (idle) await Promise.all(pending.splice(0));
    // An Engine written in JavaScript has no spare: a stateless request in the idle time leaves its used instance in
    // the pool, which the restore then takes (reset by comparing, as after any stateless request).
    if (idle && !engine.builtin) await stateless(engine);
    if (gc) collect();
    interpreter = createTestInterpreter(engine, newState({ db: state.db }));
    const { r, ms } = await call("c0", counter[1]);
    restore.push(ms);
    beforeSnapshot.push(ms - (r.result.context.snapshotMs ?? 0));
  }
  await Promise.all(pending.splice(0));
  state.db.close();
  return { first, snapMs, storedKiB: kib.at(-1), restore, beforeSnapshot, rows, bytes };
}

// One variant Worker of `name` (test/integration/fixtures/engine-variant.js) for Miniflare.
const variantWorker = (name, v, i) => runtimeWorkerOptions({
  name: `v${i}`, entry: `engine-variant-${name}.js`, routes: [`${v.host}/*`],
  bindings: { VARIANT_MODULE: v.module ?? "nodata", VARIANT_IMAGE: v.image, VARIANT_SPARE: v.spare, VARIANT_POOL: v.pool },
});

// (a') sequential requests over HTTP to one Worker per variant, interleaved.
async function http(name) {
  const variants = [
    { label: "image, spare ready", image: "1", spare: "1", pool: "1" },
    { label: "image, pooled instance", image: "1", spare: "0", pool: "1" },
    { label: "image, new instance", image: "1", spare: "0", pool: "0" },
    { label: "image, new instance, data segments", module: "data", image: "1", spare: "0", pool: "0" },
    { label: "boot + spare", module: "data", image: "0", spare: "1", pool: "0" },
    { label: "boot", module: "data", image: "0", spare: "0", pool: "0" },
  ].map((v, i) => ({ ...v, host: `${name}-${i}.bench` }));
  const mf = await startMiniflare(variants.map((v, i) => variantWorker(name, v, i)));
  const one = async (host) => {
    const t0 = performance.now();
    const res = await mf.dispatchFetch(`https://${host}/execute`, {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ code: "1 + 1" }),
    });
    const body = await res.json();
    const ms = performance.now() - t0;
    if (body.results?.[0]?.text !== "2") throw new Error(`http ${host}: ${JSON.stringify(body).slice(0, 300)}`);
    return ms;
  };
  const times = variants.map(() => []);
  for (const v of variants) for (let i = 0; i < 5; i++) await one(v.host); // warm
  for (let i = 0; i < REQUESTS; i++) {
    for (let k = 0; k < variants.length; k++) {
      const j = (i + k) % variants.length;
      times[j].push(await one(variants[j].host));
      await new Promise((r) => setTimeout(r, 2)); // let waitUntil (the spare) run, as between real requests
    }
  }
  await mf.dispose();
  return Object.fromEntries(variants.map((v, j) => [v.label, { p50: p50(times[j]), p99: p99(times[j]) }]));
}

// (a'') the first request of a fresh isolate: a new Miniflare per sample with one Worker (the image, no spare, no pool),
// alternating the module with and without data segments.
async function fresh(name) {
  const variants = { "data segments": "data", "no data segments": "nodata" };
  const times = Object.fromEntries(Object.keys(variants).map((k) => [k, { start: [], first: [], second: [] }]));
  for (let i = 0; i < FRESH; i++) {
    for (const [label, module] of Object.entries(variants)) {
      const v = { module, image: "1", spare: "0", pool: "0", host: `${name}-fresh.bench` };
      const t0 = performance.now();
      const mf = await startMiniflare([variantWorker(name, v, 0)]);
      const t1 = performance.now();
      const one = async () => {
        const s = performance.now();
        const res = await mf.dispatchFetch(`https://${v.host}/execute`, {
          method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ code: "1 + 1" }),
        });
        const body = await res.json();
        if (body.results?.[0]?.text !== "2") throw new Error(`fresh ${name}: ${JSON.stringify(body).slice(0, 300)}`);
        return performance.now() - s;
      };
      times[label].first.push(await one());
      times[label].second.push(await one());
      times[label].start.push(t1 - t0);
      await mf.dispose();
    }
  }
  return Object.fromEntries(Object.entries(times).map(([k, t]) => [k, {
    first: { p50: p50(t.first), p99: p99(t.first) }, second: { p50: p50(t.second), p99: p99(t.second) },
    start: { p50: p50(t.start), p99: p99(t.start) },
  }]));
}

// engine-nodata.wasm of `dir`: the shipped one, else (an Engine written in JavaScript) made now by the repo's tool.
function noDataPath(dir) {
  const shipped = path.join(dir, "engine-nodata.wasm");
  if (fs.existsSync(shipped)) return shipped;
  const tool = execFileSync("bash", [path.join(ROOT, "scripts/tools/wasm-fuel.sh")], { encoding: "utf8" }).trim();
  const out = path.join(fs.mkdtempSync(path.join(tmpdir(), "sw-bench-nodata-")), "engine-nodata.wasm");
  execFileSync(tool, ["--strip-data", path.join(dir, "engine.wasm"), out], { stdio: "ignore" });
  return out;
}

// (d) new WebAssembly.Instance of engine.wasm (with data segments) and engine-nodata.wasm (imports stubbed; nothing
// is called), interleaved.
function instantiate(dir) {
  const modules = {
    "data segments": new WebAssembly.Module(fs.readFileSync(path.join(dir, "engine.wasm"))),
    "no data": new WebAssembly.Module(fs.readFileSync(noDataPath(dir))),
  };
  const stubs = (m) => {
    const o = {};
    for (const i of WebAssembly.Module.imports(m)) (o[i.module] ??= {})[i.name] = () => 0;
    return o;
  };
  const times = { "data segments": [], "no data": [] };
  for (let i = 0; i < 20; i++) {
    for (const [k, m] of Object.entries(modules)) {
      const imports = stubs(m);
      const t0 = performance.now();
      new WebAssembly.Instance(m, imports);
      times[k].push(performance.now() - t0);
    }
  }
  return Object.fromEntries(Object.entries(times).map(([k, xs]) => [k, p50(xs)]));
}

// (e) the page-fault cost of this machine.
// Written: what a new instance's image costs. Read: what a snapshot's scan of a new instance's untouched (zero) pages
// costs, one byte per 4 KiB page (each read maps the page, as the scanner's first load in it does).
function firstTouch() {
  const src = new Uint8Array(24 << 20).fill(1);
  const fresh = [], again = [], read = [], reread = [];
  for (let i = 0; i < 7; i++) {
    const g = new Uint8Array(new WebAssembly.Memory({ initial: 384 }).buffer);
    let t0 = performance.now();
    g.set(src);
    fresh.push(performance.now() - t0);
    t0 = performance.now();
    g.set(src);
    again.push(performance.now() - t0);
    const r = new Uint8Array(new WebAssembly.Memory({ initial: 384 }).buffer);
    let sum = 0;
    t0 = performance.now();
    for (let at = 0; at < r.length; at += 4096) sum += r[at];
    read.push(performance.now() - t0);
    t0 = performance.now();
    for (let at = 0; at < r.length; at += 4096) sum += r[at];
    reread.push(performance.now() - t0);
    if (sum !== 0) throw new Error("a new memory is not zero");
  }
  return { fresh: p50(fresh), again: p50(again), read: p50(read), reread: p50(reread) };
}

function size(file) {
  if (!fs.existsSync(file)) return null;
  const bytes = fs.readFileSync(file);
  return { raw: bytes.length, gzip: zlib.gzipSync(bytes, { level: 9 }).length };
}

const results = {};
for (const name of opts.engines.split(",")) {
  const withImage = await ENGINES[name]();
  const dir = path.join(ROOT, "engines", name, "build");
  // The module with data segments (engine.wasm): what booting needs, and what the Worker shipped before.
  const withData = withImage.builtin ? new WebAssembly.Module(fs.readFileSync(path.join(dir, "engine.wasm"))) : null;
  // Each variant is another Engine object: its own server, so no variant's spare or pool serves another.
  const withoutImage = withImage.builtin ? withPool({ ...withImage, module: withData, bootImage: undefined }, 0) : withImage; // no image (and so no pool)
  const dataImage = () => withPool({ ...withImage, module: withData }, 0);
  // An Engine written in JavaScript: "boot" is the same Engine without its image (every instance boots).
  const jsBoot = !withImage.builtin && withImage.bootImage ? { ...withImage, bootImage: undefined } : null;
  const variants = !withImage.builtin ? (!jsBoot ? { "fresh instance": [withImage, false] } : {
    boot: [jsBoot, false],
    "image, new instance": [withPool(withImage, 0), false],
    // (d): its module without data segments, made here; the image supplies that memory.
    ...(REQUESTS ? { "image, new instance, no data segments": [withPool({ ...withImage,
      module: new WebAssembly.Module(fs.readFileSync(noDataPath(dir))) }, 0), false] } : {}),
    "image, pooled instance": [withPool(withImage, 1), false],
  }) : {
    boot: [withoutImage, false],
    "image, new instance, data segments": [dataImage(), false],
    "image, new instance": [withPool(withImage, 0), false],
    "image, pooled instance": [withPool(withImage, 1), false],
    "image, spare ready": [withPool(withImage, 1), true],
  };
  if (REQUESTS) for (const [engine, spare] of Object.values(variants)) await stateless(engine, spare); // warm: compile, servers
  const times = Object.fromEntries(Object.keys(variants).map((v) => [v, []]));
  for (let i = 0; i < REQUESTS; i++) {
    const order = Object.entries(variants);
    for (let k = 0; k < order.length; k++) {
      const [v, [engine, spare]] = order[(i + k) % order.length];
      times[v].push(await stateless(engine, spare));
    }
  }
  const memoryBytes = lastUsage?.memoryBytes;
  const statelessTimes = Object.fromEntries(Object.entries(times).filter(([, xs]) => xs.length).map(([v, xs]) => [v, { p50: p50(xs), p99: p99(xs) }]));
  // --only contexts: the three variants of a shipped Worker (the module without data segments, its image).
  const all = opts.only !== "contexts";
  const ctx = !withImage.sessions ? {} : !withImage.builtin ? (!jsBoot ? { "fresh instance": await contexts(withImage, name) } : {
    boot: await contexts(jsBoot, `${name} boot`),
    "image, new instance": await contexts(withPool(withImage, 0), `${name} image`),
    "image, pooled instance": await contexts(withPool(withImage, 1), `${name} image, pooled`, { idle: true }),
    "image, pooled, GC while idle": await contexts(withPool(withImage, 1), `${name} pooled, gc`, { idle: true, gc: true }),
  }) : {
    ...(all ? { "image, new instance, data segments": await contexts(dataImage(), `${name} image, data segments`) } : {}),
    "image, new instance": await contexts(withPool(withImage, 0), `${name} image`),
    "image, new instance, GC before": await contexts(withPool(withImage, 0), `${name} image, gc`, { gc: true }),
    "image, pooled instance": await contexts(withPool(withImage, 1), `${name} image, pooled`, { idle: true }),
    "image, pooled, GC while idle": await contexts(withPool(withImage, 1), `${name} pooled, gc`, { idle: true, gc: true }),
    ...(all ? { boot: await contexts(withoutImage, `${name} boot`) } : {}),
  };
  const overHttp = withImage.builtin && HTTP ? await http(name) : {};
  const firstRequest = withImage.builtin && HTTP && FRESH > 0 ? await fresh(name) : {};
  results[name] = {
    stateless: statelessTimes,
    http: overHttp,
    fresh: firstRequest,
    memoryBytes,
    contexts: Object.fromEntries(Object.entries(ctx).map(([v, c]) => [v, {
      firstP50: p50(c.first), snapshotMsP50: p50(c.snapMs), storedKiB: c.storedKiB,
      rowsP50: p50(c.rows), bytesP50: p50(c.bytes),
      restoreP50: p50(c.restore), restoreP99: p99(c.restore),
      beforeSnapshotP50: p50(c.beforeSnapshot), beforeSnapshotP99: p99(c.beforeSnapshot),
    }])),
    instantiate: (withImage.builtin || jsBoot) && opts.only !== "contexts" ? instantiate(dir) : null,
    sizes: {
      engine: size(path.join(dir, "engine.wasm")),
      "engine-nodata": size(path.join(dir, "engine-nodata.wasm")),
      stdlib: size(path.join(dir, "stdlib.tar")),
      bootImage: size(path.join(dir, "boot-image.bin")),
    },
  };
}

console.log(`machine: ${cpus()[0]?.model} x${cpus().length}, node ${process.version}; ${REQUESTS} stateless requests per variant, interleaved; root ${ROOT}; scanner ${core.swScanner ? "on" : "off"}; stack mark ${core.swStackMark === false ? "off" : "on"}`);
console.log("\n(a) cold stateless `1 + 1` through handleRequest (in-isolate, no transport), ms p50 / p99 (boot p50 / variant p50):");
for (const [name, r] of Object.entries(results)) {
  const boot = r.stateless.boot;
  console.log(`${name.padEnd(10)} | ` + Object.entries(r.stateless).map(([v, x]) =>
    `${v} ${fmt(x.p50)} / ${fmt(x.p99)}${v === "boot" || !boot ? "" : ` (${fmt(boot.p50 / x.p50, 1)}x)`}`).join(" | "));
}
console.log("\n(a') the same over HTTP in workerd (Miniflare dispatchFetch, sequential), ms p50 / p99:");
for (const [name, r] of Object.entries(results)) {
  console.log(`${name.padEnd(10)} | ` + Object.entries(r.http).map(([v, x]) => `${v} ${fmt(x.p50)} / ${fmt(x.p99)}`).join(" | "));
}
console.log("\n(a'') the first request of a fresh isolate in workerd (a new Miniflare per sample), ms p50 / p99: first request | second request | Miniflare start:");
for (const [name, r] of Object.entries(results)) {
  for (const [v, x] of Object.entries(r.fresh)) {
    console.log(`${name.padEnd(10)} ${v.padEnd(17)} | first ${fmt(x.first.p50)} / ${fmt(x.first.p99)} | second ${fmt(x.second.p50)} / ${fmt(x.second.p99)} | start ${fmt(x.start.p50)} / ${fmt(x.start.p99)}`);
  }
}
console.log("\n(b) contexts, ms (first execute of a new context incl. its full snapshot; small execute's snapshot; restore into a new Interpreter p50 / p99, the whole call and without its snapshot):");
for (const [name, r] of Object.entries(results)) {
  for (const [v, c] of Object.entries(r.contexts)) {
    console.log(`${name.padEnd(10)} ${v.padEnd(28)} | first ${fmt(c.firstP50)} | snapshot ${fmt(c.snapshotMsP50)} ms, ${c.rowsP50} rows / ${c.bytesP50} B written per small execute (p50), context stores ${fmt(c.storedKiB, 0)} KiB | restore ${fmt(c.restoreP50)} / ${fmt(c.restoreP99)} | without its snapshot ${fmt(c.beforeSnapshotP50)} / ${fmt(c.beforeSnapshotP99)}`);
  }
}
console.log("\n(c) sizes, bytes raw / gzip -9; the engine's linear memory after a stateless `1 + 1`:");
for (const [name, r] of Object.entries(results)) {
  for (const [what, s] of Object.entries(r.sizes)) if (s) console.log(`${name.padEnd(10)} ${what.padEnd(9)} ${s.raw} / ${s.gzip}`);
  console.log(`${name.padEnd(10)} memory    ${r.memoryBytes}`);
}
console.log("\n(d) new WebAssembly.Instance, ms p50: engine.wasm (data segments) / engine-nodata.wasm:");
for (const [name, r] of Object.entries(results)) {
  if (r.instantiate) console.log(`${name.padEnd(10)} ${fmt(r.instantiate["data segments"])} / ${fmt(r.instantiate["no data"])}`);
}
const touch = firstTouch();
console.log(`\n(e) 24 MiB written into a new WebAssembly.Memory ${fmt(touch.fresh)} ms, into the same memory again ${fmt(touch.again)} ms; ` +
  `one byte per 4 KiB page read from a new 24 MiB memory ${fmt(touch.read)} ms, again ${fmt(touch.reread)} ms (p50 of 7)`);
if (opts.json) fs.writeFileSync(opts.json, JSON.stringify({ ...results, firstTouch: touch }, null, 2));
