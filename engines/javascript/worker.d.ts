// The runtime Worker served by `npm start` (JavaScript), and the building blocks for your own.
import type { BuiltinWasmEngine, InterpreterDurableObject, InterpreterWorker } from "../../worker-shim/runtime.js";

export * from "../../worker-shim/runtime.js";
/** The JavaScript engine: QuickJS 2025-04-26 in Wasm (engines/javascript). */
export declare const javascriptEngine: BuiltinWasmEngine;
declare const Worker: new (ctx: ExecutionContext, env: unknown) => InterpreterWorker;
/** The Interpreter Durable Object of the JavaScript runtime (binding INTERPRETER). */
export declare const Interpreter: new (ctx: DurableObjectState, env: unknown) => InterpreterDurableObject;
export default Worker;
