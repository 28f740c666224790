// ./testing (protocol §5.7): drive the real core — the same C++ InterpreterServer and Interpreter the Worker
// runs — from a plain Node test, with a fake Durable Object state backed by node:sqlite. Node-only (Node >= 22.5);
// never bundle this into a Worker.
import { register } from "node:module";
import { DatabaseSync } from "node:sqlite";
import assert from "node:assert/strict";

register("./testing-hooks.js", import.meta.url);
const { InterpreterHost, forwardExecuteInContext } = await import("./interpreter.js");
const { handleRequest } = await import("./core.js");

/**
 * A DurableObjectStateLike over node:sqlite: `storage.sql.exec`, `storage.transactionSync`, the alarm calls and
 * `blockConcurrencyWhile`. Pass the same `db` to two calls to simulate a Durable Object evicted and recreated.
 */
export function createTestState(options = {}) {
  const db = options.db ?? new DatabaseSync(options.path ?? ":memory:");
  let alarm = options.alarm ?? null;
  let depth = 0;
  let savepoint = 0;
  const bind = (v) => (v instanceof ArrayBuffer ? new Uint8Array(v) : v);
  // Prepared statements by query text, as workerd's SqlStorage.exec keeps them (its statement cache): the core sends
  // the same few queries over and over, and preparing each anew would cost more than running it.
  const statements = new Map();
  const prepared = (query) => {
    let entry = statements.get(query);
    if (entry) {
      statements.delete(query); // most recently used last: the oldest goes first when the cache is full
    } else {
      const stmt = db.prepare(query);
      const columns = stmt.columns().map((c) => c.name);
      if (columns.length > 0) stmt.setReturnArrays(true);
      entry = { stmt, columns };
      if (statements.size >= 64) statements.delete(statements.keys().next().value);
    }
    statements.set(query, entry);
    return entry;
  };
  const storage = {
    sql: {
      exec(query, ...bindings) {
        const { stmt, columns } = prepared(query);
        const args = bindings.map(bind);
        let rows = [];
        if (columns.length > 0) {
          rows = stmt.all(...args);
        } else {
          stmt.run(...args);
          // A schema change: a cached statement's columns (read once, when it was prepared) may be stale now.
          if (/^\s*(create|alter|drop)\b/i.test(query)) statements.clear();
        }
        return {
          columnNames: columns,
          raw: () => rows[Symbol.iterator](),
          toArray: () => rows.map((r) => Object.fromEntries(columns.map((c, i) => [c, r[i]]))),
        };
      },
    },
    transactionSync(fn) {
      const name = depth === 0 ? null : `sp${++savepoint}`;
      db.exec(name ? `SAVEPOINT ${name}` : "BEGIN");
      depth++;
      try {
        const result = fn();
        depth--;
        db.exec(name ? `RELEASE ${name}` : "COMMIT");
        return result;
      } catch (error) {
        depth--;
        db.exec(name ? `ROLLBACK TO ${name}; RELEASE ${name}` : "ROLLBACK");
        throw error;
      }
    },
    async getAlarm() {
      return alarm;
    },
    async setAlarm(when) {
      alarm = Number(when);
    },
    async deleteAlarm() {
      alarm = null;
    },
  };
  return {
    db,
    storage,
    id: { toString: () => options.id ?? "test-interpreter" },
    async blockConcurrencyWhile(fn) {
      return fn();
    },
    waitUntil() {},
    /** The alarm currently armed (epoch ms) or null. */
    get alarm() {
      return alarm;
    },
  };
}

/**
 * An Interpreter Durable Object for `engine` over `state` (createTestState()), with the same methods as the
 * Worker's: fetch (the DO's HTTP routes, after forwarding), executeInContext, alarm.
 */
export function createTestInterpreter(engine, state = createTestState(), env = {}) {
  return new InterpreterHost(state, env, engine);
}

const KEY = "conformance";

async function contextRequest(interpreter, method, path, body) {
  const headers = { "x-interpreter-key": KEY };
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await interpreter.fetch(
    new Request(`https://interpreter.internal${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  return { status: response.status, body: await response.json() };
}

/**
 * The engine conformance suite (protocol §5.7): throws (node:assert/strict) on the first contract violation.
 * programs: { simple: { code, expectResultText }, error: { code }, stateful?: { define, use, expectResultText } }.
 */
export async function runEngineConformance(engine, options = {}) {
  const { programs = {} } = options;
  assert.ok(programs.simple, "programs.simple is required");
  assert.ok(programs.error, "programs.error is required");

  // Identity and limits.
  for (const field of ["language", "engineName", "build"]) {
    assert.equal(typeof engine[field], "string", `engine.${field} must be a string`);
    assert.ok(engine[field].length > 0, `engine.${field} must not be empty`);
  }
  const limits = engine.limits ?? {};
  for (const field of ["memoryBytes", "codeBytes", "requestBytes"]) {
    assert.equal(typeof limits[field], "number", `engine.limits.${field} must be a number`);
    assert.ok(limits[field] > 0, `engine.limits.${field} must be > 0`);
  }
  assert.ok(typeof limits.fuel === "number" && limits.fuel >= 0, "engine.limits.fuel must be a number >= 0");

  // Stateless execution through the real InterpreterServer.
  const execute = async (code) => {
    const response = await handleRequest(
      engine,
      new Request("https://runtime.internal/execute", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ code }),
      }),
      {},
    );
    assert.equal(response.status, 200, "POST /execute must answer 200");
    return response.json();
  };
  const simple = await execute(programs.simple.code);
  assert.equal(simple.language, engine.language);
  assert.equal(simple.engine, engine.engineName);
  assert.equal(simple.error, undefined, `the simple program failed: ${JSON.stringify(simple.error)}`);
  assert.equal(simple.results?.[0]?.text, programs.simple.expectResultText);
  const failed = await execute(programs.error.code);
  assert.ok(failed.error && typeof failed.error.name === "string", "the error program must report outcome.error");

  const probe = await handleRequest(engine, new Request("https://runtime.internal/interpreter"), {
    INTERPRETER: {},
  });
  const capabilities = await probe.json();
  assert.equal(capabilities.contexts, Boolean(engine.sessions), "GET /interpreter contexts must follow engine.sessions");

  if (!engine.sessions) {
    const rpc = await forwardExecuteInContext(engine, { INTERPRETER: {} }, KEY, {}, () => []);
    assert.equal(rpc.ok, false);
    assert.equal(rpc.status, 400, "executeInContext must answer 400 for an engine without sessions");
    return;
  }
  assert.ok(programs.stateful, "programs.stateful is required for an engine with sessions");

  const state = createTestState();
  let interpreter = createTestInterpreter(engine, state);
  const workspace = (manifest = {}, dirs = []) => ({ dirs, manifest });
  const run = (code, ws = workspace(), getFiles = () => []) =>
    interpreter.executeInContext(KEY, { contextId: "c1", code, envVars: {}, workspace: ws }, getFiles);

  const created = await contextRequest(interpreter, "POST", "/contexts", { id: "c1" });
  assert.equal(created.status, 201, `creating a context: ${JSON.stringify(created.body)}`);
  assert.equal(created.body.cwd, "/workspace");

  // State across execute.
  const define = await run(programs.stateful.define);
  assert.equal(define.ok, true, `define: ${JSON.stringify(define)}`);
  assert.equal(define.result.error, undefined, `define failed: ${JSON.stringify(define.result.error)}`);
  const use = await run(programs.stateful.use);
  assert.equal(use.ok, true);
  assert.equal(use.result.results?.[0]?.text, programs.stateful.expectResultText, "state must survive an execute");
  assert.equal(use.result.executionCount, 2);
  assert.ok(use.result.context.snapshot, "a snapshot must have been taken");

  // State across a simulated eviction: a new Interpreter over the same storage restores from the snapshot.
  interpreter = createTestInterpreter(engine, createTestState({ db: state.db, alarm: state.alarm }));
  const restored = await run(programs.stateful.use);
  assert.equal(restored.ok, true);
  assert.equal(restored.result.results?.[0]?.text, programs.stateful.expectResultText,
    "state must survive eviction (restore from the stored snapshot)");

  assert.notEqual(restored.result.context.restored, false,
    `the snapshot was not restored: ${JSON.stringify(restored.result.context.restoreError)}`);

  // Every u64 is a handle and `extra` comes back as given (protocol §4.5): the state survives an eviction with
  // snapshot() answering handle 0, 1 or 2^64-1 and an extra of {} or of 64 KiB, and restore receives exactly those. (A
  // built-in engine's sessions live in the core: its handle is its own, checked by its restore.)
  const jsSessions = typeof engine.sessions.boot === "function" && typeof engine.sessions.restore === "function";
  for (const handle of jsSessions ? [0n, 1n, 2n ** 64n - 1n] : []) {
    for (const extra of [{}, extraOfBytes(65536)]) {
      await checkSnapshotRoundTrip(engine, programs.stateful, handle, extra);
    }
  }

  // A guest error rolls the workspace mirror back; the file the sandbox holds is pulled once.
  const data = new TextEncoder().encode("kept");
  const hash = "sha256:" + (await sha256Hex(data));
  let pulls = 0;
  const withFile = await run(programs.error.code, workspace({ "/workspace/kept.txt": hash }), (paths) => {
    pulls++;
    return paths.map((path) => ({ path, data, updatedAt: 1 }));
  });
  assert.equal(withFile.ok, true);
  assert.ok(withFile.result.error, "the error program must report an error in a context");
  assert.deepEqual(withFile.result.workspace.files, []);
  assert.deepEqual(withFile.result.workspace.deleted, []);
  assert.equal(pulls, 1, "missing workspace files are pulled with one getFiles call");

  // Context deletion.
  const deleted = await contextRequest(interpreter, "DELETE", "/contexts/c1");
  assert.equal(deleted.status, 200);
  const gone = await run(programs.stateful.use);
  assert.equal(gone.ok, false);
  assert.equal(gone.status, 404);
  assert.equal(gone.body.code, "CONTEXT_NOT_FOUND");

  // DELETE / wipes everything.
  await contextRequest(interpreter, "POST", "/contexts", { id: "c2" });
  const wiped = await contextRequest(interpreter, "DELETE", "/");
  assert.equal(wiped.status, 200);
  assert.deepEqual(wiped.body, { success: true });
  const afterWipe = await contextRequest(interpreter, "DELETE", "/contexts/c2");
  assert.equal(afterWipe.status, 404);
}

/** An extra object whose JSON is exactly `bytes` long (the 64 KiB limit of docs/engine-authors.md). */
function extraOfBytes(bytes) {
  const extra = { pad: "" };
  extra.pad = "x".repeat(bytes - JSON.stringify(extra).length);
  return extra;
}

function isThenable(value) {
  return value !== null && (typeof value === "object" || typeof value === "function") && typeof value.then === "function";
}

// `engine` whose sessions' snapshot() answers `handle` and `extra` instead of their own; restore checks what it
// receives and hands the engine's own handle and extra (kept here: the eviction is simulated in this process) to the
// engine's restore.
async function checkSnapshotRoundTrip(engine, stateful, handle, extra) {
  const label = `snapshot() answering handle ${handle} and an extra of ${JSON.stringify(extra).length} bytes`;
  let own = null; // the engine's own handle and extra, at its last snapshot()
  const received = [];
  const wrap = (instance) => ({
    get invalid() {
      return instance.invalid;
    },
    get cwd() {
      return instance.cwd;
    },
    execute: (request) => instance.execute(request),
    canSnapshot: () => instance.canSnapshot(),
    snapshot() {
      const snap = instance.snapshot();
      own = { handle: snap.handle, extra: snap.extra };
      return { handle, extra, memory: snap.memory };
    },
    close: () => instance.close?.(),
  });
  const then = (value, f) => (isThenable(value) ? value.then(f) : f(value));
  const wrapped = {
    ...engine,
    sessions: {
      boot: (options) => then(engine.sessions.boot(options), wrap),
      restore(options, source) {
        received.push({ handle: source.handle, extra: source.extra });
        const inner = {
          handle: own?.handle ?? 0n,
          extra: own?.extra ?? {},
          memoryPages: source.memoryPages,
          readPage: (page) => source.readPage(page),
        };
        return then(engine.sessions.restore(options, inner), wrap);
      },
    },
  };
  const state = createTestState();
  let interpreter = createTestInterpreter(wrapped, state);
  const run = (code) =>
    interpreter.executeInContext(KEY, { contextId: "c1", code, envVars: {}, workspace: { dirs: [], manifest: {} } }, () => []);
  const created = await contextRequest(interpreter, "POST", "/contexts", { id: "c1" });
  assert.equal(created.status, 201);
  const define = await run(stateful.define);
  assert.equal(define.ok, true, `${label}: define: ${JSON.stringify(define)}`);
  assert.ok(define.result.context.snapshot, `${label}: a snapshot must have been taken`);
  interpreter = createTestInterpreter(wrapped, createTestState({ db: state.db, alarm: state.alarm }));
  const use = await run(stateful.use);
  assert.equal(use.ok, true, `${label}: ${JSON.stringify(use).slice(0, 500)}`);
  assert.notEqual(use.result.context.restored, false,
    `${label}: the snapshot was not restored: ${JSON.stringify(use.result.context.restoreError)}`);
  assert.equal(received.length, 1, `${label}: sessions.restore must be called once after the eviction`);
  assert.equal(typeof received[0].handle, "bigint", `${label}: SessionSnapshotSource.handle must be a bigint`);
  assert.equal(received[0].handle, handle, `${label}: restore must receive the handle snapshot() answered`);
  assert.deepEqual(received[0].extra, extra, `${label}: restore must receive the extra snapshot() answered`);
  assert.equal(use.result.results?.[0]?.text, stateful.expectResultText, `${label}: state must survive eviction`);
}

async function sha256Hex(bytes) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}
