#!/usr/bin/env node
// Writes the sources of the JavaScript engine's Intl chunks (docs/intl.md), one script per chunk, into OUT_DIR:
//   runtime.js          the namespace builder (engines/javascript/intl/runtime.js): its completion value is build()
//   code-<family>.js    one FormatJS polyfill (exact-pinned devDependency, polyfill-force.js) bundled by esbuild
//   data-<family>-<tag>.js   one locale's data for one family: an object literal { locale, data } (the argument of
//                       __addLocaleData), or for a regional variant { locale, base, patch }: the differences from
//                       its base language's data (a regional file repeats the whole language)
//   tz.js, tz-<n>.js    the IANA zones (FormatJS's golden set, packed as FormatJS packs it): the shared tables and
//                       zone names, and one chunk per zone
// and manifest.json (the chunks, the locale table, the package versions). scripts/engines/javascript.sh compiles every
// script to QuickJS bytecode with the engine's own native qjsc and packs them into engines/javascript/build/stdlib.tar.
//
//   node engines/javascript/intl/build.mjs OUT_DIR
import fs from "node:fs";
import path from "node:path";
import vm from "node:vm";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { PATCHES } from "./patches.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../../..");
const nm = path.join(root, "node_modules");
const out = path.resolve(process.argv[2] || path.join(root, "engines/javascript/build/intl-src"));
const ESBUILD = path.join(nm, ".bin/esbuild");

// The built-in locales (docs/intl.md, "Locales"). The default build (within the free plan's 3 MiB): 16 tags, 10
// languages and the regional variants whose CLDR data differs. SW_INTL_LOCALES=more (the more-locales build): 22 more
// languages and 15 more regional tags. SW_INTL_LOCALES=all (the all-locales build): every locale FormatJS ships data
// for (766 tags, 323 languages): 117 MB of bytecode, 10.4 MB as the archive stores it (groups(), below).
// Any other tag resolves to one of the built-in ones by ECMA-402's locale matching (en-US to en, zh-TW to zh-Hant,
// es-AR to es-419 in the default build).
export const DEFAULT_LOCALES = ["en", "en-GB", "de", "fr", "es", "es-419", "es-MX", "ja", "zh", "zh-Hant", "ar", "ar-EG",
  "hi", "ru", "pt", "pt-PT"];
export const MORE_LOCALES = [...DEFAULT_LOCALES,
  "it", "nl", "ko", "sv", "nb", "da", "fi", "pl", "cs", "hu", "ro", "el", "tr", "uk", "he", "th", "vi", "id", "ms", "bn",
  "ta", "sw",
  "en-001", "en-AU", "en-CA", "en-IN", "fr-CA", "fr-CH", "de-AT", "de-CH", "es-AR", "es-CO", "es-US", "zh-Hant-HK",
  "pt-AO", "it-CH", "nl-BE"];
export const LOCALE_SET = ["all", "more"].includes(process.env.SW_INTL_LOCALES) ? process.env.SW_INTL_LOCALES : "default";
const SELECTED = LOCALE_SET === "more" ? MORE_LOCALES : DEFAULT_LOCALES;

// family -> its package, the namespace names it defines, and whether it has locale data.
export const FAMILIES = {
  // getCanonicalLocales and supportedValuesOf from their packages' index (intl-locale imports those same modules, so
  // the bundle holds one copy of the alias and likely-subtags data, not one per polyfill-force.js).
  locale: { pkgs: ["intl-getcanonicallocales", "intl-locale", "intl-supportedvaluesof"], data: false, entry: (p) => `
import { getCanonicalLocales } from "@formatjs/intl-getcanonicallocales";
import { supportedValuesOf } from ${JSON.stringify(p("intl-supportedvaluesof", "index.js"))};
import ${JSON.stringify(p("intl-locale", "polyfill-force.js"))};
for (const [k, v] of [["getCanonicalLocales", getCanonicalLocales], ["supportedValuesOf", supportedValuesOf]])
  Object.defineProperty(Intl, k, { value: v, writable: true, enumerable: false, configurable: true });
` },
  pluralrules: { pkgs: ["intl-pluralrules"], data: true, js: true },
  numberformat: { pkgs: ["intl-numberformat"], data: true },
  datetimeformat: { pkgs: ["intl-datetimeformat"], data: true },
  relativetimeformat: { pkgs: ["intl-relativetimeformat"], data: true },
  listformat: { pkgs: ["intl-listformat"], data: true },
  segmenter: { pkgs: ["intl-segmenter"], data: false },
  displaynames: { pkgs: ["intl-displaynames"], data: true },
};

const version = (pkg) => JSON.parse(fs.readFileSync(path.join(nm, "@formatjs", pkg, "package.json"), "utf8")).version;

// One script: minified, names kept (Intl.NumberFormat.name is "NumberFormat"). `input` is bundled from stdin as a file of
// directory `cwd` (a patched polyfill resolves its own dependencies from its package).
function esbuild(entry, outfile, format, input, cwd = root, extra = []) {
  execFileSync(ESBUILD, [...(input === undefined ? [entry] : []), ...extra, "--bundle", `--format=${format}`, "--minify",
    "--keep-names", "--target=es2020", "--platform=neutral", "--main-fields=module,main", "--log-level=warning",
    "--legal-comments=none", "--charset=utf8", `--outfile=${outfile}`, ...(input === undefined ? [] : ["--sourcefile=" + entry])],
    { cwd, input, stdio: [input === undefined ? "ignore" : "pipe", "inherit", "inherit"] });
}

// intl-getcanonicallocales builds its language alias rules when it loads: it parses ~700 CLDR aliases and sorts them
// with a comparator that prints both tags (0.6M fuel, most of what every first use of Intl paid). The rules depend
// only on the package's data, so they are built here, by the package's own code in Node, and its index.js is bundled
// with them as JSON. Returns the path of that copy (esbuild's alias for the package).
async function canonicalizerWithRules(dir) {
  const file = path.join(nm, "@formatjs/intl-getcanonicallocales/index.js");
  const src = fs.readFileSync(file, "utf8");
  const start = src.indexOf("const languageAliasRules = Object.keys(languageAlias).reduce(");
  const endMark = "}, Object.create(null));\n";
  const end = src.indexOf(endMark, start);
  if (start < 0 || end < 0 || src.indexOf("const languageAliasRules =", start + 1) >= 0) {
    throw new Error("patch failed: @formatjs/intl-getcanonicallocales: languageAliasRules not found once");
  }
  const probe = path.join(dir, "canonicalizer-probe.mjs");
  fs.writeFileSync(probe, `${src}\nexport { languageAliasRules as swLanguageAliasRules };\n`);
  const rules = JSON.stringify((await import(probe)).swLanguageAliasRules);
  const copy = path.join(dir, "canonicalizer.mjs");
  fs.writeFileSync(copy, src.slice(0, start) +
    `const languageAliasRules = Object.assign(Object.create(null), JSON.parse(${JSON.stringify(rules)}));\n` +
    src.slice(end + endMark.length));
  return copy;
}

// A polyfill's polyfill-force.js with our patches (patches.mjs) applied.
function patched(pkg) {
  const file = path.join(nm, "@formatjs", pkg, "polyfill-force.js");
  let s = fs.readFileSync(file, "utf8");
  for (const [old, replacement] of PATCHES[pkg]) {
    const n = s.split(old).length - 1;
    if (n !== 1) throw new Error(`patch failed: @formatjs/${pkg}: pattern found ${n} times: ${old.slice(0, 80)}`);
    s = s.replace(old, () => replacement);
  }
  return s;
}

// The data a locale-data file hands to __addLocaleData, captured in a sandbox with a stand-in namespace.
function capture(pkg, tag) {
  const file = path.join(nm, "@formatjs", pkg, "locale-data", `${tag}.js`);
  const got = [];
  const stub = { __addLocaleData: (...d) => got.push(...d) };
  const Intl = new Proxy({}, { get: () => stub, has: () => true });
  vm.runInNewContext(fs.readFileSync(file, "utf8"), { Intl, globalThis: { Intl } }, { filename: file });
  if (got.length !== 1) throw new Error(`${file}: expected one __addLocaleData entry, got ${got.length}`);
  return got[0];
}

// Differences of b from a: objects recurse; anything else is replaced whole. DELETED marks a key b lacks.
const DELETED = "\u0000sw-intl-deleted";
function diff(a, b) {
  const isObj = (x) => x && typeof x === "object" && !Array.isArray(x);
  if (!isObj(a) || !isObj(b)) return JSON.stringify(a) === JSON.stringify(b) ? undefined : b;
  const d = {};
  let any = false;
  for (const k of Object.keys(b)) {
    const sub = k in a ? diff(a[k], b[k]) : b[k];
    if (sub !== undefined) { d[k] = sub; any = true; }
  }
  for (const k of Object.keys(a)) if (!(k in b)) { d[k] = DELETED; any = true; }
  return any ? d : undefined;
}

// A data chunk's source: JSON text parsed by JSON.parse (the script's completion value is the object). As one string
// constant the bytecode compresses like the JSON (an object literal's bytecode gzips ~1.6x larger) and JSON.parse
// builds the objects in C.
const literal = (obj) => `JSON.parse(${JSON.stringify(JSON.stringify(obj))})\n`;
// A chunk of code that installs itself on `Intl`: a function of it (the script's completion value), so that the
// polyfills read the namespace they were given, never the global a program may have replaced or deleted.
const ofIntl = (file) => fs.writeFileSync(file, `(function (Intl) {\n${fs.readFileSync(file, "utf8")}\n})\n`);

// The subtags of a tag; a script or a macro-region (en-001, es-419) makes a tag a candidate base of its language's
// other tags. Tags are written in an order in which every base comes before the tags patched from it.
const isMacro = (tag) => { const p = tag.split("-"); return p.length > 1 && (/^\d{3}$/.test(p[1]) || p[1].length === 4); };
const order = (a, b) => a.split("-").length - b.split("-").length || isMacro(b) - isMacro(a) || (a < b ? -1 : a > b ? 1 : 0);

// One family's data chunks for the selected locales. A tag's chunk is its whole data (a language, or a tag with no
// built-in relative) or a patch of an earlier tag of its language, whichever of those is the smallest: a truncation
// (zh-Hant for zh-Hant-HK), a script or macro-region tag (en-001 for en-AU, es-419 for es-AR) or the language.
// Returns the family's table entries, "tag" or "tag:base".
function writeLocaleData(family, f) {
  const pkg = f.pkgs[0];
  const dir = path.join(nm, "@formatjs", pkg, "locale-data");
  const have = fs.readdirSync(dir).filter((n) => n.endsWith(".js")).map((n) => n.slice(0, -3));
  const tags = (LOCALE_SET === "all" ? have : SELECTED.filter((t) => have.includes(t))).sort(order);
  const data = {};
  const entries = [];
  for (const tag of tags) {
    const name = `data-${family}-${tag}`;
    if (f.js) {
      // PluralRules data holds the rule as a function: the locale-data file itself is the chunk (it registers
      // with Intl.PluralRules, which is loaded first).
      fs.copyFileSync(path.join(dir, `${tag}.js`), path.join(out, `${name}.js`));
      ofIntl(path.join(out, `${name}.js`));
      entries.push(tag);
      continue;
    }
    let entryData = capture(pkg, tag);
    // V8 (Node, Chrome, workerd) prints U+0020 wherever CLDR 42+ puts U+202F (narrow no-break space) in a
    // date or time format ("9:05 AM", "2024 г."), for compatibility with code that parses its output; so do we.
    if (family === "datetimeformat") entryData = JSON.parse(JSON.stringify(entryData).replaceAll("\u202f", " "));
    // FormatJS's zh-Hant data has an empty default hour cycle, and its formats then put a day period before a
    // 24-hour hour ("下午18:45"). CLDR's time data for zh-Hant's region (TW) prefers h12, as Node resolves it.
    if (family === "datetimeformat" && tag === "zh-Hant" && entryData.data.hourCycle === "") entryData.data.hourCycle = "h12";
    if (entryData.locale !== tag) throw new Error(`${pkg} ${tag}: data says locale ${entryData.locale}`);
    data[tag] = entryData.data;
    const parts = tag.split("-");
    const candidates = Object.keys(data).filter((t) => t !== tag && t.split("-")[0] === parts[0] &&
      (tag.startsWith(`${t}-`) || isMacro(t)));
    let best = { locale: tag, data: entryData.data }, size = JSON.stringify(best).length;
    for (const base of candidates) {
      const c = { locale: tag, base, patch: diff(data[base], entryData.data) || {} };
      const n = JSON.stringify(c).length;
      if (n < size) [best, size] = [c, n];
    }
    fs.writeFileSync(path.join(out, `${name}.js`), literal(best));
    entries.push(best.base === undefined ? tag : `${tag}:${best.base}`);
  }
  return entries;
}

// For each CLDR tag with data that is not built in, the built-in tag of its language, other than the language itself,
// whose DateTimeFormat data is nearest its own (the fewest JSON bytes of difference), when it is nearer than the
// language's: "es-AR:es-419", "en-AU:en-GB", "pt-AO:pt-PT", "zh-HK:zh-Hant". The runtime loads it as a candidate,
// and FormatJS's best-fit matching then prefers it to the language (as CLDR's parent locales would).
function nearestBuiltIn() {
  if (LOCALE_SET === "all") return [];
  const dir = path.join(nm, "@formatjs/intl-datetimeformat/locale-data");
  const have = fs.readdirSync(dir).filter((n) => n.endsWith(".js")).map((n) => n.slice(0, -3));
  const cache = new Map();
  const data = (tag) => cache.get(tag) ?? cache.set(tag, capture("intl-datetimeformat", tag).data).get(tag);
  const out = [];
  for (const tag of have.filter((t) => t.includes("-") && !SELECTED.includes(t)).sort(order)) {
    const lang = tag.split("-")[0];
    const regional = SELECTED.filter((t) => t.startsWith(`${lang}-`));
    if (!SELECTED.includes(lang) || regional.length === 0) continue;
    const own = data(tag);
    const size = (t) => JSON.stringify(diff(data(t), own) || {}).length;
    let best = lang, n = size(lang);
    for (const t of regional) {
      const m = size(t);
      if (m < n) [best, n] = [t, m];
    }
    if (best !== lang) out.push(`${tag.replace(/^zh-Hant-/, "zh-")}:${best}`);
  }
  return out;
}

async function main() {
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  const chunks = [];
  const table = {};
  const tmp = path.join(out, ".entries");
  fs.mkdirSync(tmp);

  // The runtime: a CommonJS bundle wrapped so that its completion value is build() (touches no global on load).
  esbuild(path.join(here, "runtime.js"), path.join(tmp, "runtime.cjs"), "cjs");
  fs.writeFileSync(path.join(out, "runtime.js"),
    "(function(){var module={exports:{}},exports=module.exports;\n" +
    fs.readFileSync(path.join(tmp, "runtime.cjs"), "utf8") + "\nreturn module.exports.build})()\n");
  chunks.push("runtime");

  for (const [family, f] of Object.entries(FAMILIES)) {
    if (f.pkgs.length === 1 && PATCHES[f.pkgs[0]]) {
      esbuild("polyfill-force.js", path.join(out, `code-${family}.js`), "iife", patched(f.pkgs[0]),
        path.join(nm, "@formatjs", f.pkgs[0]));
    } else {
      const entry = path.join(tmp, `${family}.mjs`);
      fs.writeFileSync(entry, f.entry ? f.entry((p, file) => path.join(nm, "@formatjs", p, file))
        : f.pkgs.map((p) => `import ${JSON.stringify(path.join(nm, "@formatjs", p, "polyfill-force.js"))};`).join("\n") + "\n");
      esbuild(entry, path.join(out, `code-${family}.js`), "iife", undefined, root,
        family === "locale" ? [`--alias:@formatjs/intl-getcanonicallocales=${await canonicalizerWithRules(tmp)}`] : []);
    }
    ofIntl(path.join(out, `code-${family}.js`));
    chunks.push(`code-${family}`);
    if (!f.data) continue;
    table[family] = writeLocaleData(family, f).join(",");
    chunks.push(...table[family].split(",").map((t) => `data-${family}-${t.split(":")[0]}`));
  }
  // The locale table: per family, every built-in tag, with the tag its chunk is a patch of ("en-AU:en-001"); and for
  // a tag that is not built in, the built-in regional tag whose data is nearest its own (es-AR: es-419), if any.
  table.nearest = nearestBuiltIn().join(",");
  fs.writeFileSync(path.join(out, "data-locales.js"), literal(table));
  chunks.push("data-locales");

  // Time zones: FormatJS's golden set as one packed object; the runtime unpacks each zone on first use.
  {
    const file = path.join(nm, "@formatjs/intl-datetimeformat/add-golden-tz.js");
    let packed;
    const Intl = { DateTimeFormat: { __addTZData: (d) => { packed = d; } } };
    vm.runInNewContext(fs.readFileSync(file, "utf8"), { Intl, globalThis: { Intl } }, { filename: file });
    // One chunk per zone (its packed transitions), and `tz` with the shared tables and the zone names: a program
    // that formats in one zone holds that zone's data, not all 246 (~0.8 MB of strings).
    const names = packed.zones.map((z) => z.slice(0, z.indexOf("|")));
    fs.writeFileSync(path.join(out, "tz.js"), literal({ abbrvs: packed.abbrvs, offsets: packed.offsets, names }));
    chunks.push("tz");
    packed.zones.forEach((z, i) => {
      fs.writeFileSync(path.join(out, `tz-${i}.js`), literal(z));
      chunks.push(`tz-${i}`);
    });
  }

  // Intl.supportedValuesOf: FormatJS answers by probing a constructor with every candidate value (a NumberFormat per
  // currency, a DateTimeFormat per zone: 10M fuel, and more than the budget for "timeZone"). The answers depend only on
  // the code and data above, so they are computed here, by the same chunks in a Node vm with no native Intl, and
  // shipped as one more chunk. "collation" is left to the runtime (it probes Intl.Collator, if there is one).
  fs.writeFileSync(path.join(out, "data-values.js"), literal(supportedValues()));
  chunks.push("data-values");

  fs.rmSync(tmp, { recursive: true, force: true });
  const manifest = {
    chunks,
    groups: groups(chunks),
    localeSet: LOCALE_SET,
    locales: Object.fromEntries(Object.entries(table).map(([k, v]) => [k, v.split(",").length])),
    packages: Object.fromEntries(Object.values(FAMILIES).flatMap((f) => f.pkgs).map((p) => [`@formatjs/${p}`, version(p)])),
  };
  fs.writeFileSync(path.join(out, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
  console.log(`    ${chunks.length} Intl chunk sources in ${path.relative(root, out)}`);
}

// How the archive stores the chunks (docs/intl.md, "How they are stored"): in groups, each either one raw LZMA2
// stream that the driver decodes up to the chunk a load wants ("xz") or stored as it is ("stored"). A family's data
// chunks of one language are one group (a tag's chunk is a patch of an earlier tag of its language: they share the
// most), in the order they were written (every base before the tags patched from it, so a tag decodes its bases on
// the way); the zones are one group (`tz`, their shared tables, comes first); every other chunk is a group of its own.
// The code chunks (runtime, code-*) are stored: every first use reads some, and bytecode compresses only ~4x, so
// decoding it costs ~0.6 fuel per byte (0.2M for code-locale alone), where JSON data compresses 10-20x and decodes
// for a fraction of that. Returns [[group, method, [chunk...]], ...].
function groups(chunks) {
  const m = new Map();
  for (const c of chunks) {
    const d = /^data-([a-z]+)-([a-z]+)(?:-|$)/.exec(c);
    const g = d ? `data-${d[1]}-${d[2]}` : /^tz(?:-|$)/.test(c) ? "tz" : c;
    if (!m.has(g)) m.set(g, [g, /^(runtime|code-.*)$/.test(g) ? "stored" : "xz", []]);
    m.get(g)[2].push(c);
  }
  return [...m.values()];
}

function supportedValues() {
  const context = vm.createContext({});
  vm.runInContext("delete globalThis.Intl; globalThis.Intl = {};", context);
  const run = (name) => vm.runInContext(fs.readFileSync(path.join(out, `${name}.js`), "utf8"), context, { filename: name });
  const ns = vm.runInContext("Intl", context);
  for (const family of ["locale", "pluralrules", "numberformat", "datetimeformat"]) run(`code-${family}`)(ns);
  run("data-pluralrules-en")(ns);
  context.nf = run("data-numberformat-en");
  context.dtf = run("data-datetimeformat-en");
  const tzIndex = run("tz");
  context.tz = { abbrvs: tzIndex.abbrvs, offsets: tzIndex.offsets, zones: tzIndex.names.map((_, i) => run(`tz-${i}`)) };
  const supported = JSON.parse(vm.runInContext(`
    Intl.NumberFormat.__defaultLocale = Intl.DateTimeFormat.__defaultLocale = Intl.PluralRules.__defaultLocale = "en-US";
    Intl.NumberFormat.__addLocaleData(nf);
    Intl.DateTimeFormat.__addLocaleData(dtf);
    Intl.DateTimeFormat.__addTZData(tz);
    JSON.stringify(Object.fromEntries(["calendar", "currency", "numberingSystem", "timeZone", "unit"]
      .map((k) => [k, Intl.supportedValuesOf(k)])));`, context));
  return { supportedValuesOf: supported };
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
