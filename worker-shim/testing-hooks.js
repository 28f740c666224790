// Node module hooks for ./testing: imports become what workerd's module rules give a Worker — a `.wasm` file a
// compiled WebAssembly.Module (CompiledWasm), a `.bin` or `.tar` file an ArrayBuffer of its bytes (Data), as the
// default export; and what wrangler's bundler gives a `.json` import (an engine's manifest, engines/<id>/engine.json):
// its parsed value. Registered by testing.js before it loads the shim.
export async function load(url, context, nextLoad) {
  if (url.startsWith("file:") && url.endsWith(".wasm")) {
    return {
      format: "module",
      shortCircuit: true,
      source:
        'import { readFileSync } from "node:fs";\n' +
        `export default new WebAssembly.Module(readFileSync(new URL(${JSON.stringify(url)})));\n`,
    };
  }
  if (url.startsWith("file:") && (url.endsWith(".bin") || url.endsWith(".tar"))) {
    return {
      format: "module",
      shortCircuit: true,
      source:
        'import { readFileSync } from "node:fs";\n' +
        `const b = readFileSync(new URL(${JSON.stringify(url)}));\n` +
        "export default b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);\n",
    };
  }
  if (url.startsWith("file:") && url.endsWith(".json") && context.importAttributes?.type !== "json") {
    return {
      format: "module",
      shortCircuit: true,
      source:
        'import { readFileSync } from "node:fs";\n' +
        `export default JSON.parse(readFileSync(new URL(${JSON.stringify(url)}), "utf8"));\n`,
    };
  }
  return nextLoad(url, context);
}
