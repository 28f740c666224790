// Builds the boot image of every built-in engine that has been built (docs/boot-images.md): the engine is instantiated
// under OUR WASI host (the core, worker-shim/generated) exactly as the Worker instantiates it, booted (_initialize,
// wasm_init, New), and every non-zero 4 KiB block of its memory is written, compressed, to
// engines/<name>/build/boot-image.bin. With it, the module the Worker ships: engines/<name>/build/engine-nodata.wasm,
// engine.wasm without its data segments (sw-wasm-fuel --strip-data), whose id the image records: the two are made
// together from the same engine.wasm, and the core starts that module from no other image.
// An Engine written in JavaScript gets an image too when its manifest declares `bootImage` ({ "init": "<export>" }: the
// guest's zero-argument boot function, which returns the interpreter's handle; docs/engine-authors.md "A boot image"):
// booted here as its engine.js boots it (_initialize, then that export), the same session layout, no stripped module
// (the engine ships engine.wasm, data segments and all).
// scripts/build.sh runs this after every core build, so an image always matches the core and the engine it ships
// with; at run time an image whose build or module differs from the engine's is refused.
//
//   node scripts/boot-images.mjs [name...]      default: every engines/<name>/build/engine-build.json
//                                               (an engine the core does not know as built-in, and whose manifest
//                                               has no bootImage, is skipped)
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { core, root, encoder, decoder, makeImportObject, importStubsOf, bindGuestMemory, unbindGuestMemory, withBytes, engineArg } from
  "../engines/javascript/test/core-harness.mjs";

function message() {
  return decoder.decode(core.HEAPU8.subarray(core._sw_boot_image_data(), core._sw_boot_image_data() + core._sw_boot_image_len()));
}

// The guest's exported mutable globals ({name: value}; i64 as a decimal string), as the shim reads them for snapshots.
function mutableGlobals(exports) {
  const globals = {};
  for (const [name, value] of Object.entries(exports)) {
    if (!(value instanceof WebAssembly.Global)) continue;
    try {
      value.value = value.value; // throws for an immutable global
    } catch {
      continue;
    }
    globals[name] = typeof value.value === "bigint" ? String(value.value) : value.value;
  }
  return globals;
}

// engine.wasm without its data segments, written to `out`; returns the text of the sw.nodata section the tool wrote.
function stripData(dir, out) {
  const tool = execFileSync("bash", [path.join(root, "scripts/tools/wasm-fuel.sh")], { encoding: "utf8" }).trim();
  const text = execFileSync(tool, ["--strip-data", path.join(dir, "engine.wasm"), out],
    { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  if (!text.startsWith("sw-nodata1;")) throw new Error(`${dir}: unexpected sw-wasm-fuel output: ${text}`);
  return text;
}

// The session layout of protocol §5.4 under the reproducible host (see makeImage).
const sessionLayout = { args: ["sandbox"], env: [], workspace: true, preopens: [], stdio: "capture", referencePolicy: true,
  reproducible: true };

// The image of an engine's variants: another /stdlib with its own build identity (engines/javascript/build/
// stdlib-<variant>.tar with stdlib-<variant>-build.js, docs/intl.md "Locales"), the same engine: boot-image-<variant>.bin.
export function makeBootImage(name) {
  const dir = path.join(root, "engines", name, "build");
  const { build } = JSON.parse(fs.readFileSync(path.join(dir, "engine-build.json"), "utf8"));
  const result = makeImage(name, dir, build, "stdlib.tar", "boot-image.bin");
  if (!result) return result;
  for (const f of fs.readdirSync(dir)) {
    const m = /^stdlib-(.+)-build\.js$/.exec(f);
    if (!m || !fs.existsSync(path.join(dir, `stdlib-${m[1]}.tar`))) continue;
    const variantBuild = /export const build = "([0-9a-f]+)"/.exec(fs.readFileSync(path.join(dir, f), "utf8"))[1];
    makeImage(name, dir, variantBuild, `stdlib-${m[1]}.tar`, `boot-image-${m[1]}.bin`);
  }
  return result;
}

function makeImage(name, dir, build, stdlibName, imageName) {
  // An engine the core does not drive itself (Lua: a JavaScript Engine drives it over its own C ABI) has an image only
  // when its manifest says how it boots.
  let stubs;
  try {
    stubs = importStubsOf(core, name);
  } catch (error) {
    if (!/unknown built-in engine/.test(error.message)) throw error;
    const manifest = JSON.parse(fs.readFileSync(path.join(root, "engines", name, "engine.json"), "utf8"));
    return manifest.bootImage ? makeEngineImage(name, dir, build, manifest.bootImage, imageName) : null;
  }
  const module = new WebAssembly.Module(fs.readFileSync(path.join(dir, "engine.wasm")));
  // Written under a temporary name and put in place only with its image.
  const nodataPath = path.join(dir, "engine-nodata.wasm");
  const nodata = encoder.encode(stripData(dir, `${nodataPath}.new`));
  const stdlibPath = path.join(dir, stdlibName);
  let archive = 0;
  if (fs.existsSync(stdlibPath)) {
    archive = withBytes(fs.readFileSync(stdlibPath), (p, n) => core._sw_wasi_archive_new(p, n));
    if (!archive) throw new Error(`${name}: ${stdlibName} is not an archive`);
  }
  // The session layout (protocol §5.4): the image serves stateless requests (an empty, disabled /workspace) and contexts.
  // Reproducible: a fixed-start clock and seeded random while booting, so the same engine and core give the same image
  // (its id is the base of every context snapshot, docs/snapshots.md).
  const host = withBytes(encoder.encode(JSON.stringify(sessionLayout)), (p, n) => core._sw_wasi_host_new(p, n, archive));
  if (!host) throw new Error(`${name}: sw_wasi_host_new failed`);
  try {
    const instance = new WebAssembly.Instance(module, makeImportObject(core, host, module, stubs));
    bindGuestMemory(core, host, instance.exports.memory);
    core.wasmifyBind(host, instance);
    const t0 = performance.now();
    const maker = core._sw_boot_image_begin(host, ...engineArg(name));
    if (!maker) throw new Error(`${name}: boot failed: ${message()}`);
    const bootMs = performance.now() - t0;
    const globals = encoder.encode(JSON.stringify(mutableGlobals(instance.exports)));
    const buildBytes = encoder.encode(build);
    const len = withBytes(buildBytes, (bp, bn) => withBytes(nodata, (mp, mn) => withBytes(globals,
      (gp, gn) => core._sw_boot_image_finish(maker, bp, bn, mp, mn, gp, gn))));
    if (!len) throw new Error(`${name}: image failed: ${message()}`);
    const bytes = core.HEAPU8.slice(core._sw_boot_image_data(), core._sw_boot_image_data() + len);
    fs.writeFileSync(path.join(dir, imageName), bytes);
    fs.renameSync(`${nodataPath}.new`, nodataPath);
    unbindGuestMemory(core, host);
    return { name, bytes: bytes.length, memoryBytes: instance.exports.memory.buffer.byteLength, bootMs,
      module: fs.statSync(path.join(dir, "engine-nodata.wasm")).size };
  } finally {
    fs.rmSync(`${nodataPath}.new`, { force: true });
    core._sw_wasi_host_free(host);
    if (archive) core._sw_wasi_archive_free(archive);
  }
}

// The image of an Engine written in JavaScript: `boot.init` is the guest export that boots its interpreter (no
// arguments, a non-zero handle back), called after _initialize as the engine's own code does; unmetered.
function makeEngineImage(name, dir, build, boot, imageName) {
  if (typeof boot?.init !== "string") throw new Error(`${name}: engine.json bootImage.init must name the guest's boot export`);
  const module = new WebAssembly.Module(fs.readFileSync(path.join(dir, "engine.wasm")));
  const host = withBytes(encoder.encode(JSON.stringify(sessionLayout)), (p, n) => core._sw_wasi_host_new(p, n, 0));
  if (!host) throw new Error(`${name}: sw_wasi_host_new failed`);
  try {
    const instance = new WebAssembly.Instance(module, makeImportObject(core, host, module));
    bindGuestMemory(core, host, instance.exports.memory);
    core.wasmifyBind(host, instance);
    core._sw_wasi_fuel_reset(host, -1);
    const t0 = performance.now();
    if (typeof instance.exports._initialize === "function") instance.exports._initialize();
    if (typeof instance.exports[boot.init] !== "function") throw new Error(`${name}: the module exports no ${boot.init}`);
    const handle = BigInt.asUintN(64, BigInt(instance.exports[boot.init]()));
    if (handle === 0n) throw new Error(`${name}: ${boot.init} returned 0`);
    if (core._sw_wasmify_flush_fuel(host) !== 0) throw new Error(`${name}: the boot's fuel count is corrupt`);
    const bootMs = performance.now() - t0;
    const maker = withBytes(encoder.encode(name), (p, n) => core._sw_boot_image_adopt(host, p, n, handle));
    if (!maker) throw new Error(`${name}: ${message()}`);
    const globals = encoder.encode(JSON.stringify(mutableGlobals(instance.exports)));
    const len = withBytes(encoder.encode(build), (bp, bn) => withBytes(globals,
      (gp, gn) => core._sw_boot_image_finish(maker, bp, bn, 0, 0, gp, gn)));
    if (!len) throw new Error(`${name}: image failed: ${message()}`);
    const bytes = core.HEAPU8.slice(core._sw_boot_image_data(), core._sw_boot_image_data() + len);
    fs.writeFileSync(path.join(dir, imageName), bytes);
    unbindGuestMemory(core, host);
    core.wasmifyUnbind(host);
    return { name, bytes: bytes.length, memoryBytes: instance.exports.memory.buffer.byteLength, bootMs, module: null };
  } finally {
    core._sw_wasi_host_free(host);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  let names = process.argv.slice(2);
  if (names.length === 0) {
    names = fs.readdirSync(path.join(root, "engines"))
      .filter((n) => fs.existsSync(path.join(root, "engines", n, "build", "engine-build.json")) &&
        fs.existsSync(path.join(root, "engines", n, "build", "engine.wasm")));
  }
  for (const name of names) {
    const r = makeBootImage(name);
    if (!r) {
      console.log(`    engines/${name}: not a built-in engine of the core, no boot image`);
      continue;
    }
    console.log(`    engines/${name}/build/boot-image.bin: ${r.bytes} bytes (memory ${r.memoryBytes} bytes, boot ${r.bootMs.toFixed(1)} ms)` +
      (r.module === null ? "" : `; engine-nodata.wasm ${r.module} bytes`));
  }
}
