// Benchmark (not a test): the snapshot of a code context that used Intl (docs/intl.md). In workerd (Miniflare, on-disk
// Durable Object storage), one context per program, each run once; prints the snapshot record's pages, bytes and
// storedBytes (compressed rows) and the instance's memory.
//   node bench/intl-snapshots.mjs
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startRuntime } from "../test/integration/helpers.mjs";

const persist = mkdtempSync(path.join(tmpdir(), "sw-intl-snap-"));
const rt = await startRuntime([
  { helper: { name: "caller", entry: "context-caller.js", serviceBindings: { RUNTIME: "runtime" } } },
  { name: "runtime", interpreter: true, routes: ["runtime.test/*"] },
], { resourcePersistencePath: persist });
const run = async (body) => (await rt.fetch("/run", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })).json();
for (const [id, code] of [["plain", "var x = 1; x"], ["nf", 'var nf = new Intl.NumberFormat("de-DE"); nf.format(1)'], ["dtf", 'var d = new Intl.DateTimeFormat("ja-JP", {timeZone: "Asia/Tokyo", dateStyle: "full"}); d.format(0)'],
  ["all", 'var o = [new Intl.NumberFormat("de"), new Intl.DateTimeFormat("de"), new Intl.PluralRules("de"), new Intl.RelativeTimeFormat("de"), new Intl.ListFormat("de"), new Intl.Segmenter("de")]; o.length']]) {
  await rt.fetch("https://runtime.test/interpreters/snap/contexts", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id }) });
  const r = await run({ key: "snap", contextId: id, code });
  const s = r.result.context.snapshot;
  console.log(id, JSON.stringify(r.result.results), "pages", s.pages, "bytes", s.bytes, "storedBytes", s.storedBytes, "memoryBytes", r.result.usage?.memoryBytes);
}
await rt.dispose();
rmSync(persist, { recursive: true, force: true });
