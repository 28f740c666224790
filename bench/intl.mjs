#!/usr/bin/env node
// Benchmark (not a test): what the JavaScript engine's Intl costs (docs/intl.md, bench/RESULTS.md "Intl").
//   1. Programs that never touch Intl: `1 + 1` on the engine before Intl (--before ENGINE.wasm, e.g. main's build) and
//      now, interleaved: fuel, wall time, linear memory.
//   2. First use per constructor: a fresh instance per run (the Worker's stateless path), one call, its fuel, time,
//      the instance's linear memory afterwards and the JS heap it keeps (how many 8 KiB arrays still fit under the
//      32 MiB heap limit, against a fresh instance); then the same call again in a second evaluation ("warm") and a
//      second locale ("another locale").
//   3. A program using several constructors (every case of test/intl/cases.mjs for one locale): fuel and heap left;
//      and one asking for six regional tags (their languages' variants load).
//   4. Sizes: the Intl archive (stdlib.tar) raw and gzip -9, and the JavaScript Worker's upload (wrangler deploy
//      --dry-run of wrangler.jsonc, as test/integration/deploy.test.mjs runs it) here and, with --before-tree DIR, in
//      another checkout with its builds (e.g. `git archive main` plus main's build outputs).
//
//   node bench/intl.mjs [--runs 5] [--before PATH/engine.wasm] [--before-tree DIR] [--json out.json]
//                       [--archive engines/javascript/build/stdlib-more-locales.tar] [--skip-first-use]
//
// Needs the engine (bash scripts/engines/javascript.sh) and the core (bash scripts/build.sh wasm, or core + boot images).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { execFileSync } from "node:child_process";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { instance, text } from "./intl-engine.mjs";
import { localeCases, evaluateCases } from "../test/intl/cases.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values: opts } = parseArgs({ options: {
  runs: { type: "string", default: "5" }, before: { type: "string" }, "before-tree": { type: "string" },
  json: { type: "string" }, archive: { type: "string" }, "skip-first-use": { type: "boolean" } } });
// Sections 2 and 3 on another /stdlib (the more-locales archive, docs/intl.md "Locales").
const archive = opts.archive ? { archive: path.resolve(opts.archive) } : {};
const RUNS = Number(opts.runs);
const median = (a) => [...a].sort((p, q) => p - q)[a.length >> 1];
const report = { machine: `${os.cpus()[0].model}, ${os.cpus().length} cores`, loadavg: os.loadavg().map((l) => l.toFixed(2)),
  node: process.version };
// Under this harness (a fresh instance, no boot image), running out of heap sometimes traps (out of bounds, in
// build_backtrace) after code that ran RegExp matches: an engine bug that predates Intl (docs/intl.md, "Known engine
// bug"); in workerd the same programs end normally. A probe that traps is reported as null.
const HEADROOM = "(() => { let a = []; try { for (;;) a.push(new Array(1024).fill(0)); } catch (e) { } const n = a.length; a = null; return n; })()";
const withHeadroom = (code) => `${code};\n${HEADROOM}`;
function probe(inst, code) {
  try {
    return blocks(inst.evaluate(code));
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError) return null;
    throw e;
  }
}
const usedMiB = (left) => (left === null ? null : +((report.heapBlocksFresh - left) * 8 / 1024).toFixed(2));
const blocks = (r) => Number(text(r.outcome));

// 1. `1 + 1`, before and after, interleaved.
{
  const variants = { now: {} };
  if (opts.before) variants.before = { engine: path.resolve(opts.before), stdlib: false };
  const samples = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
  for (let r = 0; r < RUNS; r++) {
    for (const [name, v] of Object.entries(variants)) {
      const inst = await instance(v);
      const res = inst.evaluate("1 + 1");
      samples[name].push(res);
      inst.close();
    }
  }
  report.untouched = Object.fromEntries(Object.entries(samples).map(([k, s]) => [k, {
    answer: text(s[0].outcome), fuel: s[0].fuel, ms: +median(s.map((x) => x.ms)).toFixed(3), memoryBytes: s[0].memory }]));
}

// 2. First use per constructor.
const D = "new Date(Date.UTC(2024, 0, 15, 9, 5, 7))";
const FIRST = {
  "NumberFormat (de-DE)": ['new Intl.NumberFormat("de-DE").format(1234.5)', 'new Intl.NumberFormat("ja-JP", { style: "currency", currency: "JPY" }).format(1234)'],
  "Number.prototype.toLocaleString (hi-IN)": ['(1234567.891).toLocaleString("hi-IN")', '(1234567.891).toLocaleString("fr-FR")'],
  "DateTimeFormat (en-US, UTC)": [`new Intl.DateTimeFormat("en-US").format(${D})`, `new Intl.DateTimeFormat("de-DE").format(${D})`],
  "DateTimeFormat (ja-JP, Asia/Tokyo, full)": [`new Intl.DateTimeFormat("ja-JP", { dateStyle: "full", timeStyle: "long", timeZone: "Asia/Tokyo" }).format(${D})`,
    `new Intl.DateTimeFormat("fr-FR", { dateStyle: "full", timeStyle: "long", timeZone: "Europe/Paris" }).format(${D})`],
  "Date.prototype.toLocaleString (de-DE)": [`${D}.toLocaleString("de-DE", { timeZone: "UTC" })`, `${D}.toLocaleString("es-MX", { timeZone: "UTC" })`],
  "PluralRules (ar)": ['new Intl.PluralRules("ar").select(3)', 'new Intl.PluralRules("ru").select(3)'],
  "RelativeTimeFormat (fr)": ['new Intl.RelativeTimeFormat("fr", { numeric: "auto" }).format(-1, "day")', 'new Intl.RelativeTimeFormat("es").format(3, "hour")'],
  "ListFormat (es)": ['new Intl.ListFormat("es").format(["a", "b", "c"])', 'new Intl.ListFormat("zh").format(["a", "b", "c"])'],
  "Segmenter (en, words)": ['[...new Intl.Segmenter("en", { granularity: "word" }).segment("Hello, world!")].length', '[...new Intl.Segmenter("ja", { granularity: "word" }).segment("日本語の文章です")].length'],
  "DisplayNames (de, region)": ['new Intl.DisplayNames("de", { type: "region" }).of("US")', 'new Intl.DisplayNames("ja", { type: "language" }).of("fr")'],
  "NumberFormat (sv-SE)": ['new Intl.NumberFormat("sv-SE").format(1234.5)', 'new Intl.NumberFormat("ko-KR").format(1234.5)'],
  "Locale (zh-TW maximize)": ['new Intl.Locale("zh-TW").maximize().toString()', 'new Intl.Locale("pt-PT").minimize().toString()'],
  "getCanonicalLocales": ['Intl.getCanonicalLocales(["EN-us", "zh-hant-tw"]).join()', 'Intl.getCanonicalLocales("ar-eg").join()'],
  "supportedValuesOf (currency)": ['Intl.supportedValuesOf("currency").length', 'Intl.supportedValuesOf("timeZone").length'],
};
if (!opts["skip-first-use"]) {
  const fresh = await instance(archive);
  const freshBlocks = blocks(fresh.evaluate(HEADROOM));
  fresh.close();
  report.heapBlocksFresh = freshBlocks;
  report.firstUse = {};
  for (const [name, [call, other]] of Object.entries(FIRST)) {
    console.error(`    first use: ${name}`);
    const first = [], warm = [], second = [];
    let resident, memory, answer;
    for (let r = 0; r < RUNS; r++) {
      const inst = await instance(archive);
      const a = inst.evaluate(call);
      const b = inst.evaluate(call);
      const c = inst.evaluate(other);
      first.push(a); warm.push(b); second.push(c);
      memory = a.memory; answer = text(a.outcome);
      inst.close();
    }
    {
      // The heap the first call leaves in use, on an instance of its own.
      const inst = await instance(archive);
      resident = usedMiB(probe(inst, withHeadroom(call)));
      try { inst.close(); } catch {}
    }
    report.firstUse[name] = { answer, fuel: first[0].fuel, ms: +median(first.map((x) => x.ms)).toFixed(1),
      memoryBytes: memory, residentMiB: resident, warmFuel: warm[0].fuel, warmMs: +median(warm.map((x) => x.ms)).toFixed(2),
      anotherLocaleFuel: second[0].fuel, anotherLocaleMs: +median(second.map((x) => x.ms)).toFixed(1) };
  }
}

// 3. A program using every constructor (45 calls, one locale), and the heap it leaves.
{
  report.typical = {};
  for (const locale of ["en-US", "ja-JP", "ar-EG"]) {
    console.error(`    several constructors: ${locale}`);
    const inst = await instance(archive);
    const code = `Object.keys((${evaluateCases})(${JSON.stringify(localeCases(locale))})).length`;
    const r = inst.evaluate(code);
    inst.close();
    const again = await instance(archive);
    const left = probe(again, withHeadroom(code));
    try { again.close(); } catch {}
    report.typical[locale] = { calls: Number(text(r.outcome)), fuel: r.fuel, ms: +r.ms.toFixed(0), memoryBytes: r.memory,
      heapUsedMiB: usedMiB(left) };
  }
}

// 3b. Many regional tags: each loads the built-in tags it may resolve to (its own, with the tags its data patches, in
// the more-locales build; zh-HK -> zh + zh-Hant, es-AR -> es + es-419 + es-MX in the default one).
{
  if (opts["skip-first-use"]) {
    const fresh = await instance(archive);
    report.heapBlocksFresh = blocks(fresh.evaluate(HEADROOM));
    fresh.close();
  }
  const code = '["zh-HK", "es-AR", "zh-TW", "en-AU", "fr-CA", "pt-AO"].map((l) => new Intl.NumberFormat(l).format(1234.5) + " " + new Intl.DateTimeFormat(l, { dateStyle: "short" }).format(0)).length';
  const inst = await instance(archive);
  const r = inst.evaluate(code);
  inst.close();
  const again = await instance(archive);
  const left = probe(again, withHeadroom(code));
  try { again.close(); } catch {}
  report.regional = { tags: 6, fuel: r.fuel, ms: +r.ms.toFixed(0), memoryBytes: r.memory, heapUsedMiB: usedMiB(left) };
}

// 4. Sizes.
{
  const tarPath = archive.archive ?? path.join(root, "engines/javascript/build/stdlib.tar");
  const tar = fs.readFileSync(tarPath);
  const chunks = execFileSync("tar", ["-tf", tarPath], { encoding: "utf8" }).trim().split("\n");
  report.archive = { chunks: chunks.length, bytes: tar.length, gzip9: zlib.gzipSync(tar, { level: 9 }).length };
  const upload = (dir, config = archive.archive ? "wrangler.more-locales.jsonc" : "wrangler.jsonc") => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), "sw-intl-upload-"));
    try {
      const log = execFileSync(process.execPath, [path.join(root, "node_modules/wrangler/bin/wrangler.js"), "deploy", "--dry-run",
        "--outdir", out, "-c", path.join(dir, "engines/javascript", config)], { cwd: dir, encoding: "utf8",
        env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" }, stdio: ["ignore", "pipe", "pipe"] });
      const m = log.match(/Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/);
      return m ? { uploadKiB: Number(m[1]), gzipKiB: Number(m[2]) } : { error: log.slice(-500) };
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  };
  report.upload = { now: upload(root) };
  if (opts["before-tree"]) report.upload.before = upload(path.resolve(opts["before-tree"]));
}

console.log(JSON.stringify(report, null, 2));
if (opts.json) fs.writeFileSync(opts.json, JSON.stringify(report, null, 2) + "\n");
