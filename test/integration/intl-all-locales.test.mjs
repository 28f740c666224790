// The all-locales JavaScript Worker (engines/javascript/wrangler.all-locales.jsonc, docs/intl.md "Locales"): the same
// engine with Intl data for every locale FormatJS ships, stored LZMA2-compressed in groups ("How they are stored"), in
// workerd over POST /execute. Answers for languages in neither smaller build (yo-NG, kk) and two of the more-locales
// build (sv-SE, ko-KR) against Node's full-ICU Intl, computed here by the pinned Node (ICU and CLDR printed);
// DisplayNames in those locales; supportedLocalesOf against Node's; the six regional tags of issue 27 within the
// budget; and the fuel of a first DateTimeFormat.
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { startRuntime, assertExecutionResult, ROOT } from "./helpers.mjs";
import { localeCases, evaluateCases } from "../intl/cases.mjs";

// The engine's default time zone is UTC; Node's answers are taken in the same zone.
process.env.TZ = "UTC";

const LOCALES = ["sv-SE", "ko-KR", "yo-NG", "kk"];
// Number and date formatting, and DisplayNames: test/intl/cases.mjs's cases of those kinds.
const KINDS = /^(NumberFormat|Number\.prototype|BigInt\.prototype|DateTimeFormat|Date\.prototype|DisplayNames)/;
const casesOf = (locale) => Object.fromEntries(Object.entries(localeCases(locale)).filter(([name]) => KINDS.test(name)));

// Where the engine's answer differs from Node's (ICU 78, CLDR 48): FormatJS's data, not ICU's (docs/intl.md,
// "Differences from Node"): ko's DisplayNames data has no name for zh-Hant (as in the more-locales build), yo's
// date-time glue has no comma and its default time format is "H:m:s" (unpadded). case -> locale -> the engine's
// answer; 4 of 144 answers.
const DIFFERENCES = {
  "DisplayNames language": { "ko-KR": "영어(영국)|프랑스어|zh-Hant|스페인어(라틴 아메리카)" },
  "DateTimeFormat dateStyle medium, timeStyle short": { "yo-NG": "3 03 2024 18:45" },
  "DateTimeFormat Asia/Tokyo": { "yo-NG": "15/1/2024 18:05:07 WAT+9" },
  "Date.prototype.toLocaleString UTC": { "yo-NG": "15/1/2024 9:5:7" },
};

// The first DateTimeFormat a program makes (docs/intl.md, "What it costs"; issue 27: at most 2M fuel).
const FIRST_DATETIMEFORMAT_FUEL = 2_000_000;

const js = async (rt, code) => assertExecutionResult(await rt.execute({ code }));

let rt;
before(async () => {
  rt = await startRuntime([{ entry: path.join(ROOT, "engines/javascript/worker-all-locales.js") }]);
});
after(() => rt?.dispose());

describe(`Intl, all-locales build, against Node's (ICU ${process.versions.icu}, CLDR ${process.versions.cldr})`, () => {
  for (const locale of LOCALES) {
    it(`${locale}: number and date formatting and DisplayNames (${Object.keys(casesOf(locale)).length} cases in one program)`, async () => {
      const cases = casesOf(locale);
      const r = await js(rt, `(${evaluateCases})(${JSON.stringify(cases)})`);
      assert.equal(r.error, undefined, JSON.stringify(r.error));
      const got = r.results[0].json;
      const want = evaluateCases(cases);
      for (const name of Object.keys(cases)) {
        const deliberate = DIFFERENCES[name]?.[locale];
        assert.equal(got[name], deliberate ?? want[name], `${locale} ${name}${deliberate ? ` (Node: ${JSON.stringify(want[name])})` : ""}`);
      }
      console.log(`    ${locale}: ${r.usage.fuelConsumed} fuel`);
    });
  }

  it("supportedLocalesOf answers as Node does: every locale with CLDR data as asked, none without", async () => {
    const tags = ["sv-SE", "ko-KR", "yo-NG", "kk", "de-AT", "tlh", "zh-HK", "xx-YY", "ca-ES-valencia", "sr-Latn-BA"];
    const constructors = ["NumberFormat", "DateTimeFormat", "DisplayNames", "PluralRules", "RelativeTimeFormat", "ListFormat"];
    const program = `${JSON.stringify(constructors)}.map((c) => Intl[c].supportedLocalesOf(${JSON.stringify(tags)}).join()).join(" ")`;
    const r = await js(rt, program);
    assert.deepEqual(r.results, [{ text: `'${(0, eval)(program)}'` }]);
  });

  it("six regional tags with a NumberFormat and a DateTimeFormat each run within the 50M fuel budget", async () => {
    const tags = ["zh-HK", "es-AR", "zh-TW", "en-AU", "fr-CA", "pt-AO"];
    const r = await js(rt, `${JSON.stringify(tags)}.map((l) => new Intl.NumberFormat(l).format(1234.5) + " " +
      new Intl.DateTimeFormat(l, { dateStyle: "short" }).format(0)).join("|")`);
    const want = tags.map((l) => new Intl.NumberFormat(l).format(1234.5) + " " + new Intl.DateTimeFormat(l, { dateStyle: "short" }).format(0)).join("|");
    assert.deepEqual(r.results, [{ text: `'${want}'` }]);
    console.log(`    six regional tags: ${r.usage.fuelConsumed} fuel`);
    assert.ok(r.usage.fuelConsumed < 50_000_000, JSON.stringify(r.usage));
  });

  it(`a first DateTimeFormat costs at most ${FIRST_DATETIMEFORMAT_FUEL / 1e6}M fuel (en-US, sv-SE, yo-NG, each on a fresh instance)`, async () => {
    for (const locale of ["en-US", "sv-SE", "yo-NG"]) {
      const code = `new Intl.DateTimeFormat(${JSON.stringify(locale)}).format(new Date(Date.UTC(2024, 0, 15)))`;
      const r = await js(rt, code);
      assert.deepEqual(r.results, [{ text: `'${(0, eval)(code)}'` }]);
      console.log(`    first DateTimeFormat (${locale}): ${r.usage.fuelConsumed} fuel`);
      assert.ok(r.usage.fuelConsumed <= FIRST_DATETIMEFORMAT_FUEL, `${locale}: ${JSON.stringify(r.usage)}`);
    }
  });
});
