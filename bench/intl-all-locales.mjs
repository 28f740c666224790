#!/usr/bin/env node
// Sizes of the all-locales Intl archive (docs/intl.md, "Every CLDR locale: the measured design") under each way of
// storing its chunks: as today (stored members; the upload's gzip sees the whole archive), each chunk compressed on
// its own, and chunks compressed together in groups (a group is decoded whole, or up to the chunk, on first use).
// Sizes only, no engine: the decoder's cost is estimated from the bytes it must produce.
//
//   node bench/intl-all-locales.mjs ARCHIVE [--xz] [--groups-only] [--json FILE]
//
// --groups-only skips "each chunk alone" (thousands of compressor runs: over 25 minutes for the all-locales archive on
// the 2-core machine); --design-only measures only the design's grouping (the second line).
//
// ARCHIVE: a /stdlib archive, its chunks as members (before the groups) or in groups with intl/index (tar.mjs's
//   readChunks), e.g. engines/javascript/build/stdlib-all-locales.tar (scripts/engines/javascript.sh builds it).
//   Needs the `zstd` and `xz` commands.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import zlib from "node:zlib";
import { readChunks } from "./intl-lzma/tar.mjs";

const args = process.argv.slice(2);
const archive = args.find((a) => !a.startsWith("--") && args[args.indexOf(a) - 1] !== "--json");
if (!archive) throw new Error("usage: node bench/intl-all-locales.mjs ARCHIVE [--xz] [--groups-only | --design-only] [--json FILE]");
const withXz = args.includes("--xz");
const groupsOnly = args.includes("--groups-only") || args.includes("--design-only");
const designOnly = args.includes("--design-only");
const jsonOut = args.includes("--json") ? args[args.indexOf("--json") + 1] : null;

const tarBytes = fs.readFileSync(archive);
const chunks = [...readChunks(tarBytes)].map(([n, b]) => ({ name: n.slice(5, -4), b }));
const family = (c) => (c.name.match(/^data-([a-z]+)-/) || [null, c.name.startsWith("tz") ? "tz" : "code"])[1];
const language = (c) => (c.name.match(/^data-[a-z]+-([a-z]+)/) || [null, ""])[1];
const gz = (b) => zlib.gzipSync(b, { level: 9 }).length;
const zstd = (b) => execFileSync("zstd", ["-19", "--long=27", "-T1", "-q", "-c"], { input: b, maxBuffer: 1 << 30 }).length;
// Raw LZMA2 (no container: the archive's index says where each chunk is), its dictionary as large as the input.
const xzDict = (n) => Math.min(64 << 20, Math.max(4096, 2 ** Math.ceil(Math.log2(n))));
const xz = (b) => execFileSync("xz", ["-T1", "-c", "--format=raw", `--lzma2=preset=9e,dict=${xzDict(b.length)}`], { input: b, maxBuffer: 1 << 30 }).length;
const raw = chunks.reduce((s, c) => s + c.b.length, 0);
const kib = (n) => (n / 1024).toLocaleString("en-US", { maximumFractionDigits: 1 });

// Groups: a list of chunk lists. Each group is compressed as one stream (its members concatenated); its cost on first
// use is the bytes decoded (the whole group, at worst).
function measure(label, groups) {
  const r = { label, groups: groups.length, zstd: 0, xz: withXz ? 0 : null, maxGroupRaw: 0 };
  for (const g of groups) {
    const b = Buffer.concat(g.map((c) => c.b));
    r.maxGroupRaw = Math.max(r.maxGroupRaw, b.length);
    r.zstd += zstd(b);
    if (withXz) r.xz += xz(b);
  }
  console.log(`${label.padEnd(58)} ${String(groups.length).padStart(5)} groups  zstd ${kib(r.zstd).padStart(9)} KiB` +
    (withXz ? `  xz ${kib(r.xz).padStart(9)} KiB` : "") + `  largest group ${kib(r.maxGroupRaw)} KiB raw`);
  return r;
}
function groupBy(key) {
  const m = new Map();
  for (const c of chunks) { const k = key(c); if (!m.has(k)) m.set(k, []); m.get(k).push(c); }
  return [...m.values()];
}

console.log(`${chunks.length} chunks, ${raw.toLocaleString("en-US")} bytes raw (${kib(raw)} KiB)`);
console.log(`stored, as today: the archive's gzip -9 ${kib(gz(tarBytes))} KiB; each chunk gzip -9 ${kib(chunks.reduce((s, c) => s + gz(c.b), 0))} KiB`);
const isCode = (c) => family(c) === "code";
const results = [
  ...(groupsOnly ? [] : [measure("each chunk alone", chunks.map((c) => [c]))]),
  // The design (docs/intl.md): a code chunk alone, the zones one group, a family's data one group per language.
  measure("code chunks alone, tz one group, data per family and language",
    [...chunks.filter(isCode).map((c) => [c]), ...groupBy((c) => `${family(c)} ${language(c)}`).filter((g) => !isCode(g[0]))]),
  ...(designOnly ? [] : [
  measure("one group per family and language", groupBy((c) => `${family(c)} ${language(c)}`)),
  measure("one group per language (every family), code and tz alone", groupBy((c) => language(c) || c.name)),
  measure("one group per family, 16 languages each", (() => {
    const out = [];
    for (const g of groupBy(family)) {
      const langs = [...new Set(g.map(language))];
      for (let i = 0; i < langs.length; i += 16) { const s = new Set(langs.slice(i, i + 16)); out.push(g.filter((c) => s.has(language(c)))); }
    }
    return out;
  })()),
  measure("one group per family (the whole family solid)", groupBy(family)),
  ]),
];
if (jsonOut) fs.writeFileSync(jsonOut, JSON.stringify({ archive, chunks: chunks.length, raw, results }, null, 2));
