/* Native tests of engines/javascript/intl_collator.c at the driver's C API, built with ASan+UBSan by run.sh against the
 * host's ICU 72.1 (libicu-dev: the same version as engine.wasm's, with its full built-in data; the results that depend
 * on our filtered data are checked in workerd by test/integration/intl-collator.test.mjs). What this layer adds:
 * memory safety of the tag parser, the option handling and the case-mapping pre-pass under thousands of hostile inputs
 * generated in the guest, and exact answers for a few cases. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../driver.h"

static int failures, checks;

static void expect(const char *what, const char *code, const char *want) {
  SwJs *js = sw_js_new(0, 0);
  if (!js) { fprintf(stderr, "sw_js_new failed\n"); exit(1); }
  char *out = NULL;
  uint32_t len = 0;
  sw_js_native_fuel_reset(-1);
  int rc = sw_js_eval(js, code, (uint32_t)strlen(code), NULL, 0, &out, &len);
  sw_js_free(js);
  checks++;
  if (rc != 0 || !out || !strstr(out, want)) {
    failures++;
    printf("FAIL %s\n  want: %s\n  got:  %.600s\n", what, want, out ? out : "(none)");
  } else {
    printf("ok   %s\n", what);
  }
  sw_free(out);
}

/* A deterministic PRNG in the guest, so every run feeds the same inputs. */
#define RNG "let seed = 12345; const rnd = (n) => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 8) % n;"

int main(void) {
  expect("a German collator sorts a-umlaut with a, as CLDR says",
         "JSON.stringify(['z', '\\u00e4', 'a', 'Z'].sort(new Intl.Collator('de').compare))",
         "'[\\\"a\\\",\\\"\u00e4\\\",\\\"z\\\",\\\"Z\\\"]'");
  expect("resolvedOptions of a tag with keywords, canonicalized",
         "new Intl.Collator('DE-de-U-KN-CO-PHONEBK').resolvedOptions().locale", "'de-u-co-phonebk-kn'");
  expect("tr upper/lower and lt lower with a combining mark",
         "['i'.toLocaleUpperCase('tr'), 'I'.toLocaleLowerCase('az'), 'I\\u0300'.toLocaleLowerCase('lt').length].join()",
         "'\u0130,\u0131,3'");
  /* 20,000 random tags from subtag-ish pieces (valid and invalid, up to ~400 characters): each either constructs or
     throws RangeError/TypeError; nothing else. */
  expect("20,000 random language tags: a collator or a RangeError, never anything else",
         RNG "const parts = ['en', 'de', 'zh', 'Hant', 'TW', 'u', 'co', 'phonebk', 'kn', 'kf', 'upper', 't', 'x', 'a',"
         " '419', '1996', 'abcdefgh', 'abcdefghi', '', '_', '-', 'k0', 'ja', 'true', 'stroke', 'zzzz', '0', 'vaaaa'];"
         "let ok = 0, range = 0, other = '';"
         "for (let i = 0; i < 20000; i++) { const n = rnd(i % 50 === 0 ? 120 : 10) + 1; const t = [];"
         "  for (let k = 0; k < n; k++) t.push(parts[rnd(parts.length)]);"
         "  try { new Intl.Collator(t.join(rnd(9) ? '-' : '_')).resolvedOptions(); ok++; }"
         "  catch (e) { if (e instanceof RangeError) range++; else other = String(e); } }"
         "`${ok > 0 && range > 0} ${other}`",
         "\"text\":\"'true '\"");
  expect("random options: each a collator, a RangeError or a TypeError",
         RNG "const vals = [undefined, null, true, false, 0, 1, 'sort', 'search', 'base', 'accent', 'case', 'variant',"
         " 'upper', 'lower', 'false', 'lookup', 'best fit', 'phonebk', 'stroke', 'ab', 'emoji', {}, [], 'x'.repeat(100)];"
         "const keys = ['usage', 'sensitivity', 'caseFirst', 'numeric', 'ignorePunctuation', 'collation', 'localeMatcher'];"
         "let bad = '';"
         "for (let i = 0; i < 5000; i++) { const o = {}; for (const k of keys) if (rnd(2)) o[k] = vals[rnd(vals.length)];"
         "  try { const c = new Intl.Collator(['de', 'zh-TW', 'en-u-kn', 'xx'][rnd(4)], rnd(20) ? o : null);"
         "    c.compare('a', 'B'); c.resolvedOptions(); }"
         "  catch (e) { if (!(e instanceof RangeError || e instanceof TypeError)) bad = String(e); } }"
         "'done ' + bad",
         "'done '");
  expect("random strings with lone surrogates, combining marks and dotted i's: compare and case mapping are total",
         RNG "const cs = ['a', 'I', 'i', 'J', '\\u0130', '\\u0131', '\\u0307', '\\u0300', '\\u0301', '\\u00cc', '\\u012e',"
         " '\\ud800', '\\udc00', '\\ud83d\\ude00', '\\u0000', '\\u00e4', '\\u4e2d', 'Z', '1', '10'];"
         "let n = 0;"
         "for (let i = 0; i < 3000; i++) { let s = '', t = ''; const len = rnd(i % 100 === 0 ? 3000 : 12);"
         "  for (let k = 0; k < len; k++) { s += cs[rnd(cs.length)]; if (rnd(2)) t += cs[rnd(cs.length)]; }"
         "  const l = ['tr', 'az', 'lt', 'en', undefined][rnd(5)];"
         "  n += s.toLocaleUpperCase(l).length + s.toLocaleLowerCase(l).length + Math.abs(s.localeCompare(t, l === undefined ? undefined : 'de'));"
         "  const c = new Intl.Collator('zh', { sensitivity: ['base', 'case'][rnd(2)], ignorePunctuation: !!rnd(2) });"
         "  n += Math.abs(c.compare(s, t)); }"
         "typeof n",
         "'number'");
  expect("supportedLocalesOf over an array-like with holes and getters",
         "JSON.stringify(Intl.Collator.supportedLocalesOf({ length: 4, 0: 'de-AT', 2: 'xx', get 3() { return 'zh-Hant-HK'; } }))",
         "[\\\"de-AT\\\",\\\"zh-Hant-HK\\\"]");
  printf("%d/%d checks passed\n", checks - failures, checks);
  return failures ? 1 : 0;
}
