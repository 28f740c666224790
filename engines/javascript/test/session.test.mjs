// JavaScript sessions at the engine level (protocol §5.2, §6.2 "Sessions (REPL)", §10.5 items 106-114 and 127):
// engine.wasm under OUR WASI host (the C++ core) with a mounted /workspace, driven entirely by the core's C++
// (cpp/wasmify: bootWasmifySession / restoreWasmifySession / WasmifySession::execute, through the
// sw_wasmify_js_session_* test exports). JavaScript here only instantiates the guest, registers it with the core,
// and plays the host's part of the items (writing a workspace file, flipping the `disabled` flag, copying memory).
//
//   node --test engines/javascript/test/session.test.mjs
import { test } from 'node:test';
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { core, root, encoder, decoder, makeImportObject, bindGuestMemory, unbindGuestMemory, withBytes, engineArg, abi, fsDump, BUDGET } from './core-harness.mjs';

// The module before the Wasm-level meter, as in smoke.mjs (its fuel pins are the driver's stand-in meter: one unit per
// QuickJS operation, docs/fuel.md).
const enginePath = process.env.SW_JS_ENGINE ?? path.join(root, 'engines/javascript/build/engine.unmetered.wasm');
const engineModule = new WebAssembly.Module(fs.readFileSync(enginePath));
assert.equal(typeof core._sw_wasmify_session_boot, 'function',
  'worker-shim/generated/core.wasm predates the session exports: rebuild it (bash scripts/build.sh core)');

const PAGE = 65536;

function result() {
  const p = core._sw_wasmify_result(), n = core._sw_wasmify_result_len();
  return decoder.decode(core.HEAPU8.subarray(p, p + n));
}

// A WASI host as a session gets it (protocol §5.4): args ["sandbox"], an empty environment, /workspace mounted (fd 5).
function newHost() {
  const config = { args: ['sandbox'], env: [], workspace: true, preopens: [], stdio: 'capture', referencePolicy: true };
  const host = withBytes(encoder.encode(JSON.stringify(config)), (p, n) => core._sw_wasi_host_new(p, n, 0));
  assert.ok(host, 'sw_wasi_host_new');
  return host;
}

// An instance of engine.wasm under `host`, NOT initialised (no _initialize): boot or restore decides.
function instantiate(host) {
  return new WebAssembly.Instance(engineModule, makeImportObject(core, host, engineModule));
}

function bind(host, instance, exports = instance.exports) {
  bindGuestMemory(core, host, instance.exports.memory);
  core.wasmifyBind(host, { exports });
}

class Session {
  constructor(host, instance, handle) {
    this.host = host;
    this.instance = instance;
    this.s = handle;
  }

  // bootWasmifySession on a fresh instance (optionally with wrapped exports, to inject traps).
  static boot({ cwd = '', fuel = BUDGET, wrap } = {}) {
    const host = newHost();
    const instance = instantiate(host);
    bind(host, instance, wrap ? wrap(instance.exports, host) : instance.exports);
    const s = withBytes(encoder.encode(cwd), (p, n) => core._sw_wasmify_session_boot(host, ...engineArg('javascript'), p, n, fuel));
    assert.ok(s, `session boot failed: ${result()}`);
    return new Session(host, instance, s);
  }

  // restoreWasmifySession on `instance` (whose memory the caller already wrote) under `host`.
  static restore(host, instance, handle, { cwd = '', fuel = BUDGET } = {}) {
    bind(host, instance);
    const s = withBytes(encoder.encode(cwd), (p, n) => core._sw_wasmify_session_restore(host, ...engineArg('javascript'), handle, p, n, fuel));
    assert.ok(s, `session restore failed: ${result()}`);
    return new Session(host, instance, s);
  }

  execute(code, envVars) {
    const src = encoder.encode(code);
    const env = encoder.encode(envVars ? JSON.stringify(envVars) : '');
    const status = withBytes(src, (cp, cn) => withBytes(env, (ep, en) =>
      core._sw_wasmify_session_execute(this.s, cp, cn, ep, en)));
    const text = result();
    if (status !== abi.WASMIFY_OK) return { status, text };
    return { status, text, outcome: JSON.parse(text), fuelConsumed: core._sw_wasi_fuel_consumed(this.host) };
  }

  // The value of the last expression, or the error.
  run(code, envVars) {
    const r = this.execute(code, envVars);
    assert.equal(r.status, abi.WASMIFY_OK, r.text);
    return r.outcome;
  }

  get invalid() { return core._sw_wasmify_session_invalid(this.s) === 1; }
  get cwd() { core._sw_wasmify_session_cwd(this.s); return result(); }
  get handle() { return core._sw_wasmify_session_handle(this.s); }
  get memory() { return this.instance.exports.memory; }
  // protocol §5.2: no guest descriptor beyond the fixed preopens, and not invalid.
  canSnapshot() { return !this.invalid && core._sw_wasi_has_open_guest_fds(this.host) === 0; }

  // The host's side of the workspace (cpp/wasi/exports.cpp).
  writeFile(guestPath, text) {
    const p = encoder.encode(guestPath), d = encoder.encode(text);
    return withBytes(p, (pp, pn) => withBytes(d, (dp, dn) => core._sw_wasi_fs_write(this.host, pp, pn, dp, dn)));
  }
  files() {
    const entries = fsDump(this.host, '/workspace');
    assert.ok(entries, 'sw_wasi_fs_dump');
    return Object.fromEntries(entries.map((e) => [e.rel, e.dir ? null : decoder.decode(e.data)]));
  }
  setDisabled(disabled) { core._sw_wasi_set_workspace_disabled(this.host, disabled ? 1 : 0); }

  close() {
    core._sw_wasmify_session_free(this.s);
    core.wasmifyUnbind(this.host);
    unbindGuestMemory(core, this.host);
    core._sw_wasi_host_free(this.host);
  }
}

const text = (t) => [{ text: t }];
const FUEL_ERROR = { name: 'ExecutionLimitError', message: 'Execution fuel exhausted', traceback: [] };

test('106 top-level var/let/const/class persist across calls', () => {
  const s = Session.boot();
  assert.deepEqual(s.run('var a = 1; let b = 2; const c = 3; class D { hi() { return 4; } }'),
    { logs: { stdout: [], stderr: [] }, results: [], cwd: '/workspace' });
  assert.deepEqual(s.run('a + b + c + new D().hi()').results, text('10'));
  s.close();
});

test('107 declarations in code with top-level await persist', () => {
  const s = Session.boot();
  assert.deepEqual(s.run('let z = 5; await Promise.resolve(); z').results, text('5'));
  assert.deepEqual(s.run('z').results, text('5'));
  s.run('const k = await Promise.resolve(2); function twice(x) { return x * k } class Q { static n = k }');
  assert.deepEqual(s.run('[twice(21), Q.n]').results, [{ json: [42, 2] }]);
  s.close();
});

test('108 fs.writeFileSync lands in the workspace; a file the host writes is readable', () => {
  const s = Session.boot();
  assert.deepEqual(s.run('fs.writeFileSync("/workspace/a.txt", "hi")').results, []);
  assert.equal(s.files()['a.txt'], 'hi');
  assert.equal(s.writeFile('/workspace/b.txt', 'from host'), 0);
  assert.deepEqual(s.run('fs.readFileSync("/workspace/b.txt", "utf8")').results, text("'from host'"));
  s.close();
});

test('109 a missing file -> e.code ENOENT', () => {
  const s = Session.boot();
  assert.deepEqual(s.run('try { fs.readFileSync("/workspace/missing.txt") } catch (e) { e.code }').results, text("'ENOENT'"));
  s.close();
});

test('110 mkdirSync + process.chdir: cwd in the outcome and on the session', () => {
  const s = Session.boot();
  const first = s.run('fs.mkdirSync("/workspace/sub"); process.chdir("sub")');
  assert.equal(first.cwd, '/workspace/sub');
  assert.equal(s.cwd, '/workspace/sub');
  const second = s.run('process.cwd()');
  assert.deepEqual(second.results, text("'/workspace/sub'"));
  assert.equal(second.cwd, '/workspace/sub');
  assert.deepEqual(s.files(), { sub: null });
  s.close();
});

test('110 a session booted in a context cwd starts there', () => {
  const s = Session.boot();
  s.run('fs.mkdirSync("/workspace/deep/er", { recursive: true })');
  s.close();
  const t = Session.boot({ cwd: '/workspace/deep/er' });
  assert.equal(t.cwd, '/workspace/deep/er');
  assert.deepEqual(t.run('process.cwd()').results, text("'/workspace/deep/er'"));
  t.close();
});

test('111 import() of a workspace module', () => {
  const s = Session.boot();
  s.run('fs.writeFileSync("/workspace/lib.mjs", "export const v = 7")');
  assert.deepEqual(s.run('const m = await import("./lib.mjs"); m.v').results, text('7'));
  assert.deepEqual(s.run('m.v + 1').results, text('8'));
  s.writeFile('/workspace/data.json', '{"answer": 42}');
  assert.deepEqual(s.run('(await import("/workspace/data.json")).default.answer').results, text('42'));
  const r = s.run('const failures = []; for (const x of ["lodash", "./missing.mjs", "./data.txt"]) ' +
    'try { await import(x) } catch (e) { failures.push(e.message) } failures');
  assert.deepEqual(r.results, [{ json: ['module not registered: lodash', 'module not registered: ./missing.mjs',
    'module not registered: ./data.txt'] }]);
  s.close();
});

test('112 a fuel interrupt keeps the realm: survivor, invalid false, canSnapshot true', () => {
  const s = Session.boot({ fuel: 200_000 });
  assert.deepEqual(s.run('var survivor = 42').results, []);
  const limited = s.run('console.log("dropped"); while (true) {}');
  assert.deepEqual(limited, { logs: { stdout: [], stderr: [] }, results: [], error: FUEL_ERROR, cwd: '/workspace' });
  assert.equal(s.invalid, false);
  assert.equal(s.canSnapshot(), true);
  assert.deepEqual(s.run('survivor').results, text('42'));
  s.close();
});

test('112 at the production budget: fuel is reset at the start of every execute', () => {
  const s = Session.boot();
  // 30,000,000 units each: two in a row only fit if the second starts from a fresh budget.
  for (let i = 0; i < 2; i++) {
    const code = 'let n' + i + ' = 0; while (n' + i + ' < 1.5e7) n' + i + '++; n' + i;
    const r = s.execute(code);
    assert.deepEqual(r.outcome.results, text('15000000'));
    // 2 units per iteration, a branch and a jump: the module's stand-in meter counts QuickJS's operations (docs/fuel.md).
    const over = r.fuelConsumed - 30e6;
    assert.ok(over >= -1000 && over <= 1000, `${r.fuelConsumed}`);
  }
  // A runaway loop ends by fuel, with exactly the budget consumed (the two loops above pin the scale: 2 units per
  // iteration), and the globals of both earlier executes survive it.
  const runaway = s.execute('while (true) {}');
  assert.deepEqual(runaway.outcome.error, FUEL_ERROR);
  assert.equal(runaway.fuelConsumed, BUDGET);
  assert.deepEqual(s.run('n0 + n1').results, text('30000000'));
  s.close();
});

test('113 a TypeError keeps earlier globals', () => {
  const s = Session.boot();
  s.run('var kept = 1');
  const r = s.run('null.x');
  assert.equal(r.error.name, 'TypeError');
  assert.match(r.error.traceback[0], /<input>:1/);
  assert.equal(s.invalid, false);
  assert.deepEqual(s.run('kept').results, text('1'));
  s.close();
});

test('114 a disabled workspace: EACCES, existsSync false, cwd /workspace; flipping back restores access', () => {
  const s = Session.boot();
  s.run('fs.mkdirSync("sub"); fs.writeFileSync("x.txt", "x")');
  s.setDisabled(true);
  const r = s.run(`const codes = {};
    for (const [k, f] of Object.entries({
      write: () => fs.writeFileSync("/workspace/a.txt", "1"), read: () => fs.readFileSync("/workspace/x.txt", "utf8"),
      chdir: () => process.chdir("sub"), mkdir: () => fs.mkdirSync("d"), readdir: () => fs.readdirSync("/workspace"),
      stat: () => fs.statSync("x.txt"), rm: () => fs.rmSync("x.txt"), rename: () => fs.renameSync("x.txt", "y.txt") }))
      try { f(); codes[k] = "ok" } catch (e) { codes[k] = e.code }
    [codes, fs.existsSync("/workspace/x.txt"), fs.existsSync("/workspace"), process.cwd()]`);
  assert.deepEqual(r.results, [{ json: [{ write: 'EACCES', read: 'EACCES', chdir: 'EACCES', mkdir: 'EACCES',
    readdir: 'EACCES', stat: 'EACCES', rm: 'EACCES', rename: 'EACCES' }, false, false, '/workspace'] }]);
  assert.deepEqual(s.run('await import("./m.mjs").catch((e) => e.message)').results, text("'module not registered: ./m.mjs'"));
  s.setDisabled(false); // read live, between calls
  assert.deepEqual(s.run('process.chdir("sub"); [fs.readFileSync("../x.txt", "utf8"), fs.existsSync("/workspace")]').results,
    [{ json: ['x', true] }]);
  assert.equal(s.cwd, '/workspace/sub');
  s.close();
});

test('process.env is rebuilt from envVars on every execute', () => {
  const s = Session.boot();
  assert.deepEqual(s.run('process.env.A', { A: 'one' }).results, text("'one'"));
  assert.deepEqual(s.run('[process.env.A, process.env.B]', { B: 'two' }).results, [{ json: [null, 'two'] }]);
  assert.deepEqual(s.run('Object.keys(process.env)').results, [{ json: [] }]);
  s.close();
});

test('a never-settling promise reports the stateless error; the session goes on', () => {
  const s = Session.boot();
  const r = s.run('var before = 1; await new Promise(() => {})');
  assert.deepEqual(r.error, { name: 'Error', message: 'Execution did not complete: a promise never settled ' +
    '(timers and indefinitely pending promises are unsupported)', traceback: [] });
  assert.deepEqual(s.run('before').results, text('1'));
  s.close();
});

test('a guest trap: EngineError outcome, the session becomes invalid, nothing throws', () => {
  let trap = false;
  const s = Session.boot({
    wrap: (exports) => ({ ...exports, w_0_26: (...a) => {
      if (trap) throw new WebAssembly.RuntimeError('unreachable');
      return exports.w_0_26(...a);
    } }),
  });
  s.run('fs.mkdirSync("t"); process.chdir("t")');
  trap = true;
  const r = s.execute('1');
  assert.equal(r.status, abi.WASMIFY_OK, r.text);
  assert.deepEqual(r.outcome, { logs: { stdout: [], stderr: [] }, results: [],
    error: { name: 'EngineError', message: 'RuntimeError: unreachable', traceback: [] }, cwd: '/workspace/t' });
  assert.equal(s.invalid, true);
  assert.equal(s.canSnapshot(), false);
  const again = s.execute('1');
  assert.deepEqual({ status: again.status, text: again.text }, { status: abi.WASMIFY_ENGINE_FAILED, text: 'Session instance is invalid' });
  s.close();
});

test('the fuel hard backstop (a Limit trap): ExecutionLimitError outcome, the session becomes invalid', () => {
  let backstop = false;
  const s = Session.boot({
    wrap: (exports, host) => ({ ...exports, w_0_26: (...a) => {
      // What a guest that ignores its interrupt word ends in: charges past a second full budget, the host records a
      // Fuel trap and the import trampoline throws.
      if (backstop) {
        for (let i = 0; i < 4 && core._sw_wasi_charge(host, 0xffffffff) === 0; i++);
        throw new Error('WASI trap');
      }
      return exports.w_0_26(...a);
    } }),
    fuel: 10_000, // enough for `2 + 2`: its compilation and the compiler's allocations cost ~1,000-2,000
  });
  assert.deepEqual(s.run('2 + 2').results, text('4'));
  backstop = true;
  const r = s.run('1');
  assert.deepEqual(r.error, FUEL_ERROR);
  assert.deepEqual(r.logs, { stdout: [], stderr: [] });
  assert.equal(s.invalid, true);
  s.close();
});

test('nothing but fs and require is added to the realm', () => {
  const s = Session.boot();
  const r = s.run('Object.getOwnPropertyNames(globalThis).filter((k) => !/^[A-Z]/.test(k)).sort()');
  assert.deepEqual(r.results, [{ json: ['console', 'decodeURI', 'decodeURIComponent', 'encodeURI',
    'encodeURIComponent', 'escape', 'eval', 'fs', 'globalThis', 'isFinite', 'isNaN', 'parseFloat', 'parseInt',
    'process', 'require', 'undefined', 'unescape'] }]);
  assert.deepEqual(s.run('Object.keys(fs).sort()').results, [{ json: [] }]);
  assert.deepEqual(s.run('Object.getOwnPropertyNames(fs).sort()').results, [{ json: ['existsSync', 'mkdirSync',
    'readFileSync', 'readdirSync', 'renameSync', 'rmSync', 'statSync', 'writeFileSync'] }]);
  s.close();
});

// protocol §10.5 item 127 at the engine level: the memory of a session instance, copied into a brand-new instance of the
// same engine.wasm (memory grown to the same page count, every byte written; no _initialize, wasm_init or New), is a
// working session after restoreWasmifySession. No mutable global needs copying: the module's only mutable global is
// __stack_pointer, which is back at its initial value (the top of the 1 MiB stack) whenever no call is running.
test('127 a copied memory image restored into a brand-new instance keeps globals, functions and classes', () => {
  const a = Session.boot();
  a.run('var counter = 41; function bump(x) { return x + 1 } class Greeter { hi(n) { return "hi " + n } }' +
    '; const seq = [Math.random(), Math.random()]');
  a.run('fs.mkdirSync("/workspace/sub"); process.chdir("sub")');
  a.run('fs.writeFileSync("/workspace/lib.mjs", "export const v = 7"); const lib = await import("/workspace/lib.mjs")');
  const pages = a.memory.buffer.byteLength / PAGE;
  const image = new Uint8Array(a.memory.buffer).slice();
  const handle = a.handle;
  const sp = a.instance.exports.__stack_pointer;
  assert.ok(sp instanceof WebAssembly.Global);
  const spAtRest = sp.value;
  const after = a.run('Math.random()').results; // A continues; the copy must replay from the same state
  a.close();

  const host = newHost(); // an empty workspace
  const b = instantiate(host);
  assert.equal(b.exports.__stack_pointer.value, spAtRest, '__stack_pointer at rest = its initial value');
  const mem = b.exports.memory;
  // The protocol §4.5 contract writes only the stored pages and relies on the rest being zero. A fresh instance is not
  // all zero (its data segments), so pages the image has as zero must be written too, as here (docs/abi.md).
  let zeroInImageNonZeroFresh = 0;
  const fresh = new Uint8Array(mem.buffer);
  for (let p = 0; p < fresh.length / PAGE; p++) {
    const f = fresh.subarray(p * PAGE, (p + 1) * PAGE), i = image.subarray(p * PAGE, (p + 1) * PAGE);
    if (!i.some((x) => x) && f.some((x) => x)) zeroInImageNonZeroFresh++;
  }
  console.log(`     image ${pages} pages; pages zero in the image but not in a fresh instance: ${zeroInImageNonZeroFresh}`);
  mem.grow(pages - mem.buffer.byteLength / PAGE);
  new Uint8Array(mem.buffer).set(image);
  const s = Session.restore(host, b, handle, { cwd: '/workspace' });
  assert.deepEqual(s.run('[bump(counter), new Greeter().hi("there"), typeof Greeter]').results,
    [{ json: [42, 'hi there', 'function'] }]);
  assert.deepEqual(s.run('Math.random()').results, after, 'Math.random continues from the snapshotted state');
  // The interrupt word is registered with the new host's meter (afterRestore), so the fuel limit still works.
  assert.deepEqual(s.run('while (true) {}').error, FUEL_ERROR);
  assert.deepEqual(s.run('counter').results, text('41'));
  // The workspace is the new host's: empty. The cwd the host passes wins over the one in the image.
  assert.deepEqual(s.run('[process.cwd(), fs.existsSync("/workspace/sub")]').results, [{ json: ['/workspace', false] }]);
  // Loaded modules are part of the image; the module loader (function pointers in the runtime) still works.
  assert.deepEqual(s.run('fs.writeFileSync("two.mjs", "export default 2"); [lib.v, (await import("./two.mjs")).default]').results,
    [{ json: [7, 2] }]);
  assert.equal(s.invalid, false);
  s.close();
});

test('127 restored with the context cwd, and a wrong handle is a clean failure', () => {
  const a = Session.boot();
  a.run('fs.mkdirSync("/workspace/w"); process.chdir("w"); var here = process.cwd()');
  const image = new Uint8Array(a.memory.buffer).slice();
  const handle = a.handle;
  a.close();
  const host = newHost();
  const b = instantiate(host);
  b.exports.memory.grow(image.length / PAGE - b.exports.memory.buffer.byteLength / PAGE);
  new Uint8Array(b.exports.memory.buffer).set(image);
  assert.equal(withBytes(encoder.encode(''), (p, n) => core._sw_wasmify_session_restore(host, ...engineArg('javascript'), 0, p, n, BUDGET)), 0);
  assert.equal(result(), 'JavaScript engine initialization failed');
  const s = Session.restore(host, b, handle, { cwd: '/workspace/w' });
  assert.deepEqual(s.run('[here, process.cwd()]').results, [{ json: ['/workspace/w', '/workspace/w'] }]);
  s.close();
});
