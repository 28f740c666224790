// Every runtime Worker deploys on its own: `wrangler deploy --dry-run` bundles it from its wrangler configuration
// (the engine — without its data segments where a boot image carries them —, its /stdlib archive and boot image if it
// has them, the core) and must stay within the platform's upload limit: since 2026-09-04 a Worker may be 64 MiB
// uncompressed on every plan (Cloudflare dropped the compressed 3 MiB free / 10 MiB paid limits). The gzip figures
// wrangler prints are kept within our own older budgets (10 MiB; JavaScript 3 MiB) so that sizes do not creep. The sizes
// are printed; bench/RESULTS.md keeps them.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ROOT, languageConfig } from "./helpers.mjs";

const WRANGLER = path.join(ROOT, "node_modules/wrangler/bin/wrangler.js");
const LIMIT_KIB = 10 * 1024;
const UPLOAD_LIMIT_KIB = 64 * 1024;  // the platform's limit: the uncompressed upload

describe("wrangler deploy --dry-run, one Worker per language", () => {
  // Lua is an Engine written in JavaScript with a boot image (docs/engine-authors.md, "A boot image"): it ships its
  // engine.wasm, data segments and all (`stripped` false), beside the image.
  const workers = [
    ["javascript", "sandbox-javascript", true],
    ["python", "sandbox-python", true],
    ["perl", "sandbox-perl", true],
    ["ruby", "sandbox-ruby", true],
    ["lua", "sandbox-lua", false],
  ];
  // The JavaScript Workers with Intl for 53 locales and for every locale: a wrangler config each (docs/intl.md,
  // "Locales").
  const configs = [...workers.map(([language, name, stripped]) => [language, name, stripped, languageConfig(language)]),
    ["javascript-more-locales", "sandbox-javascript (more locales)", true, path.join(ROOT, "engines/javascript/wrangler.more-locales.jsonc")],
    ["javascript-all-locales", "sandbox-javascript (all locales)", true, path.join(ROOT, "engines/javascript/wrangler.all-locales.jsonc")]];
  for (const [language, name, stripped, config] of configs) {
    it(`${name} (${path.relative(ROOT, config)}) bundles on its own under 64 MiB (and ${LIMIT_KIB} KiB gzip)`, () => {
      const out = mkdtempSync(path.join(tmpdir(), `sw-deploy-${language}-`));
      try {
        const log = execFileSync(process.execPath, [WRANGLER, "deploy", "--dry-run", "--outdir", out, "-c", config], {
          cwd: ROOT,
          encoding: "utf8",
          env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" },
        });
        const m = log.match(/Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/);
        assert.ok(m, `no upload size in wrangler's output:\n${log}`);
        const uploadKiB = Number(m[1]), gzipKiB = Number(m[2]);
        console.log(`    ${name}: upload ${uploadKiB} KiB, gzip ${gzipKiB} KiB`);
        assert.ok(uploadKiB < UPLOAD_LIMIT_KIB, `${name}: ${uploadKiB} KiB uncompressed, over 64 MiB`);
        assert.ok(gzipKiB < LIMIT_KIB, `${name}: ${gzipKiB} KiB gzip`);
        // Our budget for JavaScript (with Intl and the ICU collator: docs/intl.md): the old free plan's 3 MiB gzip.
        if (language === "javascript") assert.ok(gzipKiB <= 3 * 1024, `${name}: ${gzipKiB} KiB gzip, over 3 MiB`);
        const files = readdirSync(out);
        assert.ok(files.some((f) => f.endsWith("core.wasm")), `the core is bundled: ${files}`);
        if (stripped) {
          // The module without data segments and the image that carries them (docs/boot-images.md), never engine.wasm.
          assert.ok(files.some((f) => f.endsWith("engine-nodata.wasm")), `the engine is bundled: ${files}`);
          assert.ok(!files.some((f) => f.endsWith("-engine.wasm") || f === "engine.wasm"), `engine.wasm is not bundled: ${files}`);
        } else {
          assert.ok(files.some((f) => f.endsWith("engine.wasm")), `the engine is bundled: ${files}`);
        }
        assert.ok(files.some((f) => /boot-image(-more-locales|-all-locales)?\.bin$/.test(f)), `the boot image is bundled: ${files}`);
        assert.ok(files.every((f) => statSync(path.join(out, f)).size > 0));
        // One archive and one boot image each: the more- and all-locales Workers do not upload the default ones too
        // (engines/javascript/engine-code.js).
        if (language === "javascript-more-locales" || language === "javascript-all-locales")
          assert.ok(!files.some((f) => f.endsWith("-stdlib.tar") || f.endsWith("-boot-image.bin")), `only its own archive: ${files}`);
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    });
  }
});
