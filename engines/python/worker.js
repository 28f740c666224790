// The Python runtime Worker: the C++ core fronting the Python engine (engine.js). Each POST /execute runs on a fresh
// engine instance; code contexts keep one instance per Interpreter Durable Object, snapshotted into its SQLite storage
// (docs/snapshots.md). Deploy: `npx wrangler deploy -c engines/python/wrangler.jsonc`.
import { defineInterpreterRuntime } from "../../worker-shim/runtime.js";
import { pythonEngine } from "./engine.js";

export { pythonEngine };

const runtime = defineInterpreterRuntime(pythonEngine);
/** The Interpreter Durable Object (binding INTERPRETER, SQLite-backed): durable code contexts. */
export const Interpreter = runtime.Interpreter;
export default runtime.Worker;
