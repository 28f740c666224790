#!/usr/bin/env node
// Our wasm32-wasip1 conformance suite (test/wasi/conformance/*.c; the mapping to the official WebAssembly
// wasi-testsuite is in docs/wasi-host.md). Compiles each program with the pinned clang-16 + wasi-libc, runs it
// under OUR host (scripts/wasi-run.mjs --full-wasi --dir SCRATCH::/ with its --env and args) and, for comparison,
// under Node's node:wasi with the same preopen, arguments and environment; prints pass/fail per program and both
// counts. Exit status: non-zero when a program fails under our host (node:wasi is a comparison, never a gate).
//
//   node test/wasi/conformance.mjs [--only REGEX] [--no-node-wasi] [--json FILE]
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { compile as compileCached } from './compile-cache.mjs';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const srcDir = path.join(here, 'conformance');
const outDir = path.join(root, 'build', 'wasi-conformance');
const runner = path.join(root, 'scripts', 'wasi-run.mjs');
const clang = process.env.CLANG ?? 'clang-16';
// A program that hangs is a failure, not a stuck suite (node:wasi loops on one of them: docs/wasi-host.md).
const timeoutMs = { ours: 30000, node: 10000 };

const argv = process.argv.slice(2);
const opt = (name) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : null; };
const only = opt('--only') ? new RegExp(opt('--only')) : null;
const withNode = !argv.includes('--no-node-wasi');
const jsonOut = opt('--json');

// Header lines (see conformance/conf.h).
function expectations(source) {
  const e = { args: [], env: [], dirs: true, exit: 0, stdout: null };
  for (const line of source.split('\n')) {
    const m = /^\/\/ (ARGS|ENV|DIRS|EXIT|STDOUT): (.*)$/.exec(line);
    if (!m) continue;
    if (m[1] === 'ARGS') e.args = JSON.parse(m[2]);
    else if (m[1] === 'ENV') e.env = JSON.parse(m[2]);
    else if (m[1] === 'DIRS') e.dirs = m[2].trim() !== 'none';
    else if (m[1] === 'EXIT') e.exit = Number(m[2]);
    else if (m[1] === 'STDOUT') e.stdout = JSON.parse(m[2]);
  }
  return e;
}

function seed(dir) {
  fs.mkdirSync(path.join(dir, 'sub'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'data.txt'), 'hello wasi\n');
  fs.writeFileSync(path.join(dir, 'sub', 'nested.txt'), 'nested\n');
}

async function compile(file) {
  const src = path.join(srcDir, file);
  const wasm = path.join(outDir, file.replace(/\.c$/, '.wasm'));
  try {
    await compileCached(clang, ['--target=wasm32-wasi', '-O2', '-Wall', '-Werror', '-Wl,--strip-debug'], src,
      [path.join(srcDir, 'conf.h'), path.join(srcDir, '..', 'check.h')], wasm);
    return null;
  } catch (err) {
    return err.stderr || String(err);
  }
}

// node:wasi in a child process: the same preopen, args and environment; exit code as ours.
const nodeWasiScript = `
import fs from 'node:fs';
import { WASI } from 'node:wasi';
const [wasm, scratch, args, env] = [process.argv[1], process.argv[2], JSON.parse(process.argv[3]), JSON.parse(process.argv[4])];
const wasi = new WASI({ version: 'preview1', args, env: Object.fromEntries(env.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])),
  preopens: scratch ? { '/': scratch } : {}, returnOnExit: true });
const instance = new WebAssembly.Instance(new WebAssembly.Module(fs.readFileSync(wasm)), wasi.getImportObject());
process.exitCode = wasi.start(instance);
`;

async function execute(cmd, args, timeout) {
  try {
    const { stdout, stderr } = await run(cmd, args, { maxBuffer: 1 << 24, timeout });
    return { status: 0, stdout, stderr };
  } catch (err) {
    if (err.killed) return { status: -1, stdout: err.stdout ?? '', stderr: `timed out after ${timeout / 1000} s` };
    if (typeof err.code !== 'number') return { status: -1, stdout: err.stdout ?? '', stderr: `${err.stderr ?? ''}${err.message}` };
    return { status: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

function verdict(e, r) {
  if (r.status !== e.exit) return `exit ${r.status}, expected ${e.exit}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`;
  if (e.stdout !== null && r.stdout !== e.stdout) return `stdout ${JSON.stringify(r.stdout)}, expected ${JSON.stringify(e.stdout)}`;
  return null;
}

async function runOne(file, scratchRoot) {
  const name = file.replace(/\.c$/, '');
  const e = expectations(fs.readFileSync(path.join(srcDir, file), 'utf8'));
  const wasm = path.join(outDir, `${name}.wasm`);
  const argv0 = path.basename(wasm);
  const result = { name };
  const ours = fs.mkdtempSync(path.join(scratchRoot, `${name}-ours-`));
  seed(ours);
  const oursArgs = [runner, '--full-wasi', ...(e.dirs ? ['--dir', `${ours}::/`] : []),
    ...e.env.flatMap((kv) => ['--env', kv]), wasm, '--', ...e.args];
  result.ours = verdict(e, await execute(process.execPath, oursArgs, timeoutMs.ours));
  if (withNode) {
    const theirs = fs.mkdtempSync(path.join(scratchRoot, `${name}-node-`));
    seed(theirs);
    const r = await execute(process.execPath, ['--no-warnings', '--input-type=module', '-e', nodeWasiScript, wasm,
      e.dirs ? theirs : '', JSON.stringify([argv0, ...e.args]), JSON.stringify(e.env)], timeoutMs.node);
    result.node = verdict(e, r);
  }
  return result;
}

async function main() {
  fs.mkdirSync(outDir, { recursive: true });
  const files = fs.readdirSync(srcDir).filter((f) => f.endsWith('.c') && (!only || only.test(f))).sort();
  const jobs = Math.max(2, os.cpus().length);
  const compileErrors = new Map();
  const queue = [...files];
  await Promise.all(Array.from({ length: jobs }, async () => {
    while (queue.length) { const f = queue.shift(); const err = await compile(f); if (err) compileErrors.set(f, err); }
  }));
  const scratchRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'wasi-conformance-'));
  const results = [];
  const pending = files.filter((f) => !compileErrors.has(f));
  for (const f of compileErrors.keys()) results.push({ name: f.replace(/\.c$/, ''), ours: `compile error: ${compileErrors.get(f)}`, node: 'compile error' });
  await Promise.all(Array.from({ length: jobs }, async () => {
    while (pending.length) results.push(await runOne(pending.shift(), scratchRoot));
  }));
  fs.rmSync(scratchRoot, { recursive: true, force: true });
  results.sort((a, b) => (a.name < b.name ? -1 : 1));
  const mark = (v) => (v === undefined ? '-' : v === null ? 'pass' : 'FAIL');
  for (const r of results) {
    console.log(`${mark(r.ours).padEnd(4)}  ${mark(r.node).padEnd(4)}  ${r.name}`);
    if (r.ours) console.log(`        ours: ${r.ours}`);
    if (r.node && process.env.WASI_CONFORMANCE_VERBOSE) console.log(`        node:wasi: ${r.node}`);
  }
  const oursPass = results.filter((r) => r.ours === null).length;
  const nodePass = results.filter((r) => r.node === null).length;
  console.log(`\nour host (--full-wasi): ${oursPass}/${results.length} pass` +
    (withNode ? `; node:wasi (comparison): ${nodePass}/${results.length} pass` : ''));
  if (jsonOut) fs.writeFileSync(jsonOut, JSON.stringify(results, null, 1));
  return oursPass === results.length ? 0 : 1;
}

process.exitCode = await main();
