// The JavaScript runtime: QuickJS 2025-04-26 built for wasm32-wasi (engines/javascript), driven by the core itself
// over the wasmify ABI. Each POST /execute runs on a fresh engine instance; code contexts keep one instance per
// Interpreter Durable Object, snapshotted into its SQLite storage (docs/snapshots.md).
import engineModule from "./build/engine-nodata.wasm";
import bootImage from "./build/boot-image.bin";
import stdlib from "./build/stdlib.tar";
import { engineName, build } from "./build/engine-build.js";
import manifest from "./engine.json";
import { manifestLimits } from "../../worker-shim/limits.js";

export const javascriptEngine = {
  language: "javascript",
  engineName,
  build, // over engine.wasm and stdlib.tar: a snapshot from another build boots fresh
  limits: manifestLimits(manifest), // engine.json: the one table of this language's limits
  builtin: "javascript",
  // Code contexts: the core boots and restores sessions of a built-in engine itself (cpp/core/sessions.cpp).
  sessions: { builtin: true },
  module: engineModule, // engine.wasm without its data segments: it starts only from bootImage (docs/boot-images.md)
  stdlib, // /stdlib: the Intl chunks and ICU's collation data (docs/intl.md), read only by programs that use them
  bootImage, // the engine's memory after boot (docs/boot-images.md)
};
