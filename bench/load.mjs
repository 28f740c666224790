#!/usr/bin/env node
// Load benchmark (issue 13 part 8), not a test: it fails only on an error, never on a number.
//
// The real runtime Worker of each language (wrangler.jsonc / engines/python/wrangler.jsonc, through
// test/integration/helpers.mjs, exactly as the integration tests run it) in workerd via Miniflare, one Miniflare per
// language. Against it, from Node:
//
//   (1) sustained: for each client count C (--clients, default 1,8,32), C concurrent clients, each sending sequential
//       `POST /execute` (the next one as soon as its previous response is read) until --requests requests in total
//       have been answered (each client sends requests/C of them). Throughput (answered requests / wall time), p50 /
//       p99 / max latency per request (Node's clock, request sent → body read), and the error count.
//   (2) burst: --bursts times, after the Worker has been idle for --idle-ms (so the spare instance the previous
//       response prepared in ctx.waitUntil is ready), --burst requests fired at once. Wall time until the last
//       answer, latency p50 / p99 / max, errors.
//
// Every request carries its own number k (`k * 2 + 1` with a fresh k per request); an answer is an error unless it is
// HTTP 200, JSON, without `error`, and with results[0].text equal to that request's 2k + 1 — so a response crossed
// between concurrent requests, or state leaking from one request to the next, also counts. The first few errors are
// printed in full. Also printed: the RSS of the workerd process before and after each language's load.
//
//   node bench/load.mjs [--requests 640] [--clients 1,8,32] [--languages javascript,python] [--burst 64]
//                       [--bursts 3] [--idle-ms 500] [--warmup 20] [--json out.json]
import fs from "node:fs";
import { execFileSync } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { runtimeWorkerOptions, startMiniflare } from "../test/integration/helpers.mjs";

const { values: opts } = parseArgs({
  options: {
    requests: { type: "string", default: "640" },
    clients: { type: "string", default: "1,8,32" },
    languages: { type: "string", default: "javascript,python" },
    burst: { type: "string", default: "64" },
    bursts: { type: "string", default: "3" },
    "idle-ms": { type: "string", default: "500" },
    warmup: { type: "string", default: "20" },
    json: { type: "string" },
  },
});
const REQUESTS = Number(opts.requests);
const CLIENTS = opts.clients.split(",").map(Number);
const BURST = Number(opts.burst);
const BURSTS = Number(opts.bursts);
const IDLE_MS = Number(opts["idle-ms"]);
const WARMUP = Number(opts.warmup);

// A small program per language whose answer depends on the request (k).
const PROGRAMS = {
  javascript: (k) => `const k = ${k};\nlet s = 0;\nfor (let i = 0; i < 100; i++) s += i;\ns - 4950 + k * 2 + 1`,
  python: (k) => `k = ${k}\ns = 0\nfor i in range(100):\n    s += i\ns - 4950 + k * 2 + 1`,
};

const sorted = (xs) => [...xs].sort((a, b) => a - b);
const pct = (xs, p) => (xs.length ? sorted(xs)[Math.min(xs.length - 1, Math.floor(xs.length * p))] : NaN);
const fmt = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : "-");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// RSS (MiB) of the workerd processes under this Node process (Miniflare spawns one per instance).
function workerdRssMiB() {
  try {
    const out = execFileSync("ps", ["-o", "pid=,rss=,comm=", "--ppid", String(process.pid)], { encoding: "utf8" });
    let kib = 0;
    for (const line of out.trim().split("\n")) {
      const [, rss, comm] = line.trim().split(/\s+/);
      if (comm?.startsWith("workerd")) kib += Number(rss);
    }
    return kib / 1024;
  } catch {
    return NaN;
  }
}

let nextK = 1;
async function one(mf, language, errors) {
  const k = nextK++;
  const t0 = performance.now();
  let problem;
  try {
    const res = await mf.dispatchFetch("https://sandbox.internal/execute", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ code: PROGRAMS[language](k) }),
    });
    const text = await res.text();
    if (res.status !== 200) problem = `HTTP ${res.status}: ${text.slice(0, 400)}`;
    else {
      let body;
      try {
        body = JSON.parse(text);
      } catch {
        problem = `not JSON: ${text.slice(0, 400)}`;
      }
      if (body && (body.error || body.results?.[0]?.text !== String(2 * k + 1))) {
        problem = `k=${k}, expected ${2 * k + 1}: ${text.slice(0, 400)}`;
      }
    }
  } catch (error) {
    problem = `fetch threw: ${error?.stack ?? error}`;
  }
  const ms = performance.now() - t0;
  if (problem) errors.push(problem);
  return ms;
}

async function sustained(mf, language, clients) {
  const errors = [];
  const times = [];
  const perClient = Math.ceil(REQUESTS / clients);
  const t0 = performance.now();
  await Promise.all(Array.from({ length: clients }, async () => {
    for (let i = 0; i < perClient; i++) times.push(await one(mf, language, errors));
  }));
  const wall = performance.now() - t0;
  return { clients, requests: times.length, wallMs: wall, rps: times.length / (wall / 1000), p50: pct(times, 0.5), p99: pct(times, 0.99), max: Math.max(...times), errors };
}

async function burst(mf, language) {
  await sleep(IDLE_MS);
  const errors = [];
  const t0 = performance.now();
  const times = await Promise.all(Array.from({ length: BURST }, () => one(mf, language, errors)));
  const wall = performance.now() - t0;
  return { requests: times.length, wallMs: wall, p50: pct(times, 0.5), p99: pct(times, 0.99), max: Math.max(...times), min: Math.min(...times), errors };
}

const results = {};
for (const language of opts.languages.split(",")) {
  const mf = await startMiniflare([runtimeWorkerOptions({ name: `runtime-${language}`, language })]);
  try {
    const warm = [];
    for (let i = 0; i < WARMUP; i++) await one(mf, language, warm);
    const rssBefore = workerdRssMiB();
    // The first burst hits a Worker that has only served the sequential warm-up (its spare ready).
    const bursts = [];
    bursts.push(await burst(mf, language));
    const levels = [];
    for (const c of CLIENTS) levels.push(await sustained(mf, language, c));
    for (let i = 1; i < BURSTS; i++) bursts.push(await burst(mf, language));
    results[language] = { warmupErrors: warm, rssBeforeMiB: rssBefore, rssAfterMiB: workerdRssMiB(), levels, bursts };
  } finally {
    await mf.dispose();
  }
}

const cpu = cpus();
console.log(`machine: ${cpu[0]?.model} x${cpu.length}, node ${process.version}, load average ${loadavg().map((x) => x.toFixed(2)).join(" ")}`);
console.log(`sustained: ${REQUESTS} requests per client count (each client sends requests/C sequentially); burst: ${BURST} at once after ${IDLE_MS} ms idle, ${BURSTS}x\n`);
console.log("language   | clients | requests | req/s  | p50 ms | p99 ms | max ms | errors");
console.log("---------- | ------- | -------- | ------ | ------ | ------ | ------ | ------");
for (const [language, r] of Object.entries(results)) {
  for (const l of r.levels) {
    console.log(`${language.padEnd(10)} | ${String(l.clients).padStart(7)} | ${String(l.requests).padStart(8)} | ${fmt(l.rps).padStart(6)} | ${fmt(l.p50).padStart(6)} | ${fmt(l.p99).padStart(6)} | ${fmt(l.max).padStart(6)} | ${l.errors.length}`);
  }
}
console.log("\nburst      | # | requests | wall ms | min ms | p50 ms | p99 ms | max ms | errors");
console.log("---------- | - | -------- | ------- | ------ | ------ | ------ | ------ | ------");
for (const [language, r] of Object.entries(results)) {
  r.bursts.forEach((b, i) => {
    console.log(`${language.padEnd(10)} | ${i + 1} | ${String(b.requests).padStart(8)} | ${fmt(b.wallMs).padStart(7)} | ${fmt(b.min).padStart(6)} | ${fmt(b.p50).padStart(6)} | ${fmt(b.p99).padStart(6)} | ${fmt(b.max).padStart(6)} | ${b.errors.length}`);
  });
}
console.log("\nworkerd RSS, MiB (after warm-up → after all load):");
for (const [language, r] of Object.entries(results)) console.log(`${language.padEnd(10)} ${fmt(r.rssBeforeMiB)} → ${fmt(r.rssAfterMiB)}`);

const allErrors = Object.entries(results).flatMap(([language, r]) =>
  [...r.warmupErrors, ...r.levels.flatMap((l) => l.errors), ...r.bursts.flatMap((b) => b.errors)].map((e) => `${language}: ${e}`));
console.log(`\nerrors: ${allErrors.length}`);
for (const e of allErrors.slice(0, 10)) console.log(`  ${e}`);
if (opts.json) fs.writeFileSync(opts.json, JSON.stringify(results, null, 2));
if (allErrors.length) process.exitCode = 1;
