import type { BuiltinWasmEngine } from "../../worker-shim/runtime.js";
/** The JavaScript engine with Intl data for 53 locales (engine-more-locales.js). */
export declare const javascriptEngineMoreLocales: BuiltinWasmEngine;
