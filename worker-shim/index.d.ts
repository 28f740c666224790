// The runtime Worker served by `npm start` (JavaScript), and the building blocks for your own.
import type { BuiltinWasmEngine, InterpreterWorker } from "./runtime.js";

export * from "./runtime.js";
/** The JavaScript engine: QuickJS 2025-04-26 in Wasm (engines/javascript). */
export declare const javascriptEngine: BuiltinWasmEngine;
declare const Worker: new (ctx: ExecutionContext, env: unknown) => InterpreterWorker;
export default Worker;
