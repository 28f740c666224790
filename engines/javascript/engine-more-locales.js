// The JavaScript engine with Intl data for 48 languages and regional tags (docs/intl.md, "Locales"): the same
// engine, boot image and code chunks as engine.js, with the more-locales /stdlib archive that
// scripts/engines/javascript.sh builds beside it. Its own build identity: a snapshot taken under
// one archive boots fresh under the other.
import stdlib from "./build/stdlib-more-locales.tar";
import { build } from "./build/stdlib-more-locales-build.js";
import { javascriptEngine } from "./engine.js";

export const javascriptEngineMoreLocales = { ...javascriptEngine, build, stdlib };
