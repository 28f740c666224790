// An Engine written in JavaScript with `sessions` (the counter engine, test/integration/fixtures/counter/), on the
// public subpaths only (./wasi, ./snapshot, ./testing): runEngineConformance including `stateful`, every protocol §5.3
// rule through the real core in Node, the ./snapshot helpers, and the same rules in workerd through Miniflare with a
// caller Worker (real getFiles callback) and on-disk Durable Object storage across restarts.
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { buildCounterGuest } from "./fixtures/counter/build.mjs";
import { checkSessionRules, checkNeverSettles } from "./fixtures/counter/rules.mjs";
import { startRuntime, jsonBody, assertExecutionResult } from "./helpers.mjs";
import { runEngineConformance, createTestInterpreter, createTestState } from "../../worker-shim/testing.js";

const { makeCounterEngine } = await import("./fixtures/counter/engine.js");

// Runs `fn` with console.error recorded (the core's log lines come through it: worker-shim/core.js printErr).
async function capturingLog(fn) {
  const lines = [];
  const original = console.error;
  console.error = (...args) => lines.push(args.map(String).join(" "));
  try {
    return [await fn(), lines];
  } finally {
    console.error = original;
  }
}
const guest = new WebAssembly.Module(readFileSync(buildCounterGuest()));
const engine = makeCounterEngine(guest);
const asyncEngine = makeCounterEngine(guest, { async: true });

// A stand-in for the caller's sandbox in Node: the /workspace files, sent as a manifest, pulled by getFiles, updated
// from each result's diff (as the caller's Sandbox does).
function nodeCaller(state, contextId, { engine: which = engine, env = {} } = {}) {
  let interpreter = createTestInterpreter(which, state, env);
  const files = new Map();
  const sha = (data) => "sha256:" + createHash("sha256").update(data).digest("hex");
  return {
    get interpreter() {
      return interpreter;
    },
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
      // Every directory of the sandbox: the ones asked for and every file's parents (protocol §2.8).
      const all = new Set(dirs);
      for (const p of files.keys()) {
        for (let d = path.posix.dirname(p); d !== "/workspace" && d !== "/"; d = path.posix.dirname(d)) all.add(d);
      }
      const workspace = { dirs: [...all].sort(), manifest };
      const r = await interpreter.executeInContext("k", { contextId, code, envVars: {}, workspace },
        (paths) => paths.map((p) => ({ path: p, ...files.get(p) })));
      if (r.ok) {
        for (const f of r.result.workspace.files) files.set(f.path, { data: f.data, updatedAt: f.updatedAt });
        for (const d of r.result.workspace.deleted) files.delete(d);
      }
      return r;
    },
    async restart() {
      interpreter = createTestInterpreter(which, createTestState({ db: state.db, alarm: state.alarm }), env);
    },
  };
}

describe("the counter engine (JavaScript, with sessions) in Node", () => {
  it("passes runEngineConformance, stateful included", async () => {
    await runEngineConformance(engine, {
      programs: {
        simple: { code: "add 1; add 1", expectResultText: "2" },
        error: { code: "fail" },
        stateful: { define: "add 41", use: "get", expectResultText: "41" },
      },
    });
  });

  it("protocol §5.3: every InterpreterServer rule holds for a JavaScript engine, across evictions", async () => {
    const caller = nodeCaller(createTestState(), "c1");
    await caller.createContext();
    await checkSessionRules({ run: (code, o) => caller.run(code, o), restart: () => caller.restart() });
  });

  it("with asynchronous sessions (boot, restore and execute answer promises): conformance, stateful included", async () => {
    await runEngineConformance(asyncEngine, {
      programs: {
        simple: { code: "add 1; add 1", expectResultText: "2" },
        error: { code: "fail" },
        stateful: { define: "add 41", use: "get", expectResultText: "41" },
      },
    });
  });

  it("protocol §5.3: every InterpreterServer rule holds for asynchronous sessions, across evictions", async () => {
    const caller = nodeCaller(createTestState(), "c1", { engine: asyncEngine });
    await caller.createContext();
    await checkSessionRules({ run: (code, o) => caller.run(code, o), restart: () => caller.restart() });
  });

  it("protocol §4.9: a call that arrives while another awaits its engine's promise runs after it and sees its state", async () => {
    // `gated;REST`: execute waits for the test's gate before running REST. The second call is sent while the first is
    // inside that wait (no timers: `entered` says so), then the gate opens.
    let enter, open;
    const entered = new Promise((r) => (enter = r));
    const gate = new Promise((r) => (open = r));
    const gated = (session) => ({
      get cwd() {
        return session.cwd;
      },
      get invalid() {
        return session.invalid;
      },
      execute(request) {
        if (!request.code.startsWith("gated;")) return session.execute(request);
        enter();
        return gate.then(() => session.execute({ ...request, code: request.code.slice(6) }));
      },
      canSnapshot: () => session.canSnapshot(),
      snapshot: () => session.snapshot(),
      close: () => session.close(),
    });
    const gatedEngine = { ...asyncEngine, sessions: {
      boot: async (o) => gated(await asyncEngine.sessions.boot(o)),
      restore: async (o, s) => gated(await asyncEngine.sessions.restore(o, s)),
    } };
    const caller = nodeCaller(createTestState(), "c1", { engine: gatedEngine });
    await caller.createContext();
    const first = caller.run("gated;add 1");
    await entered;
    const second = caller.run("add 10");
    open();
    const [a, b] = await Promise.all([first, second]);
    assert.equal(a.result.results[0].text, "1");
    assert.equal(b.result.results[0].text, "11");
    assert.equal(b.result.context.executions, 2);
  });

  it("an execute whose promise never settles ends with an EngineError after INTERPRETER_ENGINE_WAIT_MS; the next call restores", async () => {
    const caller = nodeCaller(createTestState(), "c1", { env: { INTERPRETER_ENGINE_WAIT_MS: "50" } });
    await caller.createContext();
    await checkNeverSettles({ run: (code, o) => caller.run(code, o) });
  });

  it("a boot whose promise rejects is the generic 502; a restore whose promise rejects boots fresh", async () => {
    const rejecting = { ...asyncEngine, build: "counter-rejects", sessions: { boot: async () => { throw new Error("no"); }, restore: asyncEngine.sessions.restore } };
    const interpreter = createTestInterpreter(rejecting, createTestState());
    await interpreter.fetch(new Request("https://interpreter.internal/contexts", {
      method: "POST", headers: { "x-interpreter-key": "k", "content-type": "application/json" }, body: JSON.stringify({ id: "c1" }),
    }));
    const r = await interpreter.executeInContext("k", { contextId: "c1", code: "get", envVars: {}, workspace: { dirs: [], manifest: {} } }, () => []);
    assert.equal(r.ok, false);
    assert.equal(r.status, 502);

    const state = createTestState();
    const caller = nodeCaller(state, "c1", { engine: asyncEngine });
    await caller.createContext();
    await caller.run("add 9");
    const noRestore = { ...asyncEngine, sessions: { boot: asyncEngine.sessions.boot, restore: async () => { throw new Error("cannot restore"); } } };
    const fresh = createTestInterpreter(noRestore, createTestState({ db: state.db }));
    const again = await fresh.executeInContext("k", { contextId: "c1", code: "get", envVars: {}, workspace: { dirs: [], manifest: {} } }, () => []);
    assert.equal(again.result.results[0].text, "0", "booted fresh");
  });

  it("a snapshot from another build boots fresh instead of restoring", async () => {
    const state = createTestState();
    const caller = nodeCaller(state, "c1");
    await caller.createContext();
    await caller.run("add 4");
    const other = createTestInterpreter(makeCounterEngine(guest, { build: "counter-2" }), createTestState({ db: state.db }));
    const [r, logged] = await capturingLog(() =>
      other.executeInContext("k", { contextId: "c1", code: "get", envVars: {}, workspace: { dirs: [], manifest: {} } }, () => []));
    assert.equal(r.result.results[0].text, "0");
    assert.equal(r.result.context.snapshot.build, "counter-2");
    // Reported (issue 23): in the result and as one log line.
    assert.equal(r.result.context.restored, false);
    assert.equal(r.result.context.restoreError.code, "BUILD_CHANGED");
    assert.equal(r.result.context.restoreError.message,
      "The snapshot was taken under engine build 'counter-1'; this runtime runs build 'counter-2'");
    assert.deepEqual(logged.filter((l) => l.includes("state not restored")),
      ['[core] [sandbox-workers] context "c1": state not restored, booted fresh (BUILD_CHANGED): ' + r.result.context.restoreError.message]);
  });

  it("a failing boot is the generic 502, and a failing restore boots fresh", async () => {
    const broken = { ...engine, build: "counter-broken", sessions: { boot() { throw new Error("no"); }, restore() { throw new Error("no"); } } };
    const interpreter = createTestInterpreter(broken, createTestState());
    await interpreter.fetch(new Request("https://interpreter.internal/contexts", {
      method: "POST", headers: { "x-interpreter-key": "k", "content-type": "application/json" }, body: JSON.stringify({ id: "c1" }),
    }));
    const r = await interpreter.executeInContext("k", { contextId: "c1", code: "get", envVars: {}, workspace: { dirs: [], manifest: {} } }, () => []);
    assert.equal(r.ok, false);
    assert.equal(r.status, 502);
    assert.equal(r.body.code, "INTERNAL_ERROR");

    const state = createTestState();
    const caller = nodeCaller(state, "c1");
    await caller.createContext();
    await caller.run("add 9");
    const noRestore = { ...engine, sessions: { boot: engine.sessions.boot, restore() { throw new Error("cannot restore"); } } };
    const fresh = createTestInterpreter(noRestore, createTestState({ db: state.db }));
    const [again, logged] = await capturingLog(() =>
      fresh.executeInContext("k", { contextId: "c1", code: "get", envVars: {}, workspace: { dirs: [], manifest: {} } }, () => []));
    assert.equal(again.result.results[0].text, "0", "booted fresh");
    assert.equal(again.result.context.restored, false);
    assert.deepEqual(again.result.context.restoreError,
      { code: "RESTORE_FAILED", message: "The engine could not restore the snapshot: sessions.restore failed: cannot restore" });
    assert.equal(logged.filter((l) => l.includes("state not restored, booted fresh (RESTORE_FAILED)")).length, 1);
    // The next round uses the fresh resident: nothing to report.
    const next = await fresh.executeInContext("k", { contextId: "c1", code: "add 2", envVars: {}, workspace: { dirs: [], manifest: {} } }, () => []);
    assert.equal(next.result.results[0].text, "2");
    assert.equal(next.result.context.restored, undefined);
    assert.equal(next.result.context.restoreError, undefined);
  });

  it("issue 23: an engine whose snapshot() answers handle 0 or 2^64-1 survives eviction in Node, with restore told exactly that", async () => {
    for (const handle of ["0", "18446744073709551615"]) {
      const state = createTestState();
      const caller = nodeCaller(state, "c1");
      await caller.createContext();
      assert.equal((await caller.run(`snap ${handle} 2;add 12`)).result.results[0].text, "12");
      await caller.restart();
      const r = await caller.run("get");
      assert.equal(r.result.context.restored, undefined, JSON.stringify(r.result.context.restoreError));
      assert.equal(r.result.results[0].text, "12");
      assert.equal((await caller.run("snapinfo")).result.results[0].text, `bigint:${handle} 2`);
    }
  });

  it("issue 23: an extra over 64 KiB is a failed snapshot (the last good one stays); one of exactly 64 KiB restores", async () => {
    const state = createTestState();
    const caller = nodeCaller(state, "c1");
    await caller.createContext();
    assert.equal((await caller.run("snap 3 65536;add 1")).result.results[0].text, "1");
    assert.equal((await caller.run("snap 3 65537;add 1")).result.results[0].text, "2");
    await caller.restart();
    const r = await caller.run("snapinfo");
    assert.equal(r.result.results[0].text, "bigint:3 65536");
    assert.equal((await caller.run("get")).result.results[0].text, "1", "the snapshot of the round before");
  });

  it("./snapshot: captureMemory and restoreMemory move an instance's state into a fresh one", async () => {
    const { createWasi, budget } = await import("../../worker-shim/wasi.js");
    const { captureMemory, restoreMemory, PAGE_BYTES } = await import("../../worker-shim/snapshot.js");
    const start = () => {
      const wasi = createWasi(guest, null, budget(0), {}, null);
      const instance = new WebAssembly.Instance(guest, wasi.imports);
      return { wasi, instance };
    };
    const call = ({ instance }, code) => {
      const bytes = new TextEncoder().encode(code);
      new Uint8Array(instance.exports.memory.buffer).set(bytes, instance.exports.input_buffer());
      assert.equal(instance.exports.run(bytes.length), 0);
      const mem = new Uint8Array(instance.exports.memory.buffer);
      let p = instance.exports.output_buffer();
      let s = "";
      while (mem[p]) s += String.fromCharCode(mem[p++]);
      return s;
    };
    const a = start();
    a.wasi.initialize(a.instance);
    assert.equal(call(a, "add 33"), "33");
    const image = captureMemory(a.instance.exports.memory, { handle: 7n, extra: { x: 1 } });
    assert.equal(image.memoryPages, a.instance.exports.memory.buffer.byteLength / PAGE_BYTES);
    assert.equal(image.handle, 7n);
    const b = start();
    restoreMemory(b.instance.exports.memory, image);
    b.wasi.bind(b.instance);
    assert.equal(call(b, "add 1"), "34");
    // A plain object with memoryPages/readPage works too (copied page by page).
    const c = start();
    restoreMemory(c.instance.exports.memory, { memoryPages: image.memoryPages, readPage: (p) => image.readPage(p) });
    c.wasi.bind(c.instance);
    assert.equal(call(c, "get"), "33");
    image.close();
    assert.throws(() => image.readPage(0), /no longer available/);
    for (const x of [a, b, c]) x.wasi.close();
  });

  it("./wasi: stdout lines, usage, env, a closed host and the fuel meter", async () => {
    const { createWasi, budget, hasOpenGuestFds, ExecutionLimitError } = await import("../../worker-shim/wasi.js");
    const meter = budget(1000);
    const wasi = createWasi(guest, null, meter, { A: "1" }, null);
    const instance = new WebAssembly.Instance(guest, wasi.imports);
    wasi.initialize(instance);
    const run = (code) => {
      const bytes = new TextEncoder().encode(code);
      new Uint8Array(instance.exports.memory.buffer).set(bytes, instance.exports.input_buffer());
      return instance.exports.run(bytes.length);
    };
    run("print a; print b");
    assert.deepEqual(wasi.stdout(), ["a", "b"]);
    assert.deepEqual(wasi.stderr(), []);
    assert.equal(hasOpenGuestFds(wasi), false);
    assert.equal(wasi.usage().fuelLimit, 1000);
    assert.throws(() => run("spin"), (e) => e.name === "ExecutionLimitError");
    assert.equal(meter.consumed(), 1000);
    assert.throws(() => wasi.usage(), ExecutionLimitError);
    wasi.reset();
    assert.deepEqual(wasi.stdout(), []);
    assert.equal(meter.consumed(), 0);
    assert.equal(run("hold /dev/null"), 0);
    assert.equal(hasOpenGuestFds(wasi), true);
    assert.throws(() => createWasi(guest, null, null, {}, { not: "a workspace" }), TypeError);
    wasi.close();
    assert.throws(() => wasi.stdout(), /closed/);
  });
});

describe("./wasmify over a built-in driver (the JavaScript engine's module)", () => {
  it("runWasmify, bootWasmifySession, and restoreWasmifySession from a captured memory", async () => {
    const { createWasi, budget } = await import("../../worker-shim/wasi.js");
    const { runWasmify, bootWasmifySession, restoreWasmifySession } = await import("../../worker-shim/wasmify.js");
    const { captureMemory } = await import("../../worker-shim/snapshot.js");
    const { javascriptEngine } = await import("../../engines/javascript/engine.js");
    // engine.wasm: booting needs the data segments the shipped module (javascriptEngine.module) lacks.
    const m = new WebAssembly.Module(readFileSync(new URL("../../engines/javascript/build/engine.wasm", import.meta.url)));
    const host = () => createWasi(m, null, budget(javascriptEngine.limits.fuel), {}, null);
    const w = host();
    assert.equal(runWasmify(w, new WebAssembly.Instance(m, w.imports), "javascript", { code: "1 + 1" }).results[0].text, "2");
    w.close();
    const a = host();
    const s = bootWasmifySession(a, new WebAssembly.Instance(m, a.imports), "javascript", { cwd: "/workspace" });
    assert.equal(s.execute({ code: "var x = 41; x", envVars: {} }).results[0].text, "41");
    assert.equal(s.canSnapshot(), true);
    const snap = s.snapshot();
    const image = captureMemory(snap.memory, { handle: snap.handle });
    const b = host();
    const r = restoreWasmifySession(b, new WebAssembly.Instance(m, b.imports), "javascript", image, { cwd: "/workspace" });
    assert.equal(r.execute({ code: "x + 1", envVars: {} }).results[0].text, "42");
    assert.throws(() => bootWasmifySession(host(), new WebAssembly.Instance(m, host().imports), {}), TypeError);
    // The shipped module without data segments (docs/boot-images.md) is never booted, but restores from a memory.
    const stripped = javascriptEngine.module;
    const hostOf = () => createWasi(stripped, null, budget(javascriptEngine.limits.fuel), {}, null);
    const c = hostOf();
    assert.throws(() => runWasmify(c, new WebAssembly.Instance(stripped, c.imports), "javascript", { code: "1 + 1" }),
      /no data segments/);
    c.close();
    const d = hostOf();
    assert.throws(() => bootWasmifySession(d, new WebAssembly.Instance(stripped, d.imports), "javascript", { cwd: "/workspace" }),
      /no data segments/);
    d.close();
    const e = hostOf();
    const t = restoreWasmifySession(e, new WebAssembly.Instance(stripped, e.imports), "javascript", image, { cwd: "/workspace" });
    assert.equal(t.execute({ code: "x + 2", envVars: {} }).results[0].text, "43");
    t.close();
    s.close();
    r.close();
    image.close();
  });
});

describe("the counter engine in workerd (Miniflare, on-disk storage, a caller Worker)", () => {
  const persist = mkdtempSync(path.join(tmpdir(), "sw-counter-"));
  let rt;
  const start = () =>
    startRuntime(
      [
        { helper: { name: "caller", entry: "context-caller.js", serviceBindings: { RUNTIME: "runtime" } } },
        { name: "runtime", entry: "counter-runtime.js", interpreter: true, routes: ["runtime.test/*"] },
      ],
      { resourcePersistencePath: persist },
    );
  const post = (p, body) =>
    rt.fetch(p, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

  before(async () => {
    buildCounterGuest();
    rt = await start();
  });
  after(async () => {
    await rt?.dispose();
    rmSync(persist, { recursive: true, force: true });
  });

  it("GET /interpreter reports contexts, and a stateless execute runs", async () => {
    const probe = await jsonBody(await rt.fetch("https://runtime.test/interpreter"));
    assert.equal(probe.contexts, true);
    assert.equal(probe.language, "counter");
    const r = await assertExecutionResult(await rt.execute({ code: "add 2; print x" }, { host: "runtime.test" }));
    assert.equal(r.results[0].text, "2");
    assert.deepEqual(r.logs.stdout, ["x"]);
  });

  it("protocol §5.3: every rule, with executeInContext from a caller Worker and restarts of workerd", async () => {
    const created = await rt.fetch("https://runtime.test/interpreters/k/contexts", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id: "c1" }),
    });
    assert.equal(created.status, 201);
    await checkSessionRules({
      run: async (code, { dirs } = {}) => {
        if (dirs) await post("/dirs", dirs);
        return (await post("/run", { key: "k", contextId: "c1", code })).json();
      },
      restart: async () => {
        // The caller's sandbox files live in its module state: carried over by hand, as its storage would.
        const files = await (await rt.fetch("/sandbox")).json();
        await rt.dispose();
        rt = await start();
        await post("/files", files);
      },
    });
  });
});

describe("the counter engine with asynchronous sessions in workerd (Miniflare, on-disk storage, a caller Worker)", () => {
  const persist = mkdtempSync(path.join(tmpdir(), "sw-counter-async-"));
  let rt;
  const start = () =>
    startRuntime(
      [
        { helper: { name: "caller", entry: "context-caller.js", serviceBindings: { RUNTIME: "runtime" } } },
        {
          name: "runtime", entry: "counter-async-runtime.js", interpreter: true, routes: ["runtime.test/*"],
          bindings: { INTERPRETER_ENGINE_WAIT_MS: "3000" },
        },
      ],
      { resourcePersistencePath: persist },
    );
  const post = (p, body) =>
    rt.fetch(p, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

  before(async () => {
    buildCounterGuest();
    rt = await start();
  });
  after(async () => {
    await rt?.dispose();
    rmSync(persist, { recursive: true, force: true });
  });

  it("protocol §5.3: every rule, then a promise that never settles ends the call with an EngineError", async () => {
    for (const id of ["c1", "c2"]) {
      const created = await rt.fetch("https://runtime.test/interpreters/k/contexts", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ id }),
      });
      assert.equal(created.status, 201);
    }
    const runIn = (contextId) => async (code, { dirs } = {}) => {
      if (dirs) await post("/dirs", dirs);
      return (await post("/run", { key: "k", contextId, code })).json();
    };
    await checkSessionRules({
      run: runIn("c1"),
      restart: async () => {
        const files = await (await rt.fetch("/sandbox")).json();
        await rt.dispose();
        rt = await start();
        await post("/files", files);
      },
    });
    await checkNeverSettles({ run: runIn("c2") });
  });
});

// Issue 23: what a third-party engine's snapshot answers comes back exactly, after a real restart of workerd, and a
// restore that does not happen is reported in the result, in getInfo() and (in Node, where the log can be read) the
// log, through our Sandbox (the client's getSandbox in a caller Worker) in front of the counter runtime.
describe("the counter engine behind a Sandbox in workerd: handles, extras, failed restores, a build change", () => {
  const persist = mkdtempSync(path.join(tmpdir(), "sw-counter-sandbox-"));
  let mf;
  const start = async (entry = "counter-runtime.js") => {
    const { helperWorkerOptions, runtimeWorkerOptions, startMiniflare } = await import("./helpers.mjs");
    mf = await startMiniflare(
      [
        {
          ...helperWorkerOptions({ name: "caller", entry: "client-caller.js", serviceBindings: { COUNTER: "runtime" } }),
          durableObjects: { Sandbox: { className: "Sandbox", useSQLite: true } },
        },
        runtimeWorkerOptions({ name: "runtime", entry, interpreter: true, routes: ["runtime.test/*"] }),
      ],
      { resourcePersistencePath: persist },
    );
  };
  const restart = async (entry) => {
    await mf.dispose();
    await start(entry);
  };
  const call = async (id, method, ...args) => {
    const res = await mf.dispatchFetch("https://caller.test/call", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id, method, args }),
    });
    return res.json();
  };
  const ok = (r) => {
    assert.equal(r.ok, true, JSON.stringify(r.error ?? r).slice(0, 600));
    return r.value;
  };
  const run = async (id, context, code) => ok(await call(id, "interpreter.runCode", code, { context }));
  const text = (result) => {
    assert.equal(result.error, undefined, JSON.stringify(result.error));
    return result.results[0]?.text;
  };
  const MAX = (2n ** 64n - 1n).toString();
  const VARIANTS = [["0", 2], ["1", 2], [MAX, 2], ["0", 65536], ["1", 65536], [MAX, 65536]];
  const contexts = {};

  before(async () => {
    buildCounterGuest();
    await start();
  });
  after(async () => {
    await mf?.dispose();
    rmSync(persist, { recursive: true, force: true });
  });

  it("before the restart: each sandbox's context snapshots its handle and extra; one asks its restore to fail", async () => {
    for (const [i, [handle, bytes]] of VARIANTS.entries()) {
      const id = `handle-${i}`;
      contexts[id] = ok(await call(id, "interpreter.createCodeContext", { binding: "COUNTER" })).id;
      const r = await run(id, contexts[id], `snap ${handle} ${bytes};add ${i + 3}`);
      assert.equal(text(r), String(i + 3));
      assert.equal(r.context.restored, undefined);
    }
    contexts.failing = ok(await call("failing", "interpreter.createCodeContext", { binding: "COUNTER" })).id;
    assert.equal(text(await run("failing", contexts.failing, "snap 5 100 fail;add 4")), "4");
    contexts.rebuilt = ok(await call("rebuilt", "interpreter.createCodeContext", { binding: "COUNTER" })).id;
    assert.equal(text(await run("rebuilt", contexts.rebuilt, "add 6")), "6");
  });

  it("after a restart of workerd: every handle (0, 1, 2^64-1) and extra ({}, 64 KiB) restores, with its value", async () => {
    await restart();
    for (const [i, [handle, bytes]] of VARIANTS.entries()) {
      const id = `handle-${i}`;
      const r = await run(id, contexts[id], "get");
      assert.equal(r.context.restored, undefined, `${handle}/${bytes}: ${JSON.stringify(r.context.restoreError)}`);
      assert.equal(text(r), String(i + 3), `handle ${handle}, extra of ${bytes} bytes: the value survived`);
      assert.equal(text(await run(id, contexts[id], "snapinfo")), `bigint:${handle} ${bytes}`);
      const info = ok(await call(id, "getInfo"));
      assert.equal(info.contexts[0].restoreError, undefined);
    }
  });

  it("a restore that throws: the execute runs on fresh state and says so, in the result and in getInfo()", async () => {
    const r = await run("failing", contexts.failing, "get");
    assert.equal(text(r), "0", "booted fresh");
    assert.equal(r.context.restored, false);
    assert.equal(r.context.restoreError.code, "RESTORE_FAILED");
    assert.match(r.context.restoreError.message, /restore refused on purpose/);
    const info = ok(await call("failing", "getInfo"));
    assert.equal(info.contexts[0].restoreError.code, "RESTORE_FAILED");
    assert.match(info.contexts[0].restoreError.message, /restore refused on purpose/);
    assert.equal(typeof info.contexts[0].restoreError.at, "string");
    // The context keeps working on its new state; the next round restored nothing, so it reports nothing.
    const next = await run("failing", contexts.failing, "add 1");
    assert.equal(text(next), "1");
    assert.equal(next.context.restored, undefined);
  });

  it("a build change (the same storage under engine build counter-2) boots fresh and says so, with its own reason", async () => {
    await restart("counter-runtime-b.js");
    const r = await run("rebuilt", contexts.rebuilt, "get");
    assert.equal(text(r), "0");
    assert.equal(r.context.restored, false);
    assert.equal(r.context.restoreError.code, "BUILD_CHANGED");
    assert.match(r.context.restoreError.message, /'counter-1'.*'counter-2'/);
    const info = ok(await call("rebuilt", "getInfo"));
    assert.equal(info.contexts[0].restoreError.code, "BUILD_CHANGED");
    assert.equal(text(await run("rebuilt", contexts.rebuilt, "add 2")), "2");
  });
});
