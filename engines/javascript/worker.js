// The runtime Worker `npm start` serves: the C++ core fronting the JavaScript engine (QuickJS in Wasm).
import { defineInterpreterRuntime } from "../../worker-shim/runtime.js";
import { javascriptEngine } from "./engine.js";

export {
  defineInterpreterRuntime,
  ExecutionLimitError,
  InterpreterWorker,
  InterpreterDurableObject,
} from "../../worker-shim/runtime.js";
export { javascriptEngine };

const runtime = defineInterpreterRuntime(javascriptEngine);
/** The Interpreter Durable Object (binding INTERPRETER, SQLite-backed): durable code contexts. */
export const Interpreter = runtime.Interpreter;
export default runtime.Worker;
