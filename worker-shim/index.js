// The runtime Worker `npm start` serves: the C++ core fronting the JavaScript engine (QuickJS in Wasm).
import { defineInterpreterRuntime } from "./runtime.js";
import { javascriptEngine } from "./javascript.js";

export { defineInterpreterRuntime, ExecutionLimitError, InterpreterWorker } from "./runtime.js";
export { javascriptEngine };
export default defineInterpreterRuntime(javascriptEngine).Worker;
