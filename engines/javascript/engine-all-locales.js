// The JavaScript engine with Intl data for every CLDR locale FormatJS ships (docs/intl.md, "Locales"): the same
// engine, boot image and code chunks as engine.js, with the all-locales /stdlib archive that
// scripts/engines/javascript.sh builds beside it. Its own build identity: a snapshot taken under
// one archive boots fresh under the other.
import stdlib from "./build/stdlib-all-locales.tar";
import { build } from "./build/stdlib-all-locales-build.js";
import { javascriptEngine } from "./engine.js";

export const javascriptEngineAllLocales = { ...javascriptEngine, build, stdlib };
