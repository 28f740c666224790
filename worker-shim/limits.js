// manifestLimits(manifest): an Engine's `limits` (protocol §5.1) from its language manifest (engines/<id>/engine.json,
// which the engine imports: `limits.fuel`, `limits.memoryBytes`) and the protocol's request caps (cpp/abi/abi.def), so
// that no engine restates a limit (test/lint/engine-limits.test.mjs). A module of its own, free of cloudflare:workers,
// so that an engine.js importing it also loads in Node (./testing); ./runtime re-exports it.
import { CODE_MAX_BYTES, REQUEST_MAX_BYTES } from "./generated/abi.mjs";

export function manifestLimits(manifest) {
  const { fuel, memoryBytes } = manifest.limits;
  return { fuel, memoryBytes, codeBytes: CODE_MAX_BYTES, requestBytes: REQUEST_MAX_BYTES };
}
