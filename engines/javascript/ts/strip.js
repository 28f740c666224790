// engines/javascript/ts/strip.js: the TypeScript stripper that runs inside the JavaScript engine (SPEC §6.2).
// scripts/engines/javascript.sh bundles this with sucrase (esbuild, CommonJS, minified), wraps the bundle into a script
// whose completion value is `strip`, and compiles it to QuickJS bytecode embedded in engine.wasm. driver.c loads it
// only when a script fails to parse as JavaScript; it never touches globalThis.
// Types are removed, never checked; `enum` is lowered; ES syntax is left as it is (no "use strict", no import
// transform), so the script's last expression stays its completion value.
import { transform } from "sucrase";

export function strip(code) {
  try {
    return transform(code, { transforms: ["typescript"], disableESTransforms: true }).code;
  } catch (e) {
    // Whatever sucrase throws is a syntax error in the guest's code: SyntaxError with sucrase's message, and the
    // position (sucrase's loc: 1-based line, 0-based column) as the one traceback line.
    const err = new SyntaxError(e && e.message !== undefined ? String(e.message) : String(e));
    err.swTraceback = e && e.loc ? `    at <input>:${e.loc.line}:${e.loc.column + 1}` : "";
    throw err;
  }
}
