// Benchmark (not a test): the ICU collator in the JavaScript engine (docs/intl.md, "Intl.Collator"): what a program
// that never touches Intl pays, first use per locale, compare cost per call, fuel against time, and the sizes.
//
//   node bench/intl-collator.mjs [--baseline DIR] [--runs N]
//
// DIR: another engines/javascript/build directory (e.g. main's) measured side by side for `1 + 1`, interleaved run by
// run, (5) a code context's snapshot with and without a Collator. Each measurement is a fresh engine instance under our WASI host (worker-shim/generated, as bench/intl-options.mjs
// and engines/javascript/test/smoke.mjs drive it), with /stdlib from the build's stdlib.tar; times are medians of N
// runs (default 5); fuel is deterministic. The upload total is `wrangler deploy --dry-run` (test/integration/deploy.test.mjs).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

// (5), run in a child process (it loads the core through ./testing, as bench/contexts.mjs does): a code context's
// snapshot, through the same C++ Interpreter the Durable Object runs, over node:sqlite.
if (process.argv.includes("--snapshots-only")) {
  const { mkdtempSync } = fs;
  const { createTestState, createTestInterpreter } = await import("../worker-shim/testing.js");
  const { javascriptEngine } = await import("../engines/javascript/engine.js");
  const dir = mkdtempSync(path.join(os.tmpdir(), "sw-bench-intl-snap-"));
  const state = createTestState({ path: path.join(dir, "i.sqlite") });
  const interpreter = createTestInterpreter(javascriptEngine, state);
  const rows = [];
  for (const [id, steps] of [
    ["plain", ["var x = 1", "x + 1"]],
    ["de", ["var x = 1", 'var c = new Intl.Collator("de"); c.compare("a", "b")', 'c.compare("b", "a")']],
    ["zh", ['var c = new Intl.Collator("zh"); c.compare("a", "b")', 'c.compare("b", "a")']],
  ]) {
    const created = await interpreter.fetch(new Request("https://interpreter.internal/contexts", {
      method: "POST", headers: { "x-interpreter-key": "k", "content-type": "application/json" }, body: JSON.stringify({ id }),
    }));
    if (created.status !== 201) throw new Error(`create context: ${created.status}`);
    for (const code of steps) {
      const r = await interpreter.executeInContext("k", { contextId: id, code, workspace: { dirs: [], manifest: {} } }, () => []);
      if (!r.ok) throw new Error(JSON.stringify(r).slice(0, 300));
      const snap = r.result.context.snapshot;
      const err = r.result.error ? ` (${r.result.error.name})` : "";
      rows.push(`| ${id} | \`${code}\`${err} | ${(snap.bytes / 1024).toFixed(0)} | ${(snap.storedBytes / 1024).toFixed(0)} | ${r.result.context.snapshotMs?.toFixed(2)} |`);
    }
  }
  console.log("| context | execute | image: non-zero KiB | stored KiB (compressed rows) | snapshot ms |\n| --- | --- | ---: | ---: | ---: |");
  console.log(rows.join("\n"));
  fs.rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}

const { core, encoder, decoder, makeImportObject, bindGuestMemory, withBytes } = await import("../engines/javascript/test/core-harness.mjs");

const arg = (name, dflt) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : dflt);
const RUNS = Number(arg("--runs", 5));
const ours = path.join(root, "engines/javascript/build");
const baseline = arg("--baseline", null);

function engine(dir) {
  const module = new WebAssembly.Module(fs.readFileSync(path.join(dir, "engine.wasm")));
  const tar = path.join(dir, "stdlib.tar");
  const tarBytes = fs.existsSync(tar) ? fs.readFileSync(tar) : null;
  return { dir, module, tarBytes };
}

/** A fresh instance; evaluates each code in turn: [{ms, fuel, memoryBytes, outcome}]. */
function fresh(e, codes) {
  const archive = e.tarBytes ? withBytes(e.tarBytes, (p, n) => core._sw_wasi_archive_new(p, n)) : 0;
  const config = { args: ["sandbox"], env: [], workspace: false, preopens: [], stdio: "capture", referencePolicy: true };
  const host = withBytes(encoder.encode(JSON.stringify(config)), (p, n) => core._sw_wasi_host_new(p, n, archive));
  const inst = new WebAssembly.Instance(e.module, makeImportObject(core, host, e.module));
  const x = inst.exports;
  bindGuestMemory(core, host, x.memory);
  x._initialize();
  core._sw_wasi_fuel_set_interrupt(host, x.sw_js_interrupt_address(), 0, 0);
  core._sw_wasi_fuel_reset(host, 50_000_000);
  const h = x.sw_js_new(0, 0);
  const out = [];
  for (const code of codes) {
    core._sw_wasi_fuel_reset(host, 50_000_000);
    const src = encoder.encode(code), env = encoder.encode("{}");
    const cp = x.sw_alloc(src.length + 1), ep = x.sw_alloc(env.length), slots = x.sw_alloc(8);
    new Uint8Array(x.memory.buffer).set(src, cp);
    new Uint8Array(x.memory.buffer).set(env, ep);
    const t = performance.now();
    const rc = x.sw_js_eval(h, cp, src.length, ep, env.length, slots, slots + 4);
    const ms = performance.now() - t;
    if (rc !== 0) throw new Error("sw_js_eval failed");
    const dv = new DataView(x.memory.buffer);
    const outcome = JSON.parse(decoder.decode(new Uint8Array(x.memory.buffer, dv.getUint32(slots, true), dv.getUint32(slots + 4, true))));
    out.push({ ms, fuel: core._sw_wasi_fuel_consumed(host), memoryBytes: x.memory.buffer.byteLength, outcome });
  }
  return out;
}

const median = (a) => a.slice().sort((x, y) => x - y)[Math.floor(a.length / 2)];
const fmt = (n) => n.toLocaleString("en-US");
const kib = (b) => (b / 1024).toFixed(1);

const E = engine(ours);
const B = baseline ? engine(baseline) : null;
console.log(`bench/intl-collator.mjs: ${os.cpus().length} cores (${os.cpus()[0].model}), load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}, ${RUNS} runs`);

// (1) What a program that never touches Intl pays: 1 + 1 on a fresh instance, this build against the baseline.
{
  const rows = [];
  for (const [name, e] of [["this build", E], ...(B ? [["baseline", B]] : [])]) rows.push({ name, e, ms: [], r: null });
  for (let i = 0; i < RUNS; i++)
    for (const row of rows) { const [r] = fresh(row.e, ["1 + 1"]); row.ms.push(r.ms); row.r = r; }
  console.log("\n| `1 + 1`, fresh instance | fuel | eval ms (median) | memory bytes |\n| --- | ---: | ---: | ---: |");
  for (const row of rows) console.log(`| ${row.name} | ${fmt(row.r.fuel)} | ${median(row.ms).toFixed(3)} | ${fmt(row.r.memoryBytes)} |`);
}

// (2) First use per locale (the data is read from /stdlib then), and the same collator again in the next evaluation.
{
  console.log("\n| first use, fresh instance | fuel | ms (median) | memory bytes after | warm: same again, ms | warm fuel |\n| --- | ---: | ---: | ---: | ---: | ---: |");
  const cases = [
    ["`new Intl.Collator(\"en\").compare(\"a\", \"b\")`", 'new Intl.Collator("en").compare("a", "b")'],
    ["`new Intl.Collator(\"de\").compare(\"a\", \"b\")`", 'new Intl.Collator("de").compare("a", "b")'],
    ["`new Intl.Collator(\"ja\").compare(\"a\", \"b\")`", 'new Intl.Collator("ja").compare("a", "b")'],
    ["`new Intl.Collator(\"zh\").compare(\"a\", \"b\")`", 'new Intl.Collator("zh").compare("a", "b")'],
    ["`new Intl.Collator(\"zh-TW\").compare(\"a\", \"b\")`", 'new Intl.Collator("zh-TW").compare("a", "b")'],
    ['`"a".localeCompare("b")`', '"a".localeCompare("b")'],
    ['`"i".toLocaleUpperCase("tr")`', '"i".toLocaleUpperCase("tr")'],
  ];
  for (const [name, code] of cases) {
    const first = [], warm = [];
    let r;
    for (let i = 0; i < RUNS; i++) { r = fresh(E, [code, code]); first.push(r[0].ms); warm.push(r[1].ms); }
    console.log(`| ${name} | ${fmt(r[0].fuel)} | ${median(first).toFixed(2)} | ${fmt(r[0].memoryBytes)} | ${median(warm).toFixed(3)} | ${fmt(r[1].fuel)} |`);
  }
}

// (2b) Each locale's first use after another locale's in the same instance (root and the UCA data are loaded then):
// what reading and opening one tailoring costs.
{
  const locales = ["de", "fr", "es", "ja", "zh", "zh-TW", "ar", "hi", "ru", "pt"];
  const ms = Object.fromEntries(locales.map((l) => [l, []]));
  let r;
  for (let i = 0; i < RUNS; i++) {
    r = fresh(E, ['new Intl.Collator("en").compare("a", "b")', ...locales.map((l) => `new Intl.Collator("${l}").compare("a", "b")`)]);
    locales.forEach((l, k) => ms[l].push(r[k + 1].ms));
  }
  console.log("\n| after `new Intl.Collator(\"en\")` in the same instance | fuel | ms (median) | memory bytes after |\n| --- | ---: | ---: | ---: |");
  locales.forEach((l, k) => console.log(`| \`new Intl.Collator("${l}")\` | ${fmt(r[k + 1].fuel)} | ${median(ms[l]).toFixed(2)} | ${fmt(r[k + 1].memoryBytes)} |`));
}

// (3) Per call and fuel against time. Each program runs warm (after a first use in the same instance); "ns per unit"
// is its time over its fuel, against `for (;;) {}` burning the whole budget (the fuel reference, docs/fuel.md).
{
  const warmup = 'new Intl.Collator("de").compare("a", "b"); "a".localeCompare("b"); 0';
  const progs = [
    ["`for (;;) {}` (the reference)", "for (;;) {}", 0],
    ["1e5 compares of short words (de)", 'const c = new Intl.Collator("de"); const w = ["Äpfel", "apple", "Zebra", "zebra", "Straße", "strasse", "x10", "x9"]; let n = 0; for (let i = 0; i < 1e5; i++) n += c.compare(w[i & 7], w[(i >> 3) & 7]); n', 1e5],
    ["1e5 default localeCompare calls", 'const w = ["Äpfel", "apple", "Zebra", "zebra", "Straße", "strasse", "x10", "x9"]; let n = 0; for (let i = 0; i < 1e5; i++) n += w[i & 7].localeCompare(w[(i >> 3) & 7]); n', 1e5],
    ["1e4 localeCompare calls with a locale (a collator each)", 'let n = 0; for (let i = 0; i < 1e4; i++) n += "a".localeCompare("b", "de"); n', 1e4],
    ["sort of 10,000 words by collator.compare", 'const c = new Intl.Collator("de"); const a = Array.from({ length: 1e4 }, (_, i) => "w" + ((i * 7919) % 1e4)); a.sort(c.compare).length', 0],
    ["100 compares of two equal 100,000-character strings", 'const c = new Intl.Collator("de"); const a = "ä".repeat(1e5), b = "ä".repeat(1e5); let n = 0; for (let i = 0; i < 100; i++) n += c.compare(a, b); n', 100],
    ["compares of two equal 10,000-character strings until the budget ends", 'const c = new Intl.Collator("de"); const a = "ä".repeat(1e4); for (;;) c.compare(a, a)', 0],
    ["`new Intl.Collator(\"zh-TW\")` until the budget ends", 'for (;;) new Intl.Collator("zh-TW")', 0],
    ["toLocaleUpperCase(\"tr\") of 1e6 characters x 20", 'const s = "istanbul ".repeat(111112); let n = 0; for (let i = 0; i < 20; i++) n += s.toLocaleUpperCase("tr").length; n', 20],
  ];
  console.log("\n| warm program | result | fuel | ms (median) | ns per unit | per call: fuel / µs |\n| --- | --- | ---: | ---: | ---: | ---: |");
  let refNs = null;
  for (const [name, code, calls] of progs) {
    const ms = [];
    let r;
    for (let i = 0; i < RUNS; i++) { r = fresh(E, [warmup, code])[1]; ms.push(r.ms); }
    const m = median(ms), ns = (m * 1e6) / r.fuel;
    if (refNs === null) refNs = ns;
    const res = r.outcome.error ? r.outcome.error.name : r.outcome.results[0]?.text;
    const per = calls ? `${fmt(Math.round(r.fuel / calls))} / ${((m * 1000) / calls).toFixed(2)}` : "";
    console.log(`| ${name} | ${res} | ${fmt(r.fuel)} | ${m.toFixed(1)} | ${ns.toFixed(2)} (${(ns / refNs).toFixed(2)}x) | ${per} |`);
  }
}

// (4) Sizes: the engine, its /stdlib archive and the Worker's whole upload.
{
  const size = (f) => (fs.existsSync(f) ? fs.statSync(f).size : 0);
  const gz = (f) => (fs.existsSync(f) ? execFileSync("gzip", ["-9c", f], { maxBuffer: 1 << 28 }).length : 0); // as docs/intl.md
  console.log("\n| file | raw KiB | gzip -9 KiB |\n| --- | ---: | ---: |");
  for (const [name, dir] of [["this build", ours], ...(baseline ? [["baseline", baseline]] : [])])
    for (const f of ["engine.wasm", "stdlib.tar", "boot-image.bin"])
      if (size(path.join(dir, f))) console.log(`| ${name}: ${f} | ${kib(size(path.join(dir, f)))} | ${kib(gz(path.join(dir, f)))} |`);
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "sw-bench-intl-collator-"));
  try {
    const log = execFileSync(process.execPath, [path.join(root, "node_modules/wrangler/bin/wrangler.js"), "deploy", "--dry-run", "--outdir", out, "-c", path.join(root, "wrangler.jsonc")],
      { cwd: root, encoding: "utf8", env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" } });
    const m = log.match(/Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/);
    console.log(`\nsandbox-javascript upload (wrangler deploy --dry-run): ${m ? `${m[1]} KiB, gzip ${m[2]} KiB` : "not found"}`);
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

// (5) Snapshots (this build only).
console.log("\n" + execFileSync(process.execPath, [fileURLToPath(import.meta.url), "--snapshots-only"], { encoding: "utf8" }).trim());
