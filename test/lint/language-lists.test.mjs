// A language is data plus a folder (docs/adding-an-engine.md): its manifest, engines/<id>/engine.json, is read by
// everything that lists languages. This lint fails when two or more languages are named side by side outside their
// engine folders -- a hand-kept list that the next language would have to edit, and that drifts (the .d.ts union of
// built-in drivers once lacked ruby). It reads the source only: no build, about a second.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { ROOT, loadLanguages } from "../../scripts/languages.mjs";

// What is scanned: the product (C++, shim, gateway, CLI, scripts, build files). Tests, benchmarks and docs may name
// languages: they exercise or describe particular ones.
const SCANNED = /^(cpp|worker-shim|gateway|cli|scripts)\/|^[^/]+$/;
const EXTENSIONS = /\.(cpp|h|inc|def|c|js|mjs|cjs|ts|sh|json|jsonc|py|txt|html|cmake)$|(^|\/)CMakeLists\.txt$/;
// Each with the reason it may name several languages.
const ALLOWED = new Map([
]);
const WINDOW = 6; // lines: names this close together form a list

/** Every place where two languages are named within WINDOW lines of each other, in the files under `root`. */
export function handKeptLists(root, languages, allowed = ALLOWED) {
  const names = new Map();
  for (const l of languages) for (const n of [l.id, l.binding, l.name]) names.set(n, l.id);
  const alternatives = [...names.keys()].map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|");
  // A name as a list item: a quoted literal ("perl", 'PERL', `Perl`), an object key (perl:), a shell case arm (perl)),
  // a path into its folder (engines/perl/) or to a file named after it (cpp/wasmify/perl.cpp), a bash array key ([perl]=).
  const item = new RegExp(
    `(["'\`])(${alternatives})\\1|(?:^|[\\s{,])(${alternatives})\\s*:(?!:)|^\\s*(${alternatives})\\)|engines/(${alternatives})/|\\[(${alternatives})\\]=|/(${alternatives})\\.(?:cpp|h|c|sh|js|mjs|py)\\b`, "g");
  const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], { cwd: root, encoding: "utf8" })
    .split("\n")
    .filter((f) => SCANNED.test(f) && EXTENSIONS.test(f) && !allowed.has(f) && !f.startsWith("engines/"));
  const found = [];
  for (const file of files) {
    let text;
    try {
      text = readFileSync(path.join(root, file), "utf8");
    } catch {
      continue; // deleted in the working tree
    }
    const hits = []; // [line, language]
    text.split("\n").forEach((line, i) => {
      for (const m of line.matchAll(item)) hits.push([i + 1, names.get(m[2] ?? m[3] ?? m[4] ?? m[5] ?? m[6] ?? m[7])]);
    });
    for (const [line, language] of hits) {
      const near = new Set(hits.filter(([l]) => Math.abs(l - line) <= WINDOW).map(([, id]) => id));
      if (near.size >= 2) {
        found.push(`${file}:${line}: ${[...near].sort().join(", ")}`);
        break; // one report per file is enough to find it
      }
    }
  }
  return found;
}

test("no hand-kept list of languages outside the engine folders (engines/<id>/engine.json is the one list)", () => {
  const languages = loadLanguages({ dirs: ["engines"] });
  assert.ok(languages.length >= 2, "the lint needs at least two manifests to find a list");
  assert.deepEqual(handKeptLists(ROOT, languages), []);
});

test("every allowed file still names languages side by side (an entry that no longer needs its exception goes)", () => {
  const languages = loadLanguages({ dirs: ["engines"] });
  const flagged = handKeptLists(ROOT, languages, new Map()).map((row) => row.split(":")[0]);
  assert.deepEqual([...ALLOWED.keys()].filter((f) => !flagged.includes(f)), []);
});

test("the lint finds a hand-kept list: a file naming two languages side by side is reported", async () => {
  const { mkdtempSync, writeFileSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const dir = mkdtempSync(path.join(tmpdir(), "sw-lint-"));
  try {
    execFileSync("git", ["init", "-q"], { cwd: dir });
    writeFileSync(path.join(dir, "start.sh"), 'case "$l" in\n  python) x ;;\n  perl) y ;;\nesac\n');
    writeFileSync(path.join(dir, "one.js"), 'const only = "python";\n');
    const languages = loadLanguages({ dirs: ["engines"] });
    assert.deepEqual(handKeptLists(dir, languages), ["start.sh:2: perl, python"]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
