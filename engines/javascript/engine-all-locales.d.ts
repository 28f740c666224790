import type { BuiltinWasmEngine } from "../../worker-shim/runtime.js";
/** The JavaScript engine with Intl data for every CLDR locale FormatJS ships (engine-all-locales.js). */
export declare const javascriptEngineAllLocales: BuiltinWasmEngine;
