#!/usr/bin/env node
// Benchmark (not a test): what TypeScript lowering, the RegExp v flag and the Unicode 17.0 tables cost in the
// JavaScript engine (docs/typescript.md, docs/regexp.md). For each engine.wasm given (default: this checkout's build),
// a fresh instance per run under our WASI host (the core, as engines/javascript/test/smoke.mjs drives it), fuel
// consumed and wall time of:
//   js            `1 + 1` (the JavaScript path: the stripper is never loaded)
//   ts-first      a typed script, the first TypeScript run of the instance (loads the stripper bytecode, then strips)
//   ts-warm       the same script again in the same instance
//   ts-namespace  a script with a value namespace (the lowering pre-pass runs), first run of its instance
//   emoji-replace replace every \p{RGI_Emoji} in ~1 KB of mixed text (v flag; an engine without it: SyntaxError)
//   emoji-compile compile new RegExp("\\p{RGI_Emoji}", "v") 10 times
// and engine.wasm raw / gzip -9 (zlib) sizes. Fuel is deterministic; times are medians over --runs.
//
//   node bench/typescript-regexp.mjs [--runs 9] [engine.wasm ...]
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { parseArgs } from "node:util";
import { root } from "../engines/javascript/test/core-harness.mjs";
import { instance as engineInstance } from "./intl-engine.mjs";

const { values: opts, positionals } = parseArgs({ options: { runs: { type: "string", default: "9" } }, allowPositionals: true });
const RUNS = Number(opts.runs);
const engines = positionals.length ? positionals : [path.join(root, "engines/javascript/build/engine.wasm")];

const TS = `{ interface User { id: number; name: string }
type Role = "admin" | "user";
function label<T extends User>(u: T, role: Role = "user"): string { return \`\${u.name}#\${u.id} (\${role})\`; }
class Repo<T extends User> { private items: T[] = []; add(x: T): this { this.items.push(x); return this; } get size(): number { return this.items.length; } }
enum Level { Low = 1, High }
const repo = new Repo<User>().add({ id: 1, name: "a" } as User).add({ id: 2, name: "b" });
[label({ id: 3, name: "c" }, "admin"), repo.size, Level.High] }`;
const TS_NAMESPACE = `namespace App.Config { export const port: number = 8080; export let hits = 0;
  export function hit(): number { return ++hits; } export namespace Db { export const url = "db://" + port } }
App.Config.hit(); [App.Config.port, App.Config.hits, App.Config.Db.url]`;
const EMOJI = `const text = ${JSON.stringify("Hello 👋🏽 world 🇫🇷 and 👨‍👩‍👧‍👦 family, keycap 1️⃣, flag 🏴󠁧󠁢󠁳󠁣󠁴󠁿 ok ✅. ".repeat(12))};
text.replace(/\\p{RGI_Emoji}/gv, "<e>").length`;

// Compiling \p{RGI_Emoji} expands ~3,950 strings: its fuel must follow its time (docs/fuel.md).
const COMPILE = `let n = 0; for (let i = 0; i < 10; i++) n += new RegExp("\\\\p{RGI_Emoji}", "v").source.length; n`;

// A fresh engine instance under the core's WASI host, fuel-metered (bench/intl-engine.mjs), without /stdlib.
const instance = (engineModule) => engineInstance({ engine: engineModule, stdlib: false });

const median = (a) => [...a].sort((p, q) => p - q)[a.length >> 1];
for (const file of engines) {
  const bytes = fs.readFileSync(file);
  console.log(`${path.relative(process.cwd(), file)}: ${bytes.length} bytes raw, ${zlib.gzipSync(bytes, { level: 9 }).length} gzip -9`);
  const mod = new WebAssembly.Module(bytes);
  const cases = {
    js: [["1 + 1"]],
    "ts-first": [[TS]],
    "ts-warm": [[TS], [TS]],
    "ts-namespace": [[TS_NAMESPACE]],
    "emoji-replace": [[EMOJI]],
    "emoji-compile": [[COMPILE]],
  };
  for (const [name, steps] of Object.entries(cases)) {
    const times = [];
    let last;
    for (let r = 0; r < RUNS; r++) {
      const inst = instance(mod);
      for (const [code] of steps) last = inst.evaluate(code);
      times.push(last.ms);
      inst.close();
    }
    const o = last.outcome;
    const shown = o.error ? `${o.error.name}: ${o.error.message}`.slice(0, 60) : JSON.stringify(o.results).slice(0, 60);
    console.log(`  ${name.padEnd(14)} fuel ${String(last.fuel).padStart(9)}  ${median(times).toFixed(2).padStart(7)} ms  ${shown}`);
  }
}
