// The all-locales JavaScript Worker (engines/javascript/wrangler.all-locales.jsonc, docs/intl.md "Locales"): the same
// engine with Intl data for every CLDR locale FormatJS ships, in workerd. Its answers for locales outside the default
// build's 16 (sv-SE, ko-KR, fr-CA, de-AT, nb, fi, pl, tr, th, vi, he, ...) against Node's (test/intl/expected.json,
// "allLocales"), supportedLocalesOf, and six regional tags in one program within the fuel budget.
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { startRuntime, assertExecutionResult, ROOT } from "./helpers.mjs";
import { LOCALES, ALL_LOCALES_EXTRA, localeCases, evaluateCases } from "../intl/cases.mjs";

const expected = JSON.parse(fs.readFileSync(path.join(ROOT, "test/intl/expected.json"), "utf8"));

// Where the engine's answer deliberately differs from Node's: FormatJS's CLDR data and algorithms, not ICU's
// (docs/intl.md, "Differences from Node"). case -> locale -> the engine's answer.
const DIFFERENCES = {
};

const js = async (rt, code) => assertExecutionResult(await rt.execute({ code }));

let rt;
before(async () => {
  rt = await startRuntime([{ entry: path.join(ROOT, "engines/javascript/worker-all-locales.js") }]);
});
after(() => rt?.dispose());

describe(`Intl, all-locales build: each locale's own data, against Node's (ICU ${expected.icu}, CLDR ${expected.cldr})`, () => {
  for (const locale of ALL_LOCALES_EXTRA) {
    it(`${locale}: ${Object.keys(localeCases(locale)).length} cases in one program`, async () => {
      const r = await js(rt, `(${evaluateCases})(${JSON.stringify(localeCases(locale))})`);
      assert.equal(r.error, undefined, JSON.stringify(r.error));
      const got = r.results[0].json;
      for (const [name, want] of Object.entries(expected.allLocales[locale])) {
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
    assert.deepEqual(r.results, [{ text: `'${LOCALES.map((l) => expected.locales[l]["NumberFormat resolved locale"]).join()}'` }]);
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
