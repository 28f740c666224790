// The Ruby runtime Worker: the C++ core fronting the Ruby engine (engine.js). Each POST /execute runs on a fresh engine
// instance; code contexts keep one instance per Interpreter Durable Object, snapshotted into its SQLite storage
// (docs/snapshots.md). Deploy: `npx wrangler deploy -c engines/ruby/wrangler.jsonc`.
import { defineInterpreterRuntime } from "../../worker-shim/runtime.js";
import { rubyEngine } from "./engine.js";

export { rubyEngine };

const runtime = defineInterpreterRuntime(rubyEngine);
/** The Interpreter Durable Object (binding INTERPRETER, SQLite-backed): durable code contexts. */
export const Interpreter = runtime.Interpreter;
export default runtime.Worker;
