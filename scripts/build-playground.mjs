// Builds the Playground page into build/playground/ (the gateway's static assets, gateway/wrangler.jsonc): the page's
// script bundled with its editor (CodeMirror 6, from npm) and, per language, its sample, editor mode and examples (from
// engines/<id>/engine.json and examples.json) and its deploy files (what `sandbox-workers init <id>` writes, from the
// CLI's own generator) by esbuild, minified; index.html and style.css copied; README.md and docs/ rendered into docs/
// (scripts/build-docs.mjs).
// Nothing is loaded from a CDN. Usage: node scripts/build-playground.mjs
import { build } from "esbuild";
import { copyFileSync, mkdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadLanguages, pageModule } from "./languages.mjs";
import { buildDocs } from "./build-docs.mjs";
import { scaffold } from "../cli/sandbox-workers.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const page = path.join(root, "gateway/page");
const out = path.join(root, "build/playground");
mkdirSync(out, { recursive: true });
const languages = loadLanguages();
const deploy = Object.fromEntries(languages.map((l) => [l.id, scaffold({ runtimes: [l.id], directory: `sandbox-${l.id}`, stateless: false })]));
await build({
  entryPoints: [path.join(page, "app.js")],
  bundle: true,
  minify: true,
  format: "esm",
  target: "es2022",
  outfile: path.join(out, "app.js"),
  logLevel: "warning",
  // "sandbox:languages": the samples and editor modes of every manifest, generated (its imports resolve from the root).
  plugins: [{
    name: "sandbox-languages",
    setup(b) {
      b.onResolve({ filter: /^sandbox:languages$/ }, () => ({ path: "languages", namespace: "sandbox" }));
      b.onLoad({ filter: /.*/, namespace: "sandbox" }, () => ({ contents: pageModule(languages, { deploy }), resolveDir: root, loader: "js" }));
    },
  }],
});
for (const file of ["index.html", "style.css"]) copyFileSync(path.join(page, file), path.join(out, file));
const docs = buildDocs(root, path.join(out, "docs"));
console.log(`playground page: ${path.relative(root, out)}/ (app.js ${(statSync(path.join(out, "app.js")).size / 1024).toFixed(0)} KiB, ${docs.length} docs pages)`);
