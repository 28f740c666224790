import type { JavaScriptEngine } from "../../worker-shim/runtime.js";
/** The Lua engine (Lua 5.4.7), written in JavaScript on ./wasi and ./snapshot, with code contexts. */
export declare const luaEngine: JavaScriptEngine & { sessions: NonNullable<JavaScriptEngine["sessions"]> };
export { ExecutionLimitError } from "../../worker-shim/wasi.js";
