// Smoke test: engines/javascript/build/engine.wasm (wasm32-wasi reactor) instantiated under OUR WASI host (the C++
// core, worker-shim/generated/core.{mjs,wasm}) in Node, driven through the driver's exports.
//
//   node engines/javascript/test/smoke.mjs [engine.wasm]
//
// Fuel runs in interrupt mode: the driver's QuickJS interrupt handler charges `sandbox.charge(1000)` per poll (one unit
// per interpreter operation, docs/fuel.md), the host writes the driver's interrupt word when the budget is spent
// (sw_wasi_fuel_set_interrupt), and the handler turns it into "Execution fuel exhausted".
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { core, root, encoder, decoder, makeImportObject, bindGuestMemory, unbindGuestMemory, withBytes, WasiTrap } from './core-harness.mjs';

const enginePath = process.argv[2] ?? path.join(root, 'engines/javascript/build/engine.wasm');

let t0 = performance.now();
const engineModule = new WebAssembly.Module(fs.readFileSync(enginePath));
const compileMs = performance.now() - t0;

// One engine instance under one WASI host (SPEC §5.4: args ["sandbox"], empty environment for JavaScript).
function boot() {
  const t = performance.now();
  const config = { args: ['sandbox'], env: [], workspace: false, preopens: [], stdio: 'capture', referencePolicy: true };
  const host = withBytes(encoder.encode(JSON.stringify(config)), (p, n) => core._sw_wasi_host_new(p, n, 0));
  assert.ok(host, 'sw_wasi_host_new');
  const instance = new WebAssembly.Instance(engineModule, makeImportObject(core, host, engineModule));
  const x = instance.exports;
  bindGuestMemory(core, host, x.memory);
  x._initialize();
  core._sw_wasi_fuel_set_interrupt(host, x.sw_js_interrupt_address(), 0, 0);
  core._sw_wasi_fuel_reset(host, 50_000_000);
  const handle = x.sw_js_new(0, 0);
  assert.ok(handle, 'JavaScript engine initialization failed');
  const bootMs = performance.now() - t;

  function evaluate(code, { env = {}, fuel = 50_000_000 } = {}) {
    core._sw_wasi_fuel_reset(host, fuel);
    const src = encoder.encode(code);
    const envBytes = encoder.encode(JSON.stringify(env));
    const cp = x.sw_alloc(Math.max(1, src.length));
    const ep = x.sw_alloc(Math.max(1, envBytes.length));
    const slots = x.sw_alloc(8);
    new Uint8Array(x.memory.buffer).set(src, cp);
    new Uint8Array(x.memory.buffer).set(envBytes, ep);
    const t = performance.now();
    let rc;
    try {
      rc = x.sw_js_eval(handle, cp, src.length, ep, envBytes.length, slots, slots + 4);
    } finally {
      x.sw_free(cp);
      x.sw_free(ep);
    }
    const ms = performance.now() - t;
    const dv = new DataView(x.memory.buffer);
    const outPtr = dv.getUint32(slots, true), outLen = dv.getUint32(slots + 4, true);
    x.sw_free(slots);
    assert.equal(rc, 0, 'sw_js_eval failed');
    const outcome = JSON.parse(decoder.decode(new Uint8Array(x.memory.buffer, outPtr, outLen)));
    x.sw_free(outPtr);
    return { outcome, ms, fuelConsumed: core._sw_wasi_fuel_consumed(host), memoryBytes: x.memory.buffer.byteLength };
  }
  function close() { x.sw_js_free(handle); unbindGuestMemory(core, host); core._sw_wasi_host_free(host); }
  return { evaluate, close, bootMs, exports: x };
}

let failed = 0;
function check(name, fn) {
  try { fn(); console.log(`ok   ${name}`); } catch (e) { failed++; console.log(`FAIL ${name}\n  ${e?.stack ?? e}`); }
}

const BUDGET = 50_000_000;  // the production budget (SPEC §5.5)
const FUEL_OUT = {
  logs: { stdout: [], stderr: [] }, results: [],
  error: { name: 'ExecutionLimitError', message: 'Execution fuel exhausted', traceback: [] },
};

check('engine.wasm meters through sandbox.charge (not per-call sandbox.tick)', () => {
  const sandbox = WebAssembly.Module.imports(engineModule).filter((i) => i.module === 'sandbox').map((i) => i.name);
  assert.deepEqual(sandbox, ['charge']);
});
const e = boot();
console.log(`     compile ${compileMs.toFixed(1)} ms, instantiate + _initialize + sw_js_new ${e.bootMs.toFixed(1)} ms`);
check('1 + 1 -> text 2, fuel metered, well under 1% of the budget', () => {
  const r = e.evaluate('1 + 1');
  assert.deepEqual(r.outcome, { logs: { stdout: [], stderr: [] }, results: [{ text: '2' }] });
  console.log(`     eval ${r.ms.toFixed(2)} ms, fuel ${r.fuelConsumed}, memory ${r.memoryBytes} bytes`);
  assert.ok(r.fuelConsumed <= 1000, `1 + 1 cost ${r.fuelConsumed} units (at most one poll of 1000)`);
});
check('console + env + await', () => {
  const r = e.evaluate('console.log("hello", process.env.NAME); await Promise.resolve({ big: 2n ** 64n })',
    { env: { NAME: '世界' } });
  assert.deepEqual(r.outcome, { logs: { stdout: ['hello 世界'], stderr: [] }, results: [{ json: { big: '18446744073709551616n' } }] });
});
const fuelCases = [
  ['while (true) {}', 'while (true) {}'],
  ['catastrophic regex', '/^(a+)+$/.test("a".repeat(100) + "!")'],
];
for (const [name, code] of fuelCases) {
  check(`${name} -> ExecutionLimitError (fuel 2000), instance still usable`, () => {
    const r = e.evaluate(code, { fuel: 2000 });
    assert.deepEqual(r.outcome, FUEL_OUT);
    console.log(`     interrupted after ${r.ms.toFixed(1)} ms`);
    assert.deepEqual(e.evaluate('40 + 2').outcome.results, [{ text: '42' }]);
  });
}
// SPEC §10.3 items 39/40 at the real budget: both end as the limit error with exactly the budget consumed, and the
// instance keeps its globals and stays usable. That the budget stands for 50,000,000 operations (not for 1,000 times
// more, a mis-scaled meter) is pinned by the fuel-scale check below; the times are printed, never asserted
// (docs/fuel.md keeps the calibration).
e.evaluate('globalThis.kept = 41');
for (const [name, code] of fuelCases) {
  check(`${name} -> ExecutionLimitError with ${BUDGET.toLocaleString('en')} fuel, instance still usable`, () => {
    const r = e.evaluate(code, { fuel: BUDGET });
    assert.deepEqual(r.outcome, FUEL_OUT);
    assert.equal(r.fuelConsumed, BUDGET);
    console.log(`     exhausted in ${r.ms.toFixed(0)} ms (${(BUDGET / r.ms / 1000).toFixed(0)} M units/s)`);
    assert.deepEqual(e.evaluate('kept + 1').outcome.results, [{ text: '42' }]);
  });
}
check('41 runaway recursion -> InternalError inside the engine (no V8 RangeError)', () => {
  const r = e.evaluate('function f() { return 1 + f(); } f();');
  assert.equal(r.outcome.error?.name, 'InternalError', JSON.stringify(r.outcome));
  assert.deepEqual(e.evaluate('1').outcome.results, [{ text: '1' }]);
});
check('42 80 MiB allocation -> error, memory stays under 64 MiB', () => {
  const r = e.evaluate('new Uint8Array(80 * 1024 * 1024).length');
  assert.ok(r.outcome.error, JSON.stringify(r.outcome));
  assert.ok(r.memoryBytes <= 64 * 1024 * 1024);
});
check('fuel scale: a loop of 1e7 iterations costs exactly 2e7 units (one per branch and per jump)', () => {
  const r = e.evaluate('let i = 0; while (i < 1e7) i++; i');
  assert.deepEqual(r.outcome.results, [{ text: '10000000' }]);
  assert.ok(Math.abs(r.fuelConsumed - 2e7) <= 1000, `${r.fuelConsumed} units`);
  console.log(`     ${r.ms.toFixed(0)} ms, ${r.fuelConsumed} units -> ${(r.fuelConsumed / r.ms * 1000).toFixed(0)} units/s`);
});
check('fuel of a small fib/loop/string/JSON benchmark', () => {
  const r = e.evaluate(`function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) }
    let s = 0; for (let j = 0; j < 200000; j++) s += j % 7;
    let str = ''; for (let j = 0; j < 20000; j++) str += String.fromCharCode(97 + j % 26);
    const o = JSON.parse(JSON.stringify(Array.from({ length: 2000 }, (_, j) => ({ j, s: 'x' + j }))));
    [fib(20), s, str.length, o.length]`);
  assert.deepEqual(r.outcome.results, [{ json: [6765, 599994, 20000, 2000] }]);
  console.log(`     ${r.ms.toFixed(1)} ms, ${r.fuelConsumed} units (${(r.fuelConsumed / BUDGET * 100).toFixed(2)}% of the budget)`);
});
e.close();

const fresh = boot();
check('46 fresh instance: no state from the previous one', () => {
  assert.deepEqual(fresh.evaluate('typeof secret').outcome.results, [{ text: "'undefined'" }]);
});
fresh.close();

console.log(failed ? `\n${failed} smoke check(s) failed` : '\nall smoke checks passed');
process.exitCode = failed ? 1 : 0;
void WasiTrap;
