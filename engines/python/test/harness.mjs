// A minimal host for engines/python/build/engine.wasm under node:wasi, without the C++ core: the wasmify methods
// (proto/wasmify/engine.proto) with hand-encoded protobuf, /stdlib from an extracted copy of stdlib.tar, and
// `sandbox.charge` as a JS meter that throws (a trap, hard mode) once the budget is overdrawn. Run node with
// --no-turbo-fast-api-calls (node 20's node:wasi crashes past 32 MiB of memory without it).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { WASI } from 'node:wasi';

export const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');
export const buildDir = path.join(root, 'engines/python/build');
// The production budget (protocol §5.5), from the one table of this language's limits, its manifest.
export const BUDGET = JSON.parse(fs.readFileSync(path.join(root, 'engines/python/engine.json'), 'utf8')).limits.fuel;
const enc = new TextEncoder();
const dec = new TextDecoder();

// Methods (proto/wasmify/engine.proto).
export const M = { EVAL: 14, INTERRUPT_ADDRESS: 21, NEW: 24, FREE: 25, SESSION_EVAL: 26, AFTER_RESTORE: 27 };

function varint(n) {
  const out = [];
  let v = BigInt(n);
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return out;
}

// fields: [[number, value]] with value a number (wire type 0), a string or bytes (wire type 2).
export function encodeMessage(fields) {
  const out = [];
  for (const [no, v] of fields) {
    if (typeof v === 'number' || typeof v === 'bigint') out.push(...varint(no * 8), ...varint(v));
    else {
      const b = typeof v === 'string' ? enc.encode(v) : v;
      out.push(...varint(no * 8 + 2), ...varint(b.length));
      for (let i = 0; i < b.length; i++) out.push(b[i]); // no spread: a 64 KiB argument list overflows the JS stack
    }
  }
  return Uint8Array.from(out);
}

export function decodeMessage(buf) {
  const fields = {};
  let i = 0;
  const read = () => {
    let r = 0n, s = 0n;
    for (;;) {
      if (i >= buf.length) throw new Error('Truncated protobuf');
      const b = buf[i++];
      r |= BigInt(b & 0x7f) << s;
      s += 7n;
      if (!(b & 0x80)) return r;
    }
  };
  while (i < buf.length) {
    const key = Number(read());
    const no = key >> 3, wt = key & 7;
    if (wt === 0) fields[no] = Number(read());
    else if (wt === 2) {
      const n = Number(read());
      if (i + n > buf.length) throw new Error('Truncated protobuf field');
      fields[no] = buf.slice(i, i + n);
      i += n;
    } else throw new Error('Unsupported protobuf field');
  }
  return fields;
}

export const text = (bytes) => (bytes ? dec.decode(bytes) : undefined);

// The stdlib archive, extracted once per process into a temp dir (node:wasi preopens a host directory).
let stdlibDir;
export function stdlibPath() {
  if (!stdlibDir) {
    stdlibDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-py-stdlib-'));
    execFileSync('tar', ['-xf', path.join(buildDir, 'stdlib.tar'), '-C', stdlibDir]);
    process.on('exit', () => fs.rmSync(stdlibDir, { recursive: true, force: true }));
  }
  return stdlibDir;
}

export function loadModule(wasmPath = path.join(buildDir, 'engine.wasm')) {
  return new WebAssembly.Module(fs.readFileSync(wasmPath));
}

export class FuelExhausted extends Error {}

// One engine instance. `workspace`: a host directory preopened as /workspace (sessions), or none (stateless).
export function boot(module, { workspace, env = {} } = {}) {
  const t0 = performance.now();
  const preopens = { '/stdlib': stdlibPath() };
  if (workspace) preopens['/workspace'] = workspace;
  const wasi = new WASI({ version: 'preview1', args: ['sandbox'], env, preopens, returnOnExit: true });
  const meter = { consumed: 0, budget: -1, calls: 0 };
  const sandbox = {
    charge(units) {
      meter.calls++;
      meter.consumed += units;
      if (meter.budget >= 0 && meter.consumed > meter.budget) throw new FuelExhausted('Execution fuel exhausted');
      return 0;
    },
  };
  const instance = new WebAssembly.Instance(module, { ...wasi.getImportObject(), sandbox });
  const x = instance.exports;
  wasi.initialize(instance); // runs _initialize
  x.wasm_init();

  function call(method, fields) {
    const req = encodeMessage(fields);
    const p = x.wasm_alloc(req.length);
    new Uint8Array(x.memory.buffer).set(req, p);
    let packed;
    try {
      packed = x[`w_0_${method}`](p, req.length);
    } finally {
      if (!engine.dead) x.wasm_free(p);
    }
    if (packed === 0n) return null;
    const ptr = Number(packed >> 32n), len = Number(packed & 0xffffffffn);
    const out = new Uint8Array(x.memory.buffer, ptr, len).slice();
    x.wasm_free(ptr);
    return decodeMessage(out);
  }

  // Runs fn with a fresh budget; a trap (fuel or anything else) marks the instance dead, as the host would.
  function metered(budget, fn) {
    meter.consumed = 0;
    meter.budget = budget;
    const t = performance.now();
    try {
      const value = fn();
      return { value, ms: performance.now() - t, fuel: meter.consumed };
    } catch (e) {
      engine.dead = true;
      return { trap: e, fuelExhausted: e instanceof FuelExhausted, ms: performance.now() - t, fuel: meter.consumed };
    } finally {
      meter.budget = -1;
    }
  }

  const engine = {
    exports: x,
    meter,
    dead: false,
    handle: 0,
    call,
    memoryBytes: () => x.memory.buffer.byteLength,
    // Stateless Eval: { outcome, failure, ms, fuel } or { trap, fuelExhausted, ms, fuel }.
    eval(code, { env = {}, budget = BUDGET, raw } = {}) {
      const r = metered(budget, () => call(M.EVAL, raw ?? [[1, engine.handle], [2, code], [3, enc.encode(code).length], [4, JSON.stringify(env)]]));
      return finish(r);
    },
    session(code, { env = {}, cwd = '', budget = BUDGET } = {}) {
      const r = metered(budget, () => call(M.SESSION_EVAL, [[1, engine.handle], [2, code], [3, enc.encode(code).length], [4, JSON.stringify(env)], [5, cwd]]));
      const out = finish(r);
      if (r.value && r.value[3]) out.cwd = text(r.value[3]);
      return out;
    },
    afterRestore(bootImage = 0) {
      return call(M.AFTER_RESTORE, [[1, engine.handle], [2, bootImage]])?.[1];
    },
    free() { call(M.FREE, [[1, engine.handle]]); },
  };
  function finish(r) {
    if (r.trap) return r;
    const out = { ms: r.ms, fuel: r.fuel, response: r.value };
    if (r.value === null) out.failure = 'no response (request not decoded)';
    else {
      if (r.value[2]) out.failure = text(r.value[2]);
      if (r.value[1]) out.outcome = JSON.parse(text(r.value[1]));
    }
    return out;
  }

  const created = metered(-1, () => call(M.NEW, [[1, 0], [2, 0]]));
  if (created.trap) throw created.trap;
  engine.handle = created.value?.[1] ?? 0;
  engine.bootFuel = created.fuel;
  engine.bootMs = performance.now() - t0;
  return engine;
}
