// What a typical code context stores (its snapshot's rows, `context.snapshot.storedBytes`), per engine: the figures
// behind the default INTERPRETER_MAX_SNAPSHOT_BYTES in every wrangler config (docs/limits.md, "Snapshot size").
// Each engine's runtime Worker runs in workerd (Miniflare) with a caller Worker; one context executes a few typical
// programs, and the largest storedBytes seen is printed.
//
//   node bench/context-storage.mjs [--language javascript,python,perl,ruby,lua] [--root <checkout>]
//
// --root runs the Workers of another (built) checkout, e.g. a worktree of the main branch: old and new side by side.
import { parseArgs } from "node:util";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const { values: opts } = parseArgs({
  options: { language: { type: "string", default: "javascript,python,perl,ruby,lua" }, root: { type: "string" } },
});
const ROOT = path.resolve(opts.root ?? path.join(path.dirname(new URL(import.meta.url).pathname), ".."));
const { helperWorkerOptions, runtimeWorkerOptions, startMiniflare } =
  await import(pathToFileURL(path.join(ROOT, "test/integration/helpers.mjs")).href);

// Typical first rounds of a context: define state, use a library, print.
const PROGRAMS = {
  javascript: [
    "var rows = Array.from({ length: 1000 }, (_, i) => ({ i, sq: i * i })); rows.length",
    "function total(a) { return a.reduce((s, r) => s + r.sq, 0); } total(rows)",
    "console.log(JSON.stringify(rows.slice(0, 3))); new Date(0).toISOString()",
  ],
  python: [
    "import json, math, re, collections\nrows = [{'i': i, 'sq': i * i} for i in range(1000)]\nlen(rows)",
    "def total(a):\n    return sum(r['sq'] for r in a)\ntotal(rows)",
    "print(json.dumps(rows[:3]))\ncollections.Counter('hello world').most_common(2)",
  ],
  perl: [
    "our @rows = map { { i => $_, sq => $_ * $_ } } 0..999; scalar @rows",
    "use List::Util qw(sum); sub total { sum(map { $_->{sq} } @_) } total(@rows)",
    "print join(',', map { $_->{sq} } @rows[0..2]), \"\\n\"; sprintf('%.3f', atan2(1, 1) * 4)",
  ],
  ruby: [
    'require "json"; rows = (0...1000).map { |i| { i: i, sq: i * i } }; rows.size',
    "def total(a) = a.sum { |r| r[:sq] }; total(rows)",
    'puts JSON.generate(rows.first(3)); format("%.3f", Math::PI)',
  ],
  lua: [
    "rows = {} for i = 0, 999 do rows[#rows + 1] = { i = i, sq = i * i } end return #rows",
    "function total(a) local s = 0 for _, r in ipairs(a) do s = s + r.sq end return s end return total(rows)",
    "print(rows[1].sq, rows[2].sq) return string.format('%.3f', math.pi)",
  ],
};

const persist = mkdtempSync(path.join(tmpdir(), "sw-context-storage-"));
const languages = opts.language.split(",");
const mf = await startMiniflare(
  [
    helperWorkerOptions({
      name: "caller", entry: "context-caller.js",
      serviceBindings: Object.fromEntries(languages.map((l) => [l.toUpperCase(), `runtime-${l}`])),
    }),
    ...languages.map((l) => runtimeWorkerOptions({ name: `runtime-${l}`, language: l, routes: [`${l}.test/*`] })),
  ],
  { resourcePersistencePath: persist },
);
const post = async (p, body) =>
  (await mf.dispatchFetch(new URL(p, "https://caller.test"), {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body),
  })).json();
try {
  for (const language of languages) {
    const binding = language.toUpperCase();
    const created = await post("/forward", { binding, path: "/interpreters/bench/contexts", body: { id: "c" } });
    if (created.status !== 201) throw new Error(`${language}: create: ${JSON.stringify(created)}`);
    const stored = [];
    for (const code of PROGRAMS[language]) {
      const r = await post("/run", { binding, key: "bench", contextId: "c", code });
      if (!r.ok || r.result.error) throw new Error(`${language}: ${JSON.stringify(r).slice(0, 400)}`);
      stored.push(r.result.context.snapshot.storedBytes);
    }
    const mib = (n) => (n / 1048576).toFixed(2);
    console.log(`${language}: storedBytes per round ${stored.join(", ")} (max ${mib(Math.max(...stored))} MiB)`);
  }
} finally {
  await mf.dispose();
  rmSync(persist, { recursive: true, force: true });
}
