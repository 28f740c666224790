// The more-locales JavaScript Worker (engines/javascript/wrangler.more-locales.jsonc, docs/intl.md "Locales"): the same
// engine with Intl data for 53 locales (32 languages), in workerd. Its answers for locales outside the default
// build's 16 (sv-SE, ko-KR, fr-CA, de-AT, nb, fi, pl, tr, th, vi, he, ...) against Node's (test/intl/expected.json,
// "moreLocales"), supportedLocalesOf, and six regional tags in one program within the fuel budget.
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { startRuntime, assertExecutionResult, ROOT } from "./helpers.mjs";
import { LOCALES, MORE_LOCALES_EXTRA, localeCases, evaluateCases } from "../intl/cases.mjs";

const expected = JSON.parse(fs.readFileSync(path.join(ROOT, "test/intl/expected.json"), "utf8"));

// Where the engine's answer differs from Node's: FormatJS's CLDR data and algorithms, not ICU's (docs/intl.md,
// "Differences from Node": the Gregorian calendar only (th's default is Buddhist in ICU), FormatJS's older data
// (date-time glue without a comma or "klo", ms's hour cycle, ro's "de", vi's capital, DisplayNames without a name for
// zh-Hant in some languages), GMT-offset and exponent digits not localized, no right-to-left mark part).
// case -> locale -> the engine's answer; 52 of 1,428 answers.
const DIFFERENCES = {
  "DisplayNames language": {"ko-KR": "영어(영국)|프랑스어|zh-Hant|스페인어(라틴 아메리카)", "fi": "britannianenglanti|ranska|zh-Hant|amerikanespanja", "vi": "Tiếng Anh (Anh)|Tiếng Pháp|zh-Hant|Tiếng Tây Ban Nha (Mỹ La tinh)", "nl-NL": "Engels (Verenigd Koninkrijk)|Frans|zh-Hant|Spaans (Latijns-Amerika)", "id": "Inggris (Britania)|Prancis|zh-Hant|Spanyol (Amerika Latin)", "cs": "angličtina (Velká Británie)|francouzština|zh-Hant|španělština (Latinská Amerika)", "bn": "ইংরেজি (যুক্তরাজ্য)|ফরাসি|zh-Hant|স্প্যানিশ (লাতিন আমেরিকা)"},
  "DateTimeFormat dateStyle full": {"fi": "maanantaina 15. tammikuuta 2024", "th": "วันจันทร์ที่ 15 มกราคม ค.ศ. 2024"},
  "DateTimeFormat dateStyle medium, timeStyle short": {"fi": "3.3.2024 18.45", "th": "3 มี.ค. 2024 18:45", "id": "3 Mar 2024 18.45", "da": "3. mar. 2024 18.45", "ms": "3 Mac 2024, 18:45", "bn": "৩ মার্চ, ২০২৪ ৬:৪৫ PM", "sw": "3 Mac 2024 18:45"},
  "DateTimeFormat Asia/Tokyo": {"fi": "15.1.2024 18.05.07 UTC+9.", "th": "15/1/24 18 นาฬิกา 05 นาที 07 วินาที GMT+9", "id": "15/01/24 18.05.07 GMT+9.", "da": "15.01.2024 18.05.07 GMT+9.", "ms": "15/01/24, 18:05:07 GMT+9", "bn": "১৫/১/২৪ ৬:০৫:০৭ PM GMT +9", "sw": "15/01/2024 18:05:07 GMT +9"},
  "DateTimeFormat Europe/Berlin summer": {"fi": "14 UTC+2.", "id": "14 GMT+2.", "ms": "14 GMT+2", "bn": "২ PM GMT +2"},
  "DateTimeFormat formatRange": {"fi": "15. 1 – 3. 3", "zh-HK": "1月15日至3月3日", "pt-AO": "15 de 01 – 3 de 03", "it-IT": "15 gen – 3 mar"},
  "Date.prototype.toLocaleString UTC": {"fi": "15.1.2024 9.05.07", "th": "15/1/2024 09:05:07", "zh-HK": "2024年1月15日 上午9:05:07", "id": "15/1/2024 09.05.07", "da": "15.1.2024 09.05.07", "ms": "15/1/2024, 09:05:07", "bn": "১৫/১/২০২৪ ৯:০৫:০৭ AM", "sw": "15/1/2024 09:05:07"},
  "DateTimeFormat default": {"th": "15/1/2024"},
  "DateTimeFormat components": {"th": "จันทร์ 15 มกราคม 2024", "en-AU": "Mon, 15 January 2024"},
  "DateTimeFormat America/New_York": {"th": "04:05 น.", "ms": "04:05"},
  "DateTimeFormat formatToParts": {"th": "day,literal,month,literal,era,literal,year"},
  "Date.prototype.toLocaleDateString": {"th": "15/1/2024"},
  "RelativeTimeFormat auto": {"vi": "hôm qua"},
  "NumberFormat formatToParts": {"he": "minusSign,integer,group,integer,decimal,fraction"},
  "ListFormat conjunction": {"he": "A, B וC"},
  "NumberFormat currency USD name": {"ro": "2,00 de dolari americani"},
  "Date.prototype.toLocaleTimeString": {"ms": "18:45:00"},
  "NumberFormat scientific": {"bn": "১.২৩৫E5"},
};

const js = async (rt, code) => assertExecutionResult(await rt.execute({ code }));

let rt;
before(async () => {
  rt = await startRuntime([{ entry: path.join(ROOT, "engines/javascript/worker-more-locales.js") }]);
});
after(() => rt?.dispose());

describe(`Intl, more-locales build: each locale's own data, against Node's (ICU ${expected.icu}, CLDR ${expected.cldr})`, () => {
  for (const locale of MORE_LOCALES_EXTRA) {
    it(`${locale}: ${Object.keys(localeCases(locale)).length} cases in one program`, async () => {
      const r = await js(rt, `(${evaluateCases})(${JSON.stringify(localeCases(locale))})`);
      assert.equal(r.error, undefined, JSON.stringify(r.error));
      const got = r.results[0].json;
      for (const [name, want] of Object.entries(expected.moreLocales[locale])) {
        const deliberate = DIFFERENCES[name]?.[locale];
        assert.equal(got[name], deliberate ?? want, `${locale} ${name}${deliberate ? ` (Node: ${JSON.stringify(want)})` : ""}`);
      }
    });
  }
  it("supportedLocalesOf answers truthfully: a locale with data is supported as asked, one without is not", async () => {
    const r = await js(rt, `[Intl.NumberFormat, Intl.DateTimeFormat, Intl.DisplayNames, Intl.PluralRules]
      .map((C) => C.supportedLocalesOf(["sv-SE", "ko-KR", "de-AT", "tlh", "nb", "zh-HK", "xx-YY"]).join()).join(" ")`);
    const want = "sv-SE,ko-KR,de-AT,nb,zh-HK";
    assert.deepEqual(r.results, [{ text: `'${[want, want, want, want].join(" ")}'` }]);
  });
  it("a locale the default build has still resolves as it does there (the 14 locales' resolved tags)", async () => {
    const r = await js(rt, `${JSON.stringify(LOCALES)}.map((l) => new Intl.DateTimeFormat(l).resolvedOptions().locale).join()`);
    // Node's answers, but zh-CN: FormatJS's matcher resolves it to zh, as in the default build (intl.test.mjs).
    const want = LOCALES.map((l) => (l === "zh-CN" ? "zh" : expected.locales[l]["NumberFormat resolved locale"]));
    assert.deepEqual(r.results, [{ text: `'${want.join()}'` }]);
  });
  it("six regional tags with a NumberFormat and a DateTimeFormat each run within the 50M fuel budget", async () => {
    const tags = ["zh-HK", "es-AR", "zh-TW", "en-AU", "fr-CA", "pt-AO"];
    const r = await js(rt, `${JSON.stringify(tags)}.map((l) => new Intl.NumberFormat(l).format(1234.5) + " " +
      new Intl.DateTimeFormat(l, { dateStyle: "short" }).format(0)).join("|")`);
    const want = tags.map((l) => new Intl.NumberFormat(l).format(1234.5) + " " + new Intl.DateTimeFormat(l, { dateStyle: "short", timeZone: "UTC" }).format(0)).join("|");
    assert.deepEqual(r.results, [{ text: `'${want}'` }]);
    console.log(`    six regional tags: ${r.usage.fuelConsumed} fuel`);
    assert.ok(r.usage.fuelConsumed < 50_000_000, JSON.stringify(r.usage));
  });
});
