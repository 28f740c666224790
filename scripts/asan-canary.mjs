// scripts/asan-core.sh's check that a core build is instrumented: frees an address inside a block, which ASan reports
// ("attempting free on address which was not malloc()-ed") before it aborts. Usage: asan-canary.mjs <core dir>
import { readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const dir = path.resolve(process.argv[2]);
const { default: createCore } = await import(pathToFileURL(path.join(dir, "core.mjs")).href);
const core = await createCore({ wasmBinary: readFileSync(path.join(dir, "core.wasm")) });
const p = core._malloc(16);
try {
  core._free(p + 4);
  console.log("no report: this core is not built with ASan");
} catch {
  // ASan aborts after its report (printed on stderr).
}
