#!/usr/bin/env node
// Benchmark (not a test): the Lua engine (engines/lua/build/engine.wasm) cold, one fresh node process per run, under
// our WASI host (the core; the JS Engine will use the same host through ./wasi) and under node:wasi. Per run:
//   compile   WebAssembly.Module from the bytes (on Workers: at upload / isolate start, not per request)
//   boot      WASI host + instantiate + _initialize + sw_lua_new (a fresh lua_State with the standard libraries)
//   first     the first sw_lua_eval of `1 + 1` (V8's lazy compilation of the functions it touches is in here)
//   second    a second `1 + 1` on the same handle
//   loop      `local x = 0 for i = 1, 1e6 do x = x + i end return x` (623,018 fuel units at scale 135)
// Median of N runs. Also the module's size, raw and gzip -9.
//
//   node --no-turbo-fast-api-calls bench/lua.mjs [--runs 5] [--engine a.wasm --engine b.wasm]
//   --engine (repeatable): engine.wasm files to compare (default: engines/lua/build/engine.wasm), runs interleaved.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const self = fileURLToPath(import.meta.url);
const root = path.resolve(path.dirname(self), '..');

if (process.argv[2] === '--child') {
  const [kind, file] = process.argv.slice(3);
  const { boot, useEngine } = await import(path.join(root, 'engines/lua/test/harness.mjs'));
  useEngine(file);
  const bytes = fs.readFileSync(file);
  let t = performance.now();
  new WebAssembly.Module(bytes); // what V8 does at upload; the harness compiles its own copy below
  const compile = performance.now() - t;
  const e = await boot(kind);
  const first = e.eval('1 + 1').ms;
  const second = e.eval('1 + 1').ms;
  const loop = e.eval('local x = 0 for i = 1, 1e6 do x = x + i end return x');
  process.stdout.write(JSON.stringify({ compile, boot: e.bootMs, first, second, loop: loop.ms, loopFuel: loop.fuel }));
  e.dispose();
  process.exit(0);
}

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, engine: { type: 'string', multiple: true } } });
const runs = Number(values.runs) || 5;
const engines = (values.engine ?? [path.join(root, 'engines/lua/build/engine.wasm')]).map((f) => path.resolve(f));
const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const file of engines) {
  const wasm = fs.readFileSync(file);
  console.log(`${file}: ${wasm.length} bytes raw, ${zlib.gzipSync(wasm, { level: 9 }).length} gzip -9`);
}
for (const kind of ['core', 'node']) {
  if (kind === 'core' && !fs.existsSync(path.join(root, 'worker-shim/generated/core.wasm'))) continue;
  const rows = engines.map(() => []);
  for (let i = 0; i < runs; i++) {
    engines.forEach((file, e) => {
      const out = execFileSync(process.execPath, ['--no-turbo-fast-api-calls', '--no-warnings', self, '--child', kind, file]);
      rows[e].push(JSON.parse(out));
    });
  }
  engines.forEach((file, e) => {
    const m = (k) => median(rows[e].map((r) => r[k])).toFixed(1);
    console.log(`${kind === 'core' ? 'our WASI host' : 'node:wasi    '} ${path.basename(path.dirname(file))}/${path.basename(file)}: ` +
                `compile ${m('compile')} ms, boot ${m('boot')} ms, first eval ${m('first')} ms, second ${m('second')} ms, ` +
                `1e6-iteration loop ${m('loop')} ms (${rows[e][0].loopFuel} fuel), median of ${runs} fresh processes`);
  });
}
