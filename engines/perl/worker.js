// The Perl runtime Worker: the C++ core fronting the Perl engine (engine.js). Each POST /execute runs on a fresh
// engine instance; code contexts keep one instance per Interpreter Durable Object, snapshotted into its SQLite storage
// (docs/snapshots.md). Deploy: `npx wrangler deploy -c engines/perl/wrangler.jsonc`.
import { defineInterpreterRuntime } from "../../worker-shim/runtime.js";
import { perlEngine } from "./engine.js";

export { perlEngine };

const runtime = defineInterpreterRuntime(perlEngine);
/** The Interpreter Durable Object (binding INTERPRETER, SQLite-backed): durable code contexts. */
export const Interpreter = runtime.Interpreter;
export default runtime.Worker;
