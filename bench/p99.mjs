#!/usr/bin/env node
// Benchmark (not a test): stateless POST /execute tail latency (p50 / p99 / p99.9) of two builds side by side in one
// run — this tree ("after") and a built copy of another commit ("before", --base) — so that machine load hits both
// alike. Per engine (JavaScript, Python) and workload (`1 + 1`, a small compute that allocates):
//
//   in-isolate  one child process per build (its own V8 heap: one build's garbage never lands in the other's timings)
//               runs handleRequest from worker-shim/core.js as the Worker's fetch handler does, with the Worker's
//               ExecutionContext: what the response hands to waitUntil (the next request's spare instance) runs after
//               the timed part, as in an idle isolate between requests. The child also reports, per variant, how many
//               engine instances the core had the shim instantiate (the spare's included), the V8 GC pauses of the
//               whole variant (count, total ms; main thread, from a PerformanceObserver) and those inside timed
//               requests, how many of the slowest 1% overlapped one, and the engine linear memory the isolate holds
//               between requests (the pooled and the spare instance).
//   busy        the same, back to back: the next request is sent without waiting for the waitUntil work, which
//               then runs whenever the event loop gets to it (in Node usually still before the next IPC message
//               arrives; "instances created" shows when a request had to instantiate on its own path).
//   nospare     the same without an ExecutionContext: no spare, so each request resets the pooled instance on its
//               own path (what a burst sees after its first request).
//   http        the real Worker (wrangler.jsonc; engines/python/wrangler.jsonc) in workerd, one Miniflare per build,
//               sequential POST /execute through dispatchFetch, GAP ms between requests (--gap) so waitUntil runs.
//
// Requests alternate between the builds (and the order flips every round). Load average is printed at start and end.
//
//   node bench/p99.mjs --base /tmp/p99/base [--requests 1000] [--engines javascript,python] [--modes isolate,busy,nospare,http]
//                      [--gap 2] [--trace-gc]
//
// --trace-gc: workerd runs with V8's --trace-gc (through bench/workerd-stdout.sh); the http rows then count the GC
// pauses of that build's workerd process (all its isolates: the Worker's and Miniflare's own) during the timed part.
// The control row: a Worker answering a constant through the same transport, so the machine's and Miniflare's tail
// shows next to ours. "CPU ms per request" (in-isolate): the child process's CPU time (all threads) per request,
// which load inflates far less than wall-clock time.
//
// --base: a directory laid out like this repository with the built files (worker-shim/ with generated/, engines/*/
// {engine.js,build/}, test/integration/ helpers and fixtures, wrangler.jsonc, package.json, a node_modules link), e.g.
//   git worktree add /tmp/base <commit> && cd /tmp/base && ln -s <this repo>/node_modules node_modules &&
//   bash scripts/build-engines.sh && bash scripts/build.sh wasm
// or a copy of this tree's runtime files taken before a change (bench/RESULTS.md says how the table was made).
import { fork } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, "..");

const WORKLOADS = {
  javascript: {
    "1 + 1": { code: "1 + 1", expect: "2" },
    // Allocates 1,000 objects and a 21 kB JSON string: more than the boot image's free heap had before
    // SW_JS_HEAP_HEADROOM.
    compute: {
      code: "JSON.stringify(Array.from({ length: 1000 }, (_, i) => ({ i, sq: i * i }))).length",
      expect: "21428",
    },
  },
  python: {
    "1 + 1": { code: "1 + 1", expect: "2" },
    // (Not `import json`: a fresh interpreter imports it from /stdlib on every request, ~40 ms.)
    compute: { code: "len(str([i * i for i in range(2000)]))", expect: "16537" },
  },
};

const sorted = (xs) => [...xs].sort((a, b) => a - b);
const pct = (xs, p) => { const s = sorted(xs); return s[Math.min(s.length - 1, Math.floor(s.length * p))]; };
const fmt = (x) => (x === undefined ? "–" : x.toFixed(2));
const mib = (bytes) => (bytes / 1048576).toFixed(1);

// --- child: one build, in-isolate ----------------------------------------------------------------------------------
async function child(tree) {
  const { PerformanceObserver } = await import("node:perf_hooks");
  await import(path.join(tree, "worker-shim/testing.js"));
  const { handleRequest, getCore } = await import(path.join(tree, "worker-shim/core.js"));
  const engines = {
    javascript: (await import(path.join(tree, "engines/javascript/engine.js"))).javascriptEngine,
    python: (await import(path.join(tree, "engines/python/engine.js"))).pythonEngine,
  };
  const core = await getCore();
  let instantiations = 0;
  const languageOf = new WeakMap(); // engine instance -> its language
  const instantiate = core.hostInstantiateGuest.bind(core);
  core.hostInstantiateGuest = (server, host) => {
    instantiations++;
    const ok = instantiate(server, host);
    if (ok) languageOf.set(core.guestInstances.get(host), core.enginesByServer.get(server).language);
    return ok;
  };
  const gcs = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcs.push([e.startTime, e.startTime + e.duration]);
  }).observe({ entryTypes: ["gc"] });
  // Engine linear memory the isolate keeps between requests: parked (pooled) instances and bound ones (the spare).
  const heldBytes = (language) => {
    let n = 0;
    const instances = [...[...core.parkedGuests.values()].map((g) => g.instance), ...core.guestInstances.values()];
    for (const i of instances) if (languageOf.get(i) === language) n += i.exports.memory.buffer.byteLength;
    return n;
  };
  const one = async (language, code, idle) => {
    const pending = [];
    // "nospare": no ExecutionContext, so no spare is prepared: each request resets the pooled instance itself.
    const ctx = idle === "nospare" ? undefined : { waitUntil: (p) => pending.push(p) };
    const request = new Request("https://runtime.internal/execute", {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ code }),
    });
    const before = instantiations;
    const t0 = performance.now();
    const response = await handleRequest(engines[language], request, {}, ctx);
    const body = await response.json();
    const t1 = performance.now();
    // idle: the spare for the next request is prepared now; busy: whenever the event loop gets to it, possibly inside
    // the next request (requests back to back, as under load)
    if (idle) await Promise.all(pending);
    // Counted with the spare: a request whose instance could not be reused makes the next spare a new instance.
    return { ms: t1 - t0, t0, t1, body, instantiated: instantiations - before };
  };
  const windows = []; // [t0, t1] of each timed request since the last report
  let cpuSince = process.cpuUsage(); // CPU time of the whole process (every thread: GC helpers too) per request
  process.on("message", async ({ language, code, idle, report }) => {
    try {
      if (report) {
        // GC entries reach the observer asynchronously, in batches: match them to the windows once they are in.
        await new Promise((resolve) => setTimeout(resolve, 200));
        const gc = windows.map(([t0, t1]) => {
          let ms = 0, count = 0;
          for (const [a, b] of gcs) if (a < t1 && b > t0) { count++; ms += Math.min(b, t1) - Math.max(a, t0); }
          return [count, ms];
        });
        const all = [gcs.length, gcs.reduce((sum, [a, b]) => sum + (b - a), 0)];
        const used = process.cpuUsage(cpuSince);
        cpuSince = process.cpuUsage();
        const cpuMs = (used.user + used.system) / 1000 / Math.max(1, windows.length);
        windows.length = 0;
        gcs.length = 0;
        return process.send({ gc, all, cpuMs });
      }
      const r = await one(language, code, idle);
      windows.push([r.t0, r.t1]);
      const text = r.body.results?.[0]?.text;
      process.send({ ms: r.ms, text, error: r.body.error, instantiated: r.instantiated, held: heldBytes(language) });
    } catch (error) {
      process.send({ fatal: String(error?.stack ?? error) });
    }
  });
  process.send({ ready: true });
}

// --- parent ----------------------------------------------------------------------------------------------------------
async function main() {
  const { values: opts } = parseArgs({
    options: {
      base: { type: "string" },
      requests: { type: "string", default: "1000" },
      warm: { type: "string", default: "30" },
      engines: { type: "string", default: "javascript,python" },
      modes: { type: "string", default: "isolate,busy,nospare,http" },
      gap: { type: "string", default: "2" },
      "trace-gc": { type: "boolean", default: false },
      child: { type: "string" },
    },
  });
  if (opts.child) return child(opts.child);
  if (!opts.base) throw new Error("--base <dir> (the 'before' build) is required");
  const REQUESTS = Number(opts.requests), WARM = Number(opts.warm), GAP = Number(opts.gap);
  const builds = [{ name: "before", tree: path.resolve(opts.base) }, { name: "after", tree: ROOT }];
  const engineNames = opts.engines.split(",");
  const modes = opts.modes.split(",");
  const load0 = os.loadavg();
  console.log(`machine: ${os.cpus()[0]?.model} x${os.cpus().length}, node ${process.version}; load average ${load0.map((x) => x.toFixed(2)).join(" ")}`);
  console.log(`builds: before = ${builds[0].tree}, after = ${builds[1].tree}; ${REQUESTS} timed requests per variant (+${WARM} warm), alternating builds`);
  const results = []; // { mode, engine, workload, build, times, gc..., instantiated, held }

  const check = (r, w, label) => {
    if (r.fatal) throw new Error(`${label}: ${r.fatal}`);
    if (r.text !== w.expect) throw new Error(`${label}: expected ${w.expect}, got ${JSON.stringify(r).slice(0, 300)}`);
  };

  if (["isolate", "busy", "nospare"].some((m) => modes.includes(m))) {
    const children = builds.map((b) => {
      const c = fork(fileURLToPath(import.meta.url), ["--child", b.tree], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
      let waiting = null;
      c.on("message", (m) => { const w = waiting; waiting = null; w?.(m); });
      const ready = new Promise((resolve) => { waiting = resolve; });
      return { ...b, ready, ask: (msg) => new Promise((resolve) => { waiting = resolve; c.send(msg); }), proc: c };
    });
    await Promise.all(children.map((c) => c.ready));
    const isolateModes = [
      ...(modes.includes("isolate") ? [["in-isolate", true]] : []),
      ...(modes.includes("busy") ? [["in-isolate, back to back", false]] : []),
      ...(modes.includes("nospare") ? [["in-isolate, no spare", "nospare"]] : []),
    ];
    for (const [mode, idle] of isolateModes) for (const engine of engineNames) {
      for (const [workload, w] of Object.entries(WORKLOADS[engine])) {
        const rows = children.map((c) => ({ mode, engine, workload, build: c.name, times: [], gcMs: [], gcCount: [], instantiated: 0, held: 0 }));
        for (let i = 0; i < WARM + REQUESTS; i++) {
          for (let k = 0; k < children.length; k++) {
            const j = (i + k) % children.length;
            const r = await children[j].ask({ language: engine, code: w.code, idle });
            check(r, w, `${children[j].name} ${engine} ${workload}`);
            if (i < WARM) continue;
            rows[j].times.push(r.ms);
            rows[j].instantiated += r.instantiated; rows[j].held = r.held;
          }
          if (i === WARM - 1) for (const c of children) await c.ask({ report: true }); // forget the warm-up's windows
        }
        for (let j = 0; j < children.length; j++) {
          const { gc, all, cpuMs } = await children[j].ask({ report: true });
          rows[j].gcAll = all;
          rows[j].cpuMs = cpuMs;
          rows[j].gcCount = gc.map(([count]) => count);
          rows[j].gcMs = gc.map(([, ms]) => ms);
        }
        results.push(...rows);
      }
    }
    for (const c of children) c.proc.kill();
  }

  if (modes.includes("http")) {
    for (const engine of engineNames) {
      const servers = [];
      for (const b of builds) {
        const { runtimeWorkerOptions, startMiniflare } = await import(path.join(b.tree, "test/integration/helpers.mjs"));
        let trace = null;
        if (opts["trace-gc"]) {
          // V8's GC trace of this build's workerd process (every isolate in it), through bench/workerd-stdout.sh.
          trace = path.join(os.tmpdir(), `p99-gc-${process.pid}-${engine}-${b.name}.log`);
          fs.writeFileSync(trace, "");
          Object.assign(process.env, {
            MINIFLARE_WORKERD_PATH: path.join(HERE, "workerd-stdout.sh"),
            MINIFLARE_WORKERD_V8_FLAGS: "--trace-gc",
            SW_WORKERD_REAL: (await import("workerd")).default.default,
            SW_WORKERD_STDOUT: trace,
          });
        }
        servers.push({ ...b, trace, mf: await startMiniflare([runtimeWorkerOptions({ language: engine })]) });
        for (const k of ["MINIFLARE_WORKERD_PATH", "MINIFLARE_WORKERD_V8_FLAGS"]) delete process.env[k];
      }
      // The control: a Worker that answers a constant (no core, no engine) through the same transport, interleaved
      // with the two builds. Its tail is the machine's and Miniflare's, not ours.
      const { startMiniflare } = await import(path.join(ROOT, "test/integration/helpers.mjs"));
      servers.push({
        name: "control (constant answer, no Wasm)",
        control: true,
        mf: await startMiniflare([{
          name: "control", modules: true, compatibilityDate: "2026-11-01",
          script: "export default { fetch() { return new Response('{\"results\":[{\"text\":\"2\"}]}'); } };",
        }]),
      });
      for (const [workload, w] of Object.entries(WORKLOADS[engine])) {
        const rows = servers.map((s) => ({ mode: "http", engine, workload, build: s.name, times: [] }));
        const traceFrom = servers.map((s) => (s.trace ? fs.statSync(s.trace).size : 0));
        const one = async (s) => {
          const t0 = performance.now();
          const res = await s.mf.dispatchFetch("https://runtime.internal/execute", {
            method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ code: w.code }),
          });
          const body = await res.json();
          const ms = performance.now() - t0;
          if (!s.control) check({ text: body.results?.[0]?.text, body }, w, `http ${s.name} ${engine} ${workload}`);
          return ms;
        };
        for (let i = 0; i < WARM + REQUESTS; i++) {
          for (let k = 0; k < servers.length; k++) {
            const j = (i + k) % servers.length;
            const ms = await one(servers[j]);
            if (i >= WARM) rows[j].times.push(ms);
            if (GAP) await new Promise((r) => setTimeout(r, GAP)); // let waitUntil (the spare) run
          }
          if (i === WARM - 1) servers.forEach((s, j) => { if (s.trace) traceFrom[j] = fs.statSync(s.trace).size; });
        }
        await new Promise((r) => setTimeout(r, 200));
        servers.forEach((s, j) => {
          if (!s.trace) return;
          const text = fs.readFileSync(s.trace).subarray(traceFrom[j]).toString();
          // "[pid:0xisolate]  1234 ms: Scavenge 2.2 (3.5) -> 1.9 (4.2) MB, pooled: 0.0 MB, 1.21 / 0.00 ms ..."
          const pauses = [...text.matchAll(/ ms: (Scavenge|Mark-Compact|Mark-Sweep|Minor Mark-Sweep)\b.*?MB, (?:pooled: [\d.]+ MB, )?([\d.]+) \/ [\d.]+ ms/g)];
          rows[j].gcAll = [pauses.length, pauses.reduce((sum, m) => sum + Number(m[2]), 0)];
          rows[j].majorGcs = pauses.filter((m) => m[1] !== "Scavenge" && m[1] !== "Minor Mark-Sweep").length;
        });
        results.push(...rows);
      }
      for (const s of servers) await s.mf.dispose();
    }
  }

  const load1 = os.loadavg();
  console.log(`\nload average at the end: ${load1.map((x) => x.toFixed(2)).join(" ")}\n`);
  console.log("| mode | engine | workload | build | p50 ms | p99 ms | p99.9 ms | max ms | CPU ms per request | instances created | GC pauses, all (count, ms) | GC pauses inside timed requests | slowest 1% overlapping a GC | engine memory held between requests |");
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const r of results) {
    const n = r.times.length;
    let gc = "–", gcAll = "–", slowGc = "–", held = "–", inst = "–", cpu = "–";
    if (r.gcAll && !r.gcMs) gcAll = `${r.gcAll[0]}, ${r.gcAll[1].toFixed(1)} (${r.majorGcs} major; whole workerd process)`;
    if (r.gcMs) {
      const total = r.gcMs.reduce((a, b) => a + b, 0);
      const count = r.gcCount.reduce((a, b) => a + b, 0);
      gc = `${count}, ${total.toFixed(1)}`;
      gcAll = `${r.gcAll[0]}, ${r.gcAll[1].toFixed(1)}`;
      cpu = fmt(r.cpuMs);
      const cut = pct(r.times, 0.99);
      const slow = r.times.map((t, i) => [t, r.gcCount[i]]).filter(([t]) => t >= cut);
      slowGc = `${slow.filter(([, g]) => g > 0).length} of ${slow.length}`;
      held = `${mib(r.held)} MiB`;
      inst = `${r.instantiated} / ${n}`;
    }
    console.log(`| ${r.mode} | ${r.engine} | ${r.workload} | ${r.build} | ${fmt(pct(r.times, 0.5))} | ${fmt(pct(r.times, 0.99))} | ${fmt(pct(r.times, 0.999))} | ${fmt(Math.max(...r.times))} | ${cpu} | ${inst} | ${gcAll} | ${gc} | ${slowGc} | ${held} |`);
  }
}

await main();
