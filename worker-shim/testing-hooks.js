// Node module hooks for ./testing: a `.wasm` import becomes what workerd's CompiledWasm rule gives a Worker, a
// compiled WebAssembly.Module as the default export. Registered by testing.js before it loads the shim.
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
  return nextLoad(url, context);
}
