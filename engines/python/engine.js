// The Python engine: CPython 3.13 built for wasm32-wasi (scripts/engines/python.sh, engines/python/driver.c), driven
// by the core itself over the wasmify ABI, its standard library mounted read-only at /stdlib from stdlib.tar, each
// instance started from the boot image (docs/boot-images.md). The Worker is worker.js; ./testing imports this file.
import engineModule from "./build/engine-nodata.wasm";
import stdlib from "./build/stdlib.tar";
import bootImage from "./build/boot-image.bin";
import { engineName, build } from "./build/engine-build.js";
import manifest from "./engine.json";
import { manifestLimits } from "../../worker-shim/limits.js";

export const pythonEngine = {
  language: "python",
  engineName,
  build, // over engine.wasm and stdlib.tar: a snapshot from another build boots fresh
  limits: manifestLimits(manifest), // engine.json: the one table of this language's limits
  builtin: "python",
  sessions: { builtin: true }, // code contexts: the core boots and restores sessions itself (cpp/core/sessions.cpp)
  module: engineModule, // engine.wasm without its data segments: it starts only from bootImage (docs/boot-images.md)
  stdlib,
  bootImage,
};
