// A built-in Engine object whose files come from a copy of another build's engines/<name>/build (engine-nodata.wasm,
// stdlib.tar, boot-image.bin, engine-build.json, taken after `bash scripts/build.sh wasm` made its boot image), for
// benches that run two builds of one engine side by side in one run (bench/python-batteries.mjs,
// bench/perl-library.mjs). Each object gets its own server in the core, with an instance pool of one slot. And the
// timed request both send.
import fs from "node:fs";
import path from "node:path";

const readAs = (like, file) => {
  const bytes = fs.readFileSync(file);
  if (like instanceof WebAssembly.Module) return new WebAssembly.Module(bytes);
  if (like instanceof ArrayBuffer) return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length);
  return new Uint8Array(bytes);
};

// { base, new }: `engine` with the files of `baseDir`, and `engine` itself, each on a pool of one slot.
export async function twoBuilds(engine, baseDir) {
  const { getCore, serverFor } = await import("../worker-shim/core.js");
  const core = await getCore();
  const builds = {
    base: {
      ...engine,
      build: JSON.parse(fs.readFileSync(path.join(baseDir, "engine-build.json"), "utf8")).build,
      module: readAs(engine.module, path.join(baseDir, "engine-nodata.wasm")),
      stdlib: readAs(engine.stdlib, path.join(baseDir, "stdlib.tar")),
      bootImage: readAs(engine.bootImage, path.join(baseDir, "boot-image.bin")),
    },
    new: { ...engine },
  };
  for (const e of Object.values(builds)) core._sw_builtin_set_pool_slots(serverFor(core, e), 1);
  return builds;
}

// One POST /execute of `code` through worker-shim/core.js handleRequest: the response body and its ms.
export async function timedExecute(engine, code) {
  const { handleRequest } = await import("../worker-shim/core.js");
  const t0 = performance.now();
  const response = await handleRequest(engine, new Request("https://runtime.internal/execute", {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ code }),
  }), {});
  const body = await response.json();
  return { ms: performance.now() - t0, body };
}
