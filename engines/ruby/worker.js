// The Ruby runtime Worker: the C++ core fronting the Ruby engine (engine.js). Each POST /execute runs on a fresh engine
// instance. Stateless only: there is no Interpreter Durable Object (protocol §6.5, §10.9 item 189).
// Deploy: `npx wrangler deploy -c engines/ruby/wrangler.jsonc`.
import { defineInterpreterRuntime } from "../../worker-shim/runtime.js";
import { rubyEngine } from "./engine.js";

export { rubyEngine };

export default defineInterpreterRuntime(rubyEngine).Worker;
