// An engine's limits have one home: `limits` in its manifest, engines/<id>/engine.json (the protocol's request caps,
// codeBytes and requestBytes, are cpp/abi/abi.def's). engine.js reads them through manifestLimits(manifest)
// (worker-shim/limits.js), the gateway through PLAYGROUND_LANGUAGES (scripts/languages.mjs), a build script through
// sw_memory_bytes (scripts/lib.sh). This lint fails when an engine's folder or its build script states one again: a
// number equal to the manifest's fuel or memoryBytes (1_000, 1,000 and 1000 alike, comments included: a restated
// number drifts as well in prose), or a memory cap given to the linker or the fuel tool as a literal. It reads the
// source only: no build, well under a second.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ROOT, loadLanguages } from "../../scripts/languages.mjs";

// Source files of an engine folder; tests, build output, third-party patches and data (JSON, Markdown) are not scanned.
const SOURCE = /\.(js|mjs|cjs|ts|c|h|cpp|sh|py|rb|pl|jsonc)$/;
const SKIPPED_DIRS = new Set(["build", "test", "patches", "node_modules"]);
// A number, with digit groups separated by "_" or ",".
const NUMBER = /(?<![\w.])\d{1,3}(?:[_,]\d{3})+(?![\w])|(?<![\w.])\d+(?![\w.])/g;
// A memory cap handed to a tool as a literal: the linker's --max-memory, the fuel tool's --max-pages, a *_MAX_PAGES.
const LITERAL_CAP = /--max-memory=\d|--max-pages\s+\d|MAX_PAGES=\d/;

function sourceFiles(root, dir) {
  const out = [];
  const walk = (rel) => {
    for (const entry of readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const child = `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name) && !entry.name.startsWith(".")) walk(child); // .wrangler: dev bundles
      } else if (SOURCE.test(entry.name)) {
        out.push(child);
      }
    }
  };
  walk(dir);
  return out;
}

/** Every place under `root` where a language's fuel or memory limit is restated: "file:line: what". */
export function restatedLimits(root, languages) {
  const found = [];
  for (const l of languages) {
    const values = new Map([[String(l.limits.fuel), "limits.fuel"], [String(l.limits.memoryBytes), "limits.memoryBytes"]]);
    const files = sourceFiles(root, l.dir);
    const script = `scripts/engines/${l.id}.sh`;
    if (existsSync(path.join(root, script))) files.push(script);
    for (const file of files) {
      readFileSync(path.join(root, file), "utf8").split("\n").forEach((line, i) => {
        for (const [n] of line.matchAll(NUMBER)) {
          const what = values.get(n.replace(/[_,]/g, ""));
          // 0 (an unmetered engine's fuel) is too common a number to mean the limit.
          if (what && n !== "0") found.push(`${file}:${i + 1}: ${what} ${n} (read it from ${l.dir}/engine.json)`);
        }
        if (LITERAL_CAP.test(line)) found.push(`${file}:${i + 1}: a literal memory cap (sw_memory_bytes ${l.id}, scripts/lib.sh)`);
      });
    }
  }
  return found;
}

test("no engine folder or build script restates a limit of its manifest (engines/<id>/engine.json is the one table)", () => {
  const languages = loadLanguages({ dirs: ["engines", "test/fixtures/engines"] });
  assert.ok(languages.length >= 2);
  assert.deepEqual(restatedLimits(ROOT, languages), []);
});

test("the lint finds a restated limit: in engine.js, in a comment, and as a literal cap in a build script", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "sw-lint-limits-"));
  try {
    mkdirSync(path.join(dir, "engines/toy/build"), { recursive: true });
    mkdirSync(path.join(dir, "engines/toy/.wrangler"), { recursive: true });
    writeFileSync(path.join(dir, "engines/toy/.wrangler/worker.js"), "const bundled = 5000000;\n");
    mkdirSync(path.join(dir, "scripts/engines"), { recursive: true });
    writeFileSync(path.join(dir, "engines/toy/engine.js"),
      "export const toy = {\n  limits: { fuel: 5_000_000, memoryBytes: 1048576 },\n};\n// about 5,000,000 units\nconst ok = 50000001;\n");
    writeFileSync(path.join(dir, "engines/toy/build/engine-build.js"), "export const limit = 5000000;\n");
    writeFileSync(path.join(dir, "scripts/engines/toy.sh"), "TOY_MAX_PAGES=16\nLDFLAGS=(-Wl,--max-memory=$(sw_memory_bytes toy))\n");
    const toy = { id: "toy", dir: "engines/toy", limits: { fuel: 5000000, memoryBytes: 1048576 } };
    assert.deepEqual(restatedLimits(dir, [toy]), [
      "engines/toy/engine.js:2: limits.fuel 5_000_000 (read it from engines/toy/engine.json)",
      "engines/toy/engine.js:2: limits.memoryBytes 1048576 (read it from engines/toy/engine.json)",
      "engines/toy/engine.js:4: limits.fuel 5,000,000 (read it from engines/toy/engine.json)",
      "scripts/engines/toy.sh:1: a literal memory cap (sw_memory_bytes toy, scripts/lib.sh)",
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
