// Smoke test: engines/javascript/build/engine.wasm (wasm32-wasi reactor) instantiated under OUR WASI host (the C++
// core, worker-shim/generated/core.{mjs,wasm}) in Node, driven through the driver's exports.
//
//   node engines/javascript/test/smoke.mjs [engine.unmetered.wasm [engine.wasm]]
//
// Fuel runs in interrupt mode: the host writes the driver's interrupt word when the budget is spent
// (sw_wasi_fuel_set_interrupt), QuickJS's next interrupt poll sees it, and the driver turns it into "Execution fuel
// exhausted" (docs/fuel.md). In the shipped module the budget is spent by the Wasm-level meter; in the unmetered one
// by the driver's stand-in, `sandbox.charge(1000)` per poll (one unit per interpreter operation).
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { core, root, encoder, decoder, makeImportObject, bindGuestMemory, unbindGuestMemory, withBytes, WasiTrap, BUDGET } from './core-harness.mjs';

// The module before the Wasm-level meter (scripts/engines/javascript.sh) for the functional checks and the stand-in
// meter's pins; the shipped, metered module for the native work that only the Wasm-level meter sees (it is also tested
// in workerd: test/integration/metering.test.mjs and the rest).
const enginePath = process.argv[2] ?? path.join(root, 'engines/javascript/build/engine.unmetered.wasm');
const meteredPath = process.argv[3] ?? path.join(root, 'engines/javascript/build/engine.wasm');

let t0 = performance.now();
const engineModule = new WebAssembly.Module(fs.readFileSync(enginePath));
const compileMs = performance.now() - t0;
const meteredModule = new WebAssembly.Module(fs.readFileSync(meteredPath));

// One engine instance under one WASI host (protocol §5.4: args ["sandbox"], empty environment for JavaScript).
function boot({ module = engineModule } = {}) {
  const t = performance.now();
  const config = { args: ['sandbox'], env: [], workspace: false, preopens: [], stdio: 'capture', referencePolicy: true };
  const host = withBytes(encoder.encode(JSON.stringify(config)), (p, n) => core._sw_wasi_host_new(p, n, 0));
  assert.ok(host, 'sw_wasi_host_new');
  const imports = makeImportObject(core, host, module);
  const instance = new WebAssembly.Instance(module, imports);
  const x = instance.exports;
  bindGuestMemory(core, host, x.memory);
  x._initialize();
  core._sw_wasi_fuel_set_interrupt(host, x.sw_js_interrupt_address(), 0, 0);
  core._sw_wasi_fuel_reset(host, BUDGET);
  const handle = x.sw_js_new(0, 0);
  assert.ok(handle, 'JavaScript engine initialization failed');
  const bootMs = performance.now() - t;

  function evaluate(code, { env = {}, fuel = BUDGET } = {}) {
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
  // At most one poll of the stand-in meter (the counter carries over between evaluations).
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
// protocol §10.3 items 39/40 at the real budget: both end as the limit error with exactly the budget consumed, and the
// instance keeps its globals and stays usable. That the stand-in's budget stands for 50,000,000 operations (not for
// 1,000 times more, a mis-scaled meter) is pinned by the fuel-scale check below; the times are printed, never asserted
// (docs/fuel.md keeps the calibration of the Wasm-level meter).
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
// Issues 13 and 22: the work inside native builtins is metered, by the Wasm-level meter of engine.wasm (docs/fuel.md),
// so these run on the metered module. Without a meter each runs for seconds to hours. Each must end in the catchable
// ExecutionLimitError with exactly the budget consumed (QuickJS polls the interrupt word at every call, so the loop
// stops after the builtin call in progress), and leave the instance usable. The loops are bounded so that an engine
// that does not meter them fails the assertion instead of hanging. No timing is asserted here.
const S = 'const s = "x".repeat(1e7);';
const nativeWork = [
  ['Array fill', 'const a = new Array(1e6).fill(0); for (let i = 0; i < 1e4; i++) a.fill(i)'],
  ['new Array(1e6).fill(0)', 'for (let i = 0; i < 1e4; i++) new Array(1e6).fill(0)'],
  ['Array.from({ length: 1e6 })', 'for (let i = 0; i < 1e4; i++) Array.from({ length: 1e6 })'],
  ['sort() of numbers (as strings)', 'const a = Array.from({ length: 2e5 }, (_, i) => (i * 7919) % 2e5); for (let i = 0; i < 1e3; i++) a.slice().sort()'],
  ['sort((a, b) => a - b)', 'const a = Array.from({ length: 3e5 }, (_, i) => (i * 7919) % 3e5); for (let i = 0; i < 1e3; i++) a.slice().sort((x, y) => x - y)'],
  ['"x".repeat(2e5).split("")', 'for (let i = 0; i < 1e4; i++) "x".repeat(2e5).split("")'],
  ['String indexOf miss', S + ' for (let i = 0; i < 1e5; i++) s.indexOf("y")'],
  ['String includes miss', S + ' for (let i = 0; i < 1e5; i++) s.includes("xy")'],
  ['String lastIndexOf miss', S + ' for (let i = 0; i < 1e5; i++) s.lastIndexOf("y")'],
  ['replaceAll', 'const s = "x".repeat(1e6); for (let i = 0; i < 1e4; i++) s.replaceAll("x", "yz")'],
  ['"ab".repeat(5e6)', 'for (let i = 0; i < 1e5; i++) "ab".repeat(5e6)'],
  // 1e4 values a call: at scale 125 one call of 1e5 that crossed the budget's end ran into the backstop (see below).
  ['JSON.stringify', 'const a = Array.from({ length: 1e4 }, (_, i) => ({ i, s: "v" + i })); for (let i = 0; i < 1e5; i++) JSON.stringify(a)'],
  ['JSON.parse', 'const t = JSON.stringify(Array.from({ length: 1e5 }, (_, i) => ({ i, s: "v" + i }))); for (let i = 0; i < 1e4; i++) JSON.parse(t)'],
  ['Array join', 'const a = new Array(1e6).fill("ab"); for (let i = 0; i < 1e4; i++) a.join(",")'],
  ['Array concat', 'const a = new Array(3e5).fill(1); for (let i = 0; i < 1e5; i++) a.concat(a)'],
  ['Array slice', 'const a = new Array(5e5).fill(1); for (let i = 0; i < 1e5; i++) a.slice()'],
  ['Array splice', 'const a = new Array(1e6).fill(1); for (let i = 0; i < 1e5; i++) { a.splice(0, 1); a.push(1); }'],
  ['Array copyWithin', 'const a = new Array(1e6).fill(1); for (let i = 0; i < 1e5; i++) a.copyWithin(0, 1)'],
  ['Array includes/indexOf miss', 'const a = new Array(1e6).fill(1); for (let i = 0; i < 1e5; i++) a.includes(2) + a.indexOf(2)'],
  ['typed array fill/set/slice', 'const a = new Uint8Array(1e7), b = new Uint8Array(1e7); for (let i = 0; i < 1e5; i++) { a.fill(i); a.set(b); a.slice(); }'],
  ['typed array sort', 'const a = Float64Array.from({ length: 1e6 }, (_, i) => (i * 7919) % 1e6); for (let i = 0; i < 1e3; i++) a.slice().sort()'],
  ['Object.keys', 'const o = {}; for (let i = 0; i < 2e5; i++) o["k" + i] = i; for (let i = 0; i < 1e5; i++) Object.keys(o)'],
  ['BigInt multiplication', 'const a = 3n ** 200000n; for (let i = 0; i < 1e4; i++) a * a'],
  ['BigInt toString', 'const a = 3n ** 200000n; for (let i = 0; i < 1e3; i++) a.toString()'],
  ['new Map / new Set', 'const e = Array.from({ length: 1e5 }, (_, i) => [i, i]); for (let i = 0; i < 1e4; i++) new Set(new Map(e).keys())'],
  // Calls and builtins that QuickJS's own operation count once under-charged (0.2-35 M of its units).
  ["getters: 1e8 calls", "const o = { get x() { return 1 } }; let n = 0; for (let i = 0; i < 1e8; i++) n += o.x; n"],
  ["setters: 1e8 calls", "const o = { set x(v) { } }; for (let i = 0; i < 1e8; i++) o.x = i; 1"],
  ["Proxy get traps: 1e7", "const p = new Proxy({}, { get: () => 1 }); let n = 0; for (let i = 0; i < 1e7; i++) n += p.x; n"],
  ["Proxy has/set traps: 5e6 each", "const p = new Proxy({}, { has: () => true, set: () => true }); let n = 0; for (let i = 0; i < 5e6; i++) { p.x = i; n += 'x' in p } n"],
  ["generator resumptions: 5e7 (spread)", "function* g() { for (let i = 0; i < 1e6; i++) yield i } let n = 0; for (let r = 0; r < 50; r++) n += [...g()].length; n"],
  ["iterator next() calls: 1e7", "const it = { i: 0, next() { return { done: this.i++ >= 1e7, value: 1 } }, [Symbol.iterator]() { return this } }; let n = 0; for (const x of it) n += x; n"],
  ["forEach callbacks: 8e7", "const a = new Array(1e6).fill(1); let n = 0; for (let i = 0; i < 80; i++) a.forEach((v) => { n += v }); n"],
  ["valueOf coercions: 1e7", "const o = { valueOf() { return 1 } }; let n = 0; for (let i = 0; i < 1e7; i++) n += o * 1; n"],
  ["plain calls: fib(38)", "function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) } fib(38)"],
  ["toUpperCase: 5e8 code units", "const s = 'x'.repeat(1e7); let n = 0; for (let i = 0; i < 50; i++) n += s.toUpperCase().length; n"],
  ["toLowerCase: 5e8 code units", "const s = 'X'.repeat(1e7); let n = 0; for (let i = 0; i < 50; i++) n += s.toLowerCase().length; n"],
  ["encodeURIComponent: 2e8 code units", "const s = '\\u00e9 '.repeat(5e5); let n = 0; for (let i = 0; i < 200; i++) n += encodeURIComponent(s).length; n"],
  ["decodeURIComponent: 3e9 code units", "const s = '%C3%A9'.repeat(5e5); let n = 0; for (let i = 0; i < 1000; i++) n += decodeURIComponent(s).length; n"],
  ["escape: 2e8 code units", "const s = '\\u00e9 '.repeat(5e5); let n = 0; for (let i = 0; i < 200; i++) n += escape(s).length; n"],
  ["unescape: 3e9 code units", "const s = '%u00e9'.repeat(5e5); let n = 0; for (let i = 0; i < 1000; i++) n += unescape(s).length; n"],
  ["new RegExp of fresh 1 kB patterns: 1e5", "const b = 'a(b|c)*d'.repeat(125); let n = 0; for (let i = 0; i < 1e5; i++) n += new RegExp(b + i).source.length; n"],
  ["short regex matches: 3e6", "const r = /b/; let n = 0; for (let i = 0; i < 3e6; i++) n += r.test('ab'); n"],
  ["lookups through a 1e4-deep prototype chain: 1e5", "let o = {}; for (let i = 0; i < 1e4; i++) o = Object.create(o); let n = 0; for (let i = 0; i < 1e5; i++) n += o.x === undefined; n"],
  ["'in' through a 1e4-deep prototype chain: 1e5", "let o = {}; for (let i = 0; i < 1e4; i++) o = Object.create(o); let n = 0; for (let i = 0; i < 1e5; i++) n += 'x' in o; n"],
  ["assignments through a 1e4-deep prototype chain: 1e5", "let o = {}; for (let i = 0; i < 1e4; i++) o = Object.create(o); for (let i = 0; i < 1e5; i++) { const c = Object.create(o); c.x = i } 1"],
  ["f.apply with 6e4 arguments: 1e3", "const a = new Array(6e4).fill(1); function f() { return arguments.length } let n = 0; for (let i = 0; i < 1e3; i++) n += f.apply(null, a); n"],
  ["Math.max(...a) of 6e4: 1e3", "const a = new Array(6e4).fill(1); let n = 0; for (let i = 0; i < 1e3; i++) n += Math.max(...a); n"],
  ["array spread of 1e6: 50", "const a = new Array(1e6).fill(1); let n = 0; for (let i = 0; i < 50; i++) n += [...a].length; n"],
  ["throw/catch: 1e7", "let n = 0; for (let i = 0; i < 1e7; i++) { try { throw i } catch (e) { n++ } } n"],
  ["garbage collections with a near-full heap", "const keep = []; try { for (;;) keep.push({ a: keep.length }) } catch (e) { } keep.length = keep.length * 0.9 | 0; let n = 0; for (let i = 0; i < 1e7; i++) n += [i].length; n"],
  ["Promise.all of 2e4 promises: 5e3", "(async () => { for (let r = 0; r < 5e3; r++) await Promise.all(Array.from({ length: 2e4 }, (_, i) => Promise.resolve(i))) })(); 1"],
];
// A fifth of the budget each: the meter is the same at any budget and the list costs a fifth of the time (about 0.16 s
// a program instead of 0.8). A program whose single builtin call runs past a fifth's backstop (an eighth of it past its
// end) keeps the whole budget. Fuel is deterministic, so which program does is the same on every run of a build.
const NATIVE_BUDGET = BUDGET / 5;
const WHOLE_BUDGET = new Set(['Array.from({ length: 1e6 })', 'sort() of numbers (as strings)', 'replaceAll', 'JSON.parse',
  'typed array sort', 'BigInt multiplication', 'toUpperCase: 5e8 code units', 'toLowerCase: 5e8 code units',
  'array spread of 1e6: 50']);
let m = boot({ module: meteredModule });
m.evaluate('globalThis.kept = 41');
for (const [name, code] of nativeWork) {
  const fuel = WHOLE_BUDGET.has(name) ? BUDGET : NATIVE_BUDGET;
  check(`native work: ${name} -> ExecutionLimitError with ${fuel.toLocaleString('en')} fuel, instance still usable`, () => {
    // In a block: its bindings (tens of MiB) die with it instead of staying in this long-lived instance's realm.
    let r;
    try { r = m.evaluate(`{ ${code} }`, { fuel }); } catch (err) {
      m = boot({ module: meteredModule }); // a trap (the hard backstop) leaves the instance unusable
      m.evaluate('globalThis.kept = 41');
      throw err;
    }
    assert.deepEqual(r.outcome, FUEL_OUT);
    assert.equal(r.fuelConsumed, fuel);
    console.log(`     (${r.ms.toFixed(0)} ms)`);
    assert.deepEqual(m.evaluate('kept + 1').outcome.results, [{ text: '42' }]);
  });
}
// One native call that runs past the budget does not poll: it ends at the host's hard backstop (an eighth of the
// budget past it), a trap that leaves the instance unusable (a session restores its last snapshot), docs/fuel.md.
check('native work: one String indexOf call (x^1000 y over 1e7 chars) that crosses the budget ends at the hard backstop', () => {
  const t = boot({ module: meteredModule }); // not closed: the trap left it unusable
  assert.throws(() => t.evaluate(`{ ${S} s.indexOf("x".repeat(1000) + "y") }`, { fuel: BUDGET }),
    (err) => err instanceof WasiTrap && err.name === 'ExecutionLimitError' && /fuel exhausted/.test(err.message));
});
// Ordinary programs that use the same builtins still compute the same results, on a fraction of the budget.
check('native work: ordinary uses of the metered builtins keep their results and fit easily in the budget', () => {
  const r = m.evaluate(`{ const a = Array.from({ length: 1000 }, (_, i) => (i * 7919) % 1000);
    const s = a.map(String).join(',');
    [a.slice().sort((x, y) => x - y)[10], [...a].sort()[10], s.length, s.indexOf('999'), s.split(',').length,
     JSON.parse(JSON.stringify({ a })).a.length, Object.keys({ ...a }).length, new Set(a).size, new Map(a.map((x) => [x, x])).size,
     new Uint8Array(1 << 16).fill(7).slice(1).length, (3n ** 100n * 7n).toString().length, 'ab'.repeat(1000).replaceAll('a', 'c').length,
     a.includes(999), a.indexOf(999) >= 0, /,9[0-9][0-9],/.test(s)] }`, { fuel: BUDGET });
  assert.deepEqual(r.outcome.results, [{ json: [10, 107, 3889, 1247, 1000, 1000, 1000, 1000, 1000, 65535, 49, 2000, true, true, true] }]);
  console.log(`     ${r.fuelConsumed} units`);
  assert.ok(r.fuelConsumed <= 1_000_000, `${r.fuelConsumed} units`);
});
check('native work: fuel stays deterministic (the same program costs the same on two fresh instances)', () => {
  const code = 'const a = Array.from({ length: 5e4 }, (_, i) => "k" + ((i * 7919) % 5e4)); JSON.parse(JSON.stringify(a.sort())).join().length';
  const [x, y] = [boot({ module: meteredModule }), boot({ module: meteredModule })];
  try {
    const r1 = x.evaluate(code, { fuel: BUDGET }), r2 = y.evaluate(code, { fuel: BUDGET });
    assert.deepEqual(r1.outcome, r2.outcome);
    assert.equal(r1.fuelConsumed, r2.fuelConsumed);
    assert.ok(r1.fuelConsumed > 1_000_000, `${r1.fuelConsumed} units`); // the sort and JSON work is charged
  } finally { x.close(); y.close(); }
});
// The stand-in meter of the unmetered module (one unit per QuickJS operation: a backward jump, a conditional branch, a
// call; counted in whole polls of 1,000, the counter carrying over between evaluations).
check('fuel scale: a loop of 1e7 iterations over a local variable costs exactly 2e7 units (one per branch and per jump)', () => {
  // In a block, `i` is a local variable: the loop is pure bytecode.
  const code = '{ let i = 0; while (i < 1e7) i++; i }';
  const r = e.evaluate(code);
  assert.deepEqual(r.outcome.results, [{ text: '10000000' }]);
  const over = r.fuelConsumed - 2e7;
  assert.ok(over >= -1000 && over <= 1000, `${r.fuelConsumed} units`);
  console.log(`     ${r.ms.toFixed(0)} ms, ${r.fuelConsumed} units -> ${(r.fuelConsumed / r.ms * 1000).toFixed(0)} units/s`);
});
check('fuel scale: a top-level loop of 1e6 costs 2e6 too (a global variable is not counted)', () => {
  const code = 'let i = 0; while (i < 1e6) i++; i';
  const r = e.evaluate(code);
  assert.deepEqual(r.outcome.results, [{ text: '1000000' }]);
  const over = r.fuelConsumed - 2e6;
  assert.ok(over >= -1000 && over <= 1000, `${r.fuelConsumed} units`);
});
check('fuel scale: a call counts 1 (fib(25) costs ~486,000)', () => {
  // fib(25): 242,785 calls and a conditional branch in each.
  const code = '{ function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) } fib(25) }';
  const r = e.evaluate(code);
  assert.deepEqual(r.outcome.results, [{ text: '75025' }]);
  console.log(`     ${r.fuelConsumed} units`);
  const over = r.fuelConsumed - 242785 * 2;
  assert.ok(over >= -1000 && over <= 1000, `${r.fuelConsumed} units`);
});
check('fuel of a small fib/loop/string/JSON benchmark (the Wasm-level meter)', () => {
  const r = m.evaluate(`function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) }
    let s = 0; for (let j = 0; j < 200000; j++) s += j % 7;
    let str = ''; for (let j = 0; j < 20000; j++) str += String.fromCharCode(97 + j % 26);
    const o = JSON.parse(JSON.stringify(Array.from({ length: 2000 }, (_, j) => ({ j, s: 'x' + j }))));
    [fib(20), s, str.length, o.length]`);
  assert.deepEqual(r.outcome.results, [{ json: [6765, 599994, 20000, 2000] }]);
  console.log(`     ${r.ms.toFixed(1)} ms, ${r.fuelConsumed} units (${(r.fuelConsumed / BUDGET * 100).toFixed(2)}% of the budget)`);
  // ~1,700,000 under the Wasm-level meter (~7,200,000 under QuickJS's own weights before issue 22). A regression to
  // far more would show here.
  assert.ok(r.fuelConsumed <= 10_000_000, `${r.fuelConsumed} units`);
});
// engines/javascript/patches/compute-fmod.patch computes `%` of integer-valued doubles as a 64-bit remainder: every
// pair of these operands gives what V8 gives (the sign of the dividend, -0, NaN, infinities, fractions, 2^53).
check('% on integers, fractions, -0, NaN, infinities and 2^53 gives what V8 gives (compute-fmod.patch)', () => {
  const code = `const vals = [0, -0, 1, -1, 2, -2, 3, -3, 7, -7, 1000003, -1000003, 2 ** 31, -(2 ** 31), 2 ** 52, 2 ** 53 - 1,
    -(2 ** 53 - 1), 2 ** 53, 2 ** 60, 1.5, -1.5, 0.1, Infinity, -Infinity, NaN, 9e10 + 7, -9e10 - 7, 5e-324, 1e308];
    const out = []; for (const a of vals) for (const b of vals) { const r = a % b; out.push(Object.is(r, -0) ? "-0" : String(r)); }
    let acc = 0; for (let i = 0; i < 100000; i++) acc = (acc + i * i) % 1000003;
    out.join(",") + " " + acc`;
  const r = e.evaluate(code);
  assert.deepEqual(r.outcome.results, [{ text: `'${(0, eval)(code)}'` }]);
});
// Array.prototype.sort (compute-sort-slots.patch sizes the slot array of a dense array up front): the same order,
// stability, holes and undefined, exceptions from the comparator and array-likes as V8.
check('sort: stability, holes, undefined, a throwing comparator, array-likes give what V8 gives (compute-sort-slots.patch)', () => {
  const code = `JSON.stringify([
    Array.from({ length: 500 }, (_, i) => ({ k: i % 7, i })).sort((a, b) => a.k - b.k).map((o) => o.i),
    Array.from({ length: 20000 }, (_, i) => (i * 7919) % 20011).sort((a, b) => a - b).filter((x, i, a) => i && a[i - 1] > x).length,
    [3, undefined, 1, , 2, undefined].sort(), [3, undefined, 1, , 2].sort((a, b) => b - a), [10, 9, 1, 100].sort(),
    (() => { try { [3, 1, 2].sort(() => { throw new Error("boom"); }); } catch (e) { return e.message; } })(),
    Array.prototype.sort.call({ length: 3, 0: "c", 1: "a", 2: "b" }), (() => { const c = [3, 2, 1]; c[10] = 0; return c.sort(); })(),
    ["b", "a", "c"].toSorted(), [3, 1, 2].sort(() => NaN)])`;
  const r = e.evaluate(code);
  assert.deepEqual(r.outcome.results, [{ text: `'${(0, eval)(code)}'` }]);
  // A comparator that changes the array: the order is implementation-defined, the array must stay an array of its
  // numbers and the engine must stay usable.
  const m = e.evaluate('const b = Array.from({ length: 1000 }, (_, i) => 1000 - i); b.sort((x, y) => { b.length = 500; b.push(-1); return x - y; }); [b.length, b.every((x) => typeof x === "number")]');
  assert.deepEqual(m.outcome.results, [{ json: [1000, true] }]);
});
e.close();
m.close();

const fresh = boot();
check('46 fresh instance: no state from the previous one', () => {
  assert.deepEqual(fresh.evaluate('typeof secret').outcome.results, [{ text: "'undefined'" }]);
});
fresh.close();

console.log(failed ? `\n${failed} smoke check(s) failed` : '\nall smoke checks passed');
process.exitCode = failed ? 1 : 0;
void WasiTrap;
