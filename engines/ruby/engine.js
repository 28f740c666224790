// The Ruby engine: ruby.wasm (CRuby 4.0.0, @ruby/4.0-wasm-wasi 2.10.1, prebuilt for wasm32-wasi, fuel-metered by our
// tool; scripts/engines/ruby.sh), driven by the core through its own exports (cpp/wasmify/ruby.cpp) with a trimmed
// standard library and the driver's Ruby half mounted read-only at /stdlib from stdlib.tar, each instance started from
// the boot image (docs/boot-images.md). Code contexts like Perl's and Python's: the core boots and restores sessions
// itself and snapshots their memory (docs/code-contexts.md "Ruby"). The Worker is worker.js.
import engineModule from "./build/engine-nodata.wasm";
import stdlib from "./build/stdlib.tar";
import bootImage from "./build/boot-image.bin";
import { engineName, build } from "./build/engine-build.js";
import manifest from "./engine.json";
import { manifestLimits } from "../../worker-shim/limits.js";

export const rubyEngine = {
  language: "ruby",
  engineName,
  build, // over engine.wasm and stdlib.tar: a snapshot from another build boots fresh
  limits: manifestLimits(manifest), // engine.json: the one table of this language's limits
  builtin: "ruby",
  sessions: { builtin: true }, // code contexts: the core boots and restores sessions itself (cpp/core/sessions.cpp)
  module: engineModule, // engine.wasm without its data segments: it starts only from bootImage (docs/boot-images.md)
  stdlib,
  bootImage,
};
