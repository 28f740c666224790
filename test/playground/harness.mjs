// The Playground in workerd through Miniflare, as `npm run playground` serves it: the gateway Worker from its config
// generated from the language manifests (build/gateway/wrangler.jsonc: its page as static assets, its Service Bindings,
// PLAYGROUND_LANGUAGES) and every runtime Worker from its own wrangler.jsonc, named as the gateway's bindings expect
// (sandbox-<language>). Used by gateway.test.mjs (dispatchFetch)
// and page.test.mjs (a real port, for headless Chromium).
import { existsSync } from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { Miniflare, convertV4MiniflareOptions } from "miniflare";
import { ROOT, collectModules, runtimeWorkerOptions, wranglerWorker } from "../integration/helpers.mjs";
import { loadLanguages, gatewayLanguages, writeGatewayConfig } from "../../scripts/languages.mjs";

// The manifests of this tree (and of SW_EXTRA_ENGINE_DIRS): the config is regenerated here, so a test never runs a
// stale one.
export const MANIFESTS = loadLanguages();
export const LANGUAGES = MANIFESTS.map((l) => l.id);
// With SW_EXTRA_ENGINE_DIRS (a fixture engine) in a folder of its own, so test files running beside it keep theirs.
export const GATEWAY_CONFIG = writeGatewayConfig(MANIFESTS, {
  outDir: path.join(ROOT, process.env.SW_EXTRA_ENGINE_DIRS ? "build/gateway-extra" : "build/gateway"),
});
// The vars `npm run playground` sets over the deploy config's (scripts/playground.sh).
export const LOCAL_VARS = {
  SANDBOX_FILE_API: "enabled",
  PLAYGROUND_RATE_LIMIT: "10000",
  PLAYGROUND_MAX_SANDBOXES: "1000",
  PLAYGROUND_MAX_TOTAL_SANDBOXES: "100000",
};

/** Builds the page (build/playground/) when it is missing or `force`. */
export function buildPage({ force = false } = {}) {
  if (!force && existsSync(path.join(ROOT, "build/playground/app.js"))) return;
  execFileSync(process.execPath, [path.join(ROOT, "scripts/build-playground.mjs")], { stdio: "inherit" });
}

/** v4-style options of the gateway Worker; `overrides` are merged in (e.g. { serviceBindings }). */
export function gatewayWorkerOptions(overrides = {}) {
  const { workerOptions, main, rules } = wranglerWorker(GATEWAY_CONFIG);
  return {
    ...workerOptions,
    name: "gateway",
    modulesRoot: ROOT,
    modules: collectModules(main, rules),
    ...overrides,
  };
}

/**
 * Starts the gateway and the runtimes of `languages` (default: every manifest's), plus `extraWorkers` (v4-style options).
 * `gateway`: options merged into the gateway's. `shared`: Miniflare's shared options (e.g.
 * { resourcePersistencePath } for on-disk storage, { host, port } for a real listener). Returns
 * { mf, url, fetch(path, init), dispose() }.
 */
export async function startPlayground({ languages = LANGUAGES, gateway = {}, extraWorkers = [], shared = {} } = {}) {
  buildPage();
  // The gateway lists every manifest's language (as deployed) but binds only the runtimes that run (a binding to a
  // Worker that does not exist stops workerd); the others are listed as not enabled.
  const running = MANIFESTS.filter((l) => languages.includes(l.id));
  const serviceBindings = Object.fromEntries(running.map((l) => [l.binding, `sandbox-${l.id}`]));
  // The files API on and the per-client limits loosened, as `npm run playground` has them (gateway/wrangler.jsonc, as
  // deployed, has the files API off and tighter limits): the tests make many requests and sandboxes from one client.
  const { workerOptions } = wranglerWorker(GATEWAY_CONFIG);
  const bindings = { ...(workerOptions.bindings ?? {}), ...LOCAL_VARS, PLAYGROUND_LANGUAGES: JSON.stringify(gatewayLanguages(MANIFESTS)) };
  const workers = [
    gatewayWorkerOptions({ serviceBindings, bindings, ...gateway }),
    ...languages.map((language) => runtimeWorkerOptions({ name: `sandbox-${language}`, language })),
    ...extraWorkers,
  ];
  const mf = new Miniflare(convertV4MiniflareOptions({ ...shared, workers }));
  let url;
  try {
    url = await mf.ready;
  } catch (error) {
    await mf.dispose(); // a workerd that failed to start must not keep the test process alive
    throw error;
  }
  return {
    mf,
    url,
    fetch: (p, init) => mf.dispatchFetch(new URL(p, "https://playground.internal"), init),
    dispose: () => mf.dispose(),
  };
}
