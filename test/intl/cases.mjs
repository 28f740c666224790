// The Intl cases of test/integration/intl.test.mjs: JavaScript expressions, evaluated both by Node's own full-ICU Intl
// (test/intl/generate.mjs writes the expectations, test/intl/expected.json) and by the JavaScript engine in workerd.
// Every expression is evaluated on its own; a thrown error becomes "!" and its name (messages differ from V8's).

// The locales a user would type for the 10 built-in languages (docs/intl.md).
export const LOCALES = ["en-US", "en-GB", "de-DE", "fr-FR", "es-ES", "es-MX", "ja-JP", "zh-CN", "zh-TW", "ar-EG", "hi-IN",
  "ru-RU", "pt-BR", "pt-PT"];

const D = "new Date(Date.UTC(2024, 0, 15, 9, 5, 7))";
const D2 = "new Date(Date.UTC(2024, 2, 3, 18, 45))";

// More locales, each with its own CLDR data, in the more-locales build only (docs/intl.md, "Locales"):
// test/integration/intl-more-locales.test.mjs.
export const MORE_LOCALES_EXTRA = ["sv-SE", "ko-KR", "fr-CA", "de-AT", "nb", "fi", "pl", "tr", "th", "vi", "he", "en-AU",
  "es-AR", "zh-HK", "pt-AO", "it-IT", "nl-NL", "id", "uk", "cs", "el", "da", "ro", "hu", "ms", "bn", "ta", "sw"];

// Per locale L (a JSON string literal in the expression).
export function localeCases(L) {
  const l = JSON.stringify(L);
  return {
    "NumberFormat decimal": `new Intl.NumberFormat(${l}).format(1234567.891)`,
    "NumberFormat negative, grouping": `new Intl.NumberFormat(${l}).format(-9876543.21)`,
    "NumberFormat currency EUR": `new Intl.NumberFormat(${l}, { style: "currency", currency: "EUR" }).format(1234.5)`,
    "NumberFormat currency JPY": `new Intl.NumberFormat(${l}, { style: "currency", currency: "JPY" }).format(1234)`,
    "NumberFormat currency USD name": `new Intl.NumberFormat(${l}, { style: "currency", currency: "USD", currencyDisplay: "name" }).format(2)`,
    "NumberFormat percent": `new Intl.NumberFormat(${l}, { style: "percent", maximumFractionDigits: 1 }).format(0.2563)`,
    "NumberFormat compact short": `new Intl.NumberFormat(${l}, { notation: "compact" }).format(1234567)`,
    "NumberFormat compact long": `new Intl.NumberFormat(${l}, { notation: "compact", compactDisplay: "long" }).format(45000)`,
    "NumberFormat unit": `new Intl.NumberFormat(${l}, { style: "unit", unit: "kilometer-per-hour", unitDisplay: "long" }).format(88)`,
    "NumberFormat scientific": `new Intl.NumberFormat(${l}, { notation: "scientific" }).format(123456)`,
    "NumberFormat significant digits": `new Intl.NumberFormat(${l}, { maximumSignificantDigits: 3 }).format(0.000123456)`,
    "NumberFormat formatToParts": `new Intl.NumberFormat(${l}).formatToParts(-1234.5).map((p) => p.type).join()`,
    "NumberFormat resolved locale": `new Intl.NumberFormat(${l}).resolvedOptions().locale`,
    "NumberFormat resolved numberingSystem": `new Intl.NumberFormat(${l}).resolvedOptions().numberingSystem`,
    "Number.prototype.toLocaleString": `(1234.5).toLocaleString(${l})`,
    "BigInt.prototype.toLocaleString": `(123456789012345678901234567890n).toLocaleString(${l})`,
    "DateTimeFormat default": `new Intl.DateTimeFormat(${l}).format(${D})`,
    "DateTimeFormat dateStyle full": `new Intl.DateTimeFormat(${l}, { dateStyle: "full" }).format(${D})`,
    "DateTimeFormat dateStyle medium, timeStyle short": `new Intl.DateTimeFormat(${l}, { dateStyle: "medium", timeStyle: "short" }).format(${D2})`,
    "DateTimeFormat components": `new Intl.DateTimeFormat(${l}, { year: "numeric", month: "long", day: "numeric", weekday: "short" }).format(${D})`,
    "DateTimeFormat 24-hour clock": `new Intl.DateTimeFormat(${l}, { hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(${D2})`,
    "DateTimeFormat Asia/Tokyo": `new Intl.DateTimeFormat(${l}, { dateStyle: "short", timeStyle: "long", timeZone: "Asia/Tokyo" }).format(${D})`,
    "DateTimeFormat America/New_York": `new Intl.DateTimeFormat(${l}, { hour: "numeric", minute: "numeric", timeZone: "America/New_York" }).format(${D})`,
    "DateTimeFormat Europe/Berlin summer": `new Intl.DateTimeFormat(${l}, { hour: "numeric", timeZone: "Europe/Berlin", timeZoneName: "short" }).format(new Date(Date.UTC(2024, 6, 1, 12)))`,
    "DateTimeFormat formatToParts": `new Intl.DateTimeFormat(${l}, { dateStyle: "long" }).formatToParts(${D}).map((p) => p.type).join()`,
    "DateTimeFormat formatRange": `new Intl.DateTimeFormat(${l}, { month: "short", day: "numeric" }).formatRange(${D}, ${D2})`,
    "DateTimeFormat resolved timeZone": `new Intl.DateTimeFormat(${l}).resolvedOptions().timeZone`,
    "Date.prototype.toLocaleString UTC": `${D}.toLocaleString(${l}, { timeZone: "UTC" })`,
    "Date.prototype.toLocaleDateString": `${D}.toLocaleDateString(${l}, { timeZone: "UTC" })`,
    "Date.prototype.toLocaleTimeString": `${D2}.toLocaleTimeString(${l}, { timeZone: "UTC" })`,
    "PluralRules cardinal": `[0, 1, 2, 3, 5, 11, 21, 101, 1.5].map((n) => new Intl.PluralRules(${l}).select(n)).join()`,
    "PluralRules ordinal": `[1, 2, 3, 4, 11, 22].map((n) => new Intl.PluralRules(${l}, { type: "ordinal" }).select(n)).join()`,
    "PluralRules categories": `new Intl.PluralRules(${l}).resolvedOptions().pluralCategories.join()`,
    "RelativeTimeFormat auto": `new Intl.RelativeTimeFormat(${l}, { numeric: "auto" }).format(-1, "day")`,
    "RelativeTimeFormat hours": `new Intl.RelativeTimeFormat(${l}).format(3, "hour")`,
    "RelativeTimeFormat short months": `new Intl.RelativeTimeFormat(${l}, { style: "short" }).format(-2, "month")`,
    "ListFormat conjunction": `new Intl.ListFormat(${l}).format(["A", "B", "C"])`,
    "ListFormat disjunction": `new Intl.ListFormat(${l}, { type: "disjunction" }).format(["A", "B"])`,
    "ListFormat unit narrow": `new Intl.ListFormat(${l}, { type: "unit", style: "narrow" }).format(["1", "2", "3"])`,
    "Segmenter graphemes": `[...new Intl.Segmenter(${l}).segment("e\\u0301👍🏽!")].map((s) => s.segment).join("|")`,
    "Segmenter words": `[...new Intl.Segmenter(${l}, { granularity: "word" }).segment("Hello, world. 42 apples!")].filter((s) => s.isWordLike).map((s) => s.segment).join("|")`,
    "Segmenter sentences": `[...new Intl.Segmenter(${l}, { granularity: "sentence" }).segment("One. Two? Three!")].length`,
    "DisplayNames region": `["US", "DE", "JP", "419"].map((c) => new Intl.DisplayNames(${l}, { type: "region" }).of(c)).join("|")`,
    "DisplayNames language": `["en-GB", "fr", "zh-Hant", "es-419"].map((c) => new Intl.DisplayNames(${l}, { type: "language" }).of(c)).join("|")`,
    "DisplayNames script": `["Latn", "Cyrl"].map((c) => new Intl.DisplayNames(${l}, { type: "script" }).of(c)).join("|")`,
    "DisplayNames currency": `["EUR", "JPY", "USD"].map((c) => new Intl.DisplayNames(${l}, { type: "currency" }).of(c)).join("|")`,
    "DisplayNames dateTimeField": `["month", "weekday"].map((c) => new Intl.DisplayNames(${l}, { type: "dateTimeField" }).of(c)).join("|")`,
    "DisplayNames resolved locale": `new Intl.DisplayNames(${l}, { type: "region" }).resolvedOptions().locale`,
    "Locale maximize": `new Intl.Locale(${l}).maximize().toString()`,
    "Locale minimize": `new Intl.Locale(${l}).minimize().toString()`,
    "getCanonicalLocales": `Intl.getCanonicalLocales(${l}.toLowerCase()).join()`,
  };
}

// Cases that are not per locale.
export const OTHER_CASES = {
  "unsupported locale falls back to en-US": 'new Intl.NumberFormat("tlh").resolvedOptions().locale',
  "unsupported locale formats as en-US": 'new Intl.NumberFormat("sw-KE").format(1234.5)',
  "no locale is en-US": "new Intl.DateTimeFormat().resolvedOptions().locale",
  "default time zone is UTC": "new Intl.DateTimeFormat().resolvedOptions().timeZone",
  "fallback list picks the first built-in": 'new Intl.NumberFormat(["tlh", "de-AT"]).resolvedOptions().locale',
  "supportedLocalesOf": 'Intl.NumberFormat.supportedLocalesOf(["de-AT", "tlh", "ja-JP"]).join()',
  "getCanonicalLocales list": 'Intl.getCanonicalLocales(["EN-us", "zh-hant-tw", "en-US"]).join()',
  "getCanonicalLocales aliases": 'Intl.getCanonicalLocales(["iw", "sh", "mo", "und-Latn-TW", "art-lojban", "ji-YU", "cmn-TW", "en-u-ca-gregory-nu-latn", "sgn-GR", "aar", "hy-arevela"]).join()',
  "Locale parts": 'JSON.stringify((({ language, script, region, baseName }) => ({ language, script, region, baseName }))(new Intl.Locale("zh-Hant-TW")))',
  "Locale with extensions": 'new Intl.Locale("en", { calendar: "gregory", hourCycle: "h12" }).toString()',
  "Segmenter ja words": '[...new Intl.Segmenter("ja", { granularity: "word" }).segment("日本語の文章です")].map((s) => s.segment).join("|")',
  "supportedValuesOf currency has EUR": 'Intl.supportedValuesOf("currency").includes("EUR")',
  "supportedValuesOf timeZone has Asia/Tokyo": 'Intl.supportedValuesOf("timeZone").includes("Asia/Tokyo")',
  "supportedValuesOf unit has meter": 'Intl.supportedValuesOf("unit").includes("meter")',
  "supportedValuesOf calendar has gregory": 'Intl.supportedValuesOf("calendar").includes("gregory")',
  "bad style is a RangeError": 'new Intl.NumberFormat("en", { style: "bogus" })',
  "currency style without currency is a TypeError": 'new Intl.NumberFormat("en", { style: "currency" })',
  "bad locale tag is a RangeError": 'new Intl.NumberFormat("not a locale!")',
  "bad time zone is a RangeError": 'new Intl.DateTimeFormat("en", { timeZone: "Mars/Olympus" })',
  "bad fraction digits is a RangeError": 'new Intl.NumberFormat("en", { maximumFractionDigits: 500 })',
  "bad supportedValuesOf key is a RangeError": 'Intl.supportedValuesOf("bogus")',
  "bad PluralRules type is a RangeError": 'new Intl.PluralRules("en", { type: "bogus" })',
  "bad RelativeTimeFormat unit is a RangeError": 'new Intl.RelativeTimeFormat("en").format(1, "fortnight")',
  "bad Segmenter granularity is a RangeError": 'new Intl.Segmenter("en", { granularity: "letters" })',
  "bad ListFormat input is a TypeError": 'new Intl.ListFormat("en").format([1, 2])',
  "a constructor without new is a TypeError": 'Intl.DateTimeFormat.call({}, "en") && Intl.ListFormat("en")',
  "Intl's toStringTag": "Object.prototype.toString.call(Intl)",
  "an invalid Date is Invalid Date whatever the locale": 'new Date(NaN).toLocaleString("not a locale!")',
  "toLocaleString of another receiver is a TypeError": 'Number.prototype.toLocaleString.call("5")',
  "toLocaleDateString of a non-Date is a TypeError": 'Date.prototype.toLocaleDateString.call({}, "en")',
  "a bad locale in toLocaleString is a RangeError": 'new Date(0).toLocaleString("bad tag!")',
  "instances are instances": 'new Intl.NumberFormat("en") instanceof Intl.NumberFormat && new Intl.DateTimeFormat("de") instanceof Intl.DateTimeFormat',
  "constructor names": "[Intl.NumberFormat, Intl.DateTimeFormat, Intl.PluralRules, Intl.RelativeTimeFormat, Intl.ListFormat, Intl.Segmenter, Intl.Locale, Intl.DisplayNames].map((c) => c.name).join()",
  "DisplayNames languageDisplay standard": 'new Intl.DisplayNames("en", { type: "language", languageDisplay: "standard" }).of("en-GB")',
  "DisplayNames fallback none": 'String(new Intl.DisplayNames("en", { type: "region", fallback: "none" }).of("XY"))',
  "DisplayNames fallback code": 'new Intl.DisplayNames("en", { type: "region" }).of("XY")',
  "DisplayNames without type is a TypeError": 'new Intl.DisplayNames("en")',
  "DisplayNames bad code is a RangeError": 'new Intl.DisplayNames("en", { type: "region" }).of("not a region")',
  "DisplayNames supportedLocalesOf": 'Intl.DisplayNames.supportedLocalesOf(["de-AT", "tlh", "ja-JP"]).join()',
};

// Evaluates cases (an object name -> expression) where this function's source runs: in Node for the expectations, in
// the engine as part of a request. A value becomes its string (results are compared as strings); an error its name.
export function evaluateCases(cases) {
  const out = {};
  for (const [name, expr] of Object.entries(cases)) {
    try {
      out[name] = String((0, eval)(expr));
    } catch (e) {
      out[name] = `!${e && e.name}`;
    }
  }
  return out;
}
