// The memory scanner module (cpp/tools/scanner.h, docs/snapshots.md "Scanning in place"): what sw-wasm-fuel
// --emit-scanner writes is the module the Worker ships, and it computes exactly what cpp/snapshot computes natively:
// per 4 KiB block of a guest memory, "the base's bytes" (compared with the core's copy byte for byte) or the block's
// hash (blockHash: hash64 of the block, 0 only for an all-zero one), checked against the native tool's
// --block-hashes over the same bytes. Run by `npm test` ("wasm fuel tool" suite):
//   node --test test/tools/scanner.test.mjs
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, test } from 'node:test';

import { buildTool, root } from './fuel-harness.mjs';

const BLOCK = 4096;
let tool, bytes, scanner;
before(() => {
  tool = buildTool();
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sw-scanner-')), 'scanner.wasm');
  execFileSync(tool, ['--emit-scanner', out]);
  bytes = fs.readFileSync(out);
  scanner = new WebAssembly.Module(bytes);
});

function nativeHashes(memoryBytes) {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sw-scanner-')), 'memory.bin');
  fs.writeFileSync(file, memoryBytes);
  return execFileSync(tool, ['--block-hashes', file], { encoding: 'utf8', maxBuffer: 1 << 26 }).trim().split('\n');
}

function instantiate(guest, core) {
  return new WebAssembly.Instance(scanner, { guest: { memory: guest }, core: { memory: core } }).exports.scan;
}

test('the shipped module is the one the tool emits; it imports two memories and exports scan', () => {
  const shipped = path.join(root, 'worker-shim', 'generated', 'scanner.wasm');
  assert.ok(fs.existsSync(shipped), 'scripts/build.sh wasm writes worker-shim/generated/scanner.wasm');
  assert.deepEqual(fs.readFileSync(shipped), bytes);
  assert.deepEqual(WebAssembly.Module.imports(scanner), [
    { module: 'guest', name: 'memory', kind: 'memory' },
    { module: 'core', name: 'memory', kind: 'memory' },
  ]);
  assert.deepEqual(WebAssembly.Module.exports(scanner), [{ name: 'scan', kind: 'function' }]);
});

test('hashes equal the native blockHash for every kind of block; a block equal to its ref is flagged', () => {
  const blocks = 400;
  const guest = new WebAssembly.Memory({ initial: (blocks * BLOCK) / 65536 });
  const g = new Uint8Array(guest.buffer);
  let seed = 12345;
  const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 24;
  for (let b = 0; b < blocks; b++) {
    const at = b * BLOCK;
    switch (b % 8) {
      case 0: break; // all zero
      case 1: g[at] = 1; break; // first byte only
      case 2: g[at + BLOCK - 1] = 0x80; break; // last byte only: the zero check reads the whole block
      case 3: g[at + ((b * 977) % BLOCK)] = rand() | 1; break; // one byte anywhere
      case 4: for (let i = 0; i < BLOCK; i += 8) g[at + i] = 7; break; // a repeating pattern
      case 5: for (let i = 0; i < BLOCK; i += 4) new DataView(guest.buffer).setUint32(at + i, at + i, true); break;
      default: for (let i = 0; i < BLOCK; i++) g[at + i] = rand();
    }
  }
  const want = nativeHashes(g.subarray(0, blocks * BLOCK));
  assert.equal(want.length, blocks);
  assert.ok(want.filter((h) => h === '0000000000000000').length === blocks / 8, 'only the zero blocks hash to 0');

  const core = new WebAssembly.Memory({ initial: 64 });
  const c = new Uint8Array(core.buffer);
  const dv = new DataView(core.buffer);
  const refs = 4096, hashes = 8192, flags = 65536, base = 131072;
  // Refs for blocks 10..29: even ones are exact copies (flagged, no hash), odd ones differ in one bit somewhere.
  for (let b = 10; b < 30; b++) {
    const at = base + (b - 10) * BLOCK;
    c.set(g.subarray(b * BLOCK, (b + 1) * BLOCK), at);
    if (b % 2) c[at + ((b * 131) % BLOCK)] ^= 0x10;
    dv.setUint32(refs + 4 * b, at, true);
  }
  c.fill(0xee, hashes, hashes + 8 * (blocks + 1));
  c.fill(0xee, flags, flags + blocks + 1);
  const scan = instantiate(guest, core);
  assert.equal(scan(0, blocks, refs, hashes, flags), 1);
  for (let b = 0; b < blocks; b++) {
    const flagged = b >= 10 && b < 30 && b % 2 === 0;
    assert.equal(c[flags + b], flagged ? 1 : 0, `flag of block ${b}`);
    if (flagged) continue;
    const got = dv.getBigUint64(hashes + 8 * b, true).toString(16).padStart(16, '0');
    assert.equal(got, want[b], `hash of block ${b}`);
  }
  assert.equal(c[flags + blocks], 0xee, 'nothing written past count');
  assert.equal(c[hashes + 8 * blocks], 0xee);

  // A sub-range and no refs at all: entries i for blocks first + i.
  c.fill(0xee, hashes, hashes + 8 * 40);
  assert.equal(scan(17, 33, 0, hashes, flags), 1);
  for (let i = 0; i < 33; i++) {
    assert.equal(c[flags + i], 0);
    assert.equal(dv.getBigUint64(hashes + 8 * i, true).toString(16).padStart(16, '0'), want[17 + i]);
  }
  assert.equal(c[hashes + 8 * 33], 0xee);
});

test('a range beyond the guest memory traps instead of reading anything else', () => {
  const guest = new WebAssembly.Memory({ initial: 1 });
  const core = new WebAssembly.Memory({ initial: 1 });
  const scan = instantiate(guest, core);
  assert.equal(scan(0, 16, 0, 0, 1024), 1);
  assert.throws(() => scan(15, 2, 0, 0, 1024), WebAssembly.RuntimeError);
  // After the guest grows, the same instance sees the new pages (the memory is imported, not copied).
  guest.grow(1);
  assert.equal(scan(15, 2, 0, 0, 1024), 1);
});
