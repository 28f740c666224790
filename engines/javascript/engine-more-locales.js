// The JavaScript engine with Intl data for 53 locales (docs/intl.md, "Locales"): the same engine and code chunks as
// engine.js, with the more-locales /stdlib archive that scripts/engines/javascript.sh builds beside it (and not the
// default one: engine-code.js). Its own build identity: a snapshot taken under one archive boots fresh under the other.
import engineModule from "./build/engine-nodata.wasm";
import stdlib from "./build/stdlib-more-locales.tar";
import bootImage from "./build/boot-image-more-locales.bin";
import { build } from "./build/stdlib-more-locales-build.js";
import { javascriptEngineWith } from "./engine-code.js";

// The boot image carries the build identity (scripts/boot-images.mjs writes one per archive).
export const javascriptEngineMoreLocales = javascriptEngineWith({ module: engineModule, build, stdlib, bootImage });
