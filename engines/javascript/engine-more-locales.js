// The JavaScript engine with Intl data for 53 locales (docs/intl.md, "Locales"): the same
// engine and code chunks as engine.js, with the more-locales /stdlib archive that
// scripts/engines/javascript.sh builds beside it. Its own build identity: a snapshot taken under
// one archive boots fresh under the other.
import stdlib from "./build/stdlib-more-locales.tar";
import bootImage from "./build/boot-image-more-locales.bin";
import { build } from "./build/stdlib-more-locales-build.js";
import { javascriptEngine } from "./engine.js";

// The boot image carries the build identity (scripts/boot-images.mjs writes one per archive).
export const javascriptEngineMoreLocales = { ...javascriptEngine, build, stdlib, bootImage };
