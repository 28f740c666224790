// Integration-test helpers: run the runtime Worker in workerd through Miniflare, configured from the real
// wrangler.jsonc, and talk to it over HTTP with `dispatchFetch`.
//
// How the Worker is assembled:
//   * wrangler's `unstable_getMiniflareWorkerOptions(wrangler.jsonc)` turns the config into (Miniflare v4-style)
//     worker options: compatibility date/flags, bindings, Durable Objects, the module rules (`rules` plus wrangler's
//     defaults) and `main`.
//   * Miniflare 5 no longer resolves imports by `modulesRules` (`convertV4MiniflareOptions` refuses that option), so
//     this file walks the static imports from the entry module itself and hands Miniflare an explicit module list,
//     each module typed by the first matching rule of the config (CompiledWasm for `**/*.wasm`), plus ESModule for
//     `.js`/`.mjs` (what wrangler's bundler would do), and a `.json` import as an ES module exporting its value.
//     Module names are paths relative to the repository root.
//   * A variant Worker replaces `main` with a test-only entry module (test/integration/fixtures/*.js) and keeps
//     everything else from wrangler.jsonc except its Durable Object bindings; it can get an `INTERPRETER` binding.
import { readFileSync, existsSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";
import { Miniflare, convertV4MiniflareOptions, compileModuleRules } from "miniflare";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import { loadLanguages, configPath } from "../../scripts/languages.mjs";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const WRANGLER_CONFIG = path.join(ROOT, "engines/javascript/wrangler.jsonc");
export const FIXTURES = path.join(ROOT, "test/integration/fixtures");
export const BASE = "https://sandbox.internal";

const cachedConfigs = new Map();

/** The wrangler configuration of a language's runtime Worker, as its manifest names it (engines/<id>/engine.json). */
export function languageConfig(language) {
  const manifest = loadLanguages().find((l) => l.id === language);
  if (!manifest) throw new Error(`no manifest for language ${language}`);
  return path.join(ROOT, configPath(manifest));
}

/** A runtime Worker's options from its wrangler.jsonc: `{ workerOptions, main, rules }` (rules already compiled). */
export function wranglerWorker(configPath = WRANGLER_CONFIG) {
  if (cachedConfigs.has(configPath)) return cachedConfigs.get(configPath);
  const { workerOptions, main } = unstable_getMiniflareWorkerOptions(configPath);
  const { modulesRules = [], ...rest } = workerOptions;
  const rules = compileModuleRules([
    ...modulesRules,
    // JavaScript is bundled by wrangler; here every .js/.mjs file is its own ES module.
    { type: "ESModule", include: ["**/*.js", "**/*.mjs"] },
  ]);
  const result = { workerOptions: rest, main: path.resolve(path.dirname(configPath), main), rules };
  cachedConfigs.set(configPath, result);
  return result;
}

function moduleType(rules, file) {
  const rel = path.relative(ROOT, file).split(path.sep).join("/");
  for (const { type, include } of rules) {
    if (include.include.some((re) => re.test(rel)) && !include.exclude.some((re) => re.test(rel))) return type;
  }
  throw new Error(`no module rule in wrangler.jsonc matches ${rel}`);
}

// Static `import … from "x"`, `export … from "x"` and bare `import "x"` specifiers of an ES module.
const IMPORT_RE = /(?:^|[;}\s])(?:import|export)\s*(?:[\w*{}\s,$]+?\s*from\s*)?["']([^"']+)["']/g;

// SW_CORE_DIR: a directory holding another build of the core (core.mjs + core.wasm), served under the module names
// of worker-shim/generated/ -- the ASan core of scripts/asan-core.sh, without touching the shipped one.
const CORE_MODULES = new Set(["core.mjs", "core.wasm"].map((f) => path.join(ROOT, "worker-shim/generated", f)));
function coreOverride(file) {
  const dir = process.env.SW_CORE_DIR;
  return dir && CORE_MODULES.has(file) ? path.resolve(dir, path.basename(file)) : null;
}

/** Every module reachable from `entry` through relative static imports, entry first: `[{ type, path }]`. */
export function collectModules(entry, rules) {
  const modules = [];
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    if (!existsSync(file)) throw new Error(`module not found: ${path.relative(ROOT, file)}`);
    // A JSON import (an engine's manifest, engines/<id>/engine.json): wrangler's bundler makes it a module whose
    // default export is the parsed value; workerd has no such module type, so it is served as that ES module.
    if (file.endsWith(".json")) {
      modules.push({ type: "ESModule", path: file, contents: `export default ${JSON.stringify(JSON.parse(readFileSync(file, "utf8")))};\n` });
      return;
    }
    const type = moduleType(rules, file);
    const swapped = coreOverride(file);
    modules.push(swapped ? { type, path: file, contents: readFileSync(swapped) } : { type, path: file });
    if (type !== "ESModule") return;
    const source = readFileSync(file, "utf8");
    for (const m of source.matchAll(IMPORT_RE)) {
      const spec = m[1];
      if (!spec.startsWith("./") && !spec.startsWith("../")) continue; // cloudflare:workers and friends
      visit(path.resolve(path.dirname(file), spec));
    }
  };
  visit(entry);
  return modules;
}

/**
 * v4-style options of one runtime Worker.
 *   name         Worker name (default "runtime")
 *   entry        entry module (default: `main` of wrangler.jsonc); relative paths resolve against FIXTURES
 *   interpreter  add an `INTERPRETER` Durable Object binding to class `interpreterClass` (default "Interpreter")
 *                exported by the entry module, SQLite-backed (variants otherwise drop wrangler.jsonc's DO bindings)
 *   routes       Miniflare routes (e.g. ["throws.test/*"]) when several Workers share one Miniflare
 *   bindings     extra plain-text bindings (vars), e.g. { INTERPRETER_IDLE_TTL_MS: "1" }
 *   language     the runtime Worker of this language (its wrangler config, languageConfig); default javascript
 */
export function runtimeWorkerOptions({ name = "runtime", entry, interpreter = false, interpreterClass = "Interpreter", routes, bindings, language = "javascript" } = {}) {
  const { workerOptions, main, rules } = wranglerWorker(languageConfig(language));
  const entryPath = entry ? path.resolve(FIXTURES, entry) : main;
  const options = {
    ...workerOptions,
    name,
    modulesRoot: ROOT,
    modules: collectModules(entryPath, rules),
  };
  // A variant entry module exports only what its fixture defines, so it gets no Durable Object bindings from
  // wrangler.jsonc (their classes would be missing) — only the INTERPRETER binding it asks for.
  if (entry) delete options.durableObjects;
  if (interpreter) {
    options.durableObjects = { ...(options.durableObjects ?? {}), INTERPRETER: { className: interpreterClass, useSQLite: true } };
  }
  if (routes) options.routes = routes;
  if (bindings) options.bindings = { ...(options.bindings ?? {}), ...bindings };
  return options;
}

/**
 * v4-style options of a plain (non-runtime) helper Worker, e.g. a caller with a Service Binding to the runtime.
 * Same compatibility settings and module rules as wrangler.jsonc.
 */
export function helperWorkerOptions({ name, entry, serviceBindings = {}, routes }) {
  const { workerOptions, rules } = wranglerWorker();
  return {
    name,
    compatibilityDate: workerOptions.compatibilityDate,
    compatibilityFlags: workerOptions.compatibilityFlags,
    modulesRoot: ROOT,
    modules: collectModules(path.resolve(FIXTURES, entry), rules),
    serviceBindings,
    ...(routes ? { routes } : {}),
  };
}

/** Starts Miniflare with the given v4-style worker options (the first one receives unrouted dispatchFetch). */
export async function startMiniflare(workers, shared = {}) {
  const mf = new Miniflare(convertV4MiniflareOptions({ ...shared, workers }));
  await mf.ready;
  return mf;
}

/**
 * Starts runtime Workers and returns a small client:
 *   const rt = await startRuntime();                                   // the real Worker from wrangler.jsonc
 *   const rt = await startRuntime([{ name: "a" }, { name: "b", entry: "throws.js", routes: ["b.test/*"] }]);
 *   await rt.fetch("/interpreter"), rt.fetch("https://b.test/execute", …), rt.execute({ code: "1" }), rt.dispose()
 */
export async function startRuntime(specs = [{}], shared = {}) {
  if (!Array.isArray(specs)) specs = [specs];
  // A spec is either runtimeWorkerOptions() input or { helper: helperWorkerOptions() input }. `shared`: Miniflare's
  // shared options, e.g. { resourcePersistencePath } for on-disk Durable Object storage.
  const mf = await startMiniflare(
    specs.map((spec) => (spec.helper ? helperWorkerOptions(spec.helper) : runtimeWorkerOptions(spec))),
    shared,
  );
  const fetch = (url, init) => mf.dispatchFetch(new URL(url, BASE), init);
  return {
    mf,
    fetch,
    /** POST /execute with a JSON body (an object is stringified, a string sent as is). */
    execute(body, { host, headers = {}, ...init } = {}) {
      const url = host ? `https://${host}/execute` : "/execute";
      return fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body),
        ...init,
      });
    },
    dispose: () => mf.dispose(),
  };
}

/** A ReadableStream of `total` bytes (spaces unless `fill` given) in `chunk`-sized pieces: sent chunked, no Content-Length. */
export function streamBody(total, { chunk = 8192, fill = 0x20, prefix = new Uint8Array() } = {}) {
  let sent = 0;
  const stats = { pulled: 0 };
  const stream = new ReadableStream({
    pull(controller) {
      if (sent >= total) return controller.close();
      const n = Math.min(chunk, total - sent);
      const bytes = new Uint8Array(n).fill(fill);
      for (let i = 0; i < n && sent + i < prefix.length; i++) bytes[i] = prefix[sent + i];
      controller.enqueue(bytes);
      sent += n;
      stats.pulled = sent;
    },
  });
  return { stream, stats };
}

/**
 * Writes `head` (+ `body`) on a raw TCP connection to Miniflare and resolves with the first complete HTTP response
 * ({ status, headers, body }) WITHOUT sending anything more — e.g. a Content-Length larger than the bytes sent —
 * unless `then` is given: it is written once the first write has been handed to the socket. `timeoutMs` only keeps a
 * hung server from hanging the test run; no test asserts on it.
 */
export async function rawHttp(mf, head, body = "", { timeoutMs = 5000, then } = {}) {
  const url = await mf.ready;
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname, () =>
      socket.write(head + body, () => { if (then !== undefined && !socket.destroyed) socket.write(then); }));
    let buf = Buffer.alloc(0);
    const timer = setTimeout(() => { socket.destroy(); reject(new Error(`no complete response within ${timeoutMs} ms: ${buf}`)); }, timeoutMs);
    const tryParse = () => {
      const end = buf.indexOf("\r\n\r\n");
      if (end < 0) return false;
      const [statusLine, ...lines] = buf.subarray(0, end).toString("latin1").split("\r\n");
      const headers = new Map(lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
      const length = Number(headers.get("content-length"));
      const rest = buf.subarray(end + 4);
      if (!Number.isFinite(length) || rest.length < length) return false;
      clearTimeout(timer);
      socket.destroy();
      resolve({ status: Number(statusLine.split(" ")[1]), headers, body: rest.subarray(0, length).toString("utf8") });
      return true;
    };
    socket.on("data", (d) => { buf = Buffer.concat([buf, d]); tryParse(); });
    socket.on("error", (e) => { clearTimeout(timer); reject(e); });
    socket.on("close", () => { if (!tryParse()) { clearTimeout(timer); reject(new Error(`connection closed: ${buf}`)); } });
  });
}

/** Turns a rawHttp() result into a Response so the usual assertions apply. */
export function rawToResponse({ status, headers, body }) {
  return new Response(body, { status, headers: [...headers] });
}

// ---------------------------------------------------------------------------------------------------------------
// Assertions

const ISO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Reads a response as JSON, asserting the JSON content type and `cache-control: no-store`. */
export async function jsonBody(res) {
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/, "content-type");
  assert.equal(res.headers.get("cache-control"), "no-store", "cache-control");
  return JSON.parse(await res.text());
}

/** Asserts an ErrorResponse (protocol §3.6) with exactly these status/code/message; returns the body. */
export async function assertErrorResponse(res, status, message, code = "VALIDATION_FAILED") {
  const text = await res.text();
  assert.equal(res.status, status, `status (body: ${text.slice(0, 300)})`);
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/, "content-type");
  assert.equal(res.headers.get("cache-control"), "no-store", "cache-control");
  const body = JSON.parse(text);
  assert.deepEqual(Object.keys(body), ["code", "message", "context", "httpStatus", "timestamp"]);
  assert.equal(body.code, code);
  assert.equal(body.message, message);
  assert.deepEqual(body.context, {});
  assert.equal(body.httpStatus, status);
  assert.match(body.timestamp, ISO_RE);
  assert.ok(Math.abs(Date.parse(body.timestamp) - Date.now()) < 60_000, "timestamp is now");
  assert.equal(new Date(body.timestamp).toISOString(), body.timestamp);
  return body;
}

/** Asserts a 200 ExecutionResult; returns the parsed body. */
export async function assertExecutionResult(res) {
  const text = await res.text();
  assert.equal(res.status, 200, `status (body: ${text.slice(0, 300)})`);
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/, "content-type");
  assert.equal(res.headers.get("cache-control"), "no-store", "cache-control");
  const body = JSON.parse(text);
  assert.equal(typeof body.durationMs, "number");
  assert.ok(body.durationMs >= 0);
  return body;
}
