// A WasmifyDriver written in JavaScript (the wasmify counter engine, test/integration/fixtures/wasmify-counter/) run by
// ./wasmify: the driver's hooks are JavaScript, the wasmify ABI and the session bookkeeping are the core's C++. In Node:
// runEngineConformance including `stateful`, every protocol §5.3 rule through the real core, and the ABI's rules (the
// zero-handle rule, the response limit, the protobuf subset, traps and limits, which hooks may be asynchronous) as the
// core enforces them for a JavaScript driver; in workerd: the same rules through Miniflare with a caller Worker and on-disk storage.
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { buildWasmifyCounterGuest } from "./fixtures/wasmify-counter/build.mjs";
import { checkSessionRules } from "./fixtures/counter/rules.mjs";
import { startRuntime, jsonBody, assertExecutionResult } from "./helpers.mjs";
import { runEngineConformance, createTestInterpreter, createTestState } from "../../worker-shim/testing.js";
// After ./testing registered its module hooks (a .wasm import is a compiled module, as in workerd).
const { createWasi, budget } = await import("../../worker-shim/wasi.js");
const { runWasmify, bootWasmifySession, restoreWasmifySession } = await import("../../worker-shim/wasmify.js");
const { captureMemory } = await import("../../worker-shim/snapshot.js");

const { makeWasmifyCounterEngine, makeCounterDriver, counterDriver, asyncCounterDriver, EVAL } =
  await import("./fixtures/wasmify-counter/engine.js");
const guest = new WebAssembly.Module(readFileSync(buildWasmifyCounterGuest()));
const engine = makeWasmifyCounterEngine(guest);

function nodeCaller(state, contextId, which = engine) {
  let interpreter = createTestInterpreter(which, state);
  const files = new Map();
  const sha = (data) => "sha256:" + createHash("sha256").update(data).digest("hex");
  return {
    async createContext() {
      const res = await interpreter.fetch(new Request("https://interpreter.internal/contexts", {
        method: "POST",
        headers: { "x-interpreter-key": "k", "content-type": "application/json" },
        body: JSON.stringify({ id: contextId }),
      }));
      assert.equal(res.status, 201);
    },
    async run(code, { dirs = [] } = {}) {
      const manifest = Object.fromEntries([...files].map(([p, f]) => [p, sha(f.data)]));
      const all = new Set(dirs);
      for (const p of files.keys()) {
        for (let d = path.posix.dirname(p); d !== "/workspace" && d !== "/"; d = path.posix.dirname(d)) all.add(d);
      }
      const r = await interpreter.executeInContext("k", { contextId, code, envVars: {}, workspace: { dirs: [...all].sort(), manifest } },
        (paths) => paths.map((p) => ({ path: p, ...files.get(p) })));
      if (r.ok) {
        for (const f of r.result.workspace.files) files.set(f.path, { data: f.data, updatedAt: f.updatedAt });
        for (const d of r.result.workspace.deleted) files.delete(d);
      }
      return r;
    },
    async restart() {
      interpreter = createTestInterpreter(which, createTestState({ db: state.db, alarm: state.alarm }));
    },
  };
}

// A fresh instance of the guest under its own WASI host.
function fresh(fuel = 100000) {
  const wasi = createWasi(guest, null, budget(fuel), {}, null);
  return { wasi, instance: new WebAssembly.Instance(guest, wasi.imports) };
}

describe("a WasmifyDriver written in JavaScript, in Node", () => {
  it("passes runEngineConformance, stateful included", async () => {
    await runEngineConformance(engine, {
      programs: {
        simple: { code: "add 1; add 1", expectResultText: "2" },
        error: { code: "fail" },
        stateful: { define: "add 41", use: "get", expectResultText: "41" },
      },
    });
  });

  it("protocol §5.3: every InterpreterServer rule holds, the fuel backstop invalidating the instance", async () => {
    const caller = nodeCaller(createTestState(), "c1");
    await caller.createContext();
    await checkSessionRules({ run: (code, o) => caller.run(code, o), restart: () => caller.restart() },
      { limitInvalidates: true });
  });

  it("runWasmify: the driver's outcome, the WASI host's logs and usage; a limit is ExecutionLimitError", () => {
    const a = fresh();
    const outcome = runWasmify(a.wasi, a.instance, counterDriver, { code: "add 5; print hello" });
    assert.deepEqual(outcome.results, [{ text: "5" }]);
    assert.deepEqual(outcome.logs, { stdout: ["hello"], stderr: [] });
    assert.equal(outcome.usage.fuelLimit, 100000);
    a.wasi.close();
    const b = fresh();
    const failed = runWasmify(b.wasi, b.instance, counterDriver, { code: "fail" });
    assert.deepEqual(failed.error, { name: "CounterError", message: "failed on purpose", traceback: [] });
    b.wasi.close();
    const c = fresh();
    assert.throws(() => runWasmify(c.wasi, c.instance, counterDriver, { code: "spin" }),
      (e) => e.name === "ExecutionLimitError" && /fuel exhausted/.test(e.message));
    c.wasi.close();
  });

  it("boot runs the init method with initRequest and sessionBoot through evaluate; a restore adopts the handle", () => {
    const driver = makeCounterDriver({ start: 40, sessionBoot: "add 2" });
    const a = fresh();
    const s = bootWasmifySession(a.wasi, a.instance, driver, { cwd: "/" });
    assert.equal(s.handle, 7n);
    assert.deepEqual(s.execute({ code: "add 1", envVars: {} }).results, [{ text: "43" }]);
    assert.equal(s.cwd, "/");
    const snap = s.snapshot();
    const image = captureMemory(snap.memory, { handle: snap.handle });
    const b = fresh();
    let restored = 0;
    const watching = { ...driver, afterRestore(ctx, { bootImage }) { restored++; assert.equal(ctx.handle, 7n); assert.equal(bootImage, false); } };
    const r = restoreWasmifySession(b.wasi, b.instance, watching, image, { cwd: "/" });
    assert.equal(restored, 1);
    assert.deepEqual(r.execute({ code: "add 1", envVars: {} }).results, [{ text: "44" }]);
    s.close();
    r.close();
    image.close();
  });

  it("protocol §5.6 rules hold for a JavaScript driver: a zero handle, the response limit, the protobuf subset", () => {
    const a = fresh();
    assert.throws(() => bootWasmifySession(a.wasi, a.instance, makeCounterDriver({ start: 999 })),
      /Interpreter initialization failed/);
    a.wasi.close();
    const probe = (method) => {
      const b = fresh();
      const driver = { ...counterDriver, runOnce: (ctx) => { ctx.invoke(method); return { results: [] }; } };
      try {
        runWasmify(b.wasi, b.instance, driver, { code: "" });
        return null;
      } catch (error) {
        return error.message;
      } finally {
        b.wasi.close();
      }
    };
    assert.equal(probe(4), "Interpreter response limit exceeded");
    assert.equal(probe(5), "Unsupported protobuf field");
    assert.match(probe(99), /guest export missing: w_0_99/);
  });

  it("a trap inside the guest invalidates the session; the call is an EngineError outcome, never a throw", () => {
    const a = fresh();
    const s = bootWasmifySession(a.wasi, a.instance, counterDriver, { cwd: "/workspace" });
    const trapped = s.execute({ code: "add 1; trap", envVars: {} });
    assert.equal(trapped.error.name, "EngineError");
    assert.match(trapped.error.message, /unreachable/);
    assert.equal(s.invalid, true);
    assert.equal(s.canSnapshot(), false);
    assert.throws(() => s.execute({ code: "get", envVars: {} }), /invalid/);
    s.close();
  });

  it("a hook that answers a promise, or a malformed answer, is an EngineError outcome that says so", () => {
    const check = (driver, pattern) => {
      const a = fresh();
      const s = bootWasmifySession(a.wasi, a.instance, driver, { cwd: "/workspace" });
      const out = s.execute({ code: "get", envVars: {} });
      assert.equal(out.error?.name, "EngineError", JSON.stringify(out));
      assert.match(out.error.message, pattern);
      assert.equal(s.invalid, true);
      s.close();
    };
    check({ ...counterDriver, sessionExecute: () => ({ results: "7" }) }, /sessionExecute answered no results array/);
    check({ ...counterDriver, sessionExecute: () => { const x = {}; x.x = x; return x; } }, /cannot be serialized/);
    // ctx.invoke outside its hook is refused.
    let kept;
    check({ ...counterDriver, sessionExecute: (ctx) => { kept = ctx; throw new Error("no"); } }, /sessionExecute threw: no/);
    assert.throws(() => kept.invoke(EVAL, [[1, 7n], [2, "get"]]), /after the hook returned/);
  });

  it("an asynchronous sessionExecute: execute answers a promise, ctx.invoke works after an await, the core's rules hold", async () => {
    const asyncDriver = { ...counterDriver, async sessionExecute(ctx, request) {
      await null;
      return counterDriver.sessionExecute(ctx, request);
    } };
    const a = fresh();
    const s = bootWasmifySession(a.wasi, a.instance, asyncDriver, { cwd: "/" });
    const pending = s.execute({ code: "add 2; print hi", envVars: {} });
    assert.equal(typeof pending.then, "function");
    assert.throws(() => s.execute({ code: "get", envVars: {} }), /previous call has not settled/);
    const out = await pending;
    assert.deepEqual(out.results, [{ text: "2" }]);
    assert.deepEqual(out.logs.stdout, ["hi"]);
    assert.equal(out.cwd, "/");
    // A trap after the await is the trap (EngineError, the session invalid); a rejection without one is EngineError.
    const trapped = await s.execute({ code: "trap", envVars: {} });
    assert.equal(trapped.error.name, "EngineError");
    assert.equal(s.invalid, true);
    s.close();
    const b = fresh();
    const rejecting = bootWasmifySession(b.wasi, b.instance, { ...counterDriver, sessionExecute: async () => { throw new Error("later"); } });
    const rejected = await rejecting.execute({ code: "get", envVars: {} });
    assert.match(rejected.error.message, /sessionExecute threw: later/);
    assert.equal(rejecting.invalid, true);
    rejecting.close();
    // Closed while pending: the hook's ctx is dead, the promise rejects.
    let open;
    const gate = new Promise((r) => (open = r));
    let invokeError;
    const c = fresh();
    const closing = bootWasmifySession(c.wasi, c.instance, { ...counterDriver, async sessionExecute(ctx) {
      await gate;
      try {
        ctx.invoke(EVAL, [[1, ctx.handle], [2, "get"]]);
      } catch (e) {
        invokeError = e;
      }
      return { results: [] };
    } });
    const left = closing.execute({ code: "get", envVars: {} });
    closing.close();
    open();
    await assert.rejects(left, /closed/);
    assert.match(invokeError.message, /after the hook returned/);
  });

  it("only sessionExecute may answer a promise: an async runOnce or evaluate is an error that says so", () => {
    const a = fresh();
    assert.throws(() => runWasmify(a.wasi, a.instance, { ...counterDriver, runOnce: async () => ({ results: [] }) }, { code: "" }),
      /runOnce returned a promise: only sessionExecute may be asynchronous/);
    a.wasi.close();
    const b = fresh();
    assert.throws(() => bootWasmifySession(b.wasi, b.instance, { ...counterDriver, sessionBoot: "get", evaluate: async () => "" }),
      /evaluate returned a promise: only sessionExecute may be asynchronous/);
    b.wasi.close();
  });

  it("an Engine whose driver's sessionExecute is asynchronous passes conformance and every protocol §5.3 rule", async () => {
    const asyncEngine = makeWasmifyCounterEngine(guest, { driver: asyncCounterDriver, build: "wasmify-counter-async" });
    await runEngineConformance(asyncEngine, {
      programs: {
        simple: { code: "add 1; add 1", expectResultText: "2" },
        error: { code: "fail" },
        stateful: { define: "add 41", use: "get", expectResultText: "41" },
      },
    });
    const caller = nodeCaller(createTestState(), "c1", asyncEngine);
    await caller.createContext();
    await checkSessionRules({ run: (code, o) => caller.run(code, o), restart: () => caller.restart() },
      { limitInvalidates: true });
  });

  it("a driver object the core cannot use is a TypeError naming what is wrong", () => {
    const a = fresh();
    assert.throws(() => bootWasmifySession(a.wasi, a.instance, { initMethod: "x", runOnce() {} }), (e) => e instanceof TypeError && /initMethod/.test(e.message));
    assert.throws(() => bootWasmifySession(a.wasi, a.instance, { initMethod: 1 }), (e) => e instanceof TypeError && /runOnce or sessionExecute/.test(e.message));
    assert.throws(() => bootWasmifySession(a.wasi, a.instance, { initMethod: 1, runOnce() {}, initRequest: [[1, 0.5]] }), TypeError);
    a.wasi.close();
  });
});

const runtimes = [
  ["", "wasmify-counter-runtime.js"],
  [", its sessionExecute asynchronous", "wasmify-counter-async-runtime.js"],
];
for (const [title, entry] of runtimes) describe(`a WasmifyDriver written in JavaScript${title} in workerd (Miniflare, on-disk storage, a caller Worker)`, () => {
  const persist = mkdtempSync(path.join(tmpdir(), "sw-wasmify-driver-"));
  let rt;
  const start = () =>
    startRuntime(
      [
        { helper: { name: "caller", entry: "context-caller.js", serviceBindings: { RUNTIME: "runtime" } } },
        { name: "runtime", entry, interpreter: true, routes: ["runtime.test/*"] },
      ],
      { resourcePersistencePath: persist },
    );
  const post = (p, body) =>
    rt.fetch(p, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const createContext = (key, id) => rt.fetch(`https://runtime.test/interpreters/${key}/contexts`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ id }),
  });

  before(async () => {
    buildWasmifyCounterGuest();
    rt = await start();
  });
  after(async () => {
    await rt?.dispose();
    rmSync(persist, { recursive: true, force: true });
  });

  it("GET /interpreter reports contexts, and a stateless execute runs through runWasmify", async () => {
    const probe = await jsonBody(await rt.fetch("https://runtime.test/interpreter"));
    assert.equal(probe.contexts, true);
    assert.equal(probe.language, "wasmify-counter");
    const r = await assertExecutionResult(await rt.execute({ code: "add 2; print x" }, { host: "runtime.test" }));
    assert.equal(r.results[0].text, "2");
    assert.deepEqual(r.logs.stdout, ["x"]);
  });

  // Incident: V8's stack ran out inside the core's `charge` import (the ASan core, JSON.stringify 100,000 deep), and the
  // shim dropped the core with a 502. `deep` calls sandbox.tick at every level, so the overflow lands inside the core.
  it("V8's stack exhausted inside a WASI call is an EngineError; the context keeps its stored state (host stack overflow)", async () => {
    assert.equal((await createContext("deep", "d")).status, 201);
    const run = async (code) => {
      const res = await post("/run", { key: "deep", contextId: "d", code });
      assert.equal(res.status, 200);
      const r = await res.json();
      assert.equal(r.ok, true, JSON.stringify(r).slice(0, 500));
      return r.result;
    };
    assert.equal((await run("add 7")).results[0].text, "7");
    for (let round = 1; round <= 2; round++) {
      const over = await run("add 100; write /workspace/deep.txt; deep 100000000");
      assert.equal(over.error?.name, "EngineError", JSON.stringify(over).slice(0, 500));
      assert.match(over.error.message, /Maximum call stack size exceeded/);
      assert.deepEqual(over.workspace.files, [], "the failed round's file is rolled back");
      // The instance was dropped; the next call restores the stored state, as after any trap.
      const next = await run("add 1");
      assert.equal(next.results[0].text, String(7 + round));
      assert.equal(next.error, undefined);
    }
    // Stateless too: a 200 with the guest error, and the Worker serves the next request.
    const stateless = await jsonBody(await rt.execute({ code: "deep 100000000" }, { host: "runtime.test" }));
    assert.equal(stateless.error?.name, "EngineError", JSON.stringify(stateless).slice(0, 500));
    assert.match(stateless.error.message, /Maximum call stack size exceeded/);
    const after = await assertExecutionResult(await rt.execute({ code: "add 2" }, { host: "runtime.test" }));
    assert.equal(after.results[0].text, "2");
  });

  it("protocol §5.3: every rule, with executeInContext from a caller Worker and restarts of workerd", async () => {
    assert.equal((await createContext("k", "c1")).status, 201);
    await checkSessionRules({
      run: async (code, { dirs } = {}) => {
        if (dirs) await post("/dirs", dirs);
        return (await post("/run", { key: "k", contextId: "c1", code })).json();
      },
      restart: async () => {
        const files = await (await rt.fetch("/sandbox")).json();
        await rt.dispose();
        rt = await start();
        await post("/files", files);
      },
    }, { limitInvalidates: true });
  });
});
