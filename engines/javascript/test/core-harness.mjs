// Shared by the engine's Node tests and the Node tools (scripts/boot-images.mjs, scripts/wasi-run.mjs): the Emscripten
// core (worker-shim/generated) loaded the way the Worker loads it (a precompiled module, instantiateWasm, locateFile),
// plus the generated WASI import helpers and ABI numbers.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const generated = path.join(root, 'worker-shim', 'generated');
export const encoder = new TextEncoder();
// The production budget (protocol §5.5), from the one table of this language's limits, its manifest.
export const BUDGET = JSON.parse(fs.readFileSync(path.join(root, 'engines/javascript/engine.json'), 'utf8')).limits.fuel;
export const decoder = new TextDecoder();

export const { makeImportObject, importStubsOf, bindGuestMemory, unbindGuestMemory, WasiTrap, TrapKind } =
  await import(pathToFileURL(path.join(generated, 'wasi_imports.mjs')).href);
/** The numbers shared with the core (cpp/abi/abi.def), e.g. abi.WASMIFY_OK. */
export const abi = await import(pathToFileURL(path.join(generated, 'abi.mjs')).href);
const { default: createCore } = await import(pathToFileURL(path.join(generated, 'core.mjs')).href);
const coreWasm = new WebAssembly.Module(fs.readFileSync(path.join(generated, 'core.wasm')));
export const core = await createCore({
  locateFile: (p) => p,
  instantiateWasm(imports, ok) { const i = new WebAssembly.Instance(coreWasm, imports); ok(i, coreWasm); return i.exports; },
  print: (s) => process.stdout.write(s + '\n'),
  printErr: (s) => process.stderr.write(s + '\n'),
});

/** Copies `bytes` into core memory for the duration of `fn(ptr, len)`. */
export function withBytes(bytes, fn) {
  const p = core._malloc(Math.max(1, bytes.length));
  core.HEAPU8.set(bytes, p);
  try { return fn(p, bytes.length); } finally { core._free(p); }
}

const engineNames = new Map();
/** [ptr, len] of a built-in engine's name in core memory (kept for the process), for the sw_wasmify_* exports. */
export function engineArg(name) {
  if (!engineNames.has(name)) {
    const bytes = encoder.encode(name);
    const p = core._malloc(bytes.length);
    core.HEAPU8.set(bytes, p);
    engineNames.set(name, [p, bytes.length]);
  }
  return engineNames.get(name);
}

/**
 * The tree under a preopen of WASI host `host` (`guest`: its guest path), as sw_wasi_fs_dump (cpp/wasi/exports.cpp)
 * serializes it: [{ rel, dir, link, data }] (`rel` relative to `guest`, `data` the bytes, a symlink's its target), or
 * null when `guest` is no preopen.
 */
export function fsDump(host, guest) {
  const p = withBytes(encoder.encode(guest), (gp, gl) => core._sw_wasi_fs_dump(host, gp, gl));
  if (!p) return null;
  const bytes = core.HEAPU8.slice(p, p + core._sw_wasi_scratch_len(host));
  const view = new DataView(bytes.buffer);
  const out = [];
  for (let at = 0; at < bytes.length;) {
    const kind = bytes[at]; // 1 directory, 2 file, 3 symlink
    const pathLen = view.getUint32(at + 1, true);
    const rel = decoder.decode(bytes.subarray(at + 5, at + 5 + pathLen));
    const dataLen = view.getUint32(at + 5 + pathLen, true);
    out.push({ rel, dir: kind === 1, link: kind === 3, data: bytes.subarray(at + 9 + pathLen, at + 9 + pathLen + dataLen) });
    at += 9 + pathLen + dataLen;
  }
  return out;
}
