// node scripts/test-files.mjs [--concurrency N] [--timeout MS] [--times FILE] TEST_FILE...
// Runs node:test files N at a time (each in its own process, as `node --test` does), the longest first: with two at a
// time, a long file started last is the whole run's tail, and `node --test` sorts its files by name. A file's length
// is what the last run measured (the sum of its top-level tests, kept in --times, outside the checkout); a file the
// times do not know goes first, then the rest longest first. Prints the spec reporter's output, then a table of every
// file's seconds, and writes the new times. Exit code 1 when a test failed. The times only order the files: nothing
// asserts on them.
import fs from "node:fs";
import path from "node:path";
import { run } from "node:test";
import { spec } from "node:test/reporters";

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const [, value] = args.splice(i, 2);
  return value;
};
const concurrency = Number(opt("--concurrency", "2"));
const timeout = Number(opt("--timeout", "600000"));
const timesPath = opt("--times", null);
const files = args.map((f) => path.resolve(f));
if (!files.length) {
  console.error("usage: node scripts/test-files.mjs [--concurrency N] [--timeout MS] [--times FILE] TEST_FILE...");
  process.exit(2);
}

let last = {};
try { last = JSON.parse(fs.readFileSync(timesPath, "utf8")); } catch { /* first run, or no --times: names' order */ }
const known = (f) => last[path.basename(f)] ?? Infinity;
const ordered = files.map((f, i) => [f, i]).sort((a, b) => known(b[0]) - known(a[0]) || a[1] - b[1]).map(([f]) => f);

const seconds = {};
const stream = run({ files: ordered, concurrency, timeout, forceExit: true });
stream.on("test:fail", () => { process.exitCode = 1; });
for (const type of ["test:pass", "test:fail"]) {
  stream.on(type, ({ nesting, file, details }) => {
    if (nesting !== 0 || !file) return;
    const name = path.basename(file);
    seconds[name] = (seconds[name] ?? 0) + (details?.duration_ms ?? 0) / 1000;
  });
}
stream.compose(spec).pipe(process.stdout);
stream.on("end", () => {
  const rows = Object.entries(seconds).sort((a, b) => b[1] - a[1]);
  process.stdout.write(`\nseconds per file (its top-level tests; ${concurrency} files at a time, longest first by the last run):\n`);
  for (const [name, s] of rows) process.stdout.write(`  ${s.toFixed(1).padStart(7)} s  ${name}\n`);
  if (timesPath && rows.length) {
    fs.mkdirSync(path.dirname(timesPath), { recursive: true });
    const rounded = Object.fromEntries(rows.map(([n, s]) => [n, Math.round(s * 10) / 10]));
    fs.writeFileSync(timesPath + ".tmp", JSON.stringify({ ...last, ...rounded }, null, 1) + "\n");
    fs.renameSync(timesPath + ".tmp", timesPath);
  }
});
