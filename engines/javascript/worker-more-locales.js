// The JavaScript runtime Worker with Intl for 53 locales (engines/javascript/wrangler.more-locales.jsonc):
// worker.js with the more-locales engine (engine-more-locales.js).
import { defineInterpreterRuntime } from "../../worker-shim/runtime.js";
import { javascriptEngineMoreLocales } from "./engine-more-locales.js";

export {
  defineInterpreterRuntime,
  ExecutionLimitError,
  InterpreterWorker,
  InterpreterDurableObject,
} from "../../worker-shim/runtime.js";
export { javascriptEngineMoreLocales as javascriptEngine };

const runtime = defineInterpreterRuntime(javascriptEngineMoreLocales);
/** The Interpreter Durable Object (binding INTERPRETER, SQLite-backed): durable code contexts. */
export const Interpreter = runtime.Interpreter;
export default runtime.Worker;
