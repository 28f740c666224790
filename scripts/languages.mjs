// The language manifests (engines/<id>/engine.json, docs/adding-an-engine.md) and everything generated from them.
// Every script, config and page that lists languages reads them through this module; a hand-kept list of languages
// anywhere else is a bug (test/lint/language-lists.test.mjs). The C++ tables come from the same files through
// cpp/languages/gen_languages.py.
//
// SW_EXTRA_ENGINE_DIRS (colon-separated, relative to the repository root) adds folders whose subfolders hold more
// engines: test/fixtures/engines/ proves that an engine folder alone is enough (test/integration/fixture-engine.test.mjs).
//
// As a command: node scripts/languages.mjs <what> [args]
//   ids                 every language id, in order, one per line
//   default             the default language (POST /execute on the gateway, `npm start` with no argument)
//   config <id>         its runtime Worker's wrangler config, relative to the root
//   configs             every runtime Worker's wrangler config, in order
//   start-body <id>     its `npm start` sample request body (JSON)
//   memory-bytes <id>   its memory cap, limits.memoryBytes (the build's --max-memory / --max-pages: scripts/lib.sh)
//   meter-scales        "<id>\t<scale>\t<indirect call weight or empty>" per metered engine (docs/fuel.md,
//                       scripts/engines/meter.sh)
//   engine-suites       its engine test suites: "<suite name>\t<command>\t<args...>" per line (scripts/test.sh)
//   write               the generated files: build/gateway/wrangler.jsonc, worker-shim/generated/languages.d.ts
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const REQUIRED = ["id", "name", "order", "package", "binding", "worker", "config", "limits", "contexts", "start", "editor", "sample"];

/** The folders searched for engines, relative to `root`: engines/ and SW_EXTRA_ENGINE_DIRS. */
export function engineDirs(env = process.env) {
  const extra = (env.SW_EXTRA_ENGINE_DIRS ?? "").split(":").filter(Boolean);
  return ["engines", ...extra];
}

/** Every manifest, in `order`, each with `dir` (its folder relative to `root`, posix separators). */
export function loadLanguages({ root = ROOT, dirs = engineDirs() } = {}) {
  const languages = [];
  for (const base of dirs) {
    const abs = path.resolve(root, base);
    for (const entry of readdirSync(abs, { withFileTypes: true })) {
      const file = path.join(abs, entry.name, "engine.json");
      if (!entry.isDirectory() || !existsSync(file)) continue;
      const m = JSON.parse(readFileSync(file, "utf8"));
      const where = path.relative(root, file);
      for (const key of REQUIRED) if (!(key in m)) throw new Error(`${where}: missing "${key}"`);
      // The folder name is the id: build scripts, boot images and the core find engines/<id>/ by it.
      if (m.id !== entry.name || !/^[a-z][a-z0-9-]{0,39}$/.test(m.id)) throw new Error(`${where}: id "${m.id}" must be its folder's name`);
      languages.push({ ...m, dir: path.relative(root, path.dirname(file)).split(path.sep).join("/") });
    }
  }
  languages.sort((a, b) => a.order - b.order || a.id.localeCompare(b.id));
  const seen = new Set();
  for (const l of languages) {
    if (seen.has(l.id)) throw new Error(`two engines named ${l.id}`);
    seen.add(l.id);
  }
  if (languages.filter((l) => l.default).length > 1) throw new Error("more than one manifest says default: true");
  return languages;
}

export const findLanguage = (languages, id) => languages.find((l) => l.id === id);
export const defaultLanguage = (languages) => languages.find((l) => l.default) ?? languages[0];
export const configPath = (l) => `${l.dir}/${l.config}`;
export const workerPath = (l) => `${l.dir}/${l.worker}`;

/** The gateway's table (its PLAYGROUND_LANGUAGES var, parsed by cpp/gateway): one row per runtime it fronts. */
export function gatewayLanguages(languages) {
  return languages.map((l) => ({
    id: l.id,
    name: l.name,
    binding: l.binding,
    package: l.package,
    fuel: l.limits.fuel,
    memoryBytes: l.limits.memoryBytes,
    ...(l.default ? { default: true } : {}),
  }));
}

// JSON with comments (wrangler's format) to JSON: drops comments and trailing commas outside strings.
export function parseJsonc(text) {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j;
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
      out += "\n";
    } else if (c === "/" && text[i + 1] === "*") {
      i = text.indexOf("*/", i + 2) + 1;
    } else {
      out += c;
    }
  }
  return JSON.parse(out.replace(/,(\s*[}\]])/g, "$1"));
}

/**
 * The gateway's wrangler config: gateway/wrangler.jsonc (everything but the languages) plus one Service Binding per
 * language and the PLAYGROUND_LANGUAGES var, for a file in `outDir` (paths rewritten relative to it).
 */
export function gatewayConfig(languages, { root = ROOT, outDir = path.join(root, "build/gateway") } = {}) {
  const baseFile = path.join(root, "gateway/wrangler.jsonc");
  const base = parseJsonc(readFileSync(baseFile, "utf8"));
  const rel = (p) => path.relative(outDir, path.resolve(path.dirname(baseFile), p)).split(path.sep).join("/");
  const config = { ...base, $schema: rel(base.$schema), main: rel(base.main) };
  if (base.assets) config.assets = { ...base.assets, directory: rel(base.assets.directory) };
  config.vars = { ...base.vars, PLAYGROUND_LANGUAGES: JSON.stringify(gatewayLanguages(languages)) };
  // The runtime Worker of each language is named sandbox-<id> (its wrangler config's `name`).
  config.services = languages.map((l) => ({ binding: l.binding, service: `sandbox-${l.id}` }));
  return config;
}

export function writeGatewayConfig(languages, { root = ROOT, outDir = path.join(root, "build/gateway") } = {}) {
  mkdirSync(outDir, { recursive: true });
  const file = path.join(outDir, "wrangler.jsonc");
  const header = "// Generated by scripts/languages.mjs from gateway/wrangler.jsonc and engines/*/engine.json: do not edit.\n";
  // Through a rename: test files running side by side regenerate it, and none may read half a file.
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, header + JSON.stringify(gatewayConfig(languages, { root, outDir }), null, 2) + "\n");
  renameSync(tmp, file);
  return file;
}

/** A language's Playground examples (engines/<id>/examples.json, optional): [{ title, code, mode?, runs?, envVars?, expect }]. */
export function loadExamples(l, root = ROOT) {
  const file = path.join(root, l.dir, "examples.json");
  return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")).examples : [];
}

/**
 * The page's samples, editor modes, examples and deploy files (gateway/page/app.js imports it as "sandbox:languages";
 * build-playground.mjs passes `deploy`: id -> the files `sandbox-workers init <id>` writes).
 */
export function pageModule(languages, { deploy = {} } = {}) {
  const lines = ['import { StreamLanguage } from "@codemirror/language";'];
  const entries = [];
  languages.forEach((l, i) => {
    const { module, export: name, options, stream } = l.editor;
    lines.push(`import { ${name} as mode${i} } from ${JSON.stringify(module)};`);
    const make = stream ? `() => StreamLanguage.define(mode${i})` : `() => mode${i}(${options ? JSON.stringify(options) : ""})`;
    const data = [["sample", l.sample], ["examples", loadExamples(l)], ["deploy", deploy[l.id] ?? []]];
    entries.push(`  ${JSON.stringify(l.id)}: { ${data.map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(", ")}, highlight: ${make} },`);
  });
  return `${lines.join("\n")}\nexport const LANGUAGES = {\n${entries.join("\n")}\n};\n`;
}

/** The CLI's runtimes (cli/sandbox-workers.mjs; packed as cli/runtimes.json): id -> what `init` needs. */
export function cliRuntimes(languages) {
  return Object.fromEntries(languages.map((l) => [l.id, { name: l.name, package: l.package, binding: l.binding, contexts: l.contexts }]));
}

/** worker-shim/wasmify.d.ts's BuiltinWasmifyDriver: every manifest with a `builtin` section. */
export function languagesDts(languages) {
  const builtins = languages.filter((l) => l.builtin).map((l) => JSON.stringify(l.id));
  return [
    "// Generated by scripts/languages.mjs from engines/*/engine.json: do not edit.",
    "/** A built-in engine's driver, named (cpp/wasmify's registry: the manifests with a `builtin` section). */",
    `export type BuiltinWasmifyDriver = ${builtins.join(" | ") || "never"};`,
    "/** Every language id. */",
    `export type LanguageId = ${languages.map((l) => JSON.stringify(l.id)).join(" | ")};`,
    "",
  ].join("\n");
}

export function writeGenerated(languages, root = ROOT) {
  const gateway = writeGatewayConfig(languages, { root });
  mkdirSync(path.join(root, "worker-shim/generated"), { recursive: true });
  // Also through a rename (npm test's builds run side by side, and each regenerates it).
  const dts = path.join(root, "worker-shim/generated/languages.d.ts");
  writeFileSync(`${dts}.${process.pid}.tmp`, languagesDts(languages));
  renameSync(`${dts}.${process.pid}.tmp`, dts);
  return [path.relative(root, gateway), "worker-shim/generated/languages.d.ts"];
}

function main([what, id]) {
  const languages = loadLanguages();
  const one = () => {
    const l = findLanguage(languages, id);
    if (!l) {
      process.stderr.write(`unknown language: ${id} (${languages.map((x) => x.id).join(", ")})\n`);
      process.exit(2);
    }
    return l;
  };
  switch (what) {
    case "ids": return languages.map((l) => l.id).join("\n");
    case "default": return defaultLanguage(languages).id;
    case "config": return configPath(one());
    case "configs": return languages.map(configPath).join("\n");
    case "start-body": return JSON.stringify(one().start);
    case "memory-bytes": return String(one().limits.memoryBytes);
    case "meter-scales":
      return languages.filter((l) => l.meter).map((l) => `${l.id}\t${l.meter.scale}\t${l.meter.indirectCallWeight ?? ""}`).join("\n");
    case "engine-suites":
      return languages.filter((l) => l.tests?.engine).map((l) => [l.tests.engine.suite, ...l.tests.engine.run].join("\t")).join("\n");
    case "write": return writeGenerated(languages).join("\n");
    default:
      process.stderr.write("usage: node scripts/languages.mjs ids|default|config <id>|configs|start-body <id>|memory-bytes <id>|meter-scales|engine-suites|write\n");
      process.exit(2);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = main(process.argv.slice(2));
  if (out) process.stdout.write(out + "\n");
}
