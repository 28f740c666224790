// What every JavaScript Worker's engine shares: name, limits, sessions. engine.js adds the engine module, the
// default /stdlib archive, its boot image and build identity; engine-more-locales.js the same with its own archive.
// Kept apart so that a Worker importing one archive does not also bundle the other (wrangler uploads every module a
// Worker imports). Each variant imports the engine module itself, first: wrangler's gzip of the upload reads the
// modules in the order they are found, and that order moves its figure by a few KiB for the same bytes.
import manifest from "./engine.json";
import { manifestLimits } from "../../worker-shim/limits.js";
import { engineName } from "./build/engine-build.js";

/** The engine descriptor for one engine module and one /stdlib archive (with its boot image and build identity). */
export function javascriptEngineWith({ module, build, stdlib, bootImage }) {
  return {
    language: "javascript",
    engineName,
    build, // over engine.wasm and the archive: a snapshot from another build boots fresh
    limits: manifestLimits(manifest), // engine.json: the one table of this language's limits
    builtin: "javascript",
    // Code contexts: the core boots and restores sessions of a built-in engine itself (cpp/core/sessions.cpp).
    sessions: { builtin: true },
    module, // engine.wasm without its data segments: it starts only from bootImage (docs/boot-images.md)
    stdlib, // /stdlib: the Intl chunks and ICU's collation data (docs/intl.md), read only by programs that use them
    bootImage, // the engine's memory after boot (docs/boot-images.md)
  };
}
