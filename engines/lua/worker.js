// The Lua runtime Worker: the C++ core fronting the Lua engine (engine.js, an Engine written in JavaScript on the
// public ./wasi and ./snapshot API). Each POST /execute runs on a fresh engine instance; code contexts keep one
// instance per context in the Interpreter Durable Object, snapshotted into its SQLite storage (docs/snapshots.md).
// Deploy: `npx wrangler deploy -c engines/lua/wrangler.jsonc`.
import { defineInterpreterRuntime } from "../../worker-shim/runtime.js";
import { luaEngine } from "./engine.js";

export { luaEngine };

const runtime = defineInterpreterRuntime(luaEngine);
/** The Interpreter Durable Object (binding INTERPRETER, SQLite-backed): durable code contexts. */
export const Interpreter = runtime.Interpreter;
export default runtime.Worker;
