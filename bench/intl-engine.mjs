// A JavaScript engine instance under the core's WASI host with the engine's /stdlib archive mounted (the Intl chunks),
// driven as the Worker drives it: fresh instance, fuel metering with the interrupt word, sw_js_eval per evaluation.
// Used by bench/intl.mjs, bench/intl-options.mjs and bench/typescript-regexp.mjs (and handy for poking at Intl by hand:
//   node -e 'import("./bench/intl-engine.mjs").then(async (m) => { const i = await m.instance(); console.log(i.evaluate("1+1")) })').
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { core, encoder, decoder, makeImportObject, bindGuestMemory, unbindGuestMemory, withBytes } from
  "../engines/javascript/test/core-harness.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const build = path.join(root, "engines/javascript/build");

const archives = new Map();
const modules = new Map();
// engine: another engine.wasm, as a path or a compiled WebAssembly.Module (e.g. a build from before Intl, with
// stdlib: false). archive: another /stdlib (build/stdlib-more-locales.tar, docs/intl.md "Locales").
export function instance({ fuel = 50_000_000, stdlib = true, engine = path.join(build, "engine.wasm"),
  archive: archivePath = path.join(build, "stdlib.tar") } = {}) {
  if (!(engine instanceof WebAssembly.Module) && !modules.has(engine))
    modules.set(engine, new WebAssembly.Module(fs.readFileSync(engine)));
  const mod = engine instanceof WebAssembly.Module ? engine : modules.get(engine);
  if (!archives.has(archivePath)) archives.set(archivePath, fs.readFileSync(archivePath));
  const archiveBytes = archives.get(archivePath);
  const archive = stdlib ? withBytes(archiveBytes, (p, n) => core._sw_wasi_archive_new(p, n)) : 0;
  if (stdlib && !archive) throw new Error("stdlib.tar is not an archive");
  const config = { args: ["sandbox"], env: [], workspace: false, preopens: [], stdio: "capture", referencePolicy: true };
  const host = withBytes(encoder.encode(JSON.stringify(config)), (p, n) => core._sw_wasi_host_new(p, n, archive));
  const x = new WebAssembly.Instance(mod, makeImportObject(core, host, mod)).exports;
  bindGuestMemory(core, host, x.memory);
  x._initialize();
  core._sw_wasi_fuel_set_interrupt(host, x.sw_js_interrupt_address(), 0, 0);
  core._sw_wasi_fuel_reset(host, fuel);
  const handle = x.sw_js_new(0, 0);
  function evaluate(code) {
    core._sw_wasi_fuel_reset(host, fuel);
    const src = encoder.encode(code), env = encoder.encode("{}");
    const cp = x.sw_alloc(src.length), ep = x.sw_alloc(env.length), slots = x.sw_alloc(8);
    new Uint8Array(x.memory.buffer).set(src, cp);
    new Uint8Array(x.memory.buffer).set(env, ep);
    const t = performance.now();
    const rc = x.sw_js_eval(handle, cp, src.length, ep, env.length, slots, slots + 4);
    const ms = performance.now() - t;
    x.sw_free(cp); x.sw_free(ep);
    const dv = new DataView(x.memory.buffer);
    const outPtr = dv.getUint32(slots, true), outLen = dv.getUint32(slots + 4, true);
    x.sw_free(slots);
    if (rc !== 0) throw new Error("sw_js_eval failed");
    const outcome = JSON.parse(decoder.decode(new Uint8Array(x.memory.buffer, outPtr, outLen)));
    x.sw_free(outPtr);
    return { outcome, ms, fuel: core._sw_wasi_fuel_consumed(host), memory: x.memory.buffer.byteLength };
  }
  return {
    evaluate,
    close() {
      x.sw_js_free(handle);
      unbindGuestMemory(core, host);
      core._sw_wasi_host_free(host);
      if (archive) core._sw_wasi_archive_free(archive);
    },
  };
}

// The display text of an outcome's result (or "Name: message" of its error).
export function text(o) {
  if (o.error) return `${o.error.name}: ${o.error.message}`;
  const r = o.results[0];
  return r === undefined ? undefined : "json" in r ? JSON.stringify(r.json) : r.text;
}
