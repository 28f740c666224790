// Shared by test/tools/wasm-fuel.test.mjs and bench/wasm-fuel.mjs: builds sw-wasm-fuel and the C guest, fetches
// zeroperl, and runs modules under node:wasi with a JS `sandbox.charge` that counts (docs/fuel-tool.md).
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WASI } from 'node:wasi';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const buildDir = path.join(root, 'build', 'tools');
const cache = process.env.SW_CACHE ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'sandbox-workers');

export const ZEROPERL = { version: '1.0.10', tgzSha256: 'c46c5ffff4f2c2216137a6b34b4eb03f5554e17a2b88979463c5f61dffb36fed' };

// The tool, exactly as the engine builds get it.
export function buildTool() {
  return execFileSync('bash', [path.join(root, 'scripts', 'tools', 'wasm-fuel.sh')], { encoding: 'utf8' }).trim();
}

export function instrument(tool, input, output, args = []) {
  execFileSync(tool, [input, output, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  return fs.readFileSync(output);
}

// The C guest; `stackFirst`: linked with its 1 MiB stack at the start of memory, as our engines are (--stack-mark).
export function buildGuest({ stackFirst = false } = {}) {
  fs.mkdirSync(buildDir, { recursive: true });
  const out = path.join(buildDir, stackFirst ? 'fuel_work.stack-first.wasm' : 'fuel_work.wasm');
  execFileSync('clang-16', ['--target=wasm32-wasi', '-O2', '-mbulk-memory', '-Wall', '-Werror', '-Wl,--strip-debug',
    ...(stackFirst ? ['-Wl,--stack-first', '-Wl,-z,stack-size=1048576'] : []),
    path.join(root, 'test', 'tools', 'guests', 'fuel_work.c'), '-o', out]);
  return out;
}

// zeroperl.wasm from the npm tarball, pinned by the tarball's sha256, cached under $SW_CACHE.
export function zeroperlPath() {
  const dir = path.join(cache, 'npm', `zeroperl-ts-${ZEROPERL.version}`);
  const wasm = path.join(dir, 'package', 'dist', 'esm', 'zeroperl.wasm');
  if (fs.existsSync(wasm)) return wasm;
  fs.mkdirSync(dir, { recursive: true });
  const npm = path.join(path.dirname(process.execPath), 'npm');
  const name = execFileSync(fs.existsSync(npm) ? npm : 'npm',
    ['pack', `@6over3/zeroperl-ts@${ZEROPERL.version}`, '--pack-destination', dir, '--silent'],
    { encoding: 'utf8' }).trim().split('\n').pop();
  const tgz = path.join(dir, name);
  const sha = crypto.createHash('sha256').update(fs.readFileSync(tgz)).digest('hex');
  if (sha !== ZEROPERL.tgzSha256) throw new Error(`${tgz}: sha256 ${sha}, expected ${ZEROPERL.tgzSha256}`);
  execFileSync('tar', ['xzf', tgz, '-C', dir, 'package/dist/esm/zeroperl.wasm']);
  return wasm;
}

export class BudgetExceeded extends Error {}

// The JS stand-in for our host's meter: hard mode when `budget` is finite.
export function meter(budget = Infinity) {
  const m = {
    charged: 0,
    calls: 0,
    charge(units) {
      m.calls++;
      m.charged += units;
      if (m.charged > budget) throw new BudgetExceeded(`fuel exhausted after ${m.charged}`);
    },
  };
  return m;
}

// Ticks spent so far: what was charged plus what the guest has used of its current batch. A weighted module
// (--weighted) counts weight, `sw_fuel_scale` of it per charged unit: this is then the weight spent.
export function ticks(m, exports) {
  const scale = exports.sw_fuel_scale?.value ?? 1;
  return m.charged * scale + exports.sw_fuel_batch.value - exports.sw_fuel_left.value;
}

function scratch() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'wasm-fuel-'));
}

// Runs a WASI command; { exit, error, stdout, ticks } (ticks only when `m` is given).
export function runCommand(module, args, m) {
  const dir = scratch();
  const outPath = path.join(dir, 'stdout');
  const fd = fs.openSync(outPath, 'w');
  const wasi = new WASI({ version: 'preview1', args: ['guest', ...args], env: {}, stdout: fd, returnOnExit: true });
  const imports = wasi.getImportObject();
  if (m) imports.sandbox = { charge: m.charge };
  const instance = new WebAssembly.Instance(module, imports);
  let exit, error;
  try {
    exit = wasi.start(instance);
  } catch (e) {
    error = e;
  }
  fs.closeSync(fd);
  const stdout = fs.readFileSync(outPath, 'utf8');
  fs.rmSync(dir, { recursive: true, force: true });
  return { exit, error, stdout, ticks: m ? ticks(m, instance.exports) : undefined, exports: instance.exports };
}

// A booted zeroperl (its init fails with "Can't open /dev/null" unless /dev/null exists; a stub for its one host
// import, env.call_host_function). eval(code) runs the code, flushes, and returns { rc, error, stdout }. Perl
// randomises its hash seed (random_get): pin it so that tick counts repeat.
export function bootPerl(module, m, env = { PERL_HASH_SEED: '0', PERL_PERTURB_KEYS: '0' }) {
  const dir = scratch();
  fs.mkdirSync(path.join(dir, 'root', 'dev'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'root', 'dev', 'null'), '');
  const outPath = path.join(dir, 'stdout');
  const fd = fs.openSync(outPath, 'w');
  const wasi = new WASI({ version: 'preview1', args: ['zeroperl'], env, preopens: { '/': path.join(dir, 'root') },
    stdout: fd, returnOnExit: true });
  const imports = { ...wasi.getImportObject(), env: { call_host_function: () => 0 } };
  if (m) imports.sandbox = { charge: m.charge };
  const instance = new WebAssembly.Instance(module, imports);
  wasi.initialize(instance);
  const e = instance.exports;
  const rc = e.zeroperl_init();
  if (rc !== 0) throw new Error(`zeroperl_init: ${rc}`);
  let read = 0;
  return {
    exports: e,
    eval(code) {
      const bytes = Buffer.from(`${code}\0`);
      const ptr = e.malloc(bytes.length);
      new Uint8Array(e.memory.buffer).set(bytes, ptr);
      let result, error;
      try {
        result = e.zeroperl_eval(ptr, 1, 0, 0);
        e.zeroperl_flush();
      } catch (err) {
        error = err;
      }
      const all = fs.readFileSync(outPath, 'utf8');
      const stdout = all.slice(read);
      read = all.length;
      return { rc: result, error, stdout };
    },
    close() {
      fs.closeSync(fd);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
