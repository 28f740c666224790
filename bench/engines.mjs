#!/usr/bin/env node
// Benchmark (not a test): every built-in engine with and without its boot image (docs/boot-images.md), side by side in
// one run, through the real core and shim in Node (./testing's hooks load the Worker's modules as workerd would):
//
//   (a) stateless  cold POST /execute of `1 + 1` through worker-shim/core.js handleRequest — what the Worker's fetch
//                  handler does per request, without the HTTP transport: a fresh WASI host and engine instance per
//                  request, started from the boot image ("image") or booted (_initialize, wasm_init, New: "boot"), and
//                  with the Worker's spare instance (prepared from the image after each response, off the timed path:
//                  "image, spare ready" — what sequential requests to an idle isolate see). p50 / p99, interleaved.
//   (a') http      the same in workerd (Miniflare): sequential POST /execute to a Worker per variant
//                  (test/integration/fixtures/engine-variant.js), boot vs image, each with and without the spare.
//   (b) contexts   the first execute of a new context (image vs boot, includes its first full snapshot), a small
//                  execute's snapshot (rows, KiB, ms), and a restore into a new Interpreter over the same storage
//                  (eviction): executeInContext latency p50 / p99.
//   (c) sizes      engine.wasm, stdlib.tar, boot-image.bin raw and gzip -9.
//
//   node bench/engines.mjs [--requests 60] [--contexts 15] [--engines javascript,python] [--json out.json]
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { cpus } from "node:os";
import { parseArgs } from "node:util";
import { createTestInterpreter, createTestState } from "../worker-shim/testing.js";
import { runtimeWorkerOptions, startMiniflare } from "../test/integration/helpers.mjs";

const { handleRequest } = await import("../worker-shim/core.js");
const { values: opts } = parseArgs({
  options: {
    requests: { type: "string", default: "60" },
    contexts: { type: "string", default: "15" },
    engines: { type: "string", default: "javascript,python" },
    json: { type: "string" },
  },
});
const REQUESTS = Number(opts.requests);
const CONTEXTS = Number(opts.contexts);
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");

const ENGINES = {
  javascript: async () => (await import("../worker-shim/javascript.js")).javascriptEngine,
  python: async () => (await import("../engines/python/engine.js")).pythonEngine,
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
  return ms;
}

async function contexts(engine, label) {
  const state = createTestState();
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
  const counter = engine.language === "python" ? ["counter = 0", "counter += 1\ncounter"] : ["var counter = 0", "++counter"];
  const first = [];
  for (let i = 0; i < Math.min(CONTEXTS, 8); i++) {
    await create(`c${i}`);
    first.push((await call(`c${i}`, counter[0])).ms);
  }
  // Small executes in one context: rows and bytes written per snapshot.
  const kib = [], snapMs = [];
  for (let i = 0; i < CONTEXTS; i++) {
    const { r } = await call("c0", counter[1]);
    snapMs.push(r.result.context.snapshotMs ?? 0);
    kib.push((r.result.context.snapshot.storedBytes ?? 0) / 1024);
  }
  // Restore into a new Interpreter over the same storage (eviction).
  const restore = [];
  for (let i = 0; i < CONTEXTS; i++) {
    interpreter = createTestInterpreter(engine, createTestState({ db: state.db }));
    restore.push((await call("c0", counter[1])).ms);
  }
  state.db.close();
  return { first, snapMs, storedKiB: kib.at(-1), restore };
}

// (a') sequential requests over HTTP to one Worker per variant, interleaved.
async function http(name) {
  const variants = [];
  for (const image of ["1", "0"]) for (const spare of ["1", "0"]) variants.push({ image, spare, host: `${name}-${image}-${spare}.bench` });
  const mf = await startMiniflare(variants.map((v, i) => runtimeWorkerOptions({
    name: `v${i}`, entry: "engine-variant.js", routes: [`${v.host}/*`],
    bindings: { VARIANT_ENGINE: name, VARIANT_IMAGE: v.image, VARIANT_SPARE: v.spare },
  })));
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
  return Object.fromEntries(variants.map((v, j) => [`${v.image === "1" ? "image" : "boot"}${v.spare === "1" ? " + spare" : ""}`,
    { p50: p50(times[j]), p99: p99(times[j]) }]));
}

function size(file) {
  if (!fs.existsSync(file)) return null;
  const bytes = fs.readFileSync(file);
  return { raw: bytes.length, gzip: zlib.gzipSync(bytes, { level: 9 }).length };
}

const results = {};
for (const name of opts.engines.split(",")) {
  const withImage = await ENGINES[name]();
  const withoutImage = { ...withImage, bootImage: undefined }; // another Engine object: its own server, no image
  const spareEngine = { ...withImage }; // its own server, so its spare never serves the other variants
  const variants = { image: [withImage, false], boot: [withoutImage, false], "image + spare": [spareEngine, true] };
  for (const [engine, spare] of Object.values(variants)) await stateless(engine, spare); // warm: compile, servers
  const times = Object.fromEntries(Object.keys(variants).map((v) => [v, []]));
  for (let i = 0; i < REQUESTS; i++) {
    const order = Object.entries(variants);
    for (let k = 0; k < order.length; k++) {
      const [v, [engine, spare]] = order[(i + k) % order.length];
      times[v].push(await stateless(engine, spare));
    }
  }
  const ctx = { image: await contexts(withImage, `${name} image`), boot: await contexts(withoutImage, `${name} boot`) };
  const overHttp = await http(name);
  const dir = path.join(ROOT, "engines", name, "build");
  results[name] = {
    stateless: Object.fromEntries(Object.entries(times).map(([v, xs]) => [v, { p50: p50(xs), p99: p99(xs) }])),
    http: overHttp,
    contexts: Object.fromEntries(Object.entries(ctx).map(([v, c]) => [v, {
      firstP50: p50(c.first), snapshotMsP50: p50(c.snapMs), storedKiB: c.storedKiB,
      restoreP50: p50(c.restore), restoreP99: p99(c.restore),
    }])),
    sizes: {
      engine: size(path.join(dir, "engine.wasm")),
      stdlib: size(path.join(dir, "stdlib.tar")),
      bootImage: size(path.join(dir, "boot-image.bin")),
    },
  };
}

console.log(`machine: ${cpus()[0]?.model} x${cpus().length}, node ${process.version}; ${REQUESTS} stateless requests per variant, interleaved`);
console.log("\n(a) cold stateless `1 + 1` through handleRequest (in-isolate, no transport), ms p50 / p99:");
console.log("engine     | booting         | from the boot image | image, spare ready | boot / image | boot / spare (p50)");
for (const [name, r] of Object.entries(results)) {
  const { image, boot } = r.stateless;
  const spare = r.stateless["image + spare"];
  const cell = (x) => `${fmt(x.p50).padStart(6)} / ${fmt(x.p99).padEnd(7)}`;
  console.log(`${name.padEnd(10)} | ${cell(boot)} | ${cell(image)}     | ${cell(spare)}    | ${fmt(boot.p50 / image.p50, 1).padStart(5)}x       | ${fmt(boot.p50 / spare.p50, 1)}x`);
}
console.log("\n(a') the same over HTTP in workerd (Miniflare dispatchFetch, sequential), ms p50 / p99:");
for (const [name, r] of Object.entries(results)) {
  console.log(`${name.padEnd(10)} | ` + Object.entries(r.http).map(([v, x]) => `${v} ${fmt(x.p50)} / ${fmt(x.p99)}`).join(" | "));
}
console.log("\n(b) contexts, ms (first execute of a new context incl. its full snapshot; small execute's snapshot; restore into a new Interpreter p50 / p99):");
for (const [name, r] of Object.entries(results)) {
  for (const [v, c] of Object.entries(r.contexts)) {
    console.log(`${name.padEnd(10)} ${v.padEnd(5)} | first ${fmt(c.firstP50)} | snapshot ${fmt(c.snapshotMsP50)} ms, context stores ${fmt(c.storedKiB, 0)} KiB | restore ${fmt(c.restoreP50)} / ${fmt(c.restoreP99)}`);
  }
}
console.log("\n(c) sizes, bytes raw / gzip -9:");
for (const [name, r] of Object.entries(results)) {
  for (const [what, s] of Object.entries(r.sizes)) if (s) console.log(`${name.padEnd(10)} ${what.padEnd(9)} ${s.raw} / ${s.gzip}`);
}
if (opts.json) fs.writeFileSync(opts.json, JSON.stringify(results, null, 2));
