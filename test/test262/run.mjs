// Test262 (the official ECMAScript conformance suite) through OUR engine: engine.wasm under the core's WASI host and
// wasmify session host, as engines/javascript/test/upstream-engine.test.mjs runs programs (a fresh instance per test).
// docs/javascript-conformance.md says what CI runs and what it cannot.
//
//   node test/test262/run.mjs [DIR] [--filter SUBSTRING] [--list-failures] [--by-folder] [--write-known]
//
// DIR is a Test262 checkout (its test/ and harness/); default $SW_TEST262_DIR, else ../shared/test262-subset beside
// the repository (the workplace's shared folder, which CI also has beside its clone).
// Known failures are data: test/test262/known-failures.json (paths relative to DIR/test). Exit code 1 if a test
// outside that list fails, or a listed one now passes (remove it: the list only shrinks).
//
// Per test: the front matter's includes (harness/assert.js, sta.js, doneprintHandle.js for `async`, then `includes`)
// are prepended unless `raw`; `onlyStrict` adds "use strict" first; other tests run once, non-strict (Test262 asks for
// both modes; we run one). `module` tests are written to /workspace with the *_FIXTURE files of their folder and
// import()ed; scripts run as the session's script with the cwd in their folder, so import() finds the fixtures.
// `negative` tests pass when the error's name is the expected type; `async` ones when they print
// Test262:AsyncTestComplete.
import fs from 'node:fs';
import path from 'node:path';
import { core, root, encoder, decoder, makeImportObject, bindGuestMemory, unbindGuestMemory, withBytes, engineArg, abi } from '../../engines/javascript/test/core-harness.mjs';

const args = process.argv.slice(2);
const flag = (name) => { const i = args.indexOf(name); if (i < 0) return undefined; const [, v] = args.splice(i, 2); return v; };
const has = (name) => { const i = args.indexOf(name); if (i < 0) return false; args.splice(i, 1); return true; };
const filter = flag('--filter');
const listFailures = has('--list-failures');
const writeKnown = has('--write-known');
const showFolders = has('--by-folder');
const dir = path.resolve(args[0] ?? process.env.SW_TEST262_DIR ?? path.join(root, '..', 'shared', 'test262-subset'));
if (!fs.existsSync(path.join(dir, 'harness', 'assert.js'))) {
  console.log(`test262: no Test262 files at ${dir} (pass a directory holding test/ and harness/); nothing run`);
  process.exit(0);
}
const knownPath = path.join(root, 'test', 'test262', 'known-failures.json');
const known = new Set(JSON.parse(fs.readFileSync(knownPath, 'utf8')).failures.map((f) => f.path));

const enginePath = process.env.SW_JS_ENGINE ?? path.join(root, 'engines/javascript/build/engine.wasm');
const engineModule = new WebAssembly.Module(fs.readFileSync(enginePath));
const FUEL = 500_000_000; // metered, generous: conformance tests, not requests
// The engine's /stdlib (its Intl chunks), mounted as the Worker mounts it: one archive, shared by every test's host.
const stdlibPath = process.env.SW_JS_STDLIB ?? path.join(root, 'engines/javascript/build/stdlib.tar');
const archive = withBytes(fs.readFileSync(stdlibPath), (p, n) => core._sw_wasi_archive_new(p, n));
if (!archive) throw new Error(`${stdlibPath} is not an archive`);

// One failure a line, so a change to the list reads as a diff of tests.
const formatKnown = (list) => '{\n "comment": "Test262 tests our engine fails today (test/test262/run.mjs; docs/javascript-conformance.md)",\n' +
  ' "failures": [\n' + list.map((f) => '  ' + JSON.stringify(f)).join(',\n') + '\n ]\n}\n';

function walk(d, out = []) {
  for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.name.endsWith('.js') && !e.name.includes('_FIXTURE')) out.push(p);
  }
  return out;
}

// The YAML front matter, as much of it as a runner needs: includes, flags, negative.{phase,type}.
function frontMatter(src) {
  const m = /\/\*---([\s\S]*?)---\*\//.exec(src);
  const meta = { includes: [], flags: [], negative: null };
  if (!m) return meta;
  const text = m[1];
  const list = (key) => {
    const inline = new RegExp(`^\\s*${key}:\\s*\\[([^\\]]*)\\]`, 'm').exec(text);
    if (inline) return inline[1].split(',').map((s) => s.trim()).filter(Boolean);
    const block = new RegExp(`^\\s*${key}:\\s*\\n((?:\\s+-\\s*.*\\n?)+)`, 'm').exec(text);
    return block ? block[1].split('\n').map((s) => s.replace(/^\s*-\s*/, '').trim()).filter(Boolean) : [];
  };
  meta.includes = list('includes');
  meta.flags = list('flags');
  const neg = /^\s*negative:\s*\n\s+phase:\s*(\S+)\s*\n\s+type:\s*(\S+)/m.exec(text) ??
    /^\s*negative:\s*\n\s+type:\s*(\S+)\s*\n\s+phase:\s*(\S+)/m.exec(text);
  if (neg) meta.negative = /phase:\s*\S+\s*\n\s+type/.test(neg[0]) ? { phase: neg[1], type: neg[2] } : { phase: neg[2], type: neg[1] };
  return meta;
}

const harnessCache = new Map();
const harness = (name) => {
  if (!harnessCache.has(name)) harnessCache.set(name, fs.readFileSync(path.join(dir, 'harness', name), 'utf8'));
  return harnessCache.get(name);
};

function result() {
  const p = core._sw_wasmify_result(), n = core._sw_wasmify_result_len();
  return decoder.decode(core.HEAPU8.subarray(p, p + n));
}

// One test on a fresh engine instance: files (workspace path -> text) written first, `code` run with cwd `cwd`.
function runOnce(files, cwd, code) {
  const config = { args: ['sandbox'], env: [], workspace: true, preopens: [], stdio: 'capture', referencePolicy: true };
  const host = withBytes(encoder.encode(JSON.stringify(config)), (p, n) => core._sw_wasi_host_new(p, n, archive));
  const instance = new WebAssembly.Instance(engineModule, makeImportObject(core, host, engineModule));
  bindGuestMemory(core, host, instance.exports.memory);
  core.wasmifyBind(host, instance);
  let s = 0;
  try {
    for (const [file, text] of files) {
      const parts = file.split('/').slice(1, -1);
      for (let i = 2; i <= parts.length; i++)
        withBytes(encoder.encode('/' + parts.slice(0, i).join('/')), (p, n) => core._sw_wasi_fs_mkdir(host, p, n));
      const rc = withBytes(encoder.encode(file), (pp, pn) => withBytes(encoder.encode(text), (dp, dn) => core._sw_wasi_fs_write(host, pp, pn, dp, dn)));
      if (rc !== 0) return { error: { name: 'RunnerError', message: `writing ${file}: ${rc}` } };
    }
    s = withBytes(encoder.encode(cwd), (p, n) => core._sw_wasmify_session_boot(host, ...engineArg('javascript'), p, n, FUEL));
    if (!s) return { error: { name: 'RunnerError', message: result() } };
    const status = withBytes(encoder.encode(code), (cp, cn) => core._sw_wasmify_session_execute(s, cp, cn, 0, 0));
    if (status !== abi.WASMIFY_OK) return { error: { name: 'RunnerError', message: result() } };
    return JSON.parse(result());
  } finally {
    if (s) core._sw_wasmify_session_free(s);
    core.wasmifyUnbind(host);
    unbindGuestMemory(core, host);
    core._sw_wasi_host_free(host);
  }
}

const PRINT = 'globalThis.print = (m) => console.log(String(m));\n';

function runTest(file) {
  const rel = path.relative(path.join(dir, 'test'), file);
  const src = fs.readFileSync(file, 'utf8');
  const meta = frontMatter(src);
  const flags = new Set(meta.flags);
  let prelude = '';
  if (!flags.has('raw')) {
    const inc = ['assert.js', 'sta.js', ...(flags.has('async') ? ['doneprintHandle.js'] : []), ...meta.includes];
    prelude = [...new Set(inc)].map(harness).join('\n') + '\n';
  }
  const strict = flags.has('onlyStrict') ? '"use strict";\n' : '';
  const wsDir = '/workspace/' + path.dirname(rel);
  const files = [];
  for (const f of fs.readdirSync(path.dirname(file)))
    if (f.includes('_FIXTURE')) files.push([`${wsDir}/${f}`, fs.readFileSync(path.join(path.dirname(file), f), 'utf8')]);
  let code;
  if (flags.has('module')) {
    files.push([`${wsDir}/${path.basename(file)}`, prelude + src]);
    code = `${PRINT}await import("./${path.basename(file)}");`;
  } else {
    code = strict + PRINT + prelude + src;
  }
  const out = runOnce(files, wsDir, code);
  const err = out.error;
  const stdout = (out.logs?.stdout ?? []).join('\n');
  let ok, why;
  if (meta.negative) {
    ok = err?.name === meta.negative.type;
    why = err ? `${err.name}: ${err.message}` : `expected ${meta.negative.type} (${meta.negative.phase}), none thrown`;
  } else if (err) {
    ok = false;
    why = `${err.name}: ${err.message}`;
  } else if (flags.has('async')) {
    ok = stdout.includes('Test262:AsyncTestComplete') && !stdout.includes('Test262:AsyncTestFailure');
    why = stdout.split('\n').find((l) => l.includes('Test262:AsyncTest')) ?? 'no Test262:AsyncTestComplete printed';
  } else {
    ok = true;
  }
  return { rel, ok, why };
}

const tests = walk(path.join(dir, 'test')).filter((f) => !filter || f.includes(filter));
const failures = [];
let passed = 0;
const byFolder = new Map(); // the first three path parts (e.g. built-ins/Set/prototype) -> [passed, total]
const started = Date.now();
for (const t of tests) {
  const r = runTest(t);
  const folder = r.rel.split('/').slice(0, 3).filter((p) => !p.endsWith('.js')).join('/');
  const [p, n] = byFolder.get(folder) ?? [0, 0];
  byFolder.set(folder, [p + (r.ok ? 1 : 0), n + 1]);
  if (r.ok) passed++;
  else failures.push(r);
}
const secs = ((Date.now() - started) / 1000).toFixed(1);
const rate = tests.length ? (100 * passed / tests.length).toFixed(1) : '0';
const failed = new Set(failures.map((f) => f.rel));
const unexpected = failures.filter((f) => !known.has(f.rel));
const inScope = (p) => !filter || path.join(dir, 'test', p).includes(filter);
const fixed = [...known].filter((p) => inScope(p) && !failed.has(p) && fs.existsSync(path.join(dir, 'test', p)));
if (listFailures) for (const f of failures) console.log(`FAIL ${f.rel}: ${f.why}`);
if (showFolders || listFailures)
  for (const [f, [p, n]] of [...byFolder].sort()) console.log(`${String(p).padStart(5)}/${String(n).padEnd(5)} ${f}`);
for (const f of unexpected) console.log(`NEW FAILURE ${f.rel}: ${f.why}`);
for (const p of fixed) console.log(`NOW PASSES (remove from known-failures.json) ${p}`);
console.log(`test262: ${passed}/${tests.length} passed (${rate}%) in ${secs}s from ${dir}; ` +
  `${failures.length} failed, ${failures.length - unexpected.length} of them known`);
if (writeKnown) {
  const keep = [...known].filter((p) => !inScope(p)).map((p) => ({ path: p }));
  const list = [...keep, ...failures.map((f) => ({ path: f.rel, why: f.why.slice(0, 160) }))]
    .sort((a, b) => a.path.localeCompare(b.path));
  fs.writeFileSync(knownPath, formatKnown(list));
  console.log(`wrote ${knownPath} (${list.length} entries)`);
} else if (unexpected.length || fixed.length) {
  process.exit(1);
}
