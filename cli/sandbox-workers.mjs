#!/usr/bin/env node
// `sandbox-workers init`: scaffolds a project of one or more runtime Workers (protocol §9: one
// `wrangler.<runtime>.jsonc` per runtime) or, with --engine, the skeleton of a third-party engine built on
// @sandbox-workers/interpreter. It writes files only: it neither installs nor deploys. Everything is checked before the
// first file is written, so a refused run leaves the directory as it was.
import { existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
// The packages this CLI scaffolds against are released together with it, at the same version.
const VERSION = JSON.parse(readFileSync(join(here, "package.json"), "utf8")).version;

// The runtimes, from the language manifests (engines/<id>/engine.json): id -> { name, package, binding, contexts }
// (contexts false: the Worker is stateless only). Packed, runtimes.json beside this file (scripts/pack.mjs writes it);
// in the repository, the manifests themselves.
const RUNTIMES = existsSync(join(here, "runtimes.json"))
  ? JSON.parse(readFileSync(join(here, "runtimes.json"), "utf8"))
  : await import("../scripts/languages.mjs").then(({ cliRuntimes, loadLanguages }) => cliRuntimes(loadLanguages()));
const STATELESS = Object.keys(RUNTIMES).filter((id) => !RUNTIMES[id].contexts);

const USAGE = `Usage:
  sandbox-workers init <runtime>[,<runtime>...] [directory] [--stateless]
  sandbox-workers init --engine <name> [directory]
  sandbox-workers --help

Scaffolds a Cloudflare Worker project. It writes files only; then run
  cd <directory> && npm install && npm run dry-run && npm run deploy

  <runtime>      ${Object.keys(RUNTIMES).join(", ")}; several, comma-separated (${Object.keys(RUNTIMES).slice(0, 2).join(",")}),
                 make one project with one Worker per runtime: wrangler.<runtime>.jsonc each
  [directory]    where to write (default: sandbox-<runtime>[-<runtime>...], or sandbox-<name> with --engine)
  --stateless    no Interpreter Durable Object: POST /execute only, no code contexts
${STATELESS.length > 0 ? `                 (${STATELESS.join(", ")}: always stateless)\n` : ""}  --engine NAME  a skeleton for your own engine (an Engine object over @sandbox-workers/interpreter);
                 NAME is its language id: lower-case letters, digits and '-'

Existing files are never overwritten: if any file to be written exists (even a dangling
symlink), nothing is written and the command fails with "Refusing to overwrite <path>".
`;

class UsageError extends Error {}

export function parseArgs(argv) {
  if (argv.length === 1 && (argv[0] === "--help" || argv[0] === "-h" || argv[0] === "help")) return { help: true };
  const [command, ...rest] = argv;
  if (command !== "init") throw new UsageError(command === undefined ? "missing command" : `unknown command: ${command}`);
  let stateless = false;
  let engine = null;
  const positionals = [];
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (arg === "--help" || arg === "-h") return { help: true };
    if (arg === "--stateless") {
      stateless = true;
    } else if (arg === "--engine") {
      engine = rest[++i];
      if (engine === undefined || !/^[a-z][a-z0-9-]{0,39}$/.test(engine)) throw new UsageError("--engine needs a name like my-lang");
    } else if (arg.startsWith("-")) {
      throw new UsageError(`unknown option: ${arg}`);
    } else {
      positionals.push(arg);
    }
  }
  if (engine !== null) {
    if (stateless) throw new UsageError("--stateless does not apply to --engine (the skeleton is stateless)");
    if (positionals.length > 1) throw new UsageError("too many arguments");
    return { engine, directory: positionals[0] ?? `sandbox-${engine}` };
  }
  const [list, directory, ...extra] = positionals;
  if (list === undefined) throw new UsageError("missing runtime");
  const runtimes = list.split(",");
  for (const runtime of runtimes) {
    if (!Object.hasOwn(RUNTIMES, runtime)) throw new UsageError(runtime === "" ? `empty runtime in ${list}` : `unknown runtime: ${runtime}`);
  }
  if (new Set(runtimes).size !== runtimes.length) throw new UsageError(`a runtime named twice: ${list}`);
  if (extra.length > 0) throw new UsageError("too many arguments");
  return { runtimes, directory: directory ?? `sandbox-${runtimes.join("-")}`, stateless };
}

const json = (value) => JSON.stringify(value, null, 2) + "\n";

/** The Worker of one runtime: its wrangler config and its entry module (`main`). */
function runtimeWorker(runtime, stateless, main) {
  const contexts = RUNTIMES[runtime].contexts && !stateless;
  const pkg = RUNTIMES[runtime].package;
  const wrangler = {
    $schema: "node_modules/wrangler/config-schema.json",
    name: `sandbox-${runtime}`,
    main,
    compatibility_date: "2026-09-04",
    // A runtime Worker is reached through a Service Binding from your own Worker, never from the Internet.
    workers_dev: false,
    preview_urls: false,
    // The engine's boot image and standard library travel as bytes (the .wasm modules use wrangler's default rule).
    rules: [{ type: "Data", globs: ["**/*.bin", "**/*.tar"], fallthrough: true }],
  };
  if (contexts) {
    wrangler.durable_objects = { bindings: [{ name: "INTERPRETER", class_name: "Interpreter" }] };
    wrangler.migrations = [{ tag: "v1", new_sqlite_classes: ["Interpreter"] }];
    // Safe by default: one context's snapshot stores at most 32 MiB (above every engine's ordinary context).
    wrangler.vars = { INTERPRETER_MAX_SNAPSHOT_BYTES: "33554432" };
  }
  const entry = contexts
    ? `// The ${runtime} runtime Worker and its Interpreter Durable Object (durable code contexts).\nexport { default, Interpreter } from "${pkg}";\n`
    : `// The ${runtime} runtime Worker (stateless: POST /execute only).\nexport { default } from "${pkg}";\n`;
  return { runtime, pkg, contexts, config: `wrangler.${runtime}.jsonc`, wrangler, main, entry };
}

const binding = (runtime) => RUNTIMES[runtime].binding;

function callerReadme(workers) {
  const services = workers.map((w) => `{ "binding": "${binding(w.runtime)}", "service": "sandbox-${w.runtime}" }`).join(",\n                  ");
  const withContexts = workers.filter((w) => w.contexts);
  const stateless = workers.filter((w) => !w.contexts);
  const first = workers[0].runtime;
  return `Then bind ${workers.length > 1 ? "them" : "it"} from the Worker that calls ${workers.length > 1 ? "them" : "it"}:

    { "services": [${services}] }

and use \`runCode(env.${binding(first)}, code)\` from \`@sandbox-workers/core\`${
    withContexts.length > 0
      ? `, or a \`Sandbox\` Durable Object for durable code contexts
(\`getSandbox(env.Sandbox, id).interpreter.createCodeContext({ binding: "${binding(withContexts[0].runtime)}" })\`)`
      : ""
  }.
${stateless.length > 0 ? `\n${stateless.map((w) => w.runtime).join(", ")}: stateless, no Interpreter Durable Object, so no code contexts.\n` : ""}
Optional variables: \`INTERPRETER_IDLE_TTL_MS\` (how long an idle Interpreter keeps its contexts; "0" disables expiry);
\`INTERPRETER_MAX_SNAPSHOT_BYTES\` (the most one context's snapshot may store; 32 MiB as generated, "" for no cap).
`;
}

function runtimeFiles({ runtimes, stateless }) {
  const files = [];
  if (runtimes.length === 1) {
    const [runtime] = runtimes;
    const w = runtimeWorker(runtime, stateless, "index.js");
    const c = `-c ${w.config}`;
    const readme = `# sandbox-${runtime}

A [sandbox-workers](https://www.npmjs.com/package/${w.pkg}) runtime Worker: it runs untrusted ${runtime} code in
WebAssembly for your own Workers, which reach it through a Service Binding. Its configuration is
\`${w.config}\` (choose a Worker name there that fits your account).

    npm install
    npm run dry-run   # bundle without deploying
    npm run deploy

${callerReadme([w])}`;
    files.push(
      ["package.json", json({
        name: `sandbox-${runtime}-worker`,
        version: "0.0.0",
        private: true,
        type: "module",
        scripts: { dev: `wrangler dev ${c}`, deploy: `wrangler deploy ${c}`, "dry-run": `wrangler deploy --dry-run ${c}` },
        dependencies: { [w.pkg]: VERSION },
        devDependencies: { wrangler: "^4.129.0" },
      })],
      ["index.js", w.entry],
      [w.config, json(w.wrangler)],
      ["README.md", readme],
    );
  } else {
    // One project, one Worker per runtime: each has its own config and entry module, and the scripts name the
    // config, since wrangler only finds a config by itself when it is called wrangler.jsonc.
    const workers = runtimes.map((runtime) => runtimeWorker(runtime, stateless, `${runtime}.js`));
    const scripts = { dev: `wrangler dev ${workers.map((w) => `-c ${w.config}`).join(" ")}` };
    scripts.deploy = workers.map((w) => `npm run deploy:${w.runtime}`).join(" && ");
    scripts["dry-run"] = workers.map((w) => `npm run dry-run:${w.runtime}`).join(" && ");
    for (const w of workers) {
      scripts[`deploy:${w.runtime}`] = `wrangler deploy -c ${w.config}`;
      scripts[`dry-run:${w.runtime}`] = `wrangler deploy --dry-run -c ${w.config}`;
    }
    const name = `sandbox-${runtimes.join("-")}`;
    const table = workers.map((w) => `| \`sandbox-${w.runtime}\` | \`${w.config}\` | \`${w.main}\` | \`npm run deploy:${w.runtime}\` |`).join("\n");
    const readme = `# ${name}

[sandbox-workers](https://www.npmjs.com/package/@sandbox-workers/core) runtime Workers, one per language: each runs
untrusted code in WebAssembly for your own Workers, which reach it through a Service Binding. Every Worker has its own
configuration (choose Worker names there that fit your account) and deploys on its own:

| Worker | configuration | entry | deploy it alone |
| --- | --- | --- | --- |
${table}

    npm install
    npm run dry-run   # bundles every Worker without deploying (dry-run:<runtime> for one)
    npm run deploy    # deploys every Worker, one after the other
    npm run dev       # every Worker in one local wrangler dev session

${callerReadme(workers)}`;
    files.push(
      ["package.json", json({
        name: `${name}-workers`,
        version: "0.0.0",
        private: true,
        type: "module",
        scripts,
        dependencies: Object.fromEntries(workers.map((w) => [w.pkg, VERSION])),
        devDependencies: { wrangler: "^4.129.0" },
      })],
      ...workers.flatMap((w) => [[w.main, w.entry], [w.config, json(w.wrangler)]]),
      ["README.md", readme],
    );
  }
  files.push([".gitignore", "node_modules/\n.wrangler/\n.dev.vars\n"]);
  return files;
}

function engineFiles({ engine }) {
  const id = engine;
  const wrangler = {
    $schema: "node_modules/wrangler/config-schema.json",
    name: `sandbox-${id}`,
    main: "index.js",
    compatibility_date: "2026-09-04",
    workers_dev: false,
    preview_urls: false,
    rules: [{ type: "Data", globs: ["**/*.bin", "**/*.tar"], fallthrough: true }],
  };
  const engineJs = `// The ${id} Engine (the contract: @sandbox-workers/interpreter's Engine type). This skeleton echoes the
// code back; replace run() with your interpreter. For an interpreter compiled to wasm32-wasi, build its WASI host with
// createWasi from "@sandbox-workers/interpreter/wasi" (fuel, /workspace, stdio capture) and add \`sessions\` for durable
// code contexts (see the Lua engine in the sandbox-workers repository, docs/engine-authors.md).
export const engine = {
  language: "${id}",
  engineName: "${id} 0.0.0",
  // Change build whenever an old snapshot would be unsafe to restore.
  build: "${id}-0.0.0",
  limits: { fuel: 0, memoryBytes: 16777216, codeBytes: 65536, requestBytes: 98304 },
  run({ code, envVars = {} }) {
    const logs = { stdout: [], stderr: [] };
    if (code.trim() === "fail") {
      // A guest error is an outcome, never a throw.
      return { logs, results: [], error: { name: "Error", message: "asked to fail", traceback: [] } };
    }
    if (envVars.GREETING) logs.stdout.push(envVars.GREETING);
    return { logs, results: [{ text: code.trim() }] };
  },
};
`;
  const index = `// The ${id} runtime Worker: the sandbox-workers InterpreterServer fronting your Engine.
import { defineInterpreterRuntime } from "@sandbox-workers/interpreter";
import { engine } from "./engine.js";

const runtime = defineInterpreterRuntime(engine);
export default runtime.Worker;
`;
  const test = `// Checks the Engine against the contract with the real core (Node >= 22.5): node --test
import { test } from "node:test";
import { runEngineConformance } from "@sandbox-workers/interpreter/testing";
import { engine } from "./engine.js";

test("the ${id} engine keeps the Engine contract", async () => {
  await runEngineConformance(engine, {
    programs: { simple: { code: "42", expectResultText: "42" }, error: { code: "fail" } },
  });
});
`;
  return [
    ["package.json", json({
      name: `sandbox-${id}-worker`,
      version: "0.0.0",
      private: true,
      type: "module",
      scripts: {
        dev: "wrangler dev",
        deploy: "wrangler deploy",
        "dry-run": "wrangler deploy --dry-run",
        test: "node --test engine.test.js",
      },
      dependencies: { "@sandbox-workers/interpreter": VERSION },
      devDependencies: { wrangler: "^4.129.0" },
    })],
    ["engine.js", engineJs],
    ["engine.test.js", test],
    ["index.js", index],
    ["wrangler.jsonc", json(wrangler)],
    ["README.md", `# sandbox-${id}\n\nA sandbox-workers runtime Worker for your own engine \`${id}\` (stateless skeleton).\n\n    npm install\n    npm test          # the Engine contract, with the real core\n    npm run dry-run\n    npm run deploy\n\nEdit \`engine.js\`. Add \`sessions\` and an Interpreter Durable Object for code contexts.\n`],
    [".gitignore", "node_modules/\n.wrangler/\n.dev.vars\n"],
  ];
}

function exists(path) {
  try {
    lstatSync(path); // lstat: a dangling symlink exists too
    return true;
  } catch (error) {
    if (error.code === "ENOENT") return false;
    throw error;
  }
}

/** The files `init` writes for `options` ([[name, text], ...]), without writing them (the Playground's deploy panel). */
export function scaffold(options) {
  return options.engine ? engineFiles(options) : runtimeFiles(options);
}

export function init(options, cwd = process.cwd()) {
  const dir = resolve(cwd, options.directory);
  const files = scaffold(options);
  for (const [name] of files) {
    const path = join(dir, name);
    if (exists(path)) throw new Error(`Refusing to overwrite ${path}`);
  }
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of files) writeFileSync(join(dir, name), text, { flag: "wx" });
  return { dir, files: files.map(([name]) => name) };
}

function main(argv) {
  let options;
  try {
    options = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`sandbox-workers: ${error.message}\n\n${USAGE}`);
    return 1;
  }
  if (options.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  try {
    const { dir, files } = init(options);
    const what = options.engine
      ? `the ${options.engine} engine skeleton`
      : options.runtimes.length === 1
        ? `the ${options.runtimes[0]} runtime Worker`
        : `the ${options.runtimes.join(", ")} runtime Workers`;
    process.stdout.write(`Created ${what} in ${dir}: ${files.join(", ")}\n\nNext:\n  cd ${options.directory}\n  npm install\n  npm run dry-run\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`sandbox-workers: ${error.message}\n`);
    return 1;
  }
}

// Run as a command, not imported (the tests import parseArgs and init). Installed, the command is a symlink
// (node_modules/.bin/sandbox-workers, npx's cache, a global bin) to this file, and process.argv[1] is the symlink's
// path while import.meta.url is the file's real path: compare the real paths of both.
function realpathOrNull(path) {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}
const invokedAs = process.argv[1] ? realpathOrNull(resolve(process.argv[1])) : null;
if (invokedAs !== null && invokedAs === realpathOrNull(fileURLToPath(import.meta.url))) {
  process.exitCode = main(process.argv.slice(2));
}
