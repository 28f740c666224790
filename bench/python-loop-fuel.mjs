#!/usr/bin/env node --no-turbo-fast-api-calls
// Benchmark (not a test): the fuel (deterministic) of a million iterations of `s += i` at a Python program's top level
// and inside a function, on engines/python/build/engine.wasm or the given engine.wasm files (docs/fuel.md, "What the
// seed's Python budget does not buy"). Runs under node:wasi with an unbounded JS meter (engines/python/test/harness.mjs).
//
//   node --no-turbo-fast-api-calls bench/python-loop-fuel.mjs [engine.wasm ...]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { boot, buildDir } from "../engines/python/test/harness.mjs";

const PROGRAMS = {
  "top level": "s = 0\nfor i in range(10**6): s += i\ns",
  "in a function": "def f():\n    s = 0\n    for i in range(10**6): s += i\n    return s\nf()",
};
const engines = process.argv.slice(2).length ? process.argv.slice(2) : [path.join(buildDir, "engine.wasm")];
for (const file of engines) {
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), "sw-pyfuel-"));
  const engine = boot(new WebAssembly.Module(fs.readFileSync(file)), { workspace });
  for (const [name, code] of Object.entries(PROGRAMS)) {
    const r = engine.session(code, { budget: -1 });
    if (r.trap) throw r.trap;
    console.log(`${file}: ${name}: ${r.fuel.toLocaleString("en-US")} units, ${(r.fuel / 1e6).toFixed(2)} per iteration`);
  }
  fs.rmSync(workspace, { recursive: true, force: true });
}
