import type { Engine } from "../../worker-shim/runtime.js";
/** The calc example engine (stateless). */
export declare const engine: Engine;
