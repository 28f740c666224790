// The caller side in workerd (test/integration/sandbox.test.mjs, bench/sandbox.mjs): ONE Miniflare holding
//   caller            fixtures/client-caller.js: exports the Sandbox from worker-shim/caller.js, binds it as
//                     `Sandbox`, the runtimes as JAVASCRIPT and PYTHON (through the spies) and the scripted fakes
//   caller-disabled   the same with SANDBOX_FILE_API "disabled"              (routes caller-disabled.test/*)
//   caller-alt        SANDBOX_FILE_API "enabled", SANDBOX_IDLE_TTL_MS "0"    (routes caller-alt.test/*)
//   caller-ttl        SANDBOX_IDLE_TTL_MS "1000"                             (routes caller-ttl.test/*)
//   quickstart        README's caller quick start, written out as is          (routes quickstart.test/*)
//   spy-js, spy-py    fixtures/client-spy.js in front of the real runtimes   (routes spy-js.test/*, spy-py.test/*)
//   sandbox-javascript, sandbox-python   the real runtime Workers from their wrangler.jsonc
//   fake              fixtures/client-fake.js: misbehaving runtimes          (routes fake.test/*)
// over on-disk storage (resourcePersistencePath), so a restart is a new Miniflare over the same directory.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ROOT, BASE, FIXTURES, collectModules, runtimeWorkerOptions, startMiniflare, wranglerWorker } from "./helpers.mjs";

export const FAKES = {
  WEIRD: "Html",
  PROTO2: "Protocol2",
  PROTOSTR: "ProtocolString",
  NOPROTO: "NoProtocol",
  STATELESS: "Stateless",
  THROWS: "Throws",
  FAILING: "Failing",
  PLAIN: "Plain",
  BOGUS: "Bogus",
  NOCONTENT: "NoContent",
};

// direct: JAVASCRIPT and PYTHON bind the runtimes themselves, the spies are JS_SPY and PY_SPY (bench/sandbox.mjs).
function callerOptions(name, bindings = {}, routes, direct = false) {
  const { workerOptions, rules } = wranglerWorker();
  const serviceBindings = direct
    ? { JAVASCRIPT: "sandbox-javascript", PYTHON: "sandbox-python", RUBY: "sandbox-ruby", JS_SPY: "spy-js", PY_SPY: "spy-py" }
    : { JAVASCRIPT: "spy-js", PYTHON: "spy-py", RUBY: "sandbox-ruby" };
  for (const [binding, entrypoint] of Object.entries(FAKES)) serviceBindings[binding] = { name: "fake", entrypoint };
  return {
    name,
    compatibilityDate: workerOptions.compatibilityDate,
    compatibilityFlags: workerOptions.compatibilityFlags,
    modulesRoot: ROOT,
    modules: collectModules(path.join(FIXTURES, "client-caller.js"), rules),
    durableObjects: { Sandbox: { className: "Sandbox", useSQLite: true } },
    serviceBindings,
    // A plain-text binding: present in env, but no Service Binding (protocol §7.4 "Unknown binding").
    bindings: { NOTABINDING: "just text", ...bindings },
    ...(routes ? { routes } : {}),
  };
}

function helper(name, entry, serviceBindings, routes) {
  const { workerOptions, rules } = wranglerWorker();
  return {
    name,
    compatibilityDate: workerOptions.compatibilityDate,
    compatibilityFlags: workerOptions.compatibilityFlags,
    modulesRoot: ROOT,
    modules: collectModules(path.join(FIXTURES, entry), rules),
    serviceBindings,
    routes,
  };
}

/** The README's caller quick start: its wrangler.jsonc and src/index.js code blocks, written to build/quickstart/. */
export function quickstartFromReadme() {
  const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Call it from your Worker"));
  const blocks = [...section.matchAll(/```(jsonc|js)\n([\s\S]*?)```/g)];
  const config = blocks.find(([, lang, text]) => lang === "jsonc" && text.includes('"new_sqlite_classes": ["Sandbox"]'));
  const entry = blocks.find(([, lang, text]) => lang === "js" && text.includes('export { Sandbox } from "@sandbox-workers/core"'));
  if (!config || !entry) throw new Error("README.md: the caller quick start's wrangler.jsonc or src/index.js block is missing");
  const dir = path.join(ROOT, "build", "quickstart");
  mkdirSync(path.join(dir, "src"), { recursive: true });
  writeFileSync(path.join(dir, "wrangler.jsonc"), config[2]);
  // The one change: the package name resolves to this repository's file, as the installed package would.
  const caller = path.relative(path.join(dir, "src"), path.join(ROOT, "worker-shim", "caller.js")).split(path.sep).join("/");
  writeFileSync(path.join(dir, "src", "index.js"), entry[2].replaceAll('"@sandbox-workers/core"', JSON.stringify(caller)));
  const { workerOptions, main, rules } = wranglerWorker(path.join(dir, "wrangler.jsonc"));
  return {
    ...workerOptions,
    name: "quickstart",
    modulesRoot: ROOT,
    modules: collectModules(main, rules),
    routes: ["quickstart.test/*"],
  };
}

/** Starts the whole caller side over `persist` (a directory); returns the helpers the tests and the bench use. */
export async function startSandboxWorld(persist, { quickstart = true, direct = false } = {}) {
  const workers = [
    callerOptions("caller", {}, undefined, direct),
    callerOptions("caller-disabled", { SANDBOX_FILE_API: "disabled" }, ["caller-disabled.test/*"]),
    callerOptions("caller-alt", { SANDBOX_FILE_API: "enabled", SANDBOX_IDLE_TTL_MS: "0" }, ["caller-alt.test/*"]),
    callerOptions("caller-ttl", { SANDBOX_IDLE_TTL_MS: "1000" }, ["caller-ttl.test/*"]),
    ...(quickstart ? [quickstartFromReadme()] : []),
    helper("spy-js", "client-spy.js", { REAL: "sandbox-javascript" }, ["spy-js.test/*"]),
    helper("spy-py", "client-spy.js", { REAL: "sandbox-python" }, ["spy-py.test/*"]),
    helper("fake", "client-fake.js", {}, ["fake.test/*"]),
    runtimeWorkerOptions({ name: "sandbox-javascript", language: "javascript", routes: ["sandbox-javascript.test/*"] }),
    runtimeWorkerOptions({ name: "sandbox-python", language: "python", routes: ["sandbox-python.test/*"] }),
    runtimeWorkerOptions({ name: "sandbox-ruby", language: "ruby", routes: ["sandbox-ruby.test/*"] }),
  ];
  const mf = await startMiniflare(workers, { resourcePersistencePath: persist });
  const fetch = (url, init) => mf.dispatchFetch(new URL(url, BASE), init);
  const post = async (url, body) =>
    (await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })).json();
  const host = (caller) => (caller && caller !== "caller" ? `https://${caller}.test` : BASE);
  return {
    mf,
    fetch,
    /** One client call: getSandbox(env.Sandbox, id)[method](...args) in the caller Worker → {ok, value | error}. */
    call: (id, method, args = [], { caller, record, normalizeId, callbacks } = {}) =>
      post(`${host(caller)}/call`, { id, method, args, record, normalizeId, callbacks }),
    /** Every name @sandbox-workers/core exports, with its type, and what a few of them answer (fixtures/client-caller.js). */
    exports: async () => (await fetch(`${BASE}/exports`)).json(),
    runCode: (binding, code, options, { caller } = {}) => post(`${host(caller)}/runCode`, { binding, code, options }),
    sync: (what, extra = {}, { caller } = {}) => post(`${host(caller)}/sync`, { what, ...extra }),
    wire: (req, { caller } = {}) => post(`${host(caller)}/wire`, req),
    fill: (id, count, prefix, { caller } = {}) => post(`${host(caller)}/fill`, { id, count, prefix }),
    direct: (req) => post(`${BASE}/direct`, req),
    spy: async (language = "js") => (await fetch(`https://spy-${language}.test/__spy`)).json(),
    clearSpy: async (language = "js") => (await fetch(`https://spy-${language}.test/__spy`, { method: "DELETE" })).json(),
    fakeLog: async () => (await fetch("https://fake.test/__log")).json(),
    dispose: () => mf.dispose(),
  };
}
