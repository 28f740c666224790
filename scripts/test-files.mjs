// node scripts/test-files.mjs [--concurrency N] [--timeout MS] TEST_FILE...
// Runs node:test files N at a time, each in its own process, in the order given (as `node --test --test-concurrency=N
// --test-force-exit --test-timeout=MS` does), prints the spec reporter's output and then a table of every file's
// seconds (the sum of its top-level tests), longest first. Exit code 1 when a test failed.
//
// Tried and dropped: starting the longest files first (by the last run's seconds). On two cores the name order already
// ends within 20 s of the ideal (the files' total over two), so there is little to win; the one run with the longest
// first took 424 s against 364 s in name order, every file slower, which one run cannot tell from machine noise.
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
const files = args.map((f) => path.resolve(f));
if (!files.length) {
  console.error("usage: node scripts/test-files.mjs [--concurrency N] [--timeout MS] TEST_FILE...");
  process.exit(2);
}

const seconds = {};
const stream = run({ files, concurrency, timeout, forceExit: true });
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
  const total = rows.reduce((sum, [, s]) => sum + s, 0);
  process.stdout.write(`\nseconds per file (its top-level tests; ${concurrency} files at a time; ${total.toFixed(1)} s in all):\n`);
  for (const [name, s] of rows) process.stdout.write(`  ${s.toFixed(1).padStart(7)} s  ${name}\n`);
});
