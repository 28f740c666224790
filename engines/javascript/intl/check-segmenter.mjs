#!/usr/bin/env node
// Checks the intl-segmenter patches (patches.mjs) against FormatJS as shipped, in Node: both bundles, each in its own
// vm context, segment the same pseudo-random strings (words, abbreviations, CJK, emoji, flags, combining marks, lone
// surrogates, line breaks) for 17 locales and every granularity, and answer containing() at a random index; every
// answer must be equal. Exit status 1 on any difference. ~30 s for the default 300 strings on a busy core.
//   node engines/javascript/intl/check-segmenter.mjs [STRINGS]
import fs from "node:fs"; import vm from "node:vm"; import { execFileSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PATCHES } from "./patches.mjs";
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const dir = path.join(root, "node_modules/@formatjs/intl-segmenter");
let src = fs.readFileSync(dir + "/polyfill-force.js", "utf8");
let pat = src;
for (const [o, n] of PATCHES["intl-segmenter"]) { const c = pat.split(o).length - 1; if (c !== 1) throw new Error("count " + c + " " + o.slice(0, 60)); pat = pat.replace(o, () => n); }
const bundle = (input) => execFileSync(path.join(root, "node_modules/.bin/esbuild"), ["--bundle", "--format=iife", "--platform=neutral", "--main-fields=module,main", "--target=es2020", "--sourcefile=polyfill-force.js"], { cwd: dir, input }).toString();
const ctx = (code) => { const c = vm.createContext({}); vm.runInContext(code, c); return c; };
const A = ctx(bundle(src)), B = ctx(bundle(pat));
const seg = (c, loc, g, s) => { c.args = [loc, g, s]; return vm.runInContext("JSON.stringify([...new Intl.Segmenter(args[0], {granularity: args[1]}).segment(args[2])].map(x => [x.segment, x.index, x.isWordLike]))", c); };
const cont = (c, loc, g, s, i) => { c.args = [loc, g, s, i]; return vm.runInContext("JSON.stringify(new Intl.Segmenter(args[0], {granularity: args[1]}).segment(args[2]).containing(args[3]))", c); };
const pieces = ["Hello", ", ", "world", "!", " ", "Mr.", " Smith", "e.g.", " Dr. No", "\n", "\r\n", "3.14", "1,000", "can't", "日本語", "の", "文章です", "。", "🇯🇵", "🇺🇸🇫🇷", "👨‍👩‍👧", "e\u0301", "\u200d", "\u00ad", "ñ", "Ünïcödé", "  ", "\t", "?", "...", "\"Quote.\" ", "x", "\ud800", "\udc00", "카", "ไทย", "مرحبا", "привет", "z.B.", " Hr.", "etc.", "U.S.A.", "@", "_", "-", "'", "５", "ｶﾀｶﾅ", "カタカナー", "\u2028", "(a)", "a.b", "1.", "St. ", " Nr. 5"];
let rnd = 12345; const r = (n) => { rnd = (rnd * 1103515245 + 12345) & 0x7fffffff; return rnd % n; };
const locales = ["en", "en-US", "de", "fr", "es", "it", "ja", "zh", "ru", "pt", "ar", "hi", "fi", "sv", "el", "nl", "ko"];
let n = 0, bad = 0;
for (let t = 0; t < Number(process.argv[2] || 400); t++) {
  let s = ""; const k = 1 + r(8); for (let i = 0; i < k; i++) s += pieces[r(pieces.length)];
  const loc = locales[r(locales.length)];
  for (const g of ["grapheme", "word", "sentence"]) {
    const a = seg(A, loc, g, s), b = seg(B, loc, g, s); n++;
    if (a !== b) { bad++; if (bad < 5) console.log("DIFF", loc, g, JSON.stringify(s), a, b); }
    const i = r(s.length + 1); const ca = cont(A, loc, g, s, i), cb = cont(B, loc, g, s, i);
    if (ca !== cb) { bad++; if (bad < 5) console.log("DIFFc", loc, g, JSON.stringify(s), i, ca, cb); }
  }
}
console.log(`compared ${n} segmentations and ${n} containing() answers: ${bad} differ`);
process.exitCode = bad ? 1 : 0;
