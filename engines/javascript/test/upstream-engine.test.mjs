// QuickJS's own tests/test_*.js (from the pinned source package) through OUR engine.wasm under OUR WASI host, driven
// by the core's C++ session host (cpp/wasmify) — the same path a code context takes. upstream.sh runs the full set
// natively with upstream's qjs; here runs every script that needs nothing but the language:
//
//   test_closure.js, test_language.js, test_loop.js, test_bigint.js   the file as one session script, unmodified
//   test_builtin.js                                                  the same, after a harness prelude (below)
//   test_cyclic_import.js                                            import()ed from /workspace (a module graph)
//
// Not run: test_std.js, test_worker.js (QuickJS's `std`/`os` modules, workers) and test_bjson.js (a native .so
// module): the sandbox has none of these by design (protocol §6.2: no timers, no host modules).
//
// test_builtin.js expects qjs --std: `std.gc()` and `os.setTimeout`. The sandbox exposes neither, so a prelude defines
// them in this harness's session only: `std.gc()` makes QuickJS run its own cycle collector (JS_RunGC) the way any
// program can — it allocates 256 KiB buffers until the automatic-GC threshold is crossed, which it detects by a
// WeakRef to an unreachable cycle turning undefined (the threshold is always below the 32 MiB heap cap since the
// engines/javascript/patches/gc-threshold.patch, so this terminates);
// `os.setTimeout(f)` keeps f, and the harness calls the callbacks in the next session call — after the test's job queue
// drained, like qjs's event loop — so an assertion inside a callback still fails the test.
//
//   SW_QJS_SRC=$(bash scripts/engines/javascript.sh --src-dir) node --test engines/javascript/test/upstream-engine.test.mjs
import { test } from 'node:test';
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { core, root, encoder, decoder, makeImportObject, bindGuestMemory, unbindGuestMemory, withBytes, engineArg, abi } from './core-harness.mjs';

const enginePath = process.env.SW_JS_ENGINE ?? path.join(root, 'engines/javascript/build/engine.wasm');
const engineModule = new WebAssembly.Module(fs.readFileSync(enginePath));
const src = process.env.SW_QJS_SRC ??
  execFileSync('bash', [path.join(root, 'scripts/engines/javascript.sh'), '--src-dir'], { encoding: 'utf8' }).trim();
const testsDir = path.join(src, 'tests');
const FUEL = 1_000_000_000; // metered, but generous: these are test suites, not requests

function result() {
  const p = core._sw_wasmify_result(), n = core._sw_wasmify_result_len();
  return decoder.decode(core.HEAPU8.subarray(p, p + n));
}

// A session on a fresh engine instance whose /workspace holds tests/*.js.
function session() {
  const config = { args: ['sandbox'], env: [], workspace: true, preopens: [], stdio: 'capture', referencePolicy: true };
  const host = withBytes(encoder.encode(JSON.stringify(config)), (p, n) => core._sw_wasi_host_new(p, n, 0));
  const instance = new WebAssembly.Instance(engineModule, makeImportObject(core, host, engineModule));
  bindGuestMemory(core, host, instance.exports.memory);
  core.wasmifyBind(host, instance);
  const s = withBytes(encoder.encode(''), (p, n) => core._sw_wasmify_session_boot(host, ...engineArg('javascript'), p, n, FUEL));
  assert.ok(s, result());
  withBytes(encoder.encode('/workspace/tests'), (p, n) => core._sw_wasi_fs_mkdir(host, p, n));
  for (const f of fs.readdirSync(testsDir).filter((f) => f.endsWith('.js'))) {
    const rc = withBytes(encoder.encode('/workspace/tests/' + f), (pp, pn) =>
      withBytes(fs.readFileSync(path.join(testsDir, f)), (dp, dn) => core._sw_wasi_fs_write(host, pp, pn, dp, dn)));
    assert.equal(rc, 0, `writing ${f}`);
  }
  return {
    run(code) {
      const status = withBytes(encoder.encode(code), (cp, cn) => core._sw_wasmify_session_execute(s, cp, cn, 0, 0));
      assert.equal(status, abi.WASMIFY_OK, result());
      return { outcome: JSON.parse(result()), fuel: core._sw_wasi_fuel_consumed(host) };
    },
    close() {
      core._sw_wasmify_session_free(s);
      core.wasmifyUnbind(host);
      unbindGuestMemory(core, host);
      core._sw_wasi_host_free(host);
    },
  };
}

function passes(r, name) {
  assert.equal(r.outcome.error, undefined, `${name}: ${JSON.stringify(r.outcome.error)}`);
  console.log(`     ${name}: ${r.fuel.toLocaleString('en')} fuel`);
}

for (const name of ['test_closure', 'test_language', 'test_loop', 'test_bigint']) {
  test(`${name}.js`, () => {
    const s = session();
    try {
      passes(s.run(fs.readFileSync(path.join(testsDir, `${name}.js`), 'utf8')), name);
    } finally {
      s.close();
    }
  });
}

test('test_builtin.js (qjs --std: std.gc and os.setTimeout from the harness prelude)', () => {
  const s = session();
  try {
    s.run(`var std = { gc() {
        let c = {}; c.self = c; const sentinel = new WeakRef(c); c = null; // only a collection clears it
        const keep = [];
        while (sentinel.deref() !== undefined && keep.length < 128) keep.push(new ArrayBuffer(1 << 18));
        if (sentinel.deref() !== undefined) throw new Error('harness: no collection');
      } };
      var __timers = []; var os = { setTimeout(f) { __timers.push(f) } }`);
    passes(s.run(fs.readFileSync(path.join(testsDir, 'test_builtin.js'), 'utf8')), 'test_builtin');
    // The timers, as a macrotask: after the script's job queue drained (the finalization jobs included).
    const timers = s.run('for (const f of __timers) f(); __timers.length');
    assert.equal(timers.outcome.error, undefined, JSON.stringify(timers.outcome.error));
    assert.deepEqual(timers.outcome.results, [{ text: '2' }]); // test_finalization_registry's two callbacks ran
  } finally {
    s.close();
  }
});

test('test_cyclic_import.js (a module graph with a cycle, import()ed from /workspace)', () => {
  const s = session();
  try {
    const r = s.run('const m = await import("./tests/test_cyclic_import.js"); [typeof m.f, m.g(1)]');
    passes(r, 'test_cyclic_import');
    assert.deepEqual(r.outcome.results, [{ json: ['function', 2] }]);
  } finally {
    s.close();
  }
});
