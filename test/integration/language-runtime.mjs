// What every language's integration suite shares (python, perl, ruby .test.mjs): its runtime Worker next to the
// caller Worker of fixtures/context-caller.js, and the hostile-input table runner.
import { it, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startRuntime, assertExecutionResult } from "./helpers.mjs";

/**
 * `language`'s runtime Worker (routes runtime.test/*) and the caller Worker, one Miniflare; `shared` are Miniflare
 * options (e.g. resourcePersistencePath for on-disk Durable Object storage). Adds:
 * exec(code, envVars?) POST /execute → the parsed ExecutionResult; run(body) executeInContext through the caller
 * (its real getFiles callback); raw(key, args) executeInContext with exactly `args`; files(map) writes the caller's
 * workspace; sandbox() reads it; createContext(key, id) → { status, body }.
 */
export async function startLanguageRuntime(language, shared = {}) {
  const rt = await startRuntime(
    [
      { helper: { name: "caller", entry: "context-caller.js", serviceBindings: { RUNTIME: "runtime" } } },
      { name: "runtime", language, routes: ["runtime.test/*"] },
    ],
    shared,
  );
  const post = (p, body) =>
    rt.fetch(p, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return {
    ...rt,
    exec: async (code, envVars) =>
      assertExecutionResult(await rt.execute(envVars ? { code, envVars } : { code }, { host: "runtime.test" })),
    run: async (body) => (await post("/run", body)).json(),
    raw: async (key, args) => (await post("/raw", { key, args })).json(),
    files: async (map) => (await post("/files", map)).json(),
    sandbox: async () => (await rt.fetch("/sandbox")).json(),
    createContext: async (key, id) => {
      const res = await post(`https://runtime.test/interpreters/${key}/contexts`, { id });
      return { status: res.status, body: await res.json() };
    },
  };
}

/**
 * For a test file: starts `language`'s runtime (startLanguageRuntime) before its tests, over on-disk Durable Object
 * storage in a temporary directory, and disposes it and removes the directory after them. Returns a stable handle to
 * the current runtime (every member of startLanguageRuntime's answer) plus restart(between?): a new Miniflare over the
 * same storage, as after an eviction, and persist: that storage's directory.
 */
export function useLanguageRuntime(language) {
  const persist = mkdtempSync(path.join(tmpdir(), `sw-${language}-`));
  let current;
  const start = async () => {
    current = await startLanguageRuntime(language, { resourcePersistencePath: persist });
  };
  before(start);
  after(async () => {
    await current?.dispose();
    rmSync(persist, { recursive: true, force: true });
  });
  const own = {
    persist, // the on-disk storage directory (the Durable Objects' .sqlite files are under it)
    /** A new Miniflare over the same storage; `between()` runs while none is running (e.g. to edit the storage). */
    async restart(between) {
      await current.dispose();
      await between?.();
      await start();
    },
  };
  return new Proxy(own, { get: (target, key) => (key in target ? target[key] : current[key]) });
}

/** The text result of an executeInContext answer (run()), which must have succeeded without a guest error. */
export function contextText(r) {
  assert.equal(r.ok, true, JSON.stringify(r).slice(0, 500));
  assert.equal(r.result.error, undefined, `unexpected error: ${JSON.stringify(r.result.error)}`);
  return r.result.results[0]?.text;
}

/**
 * One test per [what, code, name] case, run statelessly through exec(): `name` undefined → a result without error;
 * a string → an error of that name (an EngineError has empty logs); null → any error but EngineError. After each
 * case the next request must still answer `1 + 1` with the text 2.
 */
export function hostileCases(exec, cases) {
  for (const [what, code, name] of cases) {
    it(`${what} → ${name === undefined ? "a result" : name ?? "a guest error or limit"}, and the next request works`, async () => {
      const r = await exec(code);
      if (name === undefined) assert.equal(r.error, undefined, JSON.stringify(r.error));
      else {
        assert.ok(r.error, `an error for ${what}: ${JSON.stringify(r).slice(0, 300)}`);
        if (name) assert.equal(r.error.name, name, JSON.stringify(r.error));
        else assert.notEqual(r.error.name, "EngineError", JSON.stringify(r.error));
        if (name === "EngineError") assert.deepEqual(r.logs, { stdout: [], stderr: [] });
      }
      assert.deepEqual((await exec("1 + 1")).results, [{ text: "2" }]);
    });
  }
}
