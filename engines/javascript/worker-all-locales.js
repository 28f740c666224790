// The JavaScript runtime Worker with Intl for every locale (engines/javascript/wrangler.all-locales.jsonc):
// worker.js with the all-locales engine (engine-all-locales.js).
import { defineInterpreterRuntime } from "../../worker-shim/runtime.js";
import { javascriptEngineAllLocales } from "./engine-all-locales.js";

export {
  defineInterpreterRuntime,
  ExecutionLimitError,
  InterpreterWorker,
  InterpreterDurableObject,
} from "../../worker-shim/runtime.js";
export { javascriptEngineAllLocales as javascriptEngine };

const runtime = defineInterpreterRuntime(javascriptEngineAllLocales);
/** The Interpreter Durable Object (binding INTERPRETER, SQLite-backed): durable code contexts. */
export const Interpreter = runtime.Interpreter;
export default runtime.Worker;
