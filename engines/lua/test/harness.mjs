// Drives engines/lua/build/engine.wasm through its C ABI (engines/lua/README.md "ABI") the way the JavaScript Engine
// will: instantiate with WASI preview1 + `sandbox.charge`, _initialize, sw_lua_new, then sw_lua_eval per request.
// Two WASI hosts: "core" (our C++ WASI host inside the Emscripten core, worker-shim/generated, which meters
// sandbox.charge itself) and "node" (node:wasi plus a JS charge counter). Run node with --no-turbo-fast-api-calls.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WASI } from 'node:wasi';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export let wasmPath = path.join(root, 'engines/lua/build/engine.wasm');
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class FuelExhausted extends Error {}

let coreHarness;
export async function hasCore() {
  return fs.existsSync(path.join(root, 'worker-shim/generated/core.wasm'));
}
async function loadCore() {
  coreHarness ??= await import('../../javascript/test/core-harness.mjs');
  return coreHarness;
}

let compiled;
/** Another engine.wasm instead of the build's (bench/lua.mjs --engine compares builds). */
export function useEngine(file) {
  wasmPath = file;
  compiled = undefined;
}
export function loadModule() {
  compiled ??= new WebAssembly.Module(fs.readFileSync(wasmPath));
  return compiled;
}

// The WASI side of one instance: { imports, start(instance), setBudget(n), consumed(), isFuelTrap(e), dispose() }.
function nodeWasi() {
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-lua-ws-'));
  const wasi = new WASI({ version: 'preview1', args: ['sandbox'], env: {}, preopens: { '/workspace': workspace },
                          returnOnExit: true });
  const meter = { consumed: 0, budget: -1 };
  const sandbox = {
    charge(units) {
      meter.consumed += units;
      if (meter.budget >= 0 && meter.consumed > meter.budget) throw new FuelExhausted('Execution fuel exhausted');
      return 0;
    },
  };
  return {
    imports: { ...wasi.getImportObject(), sandbox },
    start(instance) { wasi.initialize(instance); },
    setBudget(n) { meter.consumed = 0; meter.budget = n; },
    consumed: () => meter.consumed,
    isFuelTrap: (e) => e instanceof FuelExhausted,
    dispose() { fs.rmSync(workspace, { recursive: true, force: true }); },
  };
}

async function coreWasi(module) {
  const { core, makeImportObject, bindGuestMemory, unbindGuestMemory, WasiTrap, withBytes } = await loadCore();
  // The layout the core gives an engine (scripts/boot-images.mjs): /workspace mounted, output captured by the host.
  const config = { args: ['sandbox'], env: [], workspace: true, preopens: [], stdio: 'capture', referencePolicy: true };
  const host = withBytes(encoder.encode(JSON.stringify(config)), (p, n) => core._sw_wasi_host_new(p, n, 0));
  if (!host) throw new Error('sw_wasi_host_new failed');
  let bound = false;
  return {
    imports: makeImportObject(core, host, module),
    start(instance) {
      bindGuestMemory(core, host, instance.exports.memory);
      bound = true;
      instance.exports._initialize();
    },
    setBudget(n) { core._sw_wasi_clear_trap(host); core._sw_wasi_fuel_reset(host, n); },
    consumed: () => core._sw_wasi_fuel_consumed(host),
    isFuelTrap: (e) => e instanceof WasiTrap && /fuel/i.test(`${e.name} ${e.message}`),
    dispose() {
      if (bound) unbindGuestMemory(core, host);
      core._sw_wasi_host_free(host);
    },
  };
}

// One engine instance with one lua_State.
export async function boot(kind = 'node') {
  const module = loadModule();
  if (kind === 'core') await loadCore(); // the core itself is loaded once per process, not per instance
  const t0 = performance.now();
  const host = kind === 'core' ? await coreWasi(module) : nodeWasi();
  const instance = new WebAssembly.Instance(module, host.imports);
  const x = instance.exports;
  host.start(instance);
  host.setBudget(-1);
  const handle = x.sw_lua_new();
  if (!handle) throw new Error('sw_lua_new failed');
  const bootMs = performance.now() - t0;
  const bootFuel = host.consumed();

  const put = (bytes) => {
    const p = x.sw_lua_alloc(bytes.length);
    new Uint8Array(x.memory.buffer).set(bytes, p);
    return p;
  };
  const engine = {
    exports: x,
    handle,
    dead: false,
    bootMs,
    bootFuel,
    memoryBytes: () => x.memory.buffer.byteLength,
    // { outcome, ms, fuel } or { trap, fuelExhausted, ms, fuel } (a trap leaves the instance dead, as the host would).
    eval(code, { env = {}, session = false, budget = 100_000_000 } = {}) {
      if (engine.dead) throw new Error('instance is dead');
      const c = encoder.encode(code), e = encoder.encode(JSON.stringify(env));
      const cp = put(c), ep = put(e);
      host.setBudget(budget);
      const t = performance.now();
      let packed, fuel;
      try {
        packed = x.sw_lua_eval(handle, cp, c.length, ep, e.length, session ? 1 : 0);
      } catch (err) {
        engine.dead = true;
        return { trap: err, fuelExhausted: host.isFuelTrap(err), ms: performance.now() - t, fuel: host.consumed() };
      } finally {
        fuel = host.consumed();
        host.setBudget(-1);
      }
      const ms = performance.now() - t;
      x.sw_lua_free(cp);
      x.sw_lua_free(ep);
      if (packed === 0n) return { failure: true, ms };
      const ptr = Number(packed >> 32n), len = Number(packed & 0xffffffffn);
      const text = decoder.decode(new Uint8Array(x.memory.buffer, ptr, len));
      x.sw_lua_free(ptr);
      return { outcome: JSON.parse(text), raw: text, ms, fuel };
    },
    cwd() {
      const p = x.sw_lua_cwd(handle);
      const bytes = new Uint8Array(x.memory.buffer, p);
      return decoder.decode(bytes.subarray(0, bytes.indexOf(0)));
    },
    afterRestore(bootImage) { return x.sw_lua_after_restore(handle, bootImage ? 1 : 0); },
    dispose() { host.dispose(); },
  };
  return engine;
}
