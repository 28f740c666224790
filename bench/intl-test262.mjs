#!/usr/bin/env node
// Test262's intl402 tests of the folders given (default: DisplayNames) through the JavaScript engine, one fresh
// instance per test (bench/intl-engine.mjs: the Worker's engine, /stdlib and fuel metering), and the pass rate. Not the
// project's Test262 runner (branch esnext writes that one); a check of the Intl build (docs/intl.md, "Tests").
// Reads ../shared/test262-subset (its README: the front matter, harness/assert.js + sta.js + includes).
//
//   node bench/intl-test262.mjs [--dir ../shared/test262-subset] [--archive PATH/stdlib.tar] [--every N] [FOLDER...]
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { instance } from "./intl-engine.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values: opts, positionals } = parseArgs({ allowPositionals: true, options: {
  dir: { type: "string", default: path.join(root, "../shared/test262-subset") },
  archive: { type: "string" }, every: { type: "string", default: "1" }, verbose: { type: "boolean" } } });
const dir = path.resolve(opts.dir);
const harness = (f) => fs.readFileSync(path.join(dir, "harness", f), "utf8");
const files = (d) => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) =>
  e.isDirectory() ? files(path.join(d, e.name)) : e.name.endsWith(".js") && !e.name.includes("_FIXTURE") ? [path.join(d, e.name)] : []);
const tests = (positionals.length ? positionals : ["DisplayNames"])
  .flatMap((f) => files(path.join(dir, "test/intl402", f)).sort()).filter((_, i) => i % Number(opts.every) === 0);

let pass = 0, skipped = 0;
const failures = [];
for (const file of tests) {
  const src = fs.readFileSync(file, "utf8");
  const meta = (src.match(/\/\*---([\s\S]*?)---\*\//) || [, ""])[1];
  const list = (key) => ((meta.match(new RegExp(`${key}:\\s*\\[([^\\]]*)\\]`)) || [, ""])[1]).split(",").map((s) => s.trim()).filter(Boolean);
  const flags = list("flags");
  if (flags.includes("module") || flags.includes("async")) { skipped++; continue; }
  const negative = /negative:\s*\n\s*phase:\s*(\w+)\s*\n\s*type:\s*(\w+)/.exec(meta);
  const code = (flags.includes("raw") ? "" : [harness("assert.js"), harness("sta.js"), ...list("includes").map(harness)].join("\n")) +
    "\n" + src + "\n;'sw-test262-done'";
  const inst = instance({ ...(opts.archive ? { archive: path.resolve(opts.archive) } : {}) });
  let outcome;
  try {
    outcome = inst.evaluate(flags.includes("onlyStrict") ? `"use strict";\n${code}` : code).outcome;
  } finally {
    inst.close();
  }
  const ok = negative ? outcome.error?.name === negative[2] : !outcome.error;
  if (ok) pass++;
  else failures.push(`${path.relative(dir, file)}: ${outcome.error ? `${outcome.error.name}: ${outcome.error.message}` : "no error"}`);
}
const ran = tests.length - skipped;
console.log(`${pass}/${ran} passed (${(100 * pass / ran).toFixed(1)}%), ${skipped} skipped (module/async)`);
for (const f of failures) console.log(`  FAIL ${f}`);
