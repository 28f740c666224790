// `npm run pack`: the npm packages of this repository as local tarballs in build/packages/ (install one with
// `npm install <tarball>`; it installs under its own name, e.g. @sandbox-workers/python). Build first
// (`npm run build`): the packages carry the built core module and engines.
//
// Every package is the repository's own layout, trimmed to what its entry imports, so relative imports inside it
// (worker-shim/ -> engines/<language>/build/) stay as they are in the repo:
//   @sandbox-workers/interpreter  defineInterpreterRuntime and the ./runtime ./wasi ./wasmify ./snapshot ./testing subpaths
//   @sandbox-workers/<language>   one runtime Worker per language manifest (engines/<id>/engine.json):
//                                 `export { default, Interpreter } from "@sandbox-workers/python"`
//   @sandbox-workers/core         the caller side (runCode, getSandbox, Sandbox), when worker-shim/caller.js exists
//   @sandbox-workers/cli          `sandbox-workers init`
// Usage: node scripts/pack.mjs [--out DIR] [name...]   (default: every package whose inputs are built)
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { dirname, join, posix } from "node:path";
import { fileURLToPath } from "node:url";
import { cliRuntimes, loadLanguages } from "./languages.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const rootPkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const version = rootPkg.version;
// --out DIR: somewhere else than build/packages (a test that packs beside another).
const outAt = process.argv.indexOf("--out");
const out = outAt > 0 ? process.argv[outAt + 1] : join(root, "build", "packages");

// The shim with its generated modules (core.mjs, core.wasm, abi.mjs, wasi_imports.mjs): every package needs it.
function shimFiles() {
  const files = [];
  for (const name of readdirSync(join(root, "worker-shim"))) {
    if (/\.(js|d\.ts)$/.test(name)) files.push(`worker-shim/${name}`);
  }
  for (const name of readdirSync(join(root, "worker-shim", "generated"))) files.push(`worker-shim/generated/${name}`);
  return files;
}

// The files of a language's folder its Worker reaches through relative imports (worker.js, engine.js, helpers, with
// their .d.ts; engine.json, whose limits engine.js reads), and what its build wrote: the package keeps the
// repository's layout, so those imports stay valid.
function engineFiles(language) {
  const files = new Set();
  const visit = (rel) => {
    if (files.has(rel) || !existsSync(join(root, rel))) return;
    files.add(rel);
    const dts = rel.replace(/\.js$/, ".d.ts");
    if (dts !== rel && existsSync(join(root, dts))) files.add(dts);
    const source = readFileSync(join(root, rel), "utf8");
    for (const [, spec] of source.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s*"(\.{1,2}\/[^"]+\.(?:js|json))"/g)) {
      const target = posix.normalize(posix.join(posix.dirname(rel), spec));
      if (target.startsWith(`${language.dir}/`) && !target.startsWith(`${language.dir}/build/`)) visit(target);
    }
  };
  visit(`${language.dir}/${language.worker}`);
  // A built-in engine's Worker imports engine-nodata.wasm (no data segments; boot-image.bin carries them:
  // docs/boot-images.md), an Engine written in JavaScript (Lua) engine.wasm.
  const build = `${language.dir}/build`;
  const module = existsSync(join(root, build, "engine-nodata.wasm")) ? "engine-nodata.wasm" : "engine.wasm";
  for (const name of [module, "stdlib.tar", "boot-image.bin", "engine-build.js"]) {
    if (existsSync(join(root, build, name))) files.add(`${build}/${name}`);
  }
  return [...files];
}

const common = { version, type: "module", license: "MIT", engines: { node: ">=20" } };

function packages() {
  const list = [];
  list.push({
    name: "@sandbox-workers/interpreter",
    description: "The sandbox-workers InterpreterServer (C++ core in Wasm) for engines of your own",
    files: shimFiles(),
    exports: {
      ".": "./worker-shim/runtime.js",
      "./runtime": "./worker-shim/runtime.js",
      "./wasi": "./worker-shim/wasi.js",
      "./wasmify": "./worker-shim/wasmify.js",
      "./snapshot": "./worker-shim/snapshot.js",
      "./testing": "./worker-shim/testing.js",
    },
    ready: () => existsSync(join(root, "worker-shim/generated/core.wasm")),
  });
  // One runtime Worker per language manifest (engines/<id>/engine.json, scripts/languages.mjs).
  for (const language of loadLanguages({ root })) {
    list.push({
      name: language.package,
      description: `The sandbox-workers ${language.name} runtime Worker (default export)${language.contexts ? " and its Interpreter Durable Object" : ""}`,
      files: [...shimFiles(), ...engineFiles(language)],
      exports: { ".": `./${language.dir}/${language.worker}` },
      // Built (its build script wrote engine.wasm), or an Engine written only in JavaScript (no engineNameFrom).
      ready: () => !language.engineNameFrom || existsSync(join(root, language.dir, "build/engine.wasm")),
    });
  }
  list.push({
    name: "@sandbox-workers/core",
    description: "The sandbox-workers caller side: runCode, getSandbox and the Sandbox Durable Object",
    files: shimFiles(),
    // The types condition: with `exports`, TypeScript (moduleResolution node16 or bundler) reads the declarations from
    // it and ignores a top-level `types`.
    exports: { ".": { types: "./worker-shim/caller.d.ts", default: "./worker-shim/caller.js" } },
    types: "./worker-shim/caller.d.ts",
    ready: () => existsSync(join(root, "worker-shim/caller.js")),
  });
  list.push({ name: "@sandbox-workers/cli", cli: true, ready: () => true });
  return list;
}

function pack(spec) {
  const stage = join(out, "stage", spec.name.replace("@sandbox-workers/", ""));
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  if (spec.cli) {
    cpSync(join(root, "cli"), stage, { recursive: true });
    const pkg = JSON.parse(readFileSync(join(stage, "package.json"), "utf8"));
    if (pkg.version !== version) throw new Error(`cli/package.json version ${pkg.version} != ${version}`);
    // The runtimes `init` scaffolds, from the manifests (in the repository the CLI reads them itself).
    writeFileSync(join(stage, "runtimes.json"), JSON.stringify(cliRuntimes(loadLanguages({ root })), null, 2) + "\n");
    if (!pkg.files.includes("runtimes.json")) pkg.files.push("runtimes.json");
    writeFileSync(join(stage, "package.json"), JSON.stringify(pkg, null, 2) + "\n");
  } else {
    for (const file of spec.files) {
      mkdirSync(dirname(join(stage, file)), { recursive: true });
      cpSync(join(root, file), join(stage, file));
    }
    // Every top-level folder the files come from (worker-shim, engines, ...).
    const folders = [...new Set(spec.files.map((f) => f.split("/")[0]))];
    const pkg = { name: spec.name, ...common, description: spec.description, exports: spec.exports, files: folders };
    if (spec.types) pkg.types = spec.types;
    writeFileSync(join(stage, "package.json"), JSON.stringify(pkg, null, 2) + "\n");
  }
  const text = execFileSync("npm", ["pack", "--json", "--pack-destination", out], { cwd: stage, encoding: "utf8" });
  const [{ filename, size, unpackedSize }] = JSON.parse(text);
  return { name: spec.name, tarball: join(out, filename.replace(/^@/, "").replace("/", "-")), size, unpackedSize };
}

const wanted = process.argv.slice(2).filter((a, i, all) => a !== "--out" && all[i - 1] !== "--out");
mkdirSync(out, { recursive: true });
const done = [];
for (const spec of packages()) {
  if (wanted.length > 0 ? !wanted.includes(spec.name) && !wanted.includes(spec.name.split("/")[1]) : !spec.ready()) continue;
  if (!spec.ready()) throw new Error(`${spec.name}: its inputs are not built (npm run build)`);
  done.push(pack(spec));
}
for (const p of done) console.log(`${p.name.padEnd(30)} ${(p.size / 1024).toFixed(0).padStart(7)} KiB  ${p.tarball}`);
writeFileSync(join(out, "index.json"), JSON.stringify(done, null, 2) + "\n");
