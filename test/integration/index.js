// Lets `node --test test/integration/` work: Node 24 treats a directory argument as a module path (this index.js)
// instead of searching it for tests, so this module loads every *.test.mjs here (all in one process).
// `node --test test/integration/*.test.mjs` runs them as separate processes instead.
import { readdirSync } from "node:fs";

for (const file of readdirSync(new URL(".", import.meta.url)).filter((f) => f.endsWith(".test.mjs")).sort()) {
  await import(new URL(file, import.meta.url));
}
