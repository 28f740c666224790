#!/usr/bin/env node
// Benchmark (not a test): what a stateless request costs the Python engine, for two builds side by side in one run
// (issue 28's "batteries": time zones, sqlite3, asyncio, modules imported in the boot image). Each program is sent as
// POST /execute through worker-shim/core.js handleRequest (the Worker's fetch handler without the HTTP transport),
// every instance from the build's boot image (instance pool of 1 slot, as sequential requests to one isolate see it);
// the builds interleaved, request by request. Prints fuel (usage.fuelConsumed) and ms p50 / p99 per program and build, and
// each build's file sizes (raw / gzip -9).
//
//   node bench/python-batteries.mjs --base /path/to/old/engines/python/build [--requests 20]
//
// --base is a copy of engines/python/build (engine-nodata.wasm, stdlib.tar, boot-image.bin, engine-build.json)
// taken from another build after `bash scripts/build.sh wasm` made its boot image; the other build is this
// checkout's engines/python/build. Not covered: the first request of a fresh isolate (bench/engines.mjs, "first").
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { parseArgs } from "node:util";
import { loadavg } from "node:os";

const { values: opts } = parseArgs({
  options: { base: { type: "string" }, requests: { type: "string", default: "20" } },
});
if (!opts.base) throw new Error("--base DIR is required");
const REQUESTS = Number(opts.requests);
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");

await import("../worker-shim/testing.js"); // registers the hooks that load .wasm/.tar/.bin as workerd does
const { pythonEngine } = await import("../engines/python/engine.js");
const { twoBuilds, timedExecute } = await import("./build-copy.mjs");
const builds = await twoBuilds(pythonEngine, opts.base);
const dirs = { base: opts.base, new: path.join(ROOT, "engines/python/build") };

const PROGRAMS = {
  "1 + 1": "1 + 1",
  "[1, {'a': 2}]": "[1, {'a': 2}]",
  "import json, re, datetime, ... (13 modules)":
    "import json, re, datetime, collections, itertools, functools, math, statistics, csv, decimal, typing, " +
    "dataclasses, pathlib\njson.dumps(statistics.mean([1, 2, 3]))",
  "import csv, statistics": "import csv, statistics\nstatistics.median([3, 1, 2])",
  "ZoneInfo('Europe/Berlin')":
    "from zoneinfo import ZoneInfo\nfrom datetime import datetime\nstr(datetime(2026, 7, 1, 12, tzinfo=ZoneInfo('Europe/Berlin')).utcoffset())",
  "sqlite3 :memory:":
    "import sqlite3\nc = sqlite3.connect(':memory:')\nc.execute('create table t(x)')\n" +
    "c.executemany('insert into t values (?)', [(i,) for i in range(100)])\nc.execute('select sum(x) from t').fetchone()[0]",
  "asyncio.run(gather)":
    "import asyncio\nasync def f(i):\n    await asyncio.sleep(i / 10)\n    return i\nasync def main():\n" +
    "    return await asyncio.gather(*(f(i) for i in range(5)))\nasyncio.run(main())",
};

async function run(engine, code) {
  const { ms, body } = await timedExecute(engine, code);
  const result = body.error ? `${body.error.name}: ${body.error.message}`.slice(0, 60) : JSON.stringify(body.results?.[0]).slice(0, 60);
  return { ms, fuel: body.usage?.fuelConsumed, result };
}

const sorted = (xs) => [...xs].sort((a, b) => a - b);
const p50 = (xs) => sorted(xs)[Math.floor(xs.length / 2)];
const p99 = (xs) => sorted(xs)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))];
const size = (f) => {
  const b = fs.readFileSync(f);
  return `${b.length.toLocaleString("en-US")} / ${zlib.gzipSync(b, { level: 9 }).length.toLocaleString("en-US")}`;
};

console.log(`load average at start: ${loadavg().map((x) => x.toFixed(2)).join(" ")}; ${REQUESTS} requests per program and build`);
console.log("\nsizes, raw / gzip -9:");
for (const [name, dir] of Object.entries(dirs)) {
  console.log(`  ${name}: ${["engine-nodata.wasm", "stdlib.tar", "boot-image.bin"].map((f) => `${f} ${size(path.join(dir, f))}`).join(", ")}`);
}
console.log("\nprogram | build | fuel | ms p50 | ms p99 | result");
for (const [label, code] of Object.entries(PROGRAMS)) {
  const samples = { base: [], new: [] };
  const last = {};
  for (const name of Object.keys(builds)) await run(builds[name], code); // warm-up: compile, servers
  for (let i = 0; i < REQUESTS; i++) {
    for (const name of Object.keys(builds)) {
      const r = await run(builds[name], code);
      samples[name].push(r.ms);
      last[name] = r;
    }
  }
  for (const name of Object.keys(builds)) {
    console.log(`${label} | ${name} | ${last[name].fuel} | ${p50(samples[name]).toFixed(1)} | ${p99(samples[name]).toFixed(1)} | ${last[name].result}`);
  }
}
console.log(`\nload average at end: ${loadavg().map((x) => x.toFixed(2)).join(" ")}`);
