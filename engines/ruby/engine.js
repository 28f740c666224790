// The Ruby engine: ruby.wasm (CRuby 3.4.1, @ruby/3.4-wasm-wasi 2.10.1, prebuilt for wasm32-wasi, fuel-metered by our
// tool; scripts/engines/ruby.sh), driven by the core through its own exports (cpp/wasmify/ruby.cpp) with a trimmed
// standard library and the driver's Ruby half mounted read-only at /stdlib from stdlib.tar, each instance started from
// the boot image (docs/boot-images.md). Stateless only (protocol §6.5): no `sessions`, so GET /interpreter reports
// contexts: false and every code-context route answers 400. The Worker is worker.js.
import engineModule from "./build/engine-nodata.wasm";
import stdlib from "./build/stdlib.tar";
import bootImage from "./build/boot-image.bin";
import { engineName, build } from "./build/engine-build.js";

export const rubyEngine = {
  language: "ruby",
  engineName,
  build,
  limits: { fuel: 30_000_000, memoryBytes: 100_663_296, codeBytes: 65_536, requestBytes: 98_304 },
  builtin: "ruby",
  module: engineModule, // engine.wasm without its data segments: it starts only from bootImage (docs/boot-images.md)
  stdlib,
  bootImage,
};
