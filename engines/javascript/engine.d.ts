import type { BuiltinWasmEngine } from "../../worker-shim/runtime.js";
/** The JavaScript engine: QuickJS 2025-04-26 in Wasm (engines/javascript), driven by the core over wasmify. */
export declare const javascriptEngine: BuiltinWasmEngine;
