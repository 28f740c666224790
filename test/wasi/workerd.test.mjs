// Smoke test of the WASI bridge inside workerd (Miniflare): the core and a subset of the guests are imported as
// precompiled modules (no runtime compilation is allowed there), each guest runs through makeImportObject with a
// captured stdout/stderr, and the results are checked against the guests' header expectations.
// Needs the guests built by guests.test.mjs (bash test/wasi/run.sh runs both).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Miniflare, convertV4MiniflareOptions } from 'miniflare';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const generated = path.join(root, 'worker-shim', 'generated');
const guestsOut = path.join(root, 'build', 'wasi-guests');
const dir = path.join(guestsOut, 'workerd');

// Guests whose options the smoke worker supports (default, --capture, --fuel N).
const SMOKE = ['hello_stdout', 'exit_code', 'proc_exit', 'environ_empty', 'clock_realtime', 'random_get', 'preopens',
  'stdin_empty', 'stderr_write', 'ws_write_read', 'ws_seeded', 'ws_rename', 'ws_readdir', 'ws_file_limit',
  'stdlib_read', 'stdlib_creat_eperm', 'escape_dotdot', 'escape_absolute', 'escape_nul', 'escape_symlink',
  'escape_subdir_fd', 'efault', 'output_limit_bytes', 'output_under_limit', 'fuel_exhausted', 'fuel_enough',
  'unknown_import', 'env_stubs'];

function expectations(source) {
  const e = { run: [], exit: 0, stdout: null, stderrHas: [] };
  for (const line of source.split('\n')) {
    const m = /^\/\/ (RUN|EXIT|STDOUT|STDERR-HAS): (.*)$/.exec(line);
    if (!m) continue;
    if (m[1] === 'RUN') e.run = JSON.parse(m[2]);
    else if (m[1] === 'EXIT') e.exit = Number(m[2]);
    else if (m[1] === 'STDOUT') e.stdout = JSON.parse(m[2]);
    else e.stderrHas.push(JSON.parse(m[2]));
  }
  return e;
}

const WORKER = `
import createCore from './core.mjs';
import coreWasm from './core.wasm';
import stdlib from './stdlib.zip';
import { makeImportObject, bindGuestMemory, unbindGuestMemory, WasiTrap, TrapKind } from './wasi_imports.mjs';
${SMOKE.map((n, i) => `import g${i} from './${n}.wasm';`).join('\n')}
const GUESTS = { ${SMOKE.map((n, i) => `${JSON.stringify(n)}: g${i}`).join(', ')} };
const enc = new TextEncoder(), dec = new TextDecoder();
function withBytes(core, bytes, fn) {
  const p = core._malloc(Math.max(1, bytes.length));
  core.HEAPU8.set(bytes, p);
  try { return fn(p, bytes.length); } finally { core._free(p); }
}
function output(core, host, fd) {
  const p = core._sw_wasi_output(host, fd);
  return dec.decode(core.HEAPU8.slice(p, p + core._sw_wasi_scratch_len(host)));
}
let corePromise;
export default {
  async fetch(request) {
    const { name, fuel } = await request.json();
    const core = await (corePromise ??= createCore({
      locateFile: (p) => p,
      instantiateWasm(imports, ok) { const i = new WebAssembly.Instance(coreWasm, imports); ok(i, coreWasm); return i.exports; },
    }));
    const archive = withBytes(core, new Uint8Array(stdlib), (p, n) => core._sw_wasi_archive_new(p, n));
    const config = { args: [name + '.wasm'], env: [], workspace: true, stdio: 'capture' };
    const host = withBytes(core, enc.encode(JSON.stringify(config)), (p, n) => core._sw_wasi_host_new(p, n, archive));
    for (const [file, text] of [['/workspace/hello.txt', 'hello\\n'], ['/workspace/sub/nested.txt', 'nested\\n']]) {
      withBytes(core, enc.encode(file), (p, n) => withBytes(core, enc.encode(text), (d, dn) => core._sw_wasi_fs_write(host, p, n, d, dn)));
    }
    withBytes(core, enc.encode('/workspace/sub/deeper'), (p, n) => core._sw_wasi_fs_mkdir(host, p, n));
    if (fuel >= 0) core._sw_wasi_fuel_reset(host, fuel);
    let code = 0, note = '';
    try {
      const module = GUESTS[name];
      const instance = new WebAssembly.Instance(module, makeImportObject(core, host, module));
      bindGuestMemory(core, host, instance.exports.memory);
      instance.exports._start();
    } catch (e) {
      if (e instanceof WasiTrap && e.kind === TrapKind.Exit) code = e.exitCode;
      else { code = 134; note = 'wasi-run: ' + (e instanceof WasiTrap ? e.name + ': ' + e.message : String(e)) + '\\n'; }
    }
    unbindGuestMemory(core, host);
    const result = { code, stdout: output(core, host, 1), stderr: output(core, host, 2) + note };
    core._sw_wasi_host_free(host);
    core._sw_wasi_archive_free(archive);
    return Response.json(result);
  },
};
`;

let mf;

before(async () => {
  fs.mkdirSync(dir, { recursive: true });
  for (const f of ['core.mjs', 'core.wasm', 'wasi_imports.mjs']) fs.copyFileSync(path.join(generated, f), path.join(dir, f));
  fs.copyFileSync(path.join(guestsOut, 'stdlib.zip'), path.join(dir, 'stdlib.zip'));
  for (const n of SMOKE) fs.copyFileSync(path.join(guestsOut, `${n}.wasm`), path.join(dir, `${n}.wasm`));
  fs.writeFileSync(path.join(dir, 'worker.mjs'), WORKER);
  const mod = (type, file) => ({ type, path: path.join(dir, file) });
  mf = new Miniflare(convertV4MiniflareOptions({
    compatibilityDate: '2025-09-01',
    modulesRoot: dir,
    modules: [
      mod('ESModule', 'worker.mjs'), mod('ESModule', 'core.mjs'), mod('ESModule', 'wasi_imports.mjs'),
      mod('CompiledWasm', 'core.wasm'), mod('Data', 'stdlib.zip'),
      ...SMOKE.map((n) => mod('CompiledWasm', `${n}.wasm`)),
    ],
  }));
  await mf.ready;
});

after(async () => { await mf?.dispose(); });

describe('WASI guests in workerd (smoke)', () => {
  for (const name of SMOKE) {
    it(name, async () => {
      const e = expectations(fs.readFileSync(path.join(here, 'guests', `${name}.c`), 'utf8'));
      const fuelAt = e.run.indexOf('--fuel');
      const fuel = fuelAt >= 0 ? Number(e.run[fuelAt + 1]) : -1;
      const res = await mf.dispatchFetch('http://smoke/', { method: 'POST', body: JSON.stringify({ name, fuel }) });
      const text = await res.text();
      assert.equal(res.status, 200, text);
      const { code, stdout, stderr } = JSON.parse(text);
      const context = `\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`;
      assert.equal(code, e.exit, `exit code${context}`);
      if (e.stdout !== null) assert.equal(stdout, e.stdout, `stdout${context}`);
      for (const s of e.stderrHas) assert.ok(stderr.includes(s), `stderr should contain ${JSON.stringify(s)}${context}`);
    });
  }
});
