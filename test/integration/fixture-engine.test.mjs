// docs/adding-an-engine.md made true: a language is its folder. The rpn engine (test/fixtures/engines/rpn/: engine.json,
// engine.js, worker.js, wrangler.jsonc; no other file names it) is found through SW_EXTRA_ENGINE_DIRS exactly as
// engines/<id>/ is found, and is then served by its runtime Worker, listed and routed by the gateway, given an
// `npm start` line, packed as @sandbox-workers/rpn and scaffolded by `sandbox-workers init` (from the repository and
// from the packed CLI).
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

// Before the harness loads the manifests.
process.env.SW_EXTRA_ENGINE_DIRS = "test/fixtures/engines";
const { ROOT, assertExecutionResult, assertErrorResponse } = await import("./helpers.mjs");
const { startPlayground, LANGUAGES } = await import("../playground/harness.mjs");
const { loadLanguages } = await import("../../scripts/languages.mjs");

const FIXTURE = "test/fixtures/engines/rpn";
const json = (body) => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
const node = (args, options = {}) => execFileSync(process.execPath, args, { cwd: ROOT, encoding: "utf8", env: process.env, ...options });

describe("an engine added by its folder alone (test/fixtures/engines/rpn)", () => {
  const rpn = loadLanguages().find((l) => l.id === "rpn");

  it("no code or config outside its folder names it: git finds 'rpn' only in the fixture (and this test, and docs)", () => {
    const files = execFileSync("git", ["grep", "--untracked", "-l", "-i", "\\brpn\\b", "--", ".", ":!test/integration/fixture-engine.test.mjs", ":!docs"], { cwd: ROOT, encoding: "utf8" })
      .trim().split("\n");
    assert.deepEqual(files.filter((f) => !f.startsWith(`${FIXTURE}/`)), []);
    assert.ok(rpn, "its manifest is loaded");
    assert.equal(rpn.dir, FIXTURE);
    assert.equal(LANGUAGES.at(-1), "rpn", "listed after the built-in languages (order 1000)");
  });

  describe("the gateway lists and routes it; its runtime Worker serves it", () => {
    let pg;
    const [first] = LANGUAGES; // the default language's runtime, beside it
    before(async () => {
      pg = await startPlayground({ languages: [first, "rpn"] });
    });
    after(() => pg?.dispose());

    it("GET /languages lists rpn from its manifest: name, package, binding, limits, stateless", async () => {
      const res = await pg.fetch("/languages");
      assert.equal(res.status, 200);
      const { languages } = await res.json();
      const entry = languages.find((l) => l.id === "rpn");
      assert.deepEqual(
        { name: entry.name, package: entry.package, binding: entry.binding, engine: entry.engine, enabled: entry.enabled, mode: entry.mode },
        { name: "RPN", package: "@sandbox-workers/rpn", binding: "RPN", engine: "rpn 1.0", enabled: true, mode: "stateless" },
      );
      assert.deepEqual(entry.limits, { codeBytes: 65536, requestBytes: 98304, fuel: 1000, memoryBytes: 1048576 });
      assert.deepEqual(languages.map((l) => l.id), LANGUAGES, "every manifest, in order");
    });

    it("POST /execute/rpn runs on its runtime Worker (envVars reach it)", async () => {
      const r = await assertExecutionResult(await pg.fetch("/execute/rpn", json({ code: "1 2 + X *", envVars: { X: "12" }, language: "rpn" })));
      assert.equal(r.language, "rpn");
      assert.equal(r.engine, "rpn 1.0");
      assert.deepEqual(r.results, [{ text: "36" }]);
      const failed = await assertExecutionResult(await pg.fetch("/execute/rpn", json({ code: "1 +" })));
      assert.deepEqual(failed.error, { name: "StackError", message: "'+' needs two operands", traceback: [] });
    });

    it("it is stateless (no sessions): a code context is refused by its binding", async () => {
      await assertErrorResponse(await pg.fetch("/languages/rpn/sandboxes/fx/contexts", json({})), 400,
        "Code contexts are not supported by binding 'RPN' (rpn)");
    });

    it("the page bundles its sample and editor mode (build-playground's generated module)", async () => {
      const { pageModule } = await import("../../scripts/languages.mjs");
      const source = pageModule(loadLanguages());
      assert.match(source, /import \{ forth as mode\d+ \} from "@codemirror\/legacy-modes\/mode\/forth";/);
      assert.match(source, /"rpn": \{ sample: "3 4 \+ 2 \*"/);
    });
  });

  it("npm start -- rpn: scripts/start.sh's config and sample request come from the manifest", () => {
    assert.equal(node(["scripts/languages.mjs", "config", "rpn"]).trim(), `${FIXTURE}/wrangler.jsonc`);
    assert.deepEqual(JSON.parse(node(["scripts/languages.mjs", "start-body", "rpn"])), { code: "1 2 + X *", envVars: { X: "12" } });
    assert.ok(node(["scripts/languages.mjs", "configs"]).trim().split("\n").includes(`${FIXTURE}/wrangler.jsonc`), "npm run playground serves it");
  });

  describe("packed and scaffolded", () => {
    let dir;
    before(() => {
      dir = mkdtempSync(path.join(tmpdir(), "sw-fixture-engine-"));
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    it("npm run pack makes @sandbox-workers/rpn: its Worker, its Engine and the shim, in the repository's layout", () => {
      node(["scripts/pack.mjs", "--out", path.join(dir, "packages"), "@sandbox-workers/rpn", "@sandbox-workers/cli"]);
      const index = JSON.parse(readFileSync(path.join(dir, "packages", "index.json"), "utf8"));
      const tarball = index.find((p) => p.name === "@sandbox-workers/rpn").tarball;
      const files = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).trim().split("\n");
      for (const f of [`${FIXTURE}/worker.js`, `${FIXTURE}/engine.js`, `${FIXTURE}/engine.json`, "worker-shim/runtime.js", "worker-shim/generated/core.wasm", "package.json"])
        assert.ok(files.includes(`package/${f}`), `${f} is in the tarball`);
      const pkg = JSON.parse(execFileSync("tar", ["-xzOf", tarball, "package/package.json"], { encoding: "utf8" }));
      assert.deepEqual(pkg.exports, { ".": `./${FIXTURE}/worker.js` });
      assert.deepEqual(pkg.files.sort(), ["test", "worker-shim"]);
    });

    it("sandbox-workers init rpn (the repository's CLI, and the packed one through its runtimes.json) scaffolds a stateless Worker", () => {
      const index = JSON.parse(readFileSync(path.join(dir, "packages", "index.json"), "utf8"));
      const cliTarball = index.find((p) => p.name === "@sandbox-workers/cli").tarball;
      const cli = path.join(dir, "cli");
      execFileSync("mkdir", ["-p", cli]);
      execFileSync("tar", ["-xzf", cliTarball, "-C", cli]);
      const runtimes = JSON.parse(readFileSync(path.join(cli, "package", "runtimes.json"), "utf8"));
      assert.deepEqual(runtimes.rpn, { name: "RPN", package: "@sandbox-workers/rpn", binding: "RPN", contexts: false });
      for (const [label, entry] of [["repo", path.join(ROOT, "cli/sandbox-workers.mjs")], ["packed", path.join(cli, "package/sandbox-workers.mjs")]]) {
        const out = path.join(dir, `init-${label}`);
        node([entry, "init", "rpn", out], { cwd: dir });
        const w = JSON.parse(readFileSync(path.join(out, "wrangler.rpn.jsonc"), "utf8"));
        assert.equal(w.name, "sandbox-rpn");
        assert.equal(w.durable_objects, undefined, `${label}: stateless, no Interpreter`);
        assert.equal(readFileSync(path.join(out, "index.js"), "utf8").includes('export { default } from "@sandbox-workers/rpn"'), true);
        assert.deepEqual(Object.keys(JSON.parse(readFileSync(path.join(out, "package.json"), "utf8")).dependencies), ["@sandbox-workers/rpn"]);
        assert.match(readFileSync(path.join(out, "README.md"), "utf8"), /"binding": "RPN", "service": "sandbox-rpn"/);
      }
      assert.ok(!existsSync(path.join(ROOT, "build/packages/rpn")), "the repository's own packages are untouched");
    });
  });
});
