#!/usr/bin/env node
// Benchmark: our WASI host (the C++ core, via scripts/wasi-run.mjs) vs Node's built-in node:wasi.
// A benchmark, not a test: it fails only if a guest fails (non-zero exit, wrong output, missing files).
//
//   node bench/wasi.mjs [--runs N] [--files F] [--writes W] [--scale S] [--tmp DIR] [--no-tmpfs]
//                       [--only syscall_heavy|compute] [--cpu-prof DIR] [--json FILE] [--compare-runner FILE]
//
// Builds bench/wasi/*.c with clang-16 (wasm32-wasi, -O2) into build/bench-wasi/, then runs every guest N times per
// host, the hosts interleaved (the order alternates each round), each run in a fresh process and a fresh directory:
//   ours         node scripts/wasi-run.mjs --dir TMP::/data guest.wasm ...   (in-memory tree, copied back on exit)
//   node:wasi    node --no-turbo-fast-api-calls bench/wasi.mjs --child ...   (WASI preview1, TMP preopened as /data)
//   ours tmpfs / node:wasi tmpfs  the same two with TMP on /dev/shm, for the guest that uses a directory (only if
//                /dev/shm is a writable tmpfs; --no-tmpfs skips them)
// Medians and minimums over the runs (on a loaded machine the minimum is the steadier estimate for compute).
// Two times per run: `guest` = the guest's own CLOCK_MONOTONIC time around its work (excludes process start, core
// load, module compile, our copy-in/copy-back), `total` = wall time of the whole process as seen from here.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');

function parseArgs(argv) {
  const o = { runs: 5, files: 10000, writes: 100000, scale: 4, tmp: os.tmpdir(), tmpfs: true, only: null,
    cpuProf: null, json: null, compare: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = () => argv[++i];
    if (a === '--runs') o.runs = Number(v());
    else if (a === '--files') o.files = Number(v());
    else if (a === '--writes') o.writes = Number(v());
    else if (a === '--scale') o.scale = Number(v());
    else if (a === '--tmp') o.tmp = path.resolve(v());
    else if (a === '--no-tmpfs') o.tmpfs = false;
    else if (a === '--only') o.only = v();
    else if (a === '--cpu-prof') o.cpuProf = path.resolve(v());
    else if (a === '--json') o.json = path.resolve(v());
    else if (a === '--compare-runner') o.compare = path.resolve(v());
    else { console.error(`bench/wasi.mjs: unknown option ${a}`); process.exit(2); }
  }
  return o;
}

function build(outDir) {
  fs.mkdirSync(outDir, { recursive: true });
  const clang = process.env.CLANG ?? 'clang-16';
  const guests = [];
  for (const file of fs.readdirSync(path.join(here, 'wasi')).filter((f) => f.endsWith('.c')).sort()) {
    const src = path.join(here, 'wasi', file);
    const wasm = path.join(outDir, file.replace(/\.c$/, '.wasm'));
    if (!fs.existsSync(wasm) || fs.statSync(wasm).mtimeMs < fs.statSync(src).mtimeMs) {
      const r = spawnSyncChecked(clang, ['--target=wasm32-wasi', '-O2', '-Wall', '-Werror', '-Wl,--strip-debug', src,
        '-o', wasm]);
      if (r) throw new Error(`${clang} ${file}: ${r}`);
    }
    guests.push({ name: file.replace(/\.c$/, ''), wasm });
  }
  return guests;
}

function spawnSyncChecked(cmd, args) {
  const { status, stderr, error } = spawnSync(cmd, args, { encoding: 'utf8' });
  return status === 0 ? null : (stderr || error?.message || `exit ${status}`);
}

function runProcess(argv0, args, env) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(argv0, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    let stdout = '', stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, totalMs: Number(process.hrtime.bigint() - t0) / 1e6 }));
  });
}

function parseBench(stdout) {
  const line = stdout.split('\n').find((l) => l.startsWith('BENCH '));
  if (!line) return null;
  const out = {};
  for (const kv of line.slice(6).trim().split(/\s+/)) {
    const [k, v] = kv.split('=');
    out[k] = Number.isNaN(Number(v)) ? v : Number(v);
  }
  return out;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmt = (x) => x.toFixed(1).padStart(9);

function isTmpfs(dir) {
  try {
    const mounts = fs.readFileSync('/proc/mounts', 'utf8').split('\n').map((l) => l.split(' '));
    const m = mounts.find((f) => f[1] === dir);
    if (!m || m[2] !== 'tmpfs') return false;
    fs.accessSync(dir, fs.constants.W_OK);
    return true;
  } catch { return false; }
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const node = process.execPath;
  const guests = build(path.join(root, 'build', 'bench-wasi')).filter((g) => !o.only || g.name === o.only);
  const runner = path.join(root, 'scripts', 'wasi-run.mjs');
  const prof = (tag) => (o.cpuProf ? ['--cpu-prof', '--cpu-prof-dir', path.join(o.cpuProf, tag)] : []);

  // Each host runs against the same kind of directory: ours copies the in-memory tree back to TMP at exit, node:wasi
  // works on TMP directly. With /dev/shm (tmpfs) a second pair shows the hosts without the disk file system.
  const tag = (name, g) => `${name.replace(/\W+/g, '-')}-${g.name}`;
  const ours = (tmp, name, script = runner) => ({ name, tmp,
    argv: (g, dir, args) => [...prof(tag(name, g)), script, ...(dir ? ['--dir', `${dir}::/data`] : []), g.wasm,
      ...args] });
  const nodeWasi = (tmp, name) => ({ name, tmp,
    argv: (g, dir, args) => ['--no-turbo-fast-api-calls', '--no-warnings', ...prof(tag(name, g)),
      fileURLToPath(import.meta.url), '--child', g.wasm, dir ?? '', ...args] });
  const pairs = [[ours(o.tmp, 'ours'), nodeWasi(o.tmp, 'node:wasi')]];
  // --compare-runner: another copy of scripts/wasi-run.mjs (with its own worker-shim/generated/ two levels up), e.g.
  // the core before a change, run in the same rounds and compared with `ours`.
  if (o.compare) pairs.unshift([ours(o.tmp, 'ours', runner), ours(o.tmp, 'compare', o.compare)]);
  if (o.tmpfs && isTmpfs('/dev/shm') && path.resolve(o.tmp) !== '/dev/shm') {
    pairs.push([ours('/dev/shm', 'ours tmpfs'), nodeWasi('/dev/shm', 'node:wasi tmpfs')]);
  }

  const guestArgs = {
    syscall_heavy: ['/data', String(o.files), String(o.writes)],
    compute: [String(o.scale)],
  };

  console.log(`node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model}), ${o.runs} interleaved runs,`
    + ` tmp ${o.tmp}; syscall_heavy: ${o.files} files of 1 KiB + ${o.writes} writes; compute: scale ${o.scale}`);
  const results = {};
  for (const g of guests) {
    const needsDir = g.name === 'syscall_heavy';
    const hosts = [...new Map(pairs.filter(([a]) => needsDir || a.tmp === o.tmp).flat().map((h) => [h.name, h])).values()];
    const samples = Object.fromEntries(hosts.map((h) => [h.name, []]));
    for (let round = 0; round < o.runs; round++) {
      const order = round % 2 ? [...hosts].reverse() : hosts;
      for (const h of order) {
        const dir = needsDir ? fs.mkdtempSync(path.join(h.tmp, 'bench-wasi-')) : null;
        try {
          const r = await runProcess(node, h.argv(g, dir, guestArgs[g.name] ?? []), process.env);
          const b = parseBench(r.stdout);
          if (r.code !== 0 || !b) {
            throw new Error(`${g.name} under ${h.name} failed (exit ${r.code})\n${r.stdout}\n${r.stderr}`);
          }
          if (needsDir) {
            const n = fs.readdirSync(path.join(dir, 'files')).length;
            const log = fs.statSync(path.join(dir, 'small-writes.log')).size;
            if (n !== o.files || log !== o.writes * 16) {
              throw new Error(`${g.name} under ${h.name}: ${n} files, log ${log} bytes on disk`);
            }
          }
          samples[h.name].push({ ...b, guestMs: b.total, totalMs: r.totalMs });
        } finally {
          if (dir) fs.rmSync(dir, { recursive: true, force: true });
        }
      }
    }
    results[g.name] = samples;
  }

  // Report: medians per guest and host, then ratios ours / node:wasi.
  const lines = [];
  for (const [gname, samples] of Object.entries(results)) {
    const phases = Object.keys(samples.ours[0]).filter((k) => !['total', 'guestMs', 'totalMs', 'checksum'].includes(k));
    lines.push('', `${gname} (median of ${o.runs}, ms)`);
    lines.push(`${'host'.padEnd(16)}${'guest'.padStart(9)}${'min'.padStart(9)}${'total'.padStart(9)}${'min'.padStart(9)}`
      + phases.map((p) => p.padStart(9)).join(''));
    const med = {};
    for (const [hname, s] of Object.entries(samples)) {
      med[hname] = Object.fromEntries(['guestMs', 'totalMs', ...phases].map((k) => [k, median(s.map((x) => x[k]))]));
      med[hname].guestMin = Math.min(...s.map((x) => x.guestMs));
      med[hname].totalMin = Math.min(...s.map((x) => x.totalMs));
      lines.push(`${hname.padEnd(16)}${fmt(med[hname].guestMs)}${fmt(med[hname].guestMin)}${fmt(med[hname].totalMs)}`
        + `${fmt(med[hname].totalMin)}` + phases.map((p) => fmt(med[hname][p])).join(''));
    }
    const r = (a, b, k) => (med[a.name][k] / med[b.name][k]).toFixed(3);
    for (const [a, b] of pairs.filter(([x, y]) => med[x.name] && med[y.name])) {
      lines.push(`${a.name} / ${b.name}: guest ${r(a, b, 'guestMs')}x (min ${r(a, b, 'guestMin')}x), `
        + `total ${r(a, b, 'totalMs')}x (min ${r(a, b, 'totalMin')}x)`);
    }
    results[gname] = { samples, medians: med };
  }
  console.log(lines.join('\n'));
  if (o.json) fs.writeFileSync(o.json, JSON.stringify({ node: process.version, options: o, results }, null, 2));
}

// ---- child mode: run one guest under node:wasi --------------------------------------------------------------------
if (process.argv[2] === '--child') {
  const { WASI } = await import('node:wasi');
  const [wasmPath, dir, ...args] = process.argv.slice(3);
  const wasi = new WASI({
    version: 'preview1', args: [path.basename(wasmPath), ...args], env: {},
    preopens: dir ? { '/data': dir } : {}, returnOnExit: true,
  });
  const module = new WebAssembly.Module(fs.readFileSync(wasmPath));
  const instance = new WebAssembly.Instance(module, wasi.getImportObject());
  process.exitCode = wasi.start(instance);
} else {
  await main();
}
