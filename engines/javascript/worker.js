// The runtime Worker `npm start` serves: the C++ core fronting the JavaScript engine (QuickJS in Wasm).
import { defineInterpreterRuntime } from "./runtime.js";
import { javascriptEngine } from "./javascript.js";

export {
  defineInterpreterRuntime,
  ExecutionLimitError,
  InterpreterWorker,
  InterpreterDurableObject,
} from "./runtime.js";
export { javascriptEngine };

const runtime = defineInterpreterRuntime(javascriptEngine);
/** The Interpreter Durable Object (binding INTERPRETER, SQLite-backed): durable code contexts. */
export const Interpreter = runtime.Interpreter;
export default runtime.Worker;
