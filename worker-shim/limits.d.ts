import type { EngineLimits } from "./runtime.js";

/**
 * An Engine's limits from its language manifest's `limits` (engines/<id>/engine.json: fuel, memoryBytes) and the
 * protocol's request caps (codeBytes, requestBytes: cpp/abi/abi.def).
 */
export declare function manifestLimits(manifest: { limits: { fuel: number; memoryBytes: number } }): EngineLimits;
