// Intl in the real runtime Worker (workerd via Miniflare): the JavaScript engine's FormatJS-based Intl, loaded from the
// engine's /stdlib chunks on first use (docs/intl.md). Every constructor for every built-in locale is checked against
// Node's own full-ICU Intl: test/intl/generate.mjs wrote test/intl/expected.json from test/intl/cases.mjs with the
// pinned Node (its ICU, CLDR and tz versions are in the file); DIFFERENCES below lists each deliberate difference and
// docs/intl.md explains it. Code contexts: Intl objects survive the snapshot of a context and its restore.
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startRuntime, assertExecutionResult, ROOT } from "./helpers.mjs";
import { LOCALES, localeCases, OTHER_CASES, evaluateCases } from "../intl/cases.mjs";

const expected = JSON.parse(fs.readFileSync(path.join(ROOT, "test/intl/expected.json"), "utf8"));

// Where the engine's answer deliberately differs from Node's (docs/intl.md, "Differences from Node"): case -> locale
// -> the engine's answer. FormatJS's CLDR data and algorithms, not ICU's; each is a documented limitation.
const DIFFERENCES = {
  // FormatJS picks the "yMd" skeleton with month/day names for ja/zh toLocaleString; ICU picks the numeric one.
  "Date.prototype.toLocaleString UTC": {
    "ja-JP": "2024年1月15日 9:05:07", "zh-CN": "2024年1月15日 09:05:07", "zh-TW": "2024年1月15日\u2009上午9:05:07",
    // CLDR 48's pt date-time glue is "{1}, {0}"; FormatJS's pt data has "{1} {0}".
    "pt-BR": "15/01/2024 09:05:07",
  },
  "DateTimeFormat dateStyle medium, timeStyle short": { "pt-BR": "3 de mar. de 2024 18:45" },
  "DateTimeFormat Asia/Tokyo": {
    "pt-BR": "15/01/2024 18:05:07 GMT+9",
    // FormatJS does not localize the digits of a GMT offset.
    "ar-EG": "١٥\u200f/١\u200f/٢٠٢٤، ٦:٠٥:٠٧ م غرينتش+9",
  },
  "DateTimeFormat Europe/Berlin summer": { "ar-EG": "٢ م غرينتش+2" },
  // FormatJS's interval formats for month + day: another skeleton than ICU's.
  "DateTimeFormat formatRange": {
    "ja-JP": "1月15日～3月3日", "zh-CN": "1月15日至3月3日", "zh-TW": "1月15日至3月3日", "pt-PT": "15 de 01\u2009–\u20093 de 03",
  },
  // FormatJS's best-fit matcher resolves zh-CN to the language's own data tag; ICU keeps the requested region.
  "NumberFormat resolved locale": { "zh-CN": "zh" },
  "DisplayNames resolved locale": { "zh-CN": "zh" },
  // FormatJS does not localize the digits of the exponent.
  "NumberFormat scientific": { "ar-EG": "١٫٢٣٥أس5" },
  // ICU puts the right-to-left mark before the sign as its own literal part; FormatJS has no such part.
  "NumberFormat formatToParts": { "ar-EG": "minusSign,integer,group,integer,decimal,fraction" },
};
const OTHER_DIFFERENCES = {
  // Only the built-in regional variants are available (docs/intl.md): de-AT resolves to de.
  "fallback list picks the first built-in": "de",
};

const js = async (rt, code) => assertExecutionResult(await rt.execute({ code }));

let rt;
before(async () => {
  rt = await startRuntime([{}]);
});
after(() => rt?.dispose());

describe("Intl: a program that never touches it pays nothing", () => {
  it("1 + 1 reads no Intl chunk: its memory is the boot image's and its fuel a few thousand units", async () => {
    const plain = await js(rt, "1 + 1");
    const other = await js(rt, '"x".repeat(10).length');
    const intl = await js(rt, 'new Intl.NumberFormat("de-DE").format(1234.5)');
    assert.deepEqual(plain.results, [{ text: "2" }]);
    assert.deepEqual(intl.results, [{ text: "'1.234,5'" }]);
    assert.equal(plain.usage.memoryBytes, other.usage.memoryBytes, "no chunk grew the memory");
    assert.ok(intl.usage.memoryBytes > plain.usage.memoryBytes, JSON.stringify([plain.usage, intl.usage]));
    assert.ok(plain.usage.fuelConsumed < 10_000, JSON.stringify(plain.usage));
    assert.ok(intl.usage.fuelConsumed > 100_000, JSON.stringify(intl.usage));
  });
  it("Intl is a global the program can read, replace or delete before any use", async () => {
    assert.deepEqual((await js(rt, "typeof Intl + ' ' + Object.prototype.toString.call(Intl)")).results,
      [{ text: "'object [object Intl]'" }]);
    assert.deepEqual((await js(rt, 'Intl = 5; [Intl, (1234.5).toLocaleString("de")].join()')).results,
      [{ text: "'5,1.234,5'" }]);
    assert.deepEqual((await js(rt, 'delete globalThis.Intl; [typeof Intl, (1234.5).toLocaleString("fr")].join()')).results,
      [{ text: `'undefined,${(1234.5).toLocaleString("fr")}'` }]);
  });
});

describe(`Intl: every constructor in every built-in locale, against Node's (ICU ${expected.icu}, CLDR ${expected.cldr}, tz ${expected.tz})`, () => {
  for (const locale of LOCALES) {
    it(`${locale}: ${Object.keys(localeCases(locale)).length} cases in one program (all constructors: within the fuel budget and heap)`, async () => {
      const r = await js(rt, `(${evaluateCases})(${JSON.stringify(localeCases(locale))})`);
      assert.equal(r.error, undefined, JSON.stringify(r.error));
      const got = r.results[0].json;
      for (const [name, want] of Object.entries(expected.locales[locale])) {
        const deliberate = DIFFERENCES[name]?.[locale];
        assert.equal(got[name], deliberate ?? want, `${locale} ${name}${deliberate ? ` (Node: ${JSON.stringify(want)})` : ""}`);
      }
    });
  }
  it("fallback, canonicalization, supportedValuesOf, bad options and the constructors themselves", async () => {
    const r = await js(rt, `(${evaluateCases})(${JSON.stringify(OTHER_CASES)})`);
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    const got = r.results[0].json;
    for (const [name, want] of Object.entries(expected.other)) assert.equal(got[name], OTHER_DIFFERENCES[name] ?? want, name);
  });
});

describe("Intl: errors are the guest's, never the Worker's", () => {
  for (const [code, name] of [
    ['new Intl.NumberFormat("en", { style: "bogus" })', "RangeError"],
    ['new Intl.NumberFormat("en", { style: "currency" })', "TypeError"],
    ['new Intl.DateTimeFormat("en", { timeZone: "Mars/Olympus" }).format(0)', "RangeError"],
    ['new Intl.Locale("")', "RangeError"],
    ['Intl.getCanonicalLocales(["en", 5])', "TypeError"],
    ['(5).toLocaleString("en", { maximumFractionDigits: -1 })', "RangeError"],
    ['new Date(0).toLocaleString("en", { timeZone: "Nowhere/Never" })', "RangeError"],
  ]) {
    it(`${code} → ${name} in a 200 result`, async () => {
      const r = await js(rt, code);
      assert.equal(r.error?.name, name, JSON.stringify(r));
    });
  }
  it("an unsupported locale falls back to en-US (ECMA-402's default locale), not an error", async () => {
    const r = await js(rt, '[new Intl.NumberFormat("tlh").resolvedOptions().locale, new Intl.DateTimeFormat("sw").format(new Date(0)), (1234.5).toLocaleString("xx-YY")].join(" ")');
    assert.deepEqual(r.results, [{ text: "'en-US 1/1/1970 1,234.5'" }]);
  });
});

describe("Intl in code contexts: its objects survive a snapshot and its restore", () => {
  const persist = mkdtempSync(path.join(tmpdir(), "sw-intl-"));
  const start = () => startRuntime(
    [
      { helper: { name: "caller", entry: "context-caller.js", serviceBindings: { RUNTIME: "runtime" } } },
      { name: "runtime", interpreter: true, routes: ["runtime.test/*"] },
    ],
    { resourcePersistencePath: persist },
  );
  let ctx;
  const run = async (body) => (await ctx.fetch("/run", {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body),
  })).json();
  const text = (r) => {
    assert.equal(r.ok, true, JSON.stringify(r).slice(0, 500));
    assert.equal(r.result.error, undefined, JSON.stringify(r.result.error));
    return r.result.results[0]?.text;
  };
  const create = (id) => ctx.fetch("https://runtime.test/interpreters/intl/contexts", {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id }),
  });
  before(async () => {
    ctx = await start();
  });
  after(async () => {
    await ctx?.dispose();
    rmSync(persist, { recursive: true, force: true });
  });

  it("formatters made in one call format in the next, after another context took the resident and after a restart", async () => {
    assert.equal((await create("a")).status, 201);
    assert.equal((await create("b")).status, 201);
    const made = await run({ key: "intl", contextId: "a", code:
      'var nf = new Intl.NumberFormat("de-DE", { style: "currency", currency: "EUR" });\n' +
      'var dtf = new Intl.DateTimeFormat("ja-JP", { dateStyle: "full", timeStyle: "long", timeZone: "Asia/Tokyo" });\n' +
      'var pr = new Intl.PluralRules("ar"); nf.format(1234.5)' });
    assert.equal(text(made), `'${new Intl.NumberFormat("de-DE", { style: "currency", currency: "EUR" }).format(1234.5)}'`);
    assert.ok(made.result.context.snapshot, "a snapshot was taken");
    const use = '[nf.format(9876.5), dtf.format(new Date(Date.UTC(2024, 0, 15, 12, 30))), pr.select(3), (0.5).toLocaleString("fr-FR", { style: "percent" })].join(" | ")';
    const want = `'${[new Intl.NumberFormat("de-DE", { style: "currency", currency: "EUR" }).format(9876.5),
      new Intl.DateTimeFormat("ja-JP", { dateStyle: "full", timeStyle: "long", timeZone: "Asia/Tokyo" }).format(new Date(Date.UTC(2024, 0, 15, 12, 30))),
      new Intl.PluralRules("ar").select(3), (0.5).toLocaleString("fr-FR", { style: "percent" })].join(" | ")}'`;
    assert.equal(text(await run({ key: "intl", contextId: "b", code: "1" })), "1");
    assert.equal(text(await run({ key: "intl", contextId: "a", code: use })), want, "restored from the snapshot");
    await ctx.dispose();
    ctx = await start();
    assert.equal(text(await run({ key: "intl", contextId: "a", code: use })), want, "restored after a restart");
  });
});
