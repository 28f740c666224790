// The JavaScript runtime: QuickJS 2025-04-26 built for wasm32-wasi (engines/javascript), driven by the core itself
// over the wasmify ABI. Each POST /execute runs on a fresh engine instance; code contexts keep one instance per
// Interpreter Durable Object, snapshotted into its SQLite storage (docs/snapshots.md).
import engineModule from "./build/engine-nodata.wasm";
import bootImage from "./build/boot-image.bin";
import stdlib from "./build/stdlib.tar";
import { build } from "./build/engine-build.js";
import { javascriptEngineWith } from "./engine-code.js";

export const javascriptEngine = javascriptEngineWith({ module: engineModule, build, stdlib, bootImage });
