// `sandbox-workers init` (protocol §9, checklist items 189–190 and its `wrangler.<runtime>.jsonc`; issue 24's several
// runtimes in one project): the scaffolds it writes, what it refuses, and — for every runtime and the engine skeleton —
// that the scaffolded project installs our local tarballs (`npm run pack`) and bundles with `wrangler deploy
// --dry-run`. The CLI runs as a user runs it too: installed from its tarball, through `npx` and `npm exec`, whose
// command is a symlink to the file (issue 24: the main-module check once compared the symlink's path and did nothing).
import { describe, test, before } from "node:test";
import assert from "node:assert/strict";
import { execFile, execFileSync, spawnSync } from "node:child_process";
import { promisify } from "node:util";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Miniflare, convertV4MiniflareOptions } from "miniflare";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const cli = join(root, "cli", "sandbox-workers.mjs");
const nodeBin = dirname(process.execPath);
const env = { ...process.env, PATH: `${join(root, "node_modules", ".bin")}:${nodeBin}:${process.env.PATH}`, WRANGLER_SEND_METRICS: "false" };

function run(args, cwd) {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd, encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
const jsonc = (text) => JSON.parse(text.replace(/^\s*\/\/.*$/gm, ""));
const fresh = () => mkdtempSync(join(tmpdir(), "sw-init-"));

test("--help prints the usage and exits 0; no command, an unknown runtime (php), an unknown flag or an extra positional print it and exit 1", () => {
  const dir = fresh();
  const help = run(["--help"], dir);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /sandbox-workers init <runtime>\[,<runtime>\.\.\.\] \[directory\] \[--stateless\]/);
  const refused = [[], ["init"], ["init", "php"], ["init", "python", "--force"], ["init", "python", "a", "b"], ["deploy"],
    ["init", "python,php"], ["init", "python,python"], ["init", "python,"], ["init", ",python"]];
  for (const args of refused) {
    const r = run(args, dir);
    assert.equal(r.code, 1, args.join(" "));
    assert.match(r.stderr, /Usage:/, args.join(" "));
  }
  assert.deepEqual(readdirSync(dir), [], "a refused run writes nothing");
});

test("init ruby --stateless: a stateless Worker in wrangler.ruby.jsonc — no durable_objects or migrations, index.js exports only the default Worker; name sandbox-ruby; workers_dev and preview_urls false", () => {
  const dir = fresh();
  assert.equal(run(["init", "ruby", "rb", "--stateless"], dir).code, 0);
  assert.deepEqual(readdirSync(join(dir, "rb")).sort(), [".gitignore", "README.md", "index.js", "package.json", "wrangler.ruby.jsonc"]);
  const w = jsonc(readFileSync(join(dir, "rb", "wrangler.ruby.jsonc"), "utf8"));
  assert.equal(w.name, "sandbox-ruby");
  assert.equal(w.main, "index.js");
  assert.equal(w.compatibility_date, "2026-09-04");
  assert.equal(w.workers_dev, false);
  assert.equal(w.preview_urls, false);
  assert.equal(w.durable_objects, undefined);
  assert.equal(w.migrations, undefined);
  assert.ok(w.rules.some((r) => r.type === "Data" && r.globs.includes("**/*.bin")));
  const index = readFileSync(join(dir, "rb", "index.js"), "utf8");
  assert.doesNotMatch(index, /Interpreter/);
  assert.match(index, /export \{ default \} from "@sandbox-workers\/ruby"/);
});

test("init python: the INTERPRETER binding to class Interpreter with the v1 SQLite migration; package.json as protocol §9 describes; .gitignore", () => {
  const dir = fresh();
  assert.equal(run(["init", "python", "py"], dir).code, 0);
  const w = jsonc(readFileSync(join(dir, "py", "wrangler.python.jsonc"), "utf8"));
  assert.deepEqual(w.durable_objects, { bindings: [{ name: "INTERPRETER", class_name: "Interpreter" }] });
  assert.deepEqual(w.migrations, [{ tag: "v1", new_sqlite_classes: ["Interpreter"] }]);
  assert.deepEqual(w.vars, { INTERPRETER_MAX_SNAPSHOT_BYTES: "33554432" }, "safe by default: a snapshot cap");
  assert.match(readFileSync(join(dir, "py", "index.js"), "utf8"), /export \{ default, Interpreter \} from "@sandbox-workers\/python"/);
  const pkg = JSON.parse(readFileSync(join(dir, "py", "package.json"), "utf8"));
  const version = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version;
  assert.equal(pkg.name, "sandbox-python-worker");
  assert.equal(pkg.private, true);
  assert.equal(pkg.type, "module");
  assert.deepEqual(pkg.scripts, {
    dev: "wrangler dev -c wrangler.python.jsonc",
    deploy: "wrangler deploy -c wrangler.python.jsonc",
    "dry-run": "wrangler deploy --dry-run -c wrangler.python.jsonc",
  });
  assert.deepEqual(pkg.dependencies, { "@sandbox-workers/python": version });
  assert.deepEqual(pkg.devDependencies, { wrangler: "^4.129.0" });
  assert.equal(readFileSync(join(dir, "py", ".gitignore"), "utf8"), "node_modules/\n.wrangler/\n.dev.vars\n");
  assert.ok(existsSync(join(dir, "py", "README.md")));
});

test("the default directory is sandbox-<runtime>; --stateless before or after the directory drops the Durable Object", () => {
  const dir = fresh();
  assert.equal(run(["init", "javascript"], dir).code, 0);
  assert.ok(existsSync(join(dir, "sandbox-javascript", "wrangler.javascript.jsonc")));
  assert.equal(run(["init", "--stateless", "perl", "p1"], dir).code, 0);
  assert.equal(run(["init", "perl", "p2", "--stateless"], dir).code, 0);
  for (const d of ["p1", "p2"]) {
    assert.equal(jsonc(readFileSync(join(dir, d, "wrangler.perl.jsonc"), "utf8")).durable_objects, undefined);
    assert.doesNotMatch(readFileSync(join(dir, d, "index.js"), "utf8"), /Interpreter/);
  }
});

test("init refuses to overwrite: re-running into the same directory, and a dangling symlink named index.js, fail with 'Refusing to overwrite' and write nothing", () => {
  const dir = fresh();
  assert.equal(run(["init", "lua", "l"], dir).code, 0);
  const again = run(["init", "lua", "l"], dir);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /Refusing to overwrite .*package\.json/);

  const d2 = join(dir, "dangling");
  execFileSync("mkdir", [d2]);
  symlinkSync(join(dir, "nowhere"), join(d2, "index.js"));
  const r = run(["init", "python", "dangling"], dir);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /Refusing to overwrite .*index\.js/);
  assert.deepEqual(readdirSync(d2), ["index.js"], "nothing else was written");
});

test("init javascript,python,ruby: one project, one wrangler.<runtime>.jsonc and <runtime>.js per runtime, one package.json whose scripts dry-run and deploy each, a README that says how", () => {
  const dir = fresh();
  const r = run(["init", "javascript,python,ruby", "app"], dir);
  assert.equal(r.code, 0, r.stderr);
  const p = join(dir, "app");
  assert.deepEqual(readdirSync(p).sort(), [
    ".gitignore", "README.md", "javascript.js", "package.json", "python.js", "ruby.js",
    "wrangler.javascript.jsonc", "wrangler.python.jsonc", "wrangler.ruby.jsonc",
  ]);
  for (const language of ["javascript", "python", "ruby"]) {
    const w = jsonc(readFileSync(join(p, `wrangler.${language}.jsonc`), "utf8"));
    assert.deepEqual([w.name, w.main, w.workers_dev, w.preview_urls], [`sandbox-${language}`, `${language}.js`, false, false]);
    // Every runtime has code contexts (Ruby since issue 26): each gets its Interpreter.
    assert.deepEqual(w.durable_objects, { bindings: [{ name: "INTERPRETER", class_name: "Interpreter" }] });
    const entry = readFileSync(join(p, `${language}.js`), "utf8");
    assert.match(entry, new RegExp(`export \\{ default, Interpreter \\} from "@sandbox-workers/${language}"`));
  }
  const pkg = JSON.parse(readFileSync(join(p, "package.json"), "utf8"));
  const version = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version;
  assert.deepEqual(pkg.dependencies, {
    "@sandbox-workers/javascript": version, "@sandbox-workers/python": version, "@sandbox-workers/ruby": version,
  });
  assert.deepEqual(pkg.scripts, {
    dev: "wrangler dev -c wrangler.javascript.jsonc -c wrangler.python.jsonc -c wrangler.ruby.jsonc",
    deploy: "npm run deploy:javascript && npm run deploy:python && npm run deploy:ruby",
    "dry-run": "npm run dry-run:javascript && npm run dry-run:python && npm run dry-run:ruby",
    "deploy:javascript": "wrangler deploy -c wrangler.javascript.jsonc",
    "dry-run:javascript": "wrangler deploy --dry-run -c wrangler.javascript.jsonc",
    "deploy:python": "wrangler deploy -c wrangler.python.jsonc",
    "dry-run:python": "wrangler deploy --dry-run -c wrangler.python.jsonc",
    "deploy:ruby": "wrangler deploy -c wrangler.ruby.jsonc",
    "dry-run:ruby": "wrangler deploy --dry-run -c wrangler.ruby.jsonc",
  });
  const readme = readFileSync(join(p, "README.md"), "utf8");
  for (const language of ["javascript", "python", "ruby"]) {
    assert.ok(readme.includes(`\`wrangler.${language}.jsonc\``), `README names wrangler.${language}.jsonc`);
    assert.ok(readme.includes(`npm run deploy:${language}`), `README says how to deploy ${language} alone`);
    assert.ok(readme.includes(`{ "binding": "${language.toUpperCase()}", "service": "sandbox-${language}" }`));
  }
  assert.match(readme, /npm run deploy {4}# deploys every Worker/);
  // Every runtime has contexts (Ruby since issue 26): the README calls none of them stateless.
  assert.doesNotMatch(readme, /: stateless/);
  // The default directory names every runtime; --stateless drops every Durable Object.
  assert.equal(run(["init", "perl,lua", "--stateless"], dir).code, 0);
  for (const language of ["perl", "lua"]) {
    assert.equal(jsonc(readFileSync(join(dir, "sandbox-perl-lua", `wrangler.${language}.jsonc`), "utf8")).durable_objects, undefined);
  }
});

test("init of several runtimes refuses to overwrite any file it would write (a config, an entry, even a dangling symlink) and then writes nothing", () => {
  const dir = fresh();
  for (const [name, make] of [
    ["wrangler.python.jsonc", (path) => writeFileSync(path, "{}")],
    ["javascript.js", (path) => writeFileSync(path, "// mine\n")],
    ["python.js", (path) => symlinkSync(join(dir, "nowhere"), path)],
  ]) {
    const d = join(dir, name.replaceAll(".", "-"));
    mkdirSync(d);
    make(join(d, name));
    const r = run(["init", "javascript,python", d], dir);
    assert.equal(r.code, 1, name);
    assert.match(r.stderr, new RegExp(`Refusing to overwrite .*${name.replaceAll(".", "\\.")}`));
    assert.deepEqual(readdirSync(d), [name], `nothing else was written next to ${name}`);
  }
  assert.equal(readFileSync(join(dir, "javascript-js", "javascript.js"), "utf8"), "// mine\n");
});

test("init --engine NAME writes an Engine skeleton on @sandbox-workers/interpreter; a bad name is a usage error", () => {
  const dir = fresh();
  assert.equal(run(["init", "--engine", "Bad Name"], dir).code, 1);
  assert.equal(run(["init", "--engine", "my-lang"], dir).code, 0);
  const p = join(dir, "sandbox-my-lang");
  assert.deepEqual(JSON.parse(readFileSync(join(p, "package.json"), "utf8")).dependencies, {
    "@sandbox-workers/interpreter": JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version,
  });
  assert.match(readFileSync(join(p, "index.js"), "utf8"), /defineInterpreterRuntime\(engine\)/);
});

// The scaffolds against the real packages: `npm run pack` tarballs installed with npm, bundled by wrangler.
let tarballs;
before(() => {
  execFileSync(process.execPath, [join(root, "scripts", "pack.mjs")], { cwd: root, env, stdio: ["ignore", "pipe", "inherit"] });
  tarballs = Object.fromEntries(
    JSON.parse(readFileSync(join(root, "build", "packages", "index.json"), "utf8")).map((p) => [p.name, p.tarball]),
  );
});

// Asynchronous, so the per-runtime scaffold tests below can run two at a time (their npm and wrangler runs mostly wait).
const execFileAsync = (file, args, options) => promisify(execFile)(file, args, { maxBuffer: 64 << 20, ...options });
async function npmInstall(project, packageNames) {
  // --omit=dev: the repository's pinned wrangler runs the dry run (on PATH), so the test downloads nothing.
  await execFileAsync("npm", ["install", "--omit=dev", "--no-audit", "--no-fund", "--prefer-offline", ...packageNames.map((n) => tarballs[n])], {
    cwd: project, env,
  });
}

async function installAndDryRun(project, packageName, script = "dry-run", outdir = join(project, "dist")) {
  await npmInstall(project, [packageName]);
  return dryRun(project, script, outdir);
}

async function dryRun(project, script, outdir) {
  const { stdout } = await execFileAsync("npm", ["run", script, "--", "--outdir", outdir], { cwd: project, env, encoding: "utf8" });
  assert.match(stdout, /--dry-run: exiting now/);
  return readdirSync(outdir);
}

// Runs the bundle wrangler wrote (dist/) in workerd: the packaged Worker must answer POST /execute, not only bundle.
async function executeBundle(project, code, { config = null, dist = join(project, "dist") } = {}) {
  const type = (f) => (f.endsWith(".js") ? "ESModule" : f.endsWith(".wasm") ? "CompiledWasm" : "Data");
  const configFile = config ?? readdirSync(project).find((f) => /^wrangler(\.[a-z-]+)?\.jsonc$/.test(f));
  const settings = jsonc(readFileSync(join(project, configFile), "utf8"));
  const main = settings.main;
  const modules = readdirSync(dist)
    .filter((f) => f === main || /\.(wasm|bin|tar)$/.test(f))
    .sort((a, b) => (a === main ? -1 : b === main ? 1 : 0))
    .map((f) => ({ type: type(f), path: join(dist, f) }));
  const worker = { name: "scaffold", modules, modulesRoot: dist, compatibilityDate: settings.compatibility_date };
  if (settings.durable_objects) worker.durableObjects = { INTERPRETER: "Interpreter" };
  const mf = new Miniflare(convertV4MiniflareOptions({ workers: [worker] }));
  try {
    const response = await mf.dispatchFetch("https://sandbox.internal/execute", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ code }),
    });
    assert.equal(response.status, 200);
    // The body is read before the next request is made: left unread, it was once found already consumed in CI
    // ("Body is unusable: Body has already been read").
    const result = await response.json();
    const probe = await (await mf.dispatchFetch("https://sandbox.internal/interpreter")).json();
    return { result, probe };
  } finally {
    await mf.dispose();
  }
}

const SMOKE = { javascript: "1 + 1", python: "1 + 1", perl: "1 + 1", ruby: "1 + 1", lua: "return 1 + 1" };

describe("every runtime's scaffold against its packed tarball", { concurrency: 2 }, () => {
  for (const language of ["javascript", "python", "perl", "ruby", "lua"]) {
    test(`init ${language}, npm install of the local @sandbox-workers/${language} tarball, then wrangler deploy --dry-run bundles the Worker with its core and engine modules, and the bundle answers POST /execute in workerd`, async () => {
      assert.ok(tarballs[`@sandbox-workers/${language}`], `npm run pack made @sandbox-workers/${language}`);
      const dir = fresh();
      assert.equal(run(["init", language, "w"], dir).code, 0);
      const files = await installAndDryRun(join(dir, "w"), `@sandbox-workers/${language}`);
      assert.ok(files.filter((f) => f.endsWith(".wasm")).length >= 2, `core and engine wasm in the bundle: ${files.join(", ")}`);
      const { result, probe } = await executeBundle(join(dir, "w"), SMOKE[language]);
      assert.equal(result.error, undefined, JSON.stringify(result.error));
      assert.deepEqual(result.results, [{ text: "2" }]);
      assert.equal(probe.language, language);
      assert.equal(probe.contexts, true); // every runtime's scaffold binds its Interpreter (Ruby since issue 26)
    });
  }
});

test("init --engine my-lang: npm install of @sandbox-workers/interpreter, its Engine passes runEngineConformance (npm test), and its bundle answers POST /execute in workerd", async () => {
  const dir = fresh();
  assert.equal(run(["init", "--engine", "my-lang"], dir).code, 0);
  const p = join(dir, "sandbox-my-lang");
  const files = await installAndDryRun(p, "@sandbox-workers/interpreter");
  assert.ok(files.some((f) => f.endsWith(".wasm")), "the core is in the bundle");
  execFileSync("npm", ["test"], { cwd: p, env, stdio: ["ignore", "pipe", "pipe"] });
  const { result, probe } = await executeBundle(p, "42");
  assert.deepEqual(result.results, [{ text: "42" }]);
  assert.deepEqual([probe.language, probe.contexts], ["my-lang", false]);
});

/** Every file of a directory tree, path → content (a scaffold, to compare two runs). */
function treeOf(dir, prefix = "") {
  const out = {};
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (lstatSync(path).isDirectory()) Object.assign(out, treeOf(path, `${prefix}${name}/`));
    else out[`${prefix}${name}`] = readFileSync(path, "utf8");
  }
  return out;
}

// The CLI as a user runs it: installed from its tarball, its bin a symlink in node_modules/.bin.
test("the installed bin: `npx sandbox-workers init …` and `npm exec -- sandbox-workers init …`, for every runtime, several runtimes and --engine, write the same scaffold as the CLI run directly", async () => {
  const project = join(fresh(), "tools");
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "tools", private: true }));
  await npmInstall(project, ["@sandbox-workers/cli"]);
  assert.ok(lstatSync(join(project, "node_modules", ".bin", "sandbox-workers")).isSymbolicLink(), "npm links the bin");
  const direct = fresh();
  const cases = [
    ...["javascript", "python", "perl", "ruby", "lua"].map((language) => ["init", language]),
    ["init", "python", "--stateless"],
    ["init", "javascript,python,ruby"],
    ["init", "--engine", "my-lang"],
  ];
  for (const [i, args] of cases.entries()) {
    const want = run([...args, `w${i}`], direct);
    assert.equal(want.code, 0, want.stderr);
    const expected = treeOf(join(direct, `w${i}`));
    for (const [how, command] of [["npx", ["npx", "sandbox-workers"]], ["npm exec", ["npm", "exec", "--", "sandbox-workers"]]]) {
      const target = `${how.replace(" ", "-")}-${i}`;
      const r = spawnSync(command[0], [...command.slice(1), ...args, target], { cwd: project, env, encoding: "utf8" });
      assert.equal(r.status, 0, `${how} ${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stdout, /^Created /, `${how} ${args.join(" ")} says what it did`);
      assert.deepEqual(treeOf(join(project, target)), expected, `${how} ${args.join(" ")} wrote the scaffold`);
    }
  }
  // And it still refuses through the bin.
  const again = spawnSync("npx", ["sandbox-workers", "init", "lua", "npx-4"], { cwd: project, env, encoding: "utf8" });
  assert.equal(again.status, 1);
  assert.match(again.stderr, /Refusing to overwrite/);
});

// README "A runtime Worker project of your own": its npx line as written (the tarball path made absolute, since the
// test runs outside the repository), then the runtime's tarball installed and `npm run dry-run`.
test("the README's `npx --package <cli tarball> sandbox-workers init python my-python` creates a project that npm run dry-run accepts", async () => {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const line = readme.split("\n").find((l) => l.startsWith("npx ") && l.includes("sandbox-workers init python my-python"));
  assert.ok(line, "README has the npx init line");
  const args = line.split(/\s+/).slice(1).map((a) => (a.endsWith("sandbox-workers-cli-0.1.0.tgz") ? tarballs["@sandbox-workers/cli"] : a));
  const dir = fresh();
  const r = spawnSync("npx", args, { cwd: dir, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(readdirSync(join(dir, "my-python")).sort(), [".gitignore", "README.md", "index.js", "package.json", "wrangler.python.jsonc"]);
  const files = await installAndDryRun(join(dir, "my-python"), "@sandbox-workers/python");
  assert.ok(files.filter((f) => f.endsWith(".wasm")).length >= 2, files.join(", "));
});

test("init javascript,python through npx: both tarballs installed, npm run dry-run bundles both Workers, and each bundle answers POST /execute in workerd", async () => {
  const dir = fresh();
  const r = spawnSync("npx", ["--yes", "--package", tarballs["@sandbox-workers/cli"], "sandbox-workers", "init", "javascript,python", "app"], {
    cwd: dir, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"],
  });
  assert.equal(r.status, 0, r.stderr);
  const p = join(dir, "app");
  await npmInstall(p, ["@sandbox-workers/javascript", "@sandbox-workers/python"]);
  const all = execFileSync("npm", ["run", "dry-run"], { cwd: p, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  assert.equal(all.match(/--dry-run: exiting now/g)?.length, 2, all);
  for (const language of ["javascript", "python"]) {
    const dist = join(p, `dist-${language}`);
    assert.ok((await dryRun(p, `dry-run:${language}`, dist)).some((f) => f.endsWith(".wasm")));
    const { result, probe } = await executeBundle(p, "1 + 1", { config: `wrangler.${language}.jsonc`, dist });
    assert.deepEqual(result.results, [{ text: "2" }], JSON.stringify(result.error));
    assert.deepEqual([probe.language, probe.contexts], [language, true]);
  }
});

test("npm run pack writes a tarball for the CLI whose bin is sandbox-workers", () => {
  assert.ok(tarballs["@sandbox-workers/cli"]);
  const listing = execFileSync("tar", ["-tzf", tarballs["@sandbox-workers/cli"]], { encoding: "utf8" });
  assert.match(listing, /package\/sandbox-workers\.mjs/);
});

// The caller side as a user installs it: the README's caller quick start (wrangler.jsonc and src/index.js, as
// written) in a project of its own, `npm install` of the @sandbox-workers/core tarball, bundled by wrangler, and the
// bundle run in workerd next to the JavaScript and Python runtime Workers.
test("npm install of the local @sandbox-workers/core tarball: the README's caller quick start bundles with wrangler deploy --dry-run and its bundle answers in workerd; an app written for the seed's client type-checks against the installed declarations", async () => {
  assert.ok(tarballs["@sandbox-workers/core"], "npm run pack made @sandbox-workers/core");
  const { runtimeWorkerOptions } = await import("../integration/helpers.mjs");
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Call it from your Worker"));
  const blocks = [...section.matchAll(/```(jsonc|js)\n([\s\S]*?)```/g)];
  const config = blocks.find(([, lang, text]) => lang === "jsonc" && text.includes('"new_sqlite_classes": ["Sandbox"]'))[2];
  const entry = blocks.find(([, lang, text]) => lang === "js" && text.includes('export { Sandbox } from "@sandbox-workers/core"'))[2];
  const p = join(fresh(), "my-app");
  mkdirSync(join(p, "src"), { recursive: true });
  writeFileSync(join(p, "wrangler.jsonc"), config);
  writeFileSync(join(p, "src", "index.js"), entry);
  writeFileSync(join(p, "package.json"), JSON.stringify({ name: "my-app", private: true, type: "module", scripts: { "dry-run": "wrangler deploy --dry-run" } }));
  const files = await installAndDryRun(p, "@sandbox-workers/core");
  assert.ok(files.some((f) => f.endsWith(".wasm")), `the core is in the bundle: ${files.join(", ")}`);
  // The installed package's declarations, found as TypeScript finds them (the `types` condition of its exports):
  // test/types/seed-client.ts, an app written against the seed's client, compiles against them unchanged.
  writeFileSync(join(p, "src", "seed-client.ts"), readFileSync(join(root, "test", "types", "seed-client.ts")));
  writeFileSync(join(p, "tsconfig.json"), JSON.stringify({
    compilerOptions: {
      target: "ES2022", module: "ES2022", moduleResolution: "bundler", strict: true, noEmit: true, lib: ["ES2022"],
      typeRoots: [join(root, "node_modules", "@cloudflare")], types: ["workers-types"],
    },
    files: ["src/seed-client.ts"],
  }));
  const tsc = spawnSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", p], { encoding: "utf8" });
  assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
  const dist = join(p, "dist");
  const modules = readdirSync(dist)
    .filter((f) => f === "index.js" || f.endsWith(".wasm"))
    .sort((a, b) => (a === "index.js" ? -1 : b === "index.js" ? 1 : 0))
    .map((f) => ({ type: f.endsWith(".js") ? "ESModule" : "CompiledWasm", path: join(dist, f) }));
  const app = {
    name: "my-app",
    modules,
    modulesRoot: dist,
    compatibilityDate: jsonc(config).compatibility_date,
    durableObjects: { Sandbox: { className: "Sandbox", useSQLite: true } },
    serviceBindings: { JAVASCRIPT: "sandbox-javascript", PYTHON: "sandbox-python" },
  };
  const mf = new Miniflare(convertV4MiniflareOptions({
    workers: [
      app,
      runtimeWorkerOptions({ name: "sandbox-javascript", language: "javascript", routes: ["js.test/*"] }),
      runtimeWorkerOptions({ name: "sandbox-python", language: "python", routes: ["py.test/*"] }),
    ],
  }));
  try {
    const first = await (await mf.dispatchFetch("https://my-app.test/")).json();
    assert.deepEqual(first, { visits: "1", python: "42", file: { n: 42 }, missing: "FILE_NOT_FOUND", contexts: 2 });
    const second = await (await mf.dispatchFetch("https://my-app.test/")).json();
    assert.equal(second.visits, "2");
  } finally {
    await mf.dispose();
  }
});
