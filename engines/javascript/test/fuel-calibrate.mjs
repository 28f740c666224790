// Fuel calibration (docs/fuel.md): engines/javascript/build/engine.wasm under our WASI host (the C++ core), in Node
// directly and inside workerd through Miniflare. Not part of run.sh (it is a measurement, not a test):
//
//   node engines/javascript/test/fuel-calibrate.mjs [--reps N] [--no-workerd]
//
// For each case: median wall time of N runs (after one warm-up run), fuelConsumed, the outcome. In workerd the clocks
// do not advance while the guest computes, so the time is measured in Node around dispatchFetch, and the median of
// `1 + 1` (the request round trip) is subtracted from the others.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const generated = path.join(root, 'worker-shim', 'generated');
const enginePath = path.join(root, 'engines/javascript/build/engine.wasm');
const args = process.argv.slice(2);
const reps = Number(args[args.indexOf('--reps') + 1]) || 5;
const withWorkerd = !args.includes('--no-workerd');
const BUDGET = 50_000_000;

const CASES = [
  ['1 + 1', '1 + 1'],
  ['while (true) {}', 'while (true) {}'],
  ['catastrophic regex', '/^(a+)+$/.test("a".repeat(100) + "!")'],
  ['loop 1e7', '(() => { let i = 0; while (i < 1e7) i++; return i })()'],
  ['fib(25)', '(() => { function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) } return fib(25) })()'],
  ['fib/loop/string/JSON mix', `(() => { function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) }
    let s = 0; for (let j = 0; j < 200000; j++) s += j % 7;
    let str = ''; for (let j = 0; j < 20000; j++) str += String.fromCharCode(97 + j % 26);
    const o = JSON.parse(JSON.stringify(Array.from({ length: 2000 }, (_, j) => ({ j, s: 'x' + j }))));
    return [fib(20), s, str.length, o.length] })()`],
  // Not metered: native builtins do not poll (docs/fuel.md, "What fuel does not see").
  ['1 MiB indexOf x100', '(() => { const s = "x".repeat(1 << 20); let n = 0; for (let i = 0; i < 100; i++) n += s.indexOf("y"); return n })()'],
];

// The engine driver, shared verbatim by the Node run and the worker (stringified into it).
function makeEngine(core, engineModule, makeImportObject, bindGuestMemory) {
  const enc = new TextEncoder(), dec = new TextDecoder();
  const withBytes = (bytes, fn) => {
    const p = core._malloc(Math.max(1, bytes.length));
    core.HEAPU8.set(bytes, p);
    try { return fn(p, bytes.length); } finally { core._free(p); }
  };
  const config = { args: ['sandbox'], env: [], workspace: false, preopens: [], stdio: 'capture', referencePolicy: true };
  const host = withBytes(enc.encode(JSON.stringify(config)), (p, n) => core._sw_wasi_host_new(p, n, 0));
  const imports = makeImportObject(core, host, engineModule);
  const charge = imports.sandbox.charge;
  let calls = 0;
  imports.sandbox.charge = (units) => { calls++; return charge(units); };
  const x = new WebAssembly.Instance(engineModule, imports).exports;
  bindGuestMemory(core, host, x.memory);
  x._initialize();
  core._sw_wasi_fuel_set_interrupt(host, x.sw_js_interrupt_address(), 0, 0);
  const handle = x.sw_js_new(0, 0);
  return (code, fuel) => {
    core._sw_wasi_fuel_reset(host, fuel);
    calls = 0;
    const src = enc.encode(code), env = enc.encode('{}');
    const cp = x.sw_alloc(src.length), ep = x.sw_alloc(env.length), slots = x.sw_alloc(8);
    new Uint8Array(x.memory.buffer).set(src, cp);
    new Uint8Array(x.memory.buffer).set(env, ep);
    const rc = x.sw_js_eval(handle, cp, src.length, ep, env.length, slots, slots + 4);
    const dv = new DataView(x.memory.buffer);
    const out = rc === 0 ? JSON.parse(dec.decode(new Uint8Array(x.memory.buffer, dv.getUint32(slots, true), dv.getUint32(slots + 4, true)))) : null;
    x.sw_free(cp); x.sw_free(ep); x.sw_free(slots);
    return { rc, outcome: out, fuelConsumed: core._sw_wasi_fuel_consumed(host), charges: calls };
  };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const show = (o) => (o?.error ? `${o.error.name}: ${o.error.message}` : JSON.stringify(o?.results)).slice(0, 48);

function report(title, rows) {
  console.log(`\n${title}`);
  console.log('case                          median ms   fuelConsumed   host charges   M units/s   outcome');
  for (const r of rows) {
    const rate = r.ms > 0.05 && r.fuel > 0 ? (r.fuel / r.ms / 1000).toFixed(0) : '-';
    console.log(`${r.name.padEnd(28)} ${r.ms.toFixed(1).padStart(10)} ${String(r.fuel).padStart(14)} ` +
      `${String(r.charges).padStart(14)} ${rate.padStart(11)}   ${show(r.outcome)}`);
  }
}

// --- Node -------------------------------------------------------------------------------------------------------
const { makeImportObject, bindGuestMemory } = await import(pathToFileURL(path.join(generated, 'wasi_imports.mjs')).href);
const { default: createCore } = await import(pathToFileURL(path.join(generated, 'core.mjs')).href);
const coreWasm = new WebAssembly.Module(fs.readFileSync(path.join(generated, 'core.wasm')));
const core = await createCore({
  locateFile: (p) => p,
  instantiateWasm(imports, ok) { const i = new WebAssembly.Instance(coreWasm, imports); ok(i, coreWasm); return i.exports; },
});
const engineModule = new WebAssembly.Module(fs.readFileSync(enginePath));
const evaluate = makeEngine(core, engineModule, makeImportObject, bindGuestMemory);
const nodeRows = [];
for (const [name, code] of CASES) {
  const times = [];
  let last;
  for (let i = 0; i <= reps; i++) {
    const t = performance.now();
    last = evaluate(code, BUDGET);
    if (i > 0) times.push(performance.now() - t);
  }
  nodeRows.push({ name, ms: median(times), fuel: last.fuelConsumed, charges: last.charges, outcome: last.outcome });
}
report(`Node ${process.version}, budget ${BUDGET.toLocaleString('en')}, median of ${reps}`, nodeRows);

// --- workerd (Miniflare) ----------------------------------------------------------------------------------------
if (withWorkerd) {
  const { Miniflare, convertV4MiniflareOptions } = await import('miniflare');
  const dir = path.join(root, 'engines/javascript/build/fuel-calibrate-workerd');
  fs.mkdirSync(dir, { recursive: true });
  for (const f of ['core.mjs', 'core.wasm', 'wasi_imports.mjs']) fs.copyFileSync(path.join(generated, f), path.join(dir, f));
  fs.copyFileSync(enginePath, path.join(dir, 'engine.wasm'));
  fs.writeFileSync(path.join(dir, 'worker.mjs'), `
import createCore from './core.mjs';
import coreWasm from './core.wasm';
import engineModule from './engine.wasm';
import { makeImportObject, bindGuestMemory } from './wasi_imports.mjs';
const makeEngine = ${makeEngine.toString()};
let ready;
export default {
  async fetch(request) {
    const { code, fuel } = await request.json();
    const evaluate = await (ready ??= createCore({
      locateFile: (p) => p,
      instantiateWasm(imports, ok) { const i = new WebAssembly.Instance(coreWasm, imports); ok(i, coreWasm); return i.exports; },
    }).then((core) => makeEngine(core, engineModule, makeImportObject, bindGuestMemory)));
    return Response.json(evaluate(code, fuel));
  },
};`);
  const mod = (type, file) => ({ type, path: path.join(dir, file) });
  const mf = new Miniflare(convertV4MiniflareOptions({
    compatibilityDate: '2025-09-01',
    modulesRoot: dir,
    modules: [mod('ESModule', 'worker.mjs'), mod('ESModule', 'core.mjs'), mod('ESModule', 'wasi_imports.mjs'),
      mod('CompiledWasm', 'core.wasm'), mod('CompiledWasm', 'engine.wasm')],
  }));
  try {
    await mf.ready;
    const call = async (code) => {
      const t = performance.now();
      const res = await mf.dispatchFetch('http://calibrate/', { method: 'POST', body: JSON.stringify({ code, fuel: BUDGET }) });
      const body = await res.json();
      return { ms: performance.now() - t, ...body };
    };
    for (let i = 0; i < 5; i++) await call('1');  // boot the core and the engine, warm the request path
    const rows = [];
    let baseline = 0;
    for (const [name, code] of CASES) {
      const times = [];
      let last;
      for (let i = 0; i <= reps; i++) {
        last = await call(code);
        if (i > 0) times.push(last.ms);
      }
      const ms = median(times);
      if (name === '1 + 1') baseline = ms;
      rows.push({ name, ms: name === '1 + 1' ? ms : Math.max(0, ms - baseline), fuel: last.fuelConsumed,
        charges: last.charges, outcome: last.outcome });
    }
    report(`workerd (Miniflare), budget ${BUDGET.toLocaleString('en')}, median of ${reps}; ` +
      `"1 + 1" is the whole round trip, the others have it subtracted`, rows);
  } finally {
    await mf.dispose();
  }
}
