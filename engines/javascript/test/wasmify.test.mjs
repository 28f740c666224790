// The wasmify ABI end to end (docs/abi.md): engine.wasm under our WASI host, driven entirely by the core's C++
// (cpp/wasmify, sw_wasmify_js_run). JavaScript here only instantiates the guest, registers it with the core and reads
// the result: every wasmify call (_initialize, wasm_init, New, InterruptAddress, Eval) is made by C++ through the
// sw_guest_call import, and the guest's WASI calls re-enter the core while it runs.
//
//   node --test engines/javascript/test/wasmify.test.mjs
import { test } from 'node:test';
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { core, root, encoder, decoder, makeImportObject, bindGuestMemory, unbindGuestMemory, withBytes, engineArg, abi, BUDGET } from './core-harness.mjs';

const enginePath = process.env.SW_JS_ENGINE ?? path.join(root, 'engines/javascript/build/engine.wasm');

const engineModule = new WebAssembly.Module(fs.readFileSync(enginePath));
assert.equal(typeof core._sw_wasmify_run, 'function',
  'worker-shim/generated/core.wasm predates cpp/wasmify: rebuild it (bash scripts/build.sh core)');

const Status = {
  [abi.WASMIFY_OK]: 'ok', [abi.WASMIFY_ENGINE_FAILED]: 'engine', [abi.WASMIFY_LIMIT]: 'limit', [abi.WASMIFY_TRAP]: 'trap',
};

// One stateless run: a fresh WASI host + engine instance (protocol §5.4: args ["sandbox"], empty WASI environment for
// JavaScript; env vars travel in the Eval request), then one core call.
function run(code, { envVars, fuel = BUDGET } = {}) {
  const config = { args: ['sandbox'], env: [], workspace: false, preopens: [], stdio: 'capture', referencePolicy: true };
  const host = withBytes(encoder.encode(JSON.stringify(config)), (p, n) => core._sw_wasi_host_new(p, n, 0));
  assert.ok(host, 'sw_wasi_host_new');
  const instance = new WebAssembly.Instance(engineModule, makeImportObject(core, host, engineModule));
  bindGuestMemory(core, host, instance.exports.memory);
  core.wasmifyBind(host, instance);
  try {
    const src = encoder.encode(code);
    const env = encoder.encode(envVars ? JSON.stringify(envVars) : '');
    const status = withBytes(src, (cp, cn) => withBytes(env, (ep, en) => core._sw_wasmify_run(host, ...engineArg('javascript'), cp, cn, ep, en, fuel)));
    const ptr = core._sw_wasmify_result(), len = core._sw_wasmify_result_len();
    const text = decoder.decode(core.HEAPU8.subarray(ptr, ptr + len));
    return { status: Status[status], text, outcome: status === abi.WASMIFY_OK ? JSON.parse(text) : undefined };
  } finally {
    core.wasmifyUnbind(host);
    unbindGuestMemory(core, host);
    core._sw_wasi_host_free(host);
  }
}

test('1 + 1 -> results [{ text: "2" }]', () => {
  const r = run('1 + 1');
  assert.equal(r.status, 'ok', r.text);
  assert.deepEqual(r.outcome, { logs: { stdout: [], stderr: [] }, results: [{ text: '2' }] });
});

test('a thrown TypeError is an outcome error, not a failure', () => {
  const r = run('null.x');
  assert.equal(r.status, 'ok', r.text);
  assert.equal(r.outcome.error?.name, 'TypeError');
  assert.deepEqual(r.outcome.results, []);
});

test('console capture', () => {
  const r = run('console.log("out", 1); console.error("err"); console.info("info"); 3');
  assert.equal(r.status, 'ok', r.text);
  assert.deepEqual(r.outcome.logs, { stdout: ['out 1', 'info'], stderr: ['err'] });
  assert.deepEqual(r.outcome.results, [{ text: '3' }]);
});

test('envVars become process.env (and only they)', () => {
  const r = run('({ ...process.env })', { envVars: { GREETING: 'héllo 世界', EMPTY: '' } });
  assert.equal(r.status, 'ok', r.text);
  assert.deepEqual(r.outcome.results, [{ json: { GREETING: 'héllo 世界', EMPTY: '' } }]);
  const none = run('Object.keys(process.env).length');
  assert.deepEqual(none.outcome.results, [{ text: '0' }]);
});

test('fuel: while (true) {} -> ExecutionLimitError through the interrupt word the C++ side registered', () => {
  // The budget covers this fresh instance's boot too, which runs before the interrupt word is registered (hard mode):
  // the Wasm-level meter charges QuickJS's boot for its work (docs/fuel.md), so the budget here is not tiny.
  const r = run('while (true) {}', { fuel: 200_000 });
  assert.equal(r.status, 'ok', r.text);
  assert.deepEqual(r.outcome.error, { name: 'ExecutionLimitError', message: 'Execution fuel exhausted', traceback: [] });
});

test('a large outcome fits the 1 MiB response cap; output limits keep it there', () => {
  const r = run('"x".repeat(60000)');
  assert.equal(r.status, 'ok', r.text);
  assert.equal(r.outcome.results[0].text.length, 60002);
});

test('unicode source and a top-level await round trip', () => {
  const r = run('const s = "π≈3.14159 🎉"; await Promise.resolve(s)');
  assert.equal(r.status, 'ok', r.text);
  assert.deepEqual(r.outcome.results, [{ text: "'π≈3.14159 🎉'" }]);
});

test('60,000 control characters: within the result limit, ~360 KB escaped, still under the response cap', () => {
  const r = run('"\\u0001".repeat(60000)');
  assert.equal(r.status, 'ok', r.text);
  assert.equal(r.outcome.results[0].text.length, 60002);
});

test('an outcome over 1 MiB -> Interpreter response limit exceeded (engine error)', () => {
  // An error message is not bounded by the result or log limits: 200,000 control characters escape to 1.2 MB.
  const r = run('throw new Error("\\u0001".repeat(200000))');
  assert.deepEqual({ status: r.status, text: r.text }, { status: 'engine', text: 'Interpreter response limit exceeded' });
});

test('a guest trap is reported as a trap, and the core stays usable', () => {
  // What a trap (`unreachable`, a memory fault) looks like to the bridge: the guest export throws a RuntimeError.
  // Here wasm_init is swapped for one that does; sw_guest_call catches it and the core reports WASMIFY_TRAP.
  const config = { args: ['sandbox'], env: [], workspace: false, preopens: [], stdio: 'capture', referencePolicy: true };
  const h = withBytes(encoder.encode(JSON.stringify(config)), (p, n) => core._sw_wasi_host_new(p, n, 0));
  const instance = new WebAssembly.Instance(engineModule, makeImportObject(core, h, engineModule));
  bindGuestMemory(core, h, instance.exports.memory);
  core.wasmifyBind(h, { exports: { ...instance.exports, wasm_init: () => { throw new WebAssembly.RuntimeError('unreachable'); } } });
  const status = withBytes(encoder.encode('1'), (cp, cn) => core._sw_wasmify_run(h, ...engineArg('javascript'), cp, cn, 0, 0, 1000));
  const text = decoder.decode(core.HEAPU8.subarray(core._sw_wasmify_result(), core._sw_wasmify_result() + core._sw_wasmify_result_len()));
  core.wasmifyUnbind(h);
  unbindGuestMemory(core, h);
  core._sw_wasi_host_free(h);
  assert.deepEqual({ status: Status[status], text }, { status: 'trap', text: 'RuntimeError: unreachable' });
  assert.deepEqual(run('2 + 2').outcome.results, [{ text: '4' }]);
});
