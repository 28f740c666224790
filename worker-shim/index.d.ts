// The runtime Worker served by `npm start`, and the building blocks for your own.
import type { InterpreterWorker } from "./runtime.js";

export * from "./runtime.js";
declare const Worker: new (ctx: ExecutionContext, env: unknown) => InterpreterWorker;
export default Worker;
