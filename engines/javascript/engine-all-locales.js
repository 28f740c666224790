// The JavaScript engine with Intl data for every locale FormatJS ships (docs/intl.md, "Locales"): the same engine and
// code chunks as engine.js, with the all-locales /stdlib archive that scripts/engines/javascript.sh builds beside it
// (and not the default one: engine-code.js). Its own build identity: a snapshot taken under one archive boots fresh
// under another.
import engineModule from "./build/engine-nodata.wasm";
import stdlib from "./build/stdlib-all-locales.tar";
import bootImage from "./build/boot-image-all-locales.bin";
import { build } from "./build/stdlib-all-locales-build.js";
import { javascriptEngineWith } from "./engine-code.js";

// The boot image carries the build identity (scripts/boot-images.mjs writes one per archive).
export const javascriptEngineAllLocales = javascriptEngineWith({ module: engineModule, build, stdlib, bootImage });
