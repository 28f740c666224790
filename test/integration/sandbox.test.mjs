// The caller side in workerd: the @sandbox-workers/core client (worker-shim/caller.js) driving the Sandbox Durable
// Object over on-disk storage, with the real JavaScript and Python runtime Workers behind recording pass-throughs and
// scripted misbehaving runtimes (sandbox-harness.mjs). Every test goes through the client API in the caller Worker
// (getSandbox(...).interpreter.runCode, writeFile, ...) unless it is about the Sandbox's wire itself (then /wire).
// Items are protocol §10.6 (caller Sandbox), §10.7 (files API) and §10.9 (client), plus issue 11's bad-input rows.
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";
import { tmpdir } from "node:os";
import path from "node:path";
import { startSandboxWorld } from "./sandbox-harness.mjs";

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const HASH_RE = /^(sha256:[0-9a-f]{64}|[0-9a-f]{16})$/;
const MiB = 1048576;
const b64 = (bytes) => Buffer.from(bytes).toString("base64");
const U = { $undefined: true };
const repeat = (s, times) => ({ $repeat: s, times });

const persist = mkdtempSync(path.join(tmpdir(), "sw-sandbox-"));
let w;
const restart = async () => {
  await w.dispose();
  w = await startSandboxWorld(persist);
};
before(async () => {
  w = await startSandboxWorld(persist);
});
after(async () => {
  await w?.dispose();
  rmSync(persist, { recursive: true, force: true });
});

function ok(r) {
  assert.equal(r.ok, true, `expected success, got ${JSON.stringify(r.error ?? r).slice(0, 800)}`);
  return r.value;
}

/** Asserts the client threw `cls` with these fields; returns the described error. */
function fails(r, { cls, code, status, message, errno, operation }) {
  assert.equal(r.ok, false, `expected ${cls} ${code}, got success: ${String(JSON.stringify(r.value)).slice(0, 400)}`);
  const e = r.error;
  const seen = JSON.stringify(e).slice(0, 800);
  assert.equal(e.class, cls, seen);
  assert.equal(e.name, cls, seen);
  assert.equal(e.sandboxError, true, seen);
  assert.equal(e.code, code, seen);
  assert.equal(e.httpStatus, status, seen);
  assert.match(e.timestamp, ISO_RE, seen);
  if (message instanceof RegExp) assert.match(e.message, message, seen);
  else if (message !== undefined) assert.equal(e.message, message, seen);
  if (errno !== undefined) assert.equal(e.context.errno, errno, seen);
  if (operation !== undefined) assert.equal(e.operation, operation, seen);
  return e;
}

const vf = (message) => ({ cls: "ValidationFailedError", code: "VALIDATION_FAILED", status: 400, message });

let seq = 0;
/** A fresh sandbox id per test (each sandbox is its own Durable Object). */
const fresh = (what) => `${what}-${++seq}`;

/** A handle on one sandbox: every client method as a function answering {ok, value | error}. */
function sandbox(id, options = {}) {
  const c = (method) => (...args) => w.call(id, method, args, options);
  return {
    id,
    createCodeContext: c("interpreter.createCodeContext"),
    listCodeContexts: c("interpreter.listCodeContexts"),
    deleteCodeContext: c("interpreter.deleteCodeContext"),
    runCode: c("interpreter.runCode"),
    setEnvVars: c("setEnvVars"),
    writeFile: c("writeFile"),
    readFile: c("readFile"),
    mkdir: c("mkdir"),
    deleteFile: c("deleteFile"),
    renameFile: c("renameFile"),
    moveFile: c("moveFile"),
    listFiles: c("listFiles"),
    exists: c("exists"),
    getInfo: c("getInfo"),
    destroy: c("destroy"),
  };
}

/**
 * What the Sandbox of `id` (caller Worker `caller`) holds in its on-disk SQLite storage, read beside workerd
 * (protocol §7.10): the tables, the meta row, the files rows and the context rows.
 */
function storageOf(caller, id) {
  const dir = path.join(persist, "do", `${caller}-Sandbox`);
  for (const name of readdirSync(dir).filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite")) {
    const db = new DatabaseSync(path.join(dir, name), { readOnly: true });
    try {
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '_cf_%'").all().map((r) => r.name).sort();
      if (!tables.includes("meta")) continue;
      const row = db.prepare("SELECT value FROM meta WHERE key = 'sandbox'").get();
      const meta = row ? JSON.parse(row.value) : null;
      if (meta?.id !== id) continue;
      const files = tables.includes("files")
        ? db.prepare("SELECT path, data, updated_at FROM files ORDER BY path").all().map((r) => ({
            path: r.path,
            data: r.data === null ? null : Buffer.from(r.data).toString(),
            updatedAt: r.updated_at,
          }))
        : null;
      const contexts = db.prepare("SELECT id, value FROM contexts ORDER BY id").all().map((r) => JSON.parse(r.value));
      return { tables, meta, files, contexts };
    } finally {
      db.close();
    }
  }
  return null;
}

/** The whole tree and the info's counts: compared before and after a failed call (nothing half-written). */
async function treeOf(s) {
  const list = ok(await s.listFiles("/workspace", { recursive: true, includeHidden: true }));
  const files = [];
  for (const f of list.files.sort((a, b) => a.absolutePath.localeCompare(b.absolutePath))) {
    const entry = { path: f.absolutePath, type: f.type, size: f.size };
    if (f.type === "file") entry.content = ok(await s.readFile(f.absolutePath, { encoding: "base64" })).content;
    files.push(entry);
  }
  return { files, workspace: ok(await s.getInfo()).workspace };
}

/**
 * The callbacks' events with each OutputMessage's timestamp checked and dropped: onStdout/onStderr received
 * { text, timestamp } (the seed's OutputMessage), the timestamp an epoch-ms number taken while the call ran (between
 * the Date.now() the fixture read before the call and after it) and never decreasing from one line to the next.
 */
function stampsChecked(r) {
  let last = r.before;
  return r.events.map((event) => {
    if (event[0] !== "stdout" && event[0] !== "stderr") return event;
    const [kind, line, timestamp] = event;
    assert.equal(typeof timestamp, "number", `${kind} ${JSON.stringify(line)}: timestamp ${timestamp}`);
    assert.ok(timestamp >= last && timestamp <= r.after, `${kind} ${JSON.stringify(line)}: ${timestamp} outside [${last}, ${r.after}]`);
    last = timestamp;
    return [kind, line];
  });
}

const text = (result) => {
  assert.equal(result.error, undefined, `guest error: ${JSON.stringify(result.error)}`);
  return result.results[0]?.text;
};

// ---------------------------------------------------------------------------------------------------------------
describe("client (protocol §10.9, §7.1, §7.2)", () => {
  it("@sandbox-workers/core exports every name of the seed's client, ErrorCode and Operation as values, createErrorFromResponse with the seed's arguments", async () => {
    const e = await w.exports();
    const want = {
      runCode: "function", getSandbox: "function", validateSandboxId: "function", Sandbox: "function",
      SandboxError: "function", FileNotFoundError: "function", FileExistsError: "function", FileTooLargeError: "function",
      PermissionDeniedError: "function", FileSystemError: "function", ContextNotFoundError: "function",
      ValidationFailedError: "function", CodeExecutionError: "function", NotSupportedError: "function",
      ExecutionLimitError: "function", createErrorFromResponse: "function", httpStatusForCode: "function",
      errorCodeForErrno: "function", ErrorCode: "object", Operation: "object",
      MAX_REQUEST_BYTES: "number", MAX_FILES_REQUEST_BYTES: "number", MAX_CODE_BYTES: "number",
    };
    for (const [name, type] of Object.entries(want)) assert.equal(e.names[name], type, `${name}: ${JSON.stringify(e.names)}`);
    assert.deepEqual(Object.keys(e.names).filter((n) => !(n in want)), [], "nothing exported beyond the seed's names");
    assert.deepEqual(Object.values(e.ErrorCode).sort(), [
      "CODE_EXECUTION_ERROR", "CONTEXT_NOT_FOUND", "FILESYSTEM_ERROR", "FILE_EXISTS", "FILE_NOT_FOUND", "FILE_TOO_LARGE",
      "INTERNAL_ERROR", "IS_DIRECTORY", "NOT_DIRECTORY", "NOT_SUPPORTED", "NO_SPACE", "PERMISSION_DENIED", "VALIDATION_FAILED",
    ]);
    for (const [key, value] of Object.entries(e.ErrorCode)) assert.equal(key, value);
    assert.deepEqual(Object.values(e.Operation).sort(), [
      "code.context.create", "code.context.delete", "code.execute", "directory.create", "directory.list",
      "file.delete", "file.move", "file.read", "file.rename", "file.stat", "file.write",
    ]);
    assert.equal(e.Operation.FILE_READ, "file.read");
    assert.deepEqual([e.made.class, e.made.code, e.made.httpStatus, e.made.context, e.made.cause, e.made.sandboxError],
      ["NotSupportedError", "NOT_SUPPORTED", 403, { feature: "files" }, "why", true]);
    // JSON.stringify(error) is the ErrorResponse it carries, as the seed's toJSON answers.
    assert.deepEqual({ ...e.made.json, timestamp: null }, { code: "NOT_SUPPORTED", message: "off", context: { feature: "files" }, httpStatus: 403, timestamp: null });
    assert.deepEqual([e.transport.class, e.transport.code, e.transport.message, e.transport.httpStatus], ["SandboxError", "INTERNAL_ERROR", "HTTP 502: Bad Gateway", 502]);
    assert.deepEqual(e.statuses, [500, 403, 409, 500]);
    assert.deepEqual(e.errnos, ["FILE_NOT_FOUND", "PERMISSION_DENIED", "FILESYSTEM_ERROR", "FILESYSTEM_ERROR"]);
    assert.deepEqual(e.limits, [98304, 2097152, 65536]);
    assert.equal(e.limitError, "ExecutionLimitError");
  });

  it("getSandbox with a Service Binding throws synchronously: requires a Durable Object namespace (181)", async () => {
    const r = await w.sync("getSandbox(fetcher)");
    assert.equal(r.threwSynchronously, true);
    assert.equal(r.error.class, "Error");
    assert.match(r.error.message, /^getSandbox\(\) requires a Durable Object namespace/);
  });

  it("runCode with a Durable Object namespace throws synchronously with the seed's message (181)", async () => {
    const r = await w.sync("runCode(namespace)");
    assert.equal(r.threwSynchronously, true);
    assert.equal(r.error.class, "Error");
    assert.equal(
      r.error.message,
      "runCode() requires a Service Binding to a runtime Worker; use getSandbox(namespace, id).interpreter.runCode() with a Durable Object namespace",
    );
  });

  it("getSandbox(ns, 'USER-42', {normalizeId: true}) has id user-42 and sends x-sandbox-id user-42 (182)", async () => {
    const r = await w.call("USER-42", "getInfo", [], { normalizeId: true, record: true });
    assert.equal(r.id, "user-42");
    assert.equal(ok(r).id, "user-42");
    assert.equal(r.requests.length, 1);
    assert.equal(r.requests[0].url, "https://sandbox.internal/");
    assert.equal(r.requests[0].headers["x-sandbox-id"], "user-42");
  });

  it("getSandbox rejects an invalid sandbox id synchronously with the sandbox id messages, before any request", async () => {
    const cases = [
      ["www", `Invalid sandbox id "www": 'www' is a reserved name`],
      ["Cloudflare", `Invalid sandbox id "Cloudflare": 'Cloudflare' is a reserved name`],
      ["-abc", `Invalid sandbox id "-abc": cannot start or end with a hyphen`],
      ["abc-", `Invalid sandbox id "abc-": cannot start or end with a hyphen`],
      ["a".repeat(64), `Invalid sandbox id "${"a".repeat(64)}": must match /^[A-Za-z0-9._-]{1,63}$/`],
      ["", `Invalid sandbox id "": must match /^[A-Za-z0-9._-]{1,63}$/`],
      ["a b", `Invalid sandbox id "a b": must match /^[A-Za-z0-9._-]{1,63}$/`],
      ["a/b", `Invalid sandbox id "a/b": must match /^[A-Za-z0-9._-]{1,63}$/`],
    ];
    for (const [id, message] of cases) {
      const r = await w.sync("getSandbox(id)", { id });
      assert.equal(r.threwSynchronously, true, id);
      assert.equal(r.error.class, "ValidationFailedError", id);
      assert.equal(r.error.message, message);
      assert.equal(r.error.httpStatus, 400);
    }
    assert.equal((await w.sync("getSandbox(id)", { id: "a".repeat(63) })).value, "a".repeat(63));
    assert.equal((await w.sync("getSandbox(id)", { id: "WWW.example_1" })).value, "WWW.example_1");
  });

  it("runCode sends envVars without its undefined entries and fires the callbacks after the answer, in order (183)", async () => {
    await w.clearSpy("js");
    const r = await w.runCode(
      "JAVASCRIPT",
      'console.log("one"); console.error("err"); console.log(process.env.X, String(process.env.Y)); [1, 2]',
      { envVars: { X: "1", Y: U } },
    );
    const result = ok(r);
    const spy = await w.spy("js");
    assert.deepEqual(spy.requests.map((q) => [q.method, q.path, q.body]), [
      ["POST", "/execute", { code: 'console.log("one"); console.error("err"); console.log(process.env.X, String(process.env.Y)); [1, 2]', envVars: { X: "1" } }],
    ]);
    assert.deepEqual(result.results, [{ json: [1, 2] }]);
    assert.deepEqual(stampsChecked(r), [
      ["stdout", "one"],
      ["stdout", "1 undefined"],
      ["stderr", "err"],
      ["result", { json: [1, 2] }, ["json"]],
    ]);
  });

  it("runCode reports a guest error through onError after the logs and resolves (never throws for it)", async () => {
    const r = await w.runCode("PYTHON", 'print("before")\n"x" + 1\n');
    const result = ok(r);
    assert.equal(result.error.name, "TypeError");
    assert.deepEqual(stampsChecked(r), [
      ["stdout", "before"],
      ["error", "TypeError"],
    ]);
    const textResult = ok(await w.runCode("JAVASCRIPT", '"hi"', { timeout: 60000 }));
    assert.deepEqual(textResult.results, [{ text: "'hi'" }]);
  });

  it("runCode with an aborted signal (alone or next to a timeout) rejects with the abort, and no callback fires", async () => {
    for (const options of [{ abort: true }, { abort: true, timeout: 60000 }]) {
      const r = await w.runCode("JAVASCRIPT", 'console.log("never"); 1', options);
      assert.equal(r.ok, false);
      assert.equal(r.error.sandboxError, false);
      assert.equal(r.error.name, "AbortError");
      assert.deepEqual(r.events, []);
    }
  });

  it("runCode turns a non-2xx JSON answer into its error class with the runtime's status", async () => {
    fails(await w.runCode("JAVASCRIPT", "   "), { cls: "ValidationFailedError", code: "VALIDATION_FAILED", status: 400 });
  });

  it("runCode: a non-JSON answer is SandboxError INTERNAL_ERROR 'HTTP <status>: <statusText>'", async () => {
    fails(await w.runCode("PLAIN", "1"), { cls: "SandboxError", code: "INTERNAL_ERROR", status: 404, message: "HTTP 404: Not Found" });
  });

  it("runCode: a 2xx answer without results and logs is 'Invalid sandbox response'; 204 is {}", async () => {
    fails(await w.runCode("BOGUS", "1"), { cls: "SandboxError", code: "INTERNAL_ERROR", status: 500, message: "Invalid sandbox response" });
    const r = await w.runCode("NOCONTENT", "1");
    assert.deepEqual(ok(r), {});
    assert.deepEqual(r.events, []);
  });

  it("setEnvVars({OLD: undefined}) sends {OLD: null}, which removes OLD (183)", async () => {
    const s = sandbox(fresh("env-undefined"));
    ok(await s.setEnvVars({ OLD: "old", KEEP: "k" }));
    const r = await w.call(s.id, "setEnvVars", [{ OLD: U }], { record: true });
    ok(r);
    assert.deepEqual(r.requests.map((q) => [q.method, q.path, q.headers["x-sandbox-id"], q.body]), [
      ["POST", "/env", s.id, { envVars: { OLD: null } }],
    ]);
    assert.deepEqual(ok(await s.getInfo()).envVars, { KEEP: "k" });
  });

  it("deleteCodeContext('ctx/weird id') requests DELETE /contexts/ctx%2Fweird%20id (184)", async () => {
    const id = fresh("weird-context");
    const r = await w.call(id, "interpreter.deleteCodeContext", ["ctx/weird id"], { record: true });
    assert.equal(r.requests.length, 1);
    assert.equal(r.requests[0].method, "DELETE");
    assert.equal(r.requests[0].url, "https://sandbox.internal/contexts/ctx%2Fweird%20id");
    fails(r, { cls: "ContextNotFoundError", code: "CONTEXT_NOT_FOUND", status: 404, message: "Code context 'ctx/weird id' not found" });
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe("Sandbox Durable Object (protocol §10.6)", () => {
  it("answers 400 VALIDATION_FAILED for a missing x-sandbox-id, www, -abc and a 64-character id (128)", async () => {
    const missing = await w.wire({ method: "GET", path: "/" });
    assert.equal(missing.status, 400);
    assert.equal(missing.json.code, "VALIDATION_FAILED");
    for (const [id, message] of [
      ["www", `Invalid sandbox id "www": 'www' is a reserved name`],
      ["-abc", `Invalid sandbox id "-abc": cannot start or end with a hyphen`],
      ["a".repeat(64), `Invalid sandbox id "${"a".repeat(64)}": must match /^[A-Za-z0-9._-]{1,63}$/`],
    ]) {
      const r = await w.wire({ method: "GET", path: "/", headers: { "x-sandbox-id": id } });
      assert.equal(r.status, 400, id);
      assert.equal(r.json.code, "VALIDATION_FAILED");
      assert.equal(r.json.message, message);
      assert.equal(r.json.httpStatus, 400);
    }
  });

  it("createCodeContext with a binding that does not exist or is no Service Binding → Unknown binding (129, 130)", async () => {
    const s = sandbox(fresh("unknown-binding"));
    for (const binding of ["NOPE", "has-dash", "1INVALID", "NOTABINDING", "Sandbox"]) {
      fails(await s.createCodeContext({ binding }), vf(`Unknown binding '${binding}'`));
    }
    assert.deepEqual(ok(await s.listCodeContexts()), []);
  });

  it("a binding that is not a runtime (HTML probe, 404 text) → is not a sandbox-workers runtime Worker (131)", async () => {
    const s = sandbox(fresh("not-runtime"));
    fails(await s.createCodeContext({ binding: "WEIRD" }), vf("Binding 'WEIRD' is not a sandbox-workers runtime Worker"));
    fails(await s.createCodeContext({ binding: "PLAIN" }), vf("Binding 'PLAIN' is not a sandbox-workers runtime Worker"));
    fails(await s.runCode("1", { binding: "WEIRD" }), vf("Binding 'WEIRD' is not a sandbox-workers runtime Worker"));
    assert.deepEqual(ok(await s.listCodeContexts()), []);
  });

  it("protocol 2 → speaks interpreter protocol 2; protocol '1' → not a runtime; no protocol → accepted (132)", async () => {
    const s = sandbox(fresh("protocol"));
    fails(await s.createCodeContext({ binding: "PROTO2" }), vf("Binding 'PROTO2' speaks interpreter protocol 2; this caller supports 1"));
    fails(await s.runCode("1", { binding: "PROTO2" }), vf("Binding 'PROTO2' speaks interpreter protocol 2; this caller supports 1"));
    fails(await s.createCodeContext({ binding: "PROTOSTR" }), vf("Binding 'PROTOSTR' is not a sandbox-workers runtime Worker"));
    const ctx = ok(await s.createCodeContext({ binding: "NOPROTO" }));
    assert.equal(ctx.binding, "NOPROTO");
    assert.match(ctx.id, UUID_RE);
    assert.deepEqual(ok(await s.listCodeContexts()).map((c) => c.id), [ctx.id]);
  });

  it("a probe answering contexts: false → Code contexts are not supported by binding 'STATELESS' (ruby) (133)", async () => {
    const s = sandbox(fresh("no-contexts"));
    fails(await s.createCodeContext({ binding: "STATELESS" }), vf("Code contexts are not supported by binding 'STATELESS' (ruby)"));
  });

  it("createCodeContext on JAVASCRIPT → 201 row with a UUID id; the runtime saw exactly one POST /interpreters/<key>/contexts (134)", async () => {
    const s = sandbox(fresh("create"));
    await w.clearSpy("js");
    const ctx = ok(await s.createCodeContext({ binding: "JAVASCRIPT", cwd: "/workspace" }));
    assert.match(ctx.id, UUID_RE);
    assert.equal(ctx.binding, "JAVASCRIPT");
    assert.equal(ctx.language, "javascript");
    assert.equal(ctx.cwd, "/workspace");
    // Dates, as the seed's CodeContext has them (the fixture reports a Date as its ISO string and getTime()).
    assert.match(ctx.createdAt.$date, ISO_RE);
    assert.equal(ctx.createdAt.time, Date.parse(ctx.createdAt.$date));
    assert.equal(ctx.lastUsed.time, ctx.createdAt.time, "a new context was last used when it was created");
    const spy = await w.spy("js");
    const creates = spy.requests.filter((q) => q.method === "POST" && /^\/interpreters\/[^/]+\/contexts$/.test(q.path));
    assert.equal(creates.length, 1);
    assert.match(creates[0].path, /^\/interpreters\/[0-9a-f]{64}\/contexts$/);
    assert.deepEqual(creates[0].body, { id: ctx.id, cwd: "/workspace" });
    assert.deepEqual(spy.requests.filter((q) => q.path === "/interpreter").length, 1, "one probe");
  });

  it("deleteCodeContext removes the row and asks the runtime to DELETE /interpreters/<key>/contexts/<id>; POST /contexts answers 201", async () => {
    const s = sandbox(fresh("delete-context"));
    const a = ok(await s.createCodeContext({ binding: "JAVASCRIPT" }));
    const b = ok(await s.createCodeContext({ binding: "JAVASCRIPT", cwd: "/workspace" }));
    assert.deepEqual(ok(await s.listCodeContexts()).map((c) => c.id), [a.id, b.id], "sorted by createdAt");
    await w.clearSpy("js");
    assert.equal(ok(await s.deleteCodeContext(a)), null);
    const deletes = (await w.spy("js")).requests.filter((q) => q.method === "DELETE");
    assert.equal(deletes.length, 1);
    assert.match(deletes[0].path, new RegExp(`^/interpreters/[0-9a-f]{64}/contexts/${a.id}$`));
    assert.deepEqual(ok(await s.listCodeContexts()).map((c) => c.id), [b.id]);
    fails(await s.runCode("1", { context: a }), { cls: "ContextNotFoundError", code: "CONTEXT_NOT_FOUND", status: 404 });
    const created = await w.wire({ id: s.id, method: "POST", path: "/contexts", headers: { "x-sandbox-id": s.id, "content-type": "application/json" }, body: { binding: "NOPROTO" } });
    assert.equal(created.status, 201);
    assert.match(created.json.id, UUID_RE);
  });

  it("createCodeContext({}) → binding is required; envVars {'bad-key': 'x'} → Invalid envVars key: bad-key (135)", async () => {
    const s = sandbox(fresh("create-bad"));
    fails(await s.createCodeContext({}), vf("binding is required"));
    fails(await s.createCodeContext({ binding: "JAVASCRIPT", envVars: { "bad-key": "x" } }), vf("Invalid envVars key: bad-key"));
    fails(await s.createCodeContext({ binding: "JAVASCRIPT", cwd: "/etc" }), { cls: "ValidationFailedError", code: "VALIDATION_FAILED", status: 400 });
    assert.deepEqual(ok(await s.listCodeContexts()), []);
  });

  it("two runCode calls with binding JAVASCRIPT share one default context; listCodeContexts lists one (136)", async () => {
    const s = sandbox(fresh("default-context"));
    const a = ok(await s.runCode("var n = 1; n", { binding: "JAVASCRIPT" }));
    const b = ok(await s.runCode("n += 1; n", { binding: "JAVASCRIPT" }));
    assert.match(a.context.id, UUID_RE);
    assert.equal(b.context.id, a.context.id);
    assert.equal(text(b), "2");
    assert.equal(a.executionCount, 1);
    assert.equal(b.executionCount, 2);
    assert.equal(b.context.executions, 2);
    assert.equal(b.context.cwd, "/workspace");
    assert.equal(typeof b.context.expiresAt, "number");
    assert.equal(b.workspace, undefined);
    const list = ok(await s.listCodeContexts());
    assert.deepEqual(list.map((c) => [c.id, c.binding, c.language]), [[a.context.id, "JAVASCRIPT", "javascript"]]);
  });

  it("createCodeContext and listCodeContexts answer Dates: getTime() is the instant of the Sandbox's ISO strings (getInfo), lastUsed moves with an execution", async () => {
    const s = sandbox(fresh("dates"));
    const ctx = ok(await s.createCodeContext({ binding: "JAVASCRIPT" }));
    ok(await s.runCode("1", { context: ctx }));
    const [listed] = ok(await s.listCodeContexts());
    const [row] = ok(await s.getInfo()).contexts;
    assert.equal(listed.id, ctx.id);
    assert.deepEqual(listed.createdAt, { $date: row.createdAt, time: Date.parse(row.createdAt) });
    assert.deepEqual(listed.lastUsed, { $date: row.lastUsed, time: Date.parse(row.lastUsed) });
    assert.equal(listed.createdAt.time, ctx.createdAt.time, "the same instant from both calls");
    assert.ok(listed.lastUsed.time >= listed.createdAt.time, JSON.stringify(listed));
  });

  it("sandbox.interpreter.runCode: onStdout/onStderr receive OutputMessage { text, timestamp }, onResult a Result with formats(), in order", async () => {
    const s = fresh("callbacks");
    const r = await w.call(s, "interpreter.runCode", ['console.log("a"); console.warn("w"); console.log("b"); ({ k: 1 })', { binding: "JAVASCRIPT" }], { callbacks: true });
    const result = ok(r);
    assert.deepEqual(result.logs, { stdout: ["a", "b"], stderr: ["w"] });
    assert.deepEqual(stampsChecked(r), [
      ["stdout", "a"],
      ["stdout", "b"],
      ["stderr", "w"],
      ["result", { json: { k: 1 } }, ["json"]],
    ]);
    const failed = await w.call(s, "interpreter.runCode", ['print("p")\nraise KeyError("k")', { binding: "PYTHON" }], { callbacks: true });
    assert.equal(ok(failed).error.name, "KeyError");
    assert.deepEqual(stampsChecked(failed), [["stdout", "p"], ["error", "KeyError"]]);
  });

  it("runCode without context or binding → Pass a context or a binding; with cwd → cwd is a context property (137)", async () => {
    const s = sandbox(fresh("pass-context"));
    fails(await s.runCode("1", {}), vf("Pass a context or a binding"));
    fails(await s.runCode("1", { binding: "JAVASCRIPT", cwd: "/workspace" }), vf("cwd is a context property; pass it to createCodeContext"));
    fails(await s.runCode("   ", { binding: "JAVASCRIPT" }), vf("Non-empty code is required"));
    fails(await s.runCode("1", { context: "" }), vf("contextId must be a non-empty string"));
    fails(await s.runCode("1", { binding: "" }), vf("binding must be a non-empty string"));
  });

  it("runCode in an unknown context → ContextNotFoundError 404 (138)", async () => {
    const s = sandbox(fresh("missing-context"));
    fails(await s.runCode("1", { context: "missing" }), {
      cls: "ContextNotFoundError",
      code: "CONTEXT_NOT_FOUND",
      status: 404,
      message: "Code context 'missing' not found",
    });
  });

  it("a contexts:false binding runs statelessly with the sandbox env: 200, no context, language ruby (139)", async () => {
    const s = sandbox(fresh("stateless"));
    ok(await s.setEnvVars({ GREETING: "hi" }));
    const r = ok(await s.runCode("puts 1", { binding: "STATELESS" }));
    assert.equal(r.language, "ruby");
    assert.equal(r.context, undefined);
    assert.equal(r.executionCount, undefined);
    assert.deepEqual(r.logs, { stdout: ["fake"], stderr: [] });
    const log = await w.fakeLog();
    assert.deepEqual(log.executes.at(-1), { entrypoint: "Stateless", body: { code: "puts 1", envVars: { GREETING: "hi" } } });
    assert.deepEqual(ok(await s.listCodeContexts()), []);
  });

  it("env layering: sandbox {A,B,C}, context {B}, call {C: null, D} → the RPC's envVars {A, B: context-b, D} (140)", async () => {
    const s = sandbox(fresh("env-merge"));
    ok(await s.setEnvVars({ A: "sandbox-a", B: "sandbox-b", C: "sandbox-c" }));
    const ctx = ok(await s.createCodeContext({ binding: "JAVASCRIPT", envVars: { B: "context-b", E: U } }));
    await w.clearSpy("js");
    const r = ok(await s.runCode("[process.env.A, process.env.B, process.env.C ?? null, process.env.D]", { context: ctx, envVars: { C: null, D: "call-d", F: U } }));
    assert.deepEqual(r.results, [{ json: ["sandbox-a", "context-b", null, "call-d"] }]);
    const spy = await w.spy("js");
    assert.equal(spy.executes.length, 1);
    assert.deepEqual(spy.executes[0].args.envVars, { A: "sandbox-a", B: "context-b", D: "call-d" });
    assert.equal(spy.executes[0].args.contextId, ctx.id);
    assert.match(spy.executes[0].key, /^[0-9a-f]{64}$/);
  });

  it("an RPC that throws → SandboxError 502 INTERNAL_ERROR Binding 'THROWS' failed: … (141)", async () => {
    const s = sandbox(fresh("rpc-throws"));
    const ctx = ok(await s.createCodeContext({ binding: "THROWS" }));
    fails(await s.runCode("1", { context: ctx }), {
      cls: "SandboxError",
      code: "INTERNAL_ERROR",
      status: 502,
      message: /^Binding 'THROWS' failed: .*the runtime crashed/,
    });
    assert.deepEqual(ok(await s.listCodeContexts()).map((c) => c.id), [ctx.id]);
  });

  it("the interpreter forgot the context → ContextNotFoundError, and the context is no longer listed (142)", async () => {
    const s = sandbox(fresh("forgotten"));
    await w.clearSpy("js");
    const ctx = ok(await s.createCodeContext({ binding: "JAVASCRIPT" }));
    const key = (await w.spy("js")).requests.find((q) => q.method === "POST").path.split("/")[2];
    ok(await s.runCode("1", { context: ctx }));
    const del = await w.fetch(`https://sandbox-javascript.test/interpreters/${key}/contexts/${ctx.id}`, { method: "DELETE" });
    assert.equal(del.status, 200, await del.text());
    const e = fails(await s.runCode("1", { context: ctx }), {
      cls: "ContextNotFoundError",
      code: "CONTEXT_NOT_FOUND",
      status: 404,
      message: `Code context '${ctx.id}' not found`,
    });
    assert.deepEqual(e.context, { contextId: ctx.id });
    assert.deepEqual(ok(await s.listCodeContexts()), []);
  });

  it("an interpreter answering {ok: false, 500 INTERNAL_ERROR} reaches the client unchanged (143)", async () => {
    const s = sandbox(fresh("rpc-failing"));
    const ctx = ok(await s.createCodeContext({ binding: "FAILING" }));
    const e = fails(await s.runCode("1", { context: ctx }), {
      cls: "SandboxError",
      code: "INTERNAL_ERROR",
      status: 500,
      message: "Workspace sync failed: getFiles did not return /workspace/a.txt",
    });
    assert.equal(e.timestamp, "2026-01-01T00:00:00.000Z");
    assert.deepEqual(e.context, {});
  });

  it("the manifest sent with an execute never carries file contents, only hashes (144)", async () => {
    const s = sandbox(fresh("manifest"));
    ok(await s.writeFile("/workspace/secret.txt", "the contents"));
    ok(await s.mkdir("/workspace/dir"));
    await w.clearSpy("js");
    ok(await s.runCode("1", { binding: "JAVASCRIPT" }));
    const [exec] = (await w.spy("js")).executes;
    assert.deepEqual(Object.keys(exec.args.workspace).sort(), ["dirs", "manifest"]);
    assert.deepEqual(exec.args.workspace.dirs, ["/workspace/dir"]);
    assert.deepEqual(Object.keys(exec.args.workspace.manifest), ["/workspace/secret.txt"]);
    assert.match(exec.args.workspace.manifest["/workspace/secret.txt"], HASH_RE);
    assert.ok(!JSON.stringify(exec.args).includes("the contents"));
  });

  it("a file a guest wrote is readable through readFile (145)", async () => {
    const s = sandbox(fresh("guest-file"));
    ok(await s.runCode('fs.mkdirSync("/workspace/out"); fs.writeFileSync("/workspace/out/g.txt", "from the guest"); 1', { binding: "JAVASCRIPT" }));
    const f = ok(await s.readFile("/workspace/out/g.txt"));
    assert.equal(f.content, "from the guest");
    assert.equal(f.size, 14);
  });

  it("getInfo reports each context's snapshot as the interpreter returned it; an open file marks it stale (protocol §10.4 item 98)", async () => {
    const s = sandbox(fresh("snapshot"));
    const ctx = ok(await s.createCodeContext({ binding: "PYTHON" }));
    ok(await s.runCode("x = 1", { context: ctx }));
    const clean = ok(await s.getInfo()).contexts[0].snapshot;
    assert.equal(typeof clean.build, "string");
    assert.equal(typeof clean.takenAt, "number");
    assert.ok(clean.bytes > 0 && clean.storedBytes > 0 && clean.pages > 0, JSON.stringify(clean));
    assert.equal(clean.stale, false);
    ok(await s.runCode("held = open('/workspace/held.txt', 'w')", { context: ctx }));
    assert.equal(ok(await s.getInfo()).contexts[0].snapshot.stale, true);
    ok(await s.runCode("held.close()", { context: ctx }));
    assert.equal(ok(await s.getInfo()).contexts[0].snapshot.stale, false);
  });

  it("a guest error leaves the sandbox tree unchanged (146)", async () => {
    const s = sandbox(fresh("guest-error"));
    ok(await s.writeFile("/workspace/keep.txt", "before"));
    const tree = await treeOf(s);
    const r = ok(await s.runCode('fs.writeFileSync("/workspace/keep.txt", "after"); fs.writeFileSync("/workspace/new.txt", "x"); fs.mkdirSync("/workspace/d"); throw new RangeError("boom")', { binding: "JAVASCRIPT" }));
    assert.equal(r.error.name, "RangeError");
    assert.deepEqual(await treeOf(s), tree);
    fails(await s.readFile("/workspace/new.txt"), { cls: "FileNotFoundError", code: "FILE_NOT_FOUND", status: 404 });
  });

  it("a guest's empty directory reaches another binding's execute in dirs and lists as a directory (147)", async () => {
    const s = sandbox(fresh("empty-dir"));
    ok(await s.runCode('fs.mkdirSync("/workspace/empty"); 1', { binding: "JAVASCRIPT" }));
    await w.clearSpy("py");
    ok(await s.runCode("1", { binding: "PYTHON" }));
    const [exec] = (await w.spy("py")).executes;
    assert.deepEqual(exec.args.workspace.dirs, ["/workspace/empty"]);
    const list = ok(await s.listFiles("/workspace"));
    assert.deepEqual(list.files.map((f) => [f.name, f.type, f.absolutePath, f.relativePath, f.size, f.mode]), [
      ["empty", "directory", "/workspace/empty", "empty", 0, "drwxr-xr-x"],
    ]);
    assert.equal(list.count, 1);
    assert.equal(ok(await s.runCode('import os\nos.path.isdir("/workspace/empty")', { binding: "PYTHON" })).results[0].text, "True");
  });

  it("destroy wipes the sandbox; each distinct binding received DELETE /interpreters/<key> (148)", async () => {
    const s = sandbox(fresh("destroy"));
    ok(await s.setEnvVars({ A: "1" }));
    ok(await s.writeFile("/workspace/f.txt", "x"));
    ok(await s.createCodeContext({ binding: "JAVASCRIPT" }));
    ok(await s.createCodeContext({ binding: "JAVASCRIPT" }));
    ok(await s.createCodeContext({ binding: "PYTHON" }));
    await w.clearSpy("js");
    await w.clearSpy("py");
    assert.equal(ok(await s.destroy()), null);
    for (const language of ["js", "py"]) {
      const deletes = (await w.spy(language)).requests.filter((q) => q.method === "DELETE");
      assert.equal(deletes.length, 1, language);
      assert.match(deletes[0].path, /^\/interpreters\/[0-9a-f]{64}$/);
    }
    assert.deepEqual(ok(await s.listCodeContexts()), []);
    const info = ok(await s.getInfo());
    assert.deepEqual(info.envVars, {});
    assert.deepEqual(info.workspace, { files: 0, bytes: 0 });
    assert.equal(ok(await s.exists("/workspace/f.txt")).exists, false);
  });

  it("getInfo answers id, envVars, the contexts with binding, language and executions, workspace counts, expiresAt, fileApi (149)", async () => {
    const s = sandbox(fresh("info"));
    ok(await s.setEnvVars({ A: "1" }));
    ok(await s.mkdir("/workspace/d"));
    ok(await s.writeFile("/workspace/d/a.txt", "12345"));
    const ctx = ok(await s.createCodeContext({ binding: "JAVASCRIPT" }));
    ok(await s.runCode("1", { context: ctx }));
    const info = ok(await s.getInfo());
    assert.equal(info.id, s.id);
    assert.match(info.createdAt, ISO_RE);
    assert.match(info.lastUsed, ISO_RE);
    assert.deepEqual(info.envVars, { A: "1" });
    assert.equal(info.fileApi, true);
    assert.deepEqual(info.workspace, { files: 2, bytes: 5 });
    assert.equal(typeof info.expiresAt, "number");
    assert.equal(info.contexts.length, 1);
    const c = info.contexts[0];
    assert.deepEqual([c.id, c.binding, c.language, c.cwd, c.executions], [ctx.id, "JAVASCRIPT", "javascript", "/workspace", 1]);
    assert.equal(typeof c.engine, "string");
    assert.ok(c.snapshot === null || typeof c.snapshot.takenAt === "number", JSON.stringify(c.snapshot));
    assert.equal(info.language, undefined);
  });

  it("setEnvVars {A: '1', B: null} sets A and removes B; POST /env {} → 400 envVars is required (150)", async () => {
    const s = sandbox(fresh("env"));
    ok(await s.setEnvVars({ B: "b" }));
    ok(await s.setEnvVars({ A: "1", B: null }));
    assert.deepEqual(ok(await s.getInfo()).envVars, { A: "1" });
    const r = await w.wire({ id: s.id, method: "POST", path: "/env", headers: { "x-sandbox-id": s.id, "content-type": "application/json" }, body: {} });
    assert.equal(r.status, 400);
    assert.equal(r.json.message, "envVars is required");
    fails(await s.setEnvVars({ "bad-key": "x" }), vf("Invalid envVars key: bad-key"));
    fails(await s.setEnvVars({ A: 1 }), vf("envVars values must be strings"));
  });

  it("SANDBOX_FILE_API=disabled: the files API → 403 NotSupportedError with context.feature files (151)", async () => {
    const s = sandbox(fresh("disabled"), { caller: "caller-disabled" });
    for (const r of [await s.writeFile("/workspace/a.txt", "x"), await s.readFile("/workspace/a.txt"), await s.listFiles("/workspace")]) {
      const e = fails(r, {
        cls: "NotSupportedError",
        code: "NOT_SUPPORTED",
        status: 403,
        message: "The File API is disabled for this sandbox (SANDBOX_FILE_API=disabled)",
      });
      assert.deepEqual(e.context, { feature: "files" });
    }
  });

  it("disabled: executes send {dirs: [], manifest: {}, disabled: true}, getFiles answers [], executions still count (152)", async () => {
    const s = sandbox(fresh("disabled-exec"), { caller: "caller-disabled" });
    await w.clearSpy("js");
    const r = ok(await s.runCode('let e; try { fs.writeFileSync("/workspace/a.txt", "x") } catch (x) { e = x.code } e', { binding: "JAVASCRIPT" }));
    assert.equal(text(r), "'EACCES'");
    ok(await s.runCode("2", { binding: "JAVASCRIPT" }));
    const spy = await w.spy("js");
    assert.equal(spy.executes.length, 2);
    for (const exec of spy.executes) {
      assert.deepEqual(exec.args.workspace, { dirs: [], manifest: {}, disabled: true });
      assert.deepEqual(exec.disabledProbe, []);
    }
    const info = ok(await s.getInfo());
    assert.equal(info.fileApi, false);
    assert.deepEqual(info.workspace, { files: 0, bytes: 0 });
    assert.equal(info.contexts[0].executions, 2);
    const stored = storageOf("caller-disabled", s.id);
    assert.ok(stored, "the sandbox's storage");
    assert.ok(stored.files === null || stored.files.length === 0, `no files rows: ${JSON.stringify(stored.files)}`);
  });

  it("SANDBOX_FILE_API 'enabled' (any value but disabled) keeps the files API; fileApi is true (153)", async () => {
    const s = sandbox(fresh("enabled"), { caller: "caller-alt" });
    ok(await s.writeFile("/workspace/a.txt", "x"));
    assert.equal(ok(await s.readFile("/workspace/a.txt")).content, "x");
    assert.equal(ok(await s.getInfo()).fileApi, true);
  });

  it("SANDBOX_IDLE_TTL_MS '0' → expiresAt null in getInfo and no context.expiresAt on executes (154)", async () => {
    const s = sandbox(fresh("no-ttl"), { caller: "caller-alt" });
    const r = ok(await s.runCode("1", { binding: "JAVASCRIPT" }));
    assert.equal("expiresAt" in r.context, false);
    assert.equal(ok(await s.getInfo()).expiresAt, null);
  });

  it("an idle sandbox expires by its alarm: files, env and contexts wiped, each binding's Interpreter deleted (protocol §7.9)", async () => {
    const s = sandbox(fresh("expires"), { caller: "caller-ttl" });
    ok(await s.setEnvVars({ A: "1" }));
    ok(await s.writeFile("/workspace/f.txt", "x"));
    const ctx = ok(await s.runCode("1", { binding: "JAVASCRIPT" })).context;
    const key = (await w.spy("js")).executes.at(-1).key;
    assert.equal(typeof ok(await s.getInfo()).expiresAt, "number");
    // No request may touch the sandbox now: the runtime's log says when the alarm's destroy reached it.
    let deleted = false;
    for (let i = 0; i < 120 && !deleted; i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      deleted = (await w.spy("js")).requests.some((q) => q.method === "DELETE" && q.path === `/interpreters/${key}`);
    }
    assert.ok(deleted, "the alarm destroyed the sandbox within 30 s");
    const info = ok(await s.getInfo());
    assert.deepEqual([info.envVars, info.contexts, info.workspace], [{}, [], { files: 0, bytes: 0 }]);
    fails(await s.runCode("1", { context: ctx.id }), { cls: "ContextNotFoundError", code: "CONTEXT_NOT_FOUND", status: 404 });
  });

  it("two touches within TTL/10 leave expiresAt unchanged (155)", async () => {
    const s = sandbox(fresh("ttl"));
    const a = ok(await s.getInfo()).expiresAt;
    ok(await s.listCodeContexts());
    const b = ok(await s.getInfo()).expiresAt;
    assert.equal(typeof a, "number");
    assert.equal(b, a);
  });

  it("storage format 1: a files row per file, a data-NULL row per directory, the meta sandbox row, a contexts row (protocol §7.10)", async () => {
    const s = sandbox(fresh("storage"));
    ok(await s.setEnvVars({ A: "1" }));
    ok(await s.mkdir("/workspace/empty"));
    ok(await s.writeFile("/workspace/a.txt", "alpha"));
    const ctx = ok(await s.createCodeContext({ binding: "JAVASCRIPT" }));
    ok(await s.runCode('fs.writeFileSync("/workspace/g.txt", "guest"); 1', { context: ctx }));
    const stored = storageOf("caller", s.id);
    assert.deepEqual(stored.tables, ["contexts", "files", "meta"]);
    assert.equal(stored.meta.format, 1);
    assert.equal(stored.meta.id, s.id);
    assert.deepEqual(stored.meta.envVars, { A: "1" });
    assert.deepEqual(stored.files.map((f) => [f.path, f.data]), [
      ["/workspace/a.txt", "alpha"],
      ["/workspace/empty", null],
      ["/workspace/g.txt", "guest"],
    ]);
    assert.equal(stored.files[1].updatedAt, 0);
    assert.ok(stored.files[0].updatedAt > 0);
    assert.equal(stored.contexts.length, 1);
    const row = stored.contexts[0];
    assert.deepEqual([row.id, row.binding, row.language, row.cwd, row.executions], [ctx.id, "JAVASCRIPT", "javascript", "/workspace", 1]);
  });

  it("an unknown Sandbox path → 404 VALIDATION_FAILED Not found (156)", async () => {
    const r = await w.wire({ id: "unknown-path", method: "GET", path: "/nope", headers: { "x-sandbox-id": "unknown-path" } });
    assert.equal(r.status, 404);
    assert.equal(r.json.code, "VALIDATION_FAILED");
    assert.equal(r.json.message, "Not found");
  });

  it("request bodies: > 98,304 bytes → 413 Request too large, bad JSON → Invalid JSON, an array → Expected an object", async () => {
    const h = { "x-sandbox-id": "bodies", "content-type": "application/json" };
    const big = await w.wire({ id: "bodies", method: "POST", path: "/execute", headers: h, bodyBytes: 98305 });
    assert.equal(big.status, 413);
    assert.equal(big.json.message, "Request too large");
    const bad = await w.wire({ id: "bodies", method: "POST", path: "/contexts", headers: h, body: "{nope" });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.message, "Invalid JSON");
    const arr = await w.wire({ id: "bodies", method: "POST", path: "/env", headers: h, body: "[]" });
    assert.equal(arr.status, 400);
    assert.equal(arr.json.message, "Expected an object");
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe("files API (protocol §10.7)", () => {
  it("unknown op, missing path, rename without newPath, encoding latin1 → 400 with the spec's messages (157)", async () => {
    const h = { "x-sandbox-id": "files-shape", "content-type": "application/json" };
    const op = await w.wire({ id: "files-shape", method: "POST", path: "/files", headers: h, body: { op: "chmod", path: "/workspace/a" } });
    assert.equal(op.status, 400);
    assert.equal(op.json.message, "Unknown op");
    const s = sandbox("files-shape");
    fails(await s.readFile(""), vf("path is required"));
    fails(await s.renameFile("/workspace/a.txt", U), vf("newPath is required for rename"));
    fails(await s.moveFile("/workspace/a.txt", ""), vf("newPath is required for move"));
    fails(await s.readFile("/workspace/a.txt", { encoding: "latin1" }), vf("encoding must be utf-8 or base64"));
    fails(await s.writeFile("/workspace/a.txt", "x", { encoding: "latin1" }), vf("encoding must be utf-8 or base64"));
  });

  it("readFile of a missing file → FileNotFoundError with errno ENOENT, the path as sent and operation file.read (158)", async () => {
    const s = sandbox(fresh("read-missing"));
    const e = fails(await s.readFile("/workspace/missing.txt"), {
      cls: "FileNotFoundError",
      code: "FILE_NOT_FOUND",
      status: 404,
      errno: "ENOENT",
      operation: "file.read",
    });
    assert.equal(e.context.path, "/workspace/missing.txt");
    assert.equal(e.context.operation, "file.read");
  });

  it("readFile of ../../etc/passwd or /etc/passwd → PermissionDeniedError 403 EACCES (159)", async () => {
    const s = sandbox(fresh("escape"));
    for (const p of ["../../etc/passwd", "/etc/passwd", "/workspace/../etc/passwd"]) {
      const e = fails(await s.readFile(p), { cls: "PermissionDeniedError", code: "PERMISSION_DENIED", status: 403, errno: "EACCES" });
      assert.equal(e.context.path, p);
    }
  });

  it("writeFile of 1,048,577 bytes → FileTooLargeError 413 with maxSize and actualSize, nothing written (160)", async () => {
    const s = sandbox(fresh("too-large"));
    ok(await s.writeFile("/workspace/big.txt", "small"));
    const tree = await treeOf(s);
    for (const content of [repeat("a", MiB + 1), { $bytes: b64(new Uint8Array(MiB + 1)) }]) {
      const e = fails(await s.writeFile("/workspace/big.txt", content), { cls: "FileTooLargeError", code: "FILE_TOO_LARGE", status: 413, errno: "EFBIG" });
      assert.equal(e.context.maxSize, 1048576);
      assert.equal(e.context.actualSize, 1048577);
    }
    assert.deepEqual(await treeOf(s), tree);
    ok(await s.writeFile("/workspace/exact.txt", repeat("a", MiB)));
    assert.equal(ok(await s.readFile("/workspace/exact.txt")).size, MiB);
  });

  it("16 × 1 MiB then one more byte → FileSystemError NO_SPACE; a 4,097th entry → NO_SPACE; nothing half-written (161)", async () => {
    const s = sandbox(fresh("full"));
    for (let i = 0; i < 16; i++) ok(await s.writeFile(`/workspace/f${i}.bin`, repeat("b", MiB)));
    const before = ok(await s.getInfo()).workspace;
    assert.deepEqual(before, { files: 16, bytes: 16 * MiB });
    const e = fails(await s.writeFile("/workspace/one-more.txt", "x"), { cls: "FileSystemError", code: "NO_SPACE", status: 500, errno: "ENOSPC" });
    assert.equal(e.message, "Workspace exceeds 16 MiB total");
    assert.deepEqual(ok(await s.getInfo()).workspace, before);
    ok(await s.writeFile("/workspace/f0.bin", repeat("c", MiB)));
    ok(await s.destroy());

    const t = sandbox(fresh("entries"));
    const filled = await w.fill(t.id, 4096, "e");
    assert.equal(filled.ok, true, JSON.stringify(filled));
    const e2 = fails(await t.writeFile("/workspace/e4096.txt", "x"), { cls: "FileSystemError", code: "NO_SPACE", status: 500, errno: "ENOSPC" });
    assert.equal(e2.message, "Workspace exceeds 4096 entries");
    fails(await t.mkdir("/workspace/dir"), { cls: "FileSystemError", code: "NO_SPACE", status: 500, errno: "ENOSPC" });
    assert.deepEqual(ok(await t.getInfo()).workspace, { files: 4096, bytes: 4096 });
    ok(await t.writeFile("/workspace/e0.txt", "replaced: not a new entry"));
    ok(await t.destroy());
  });

  it("mkdir: existing → FILESYSTEM_ERROR EEXIST; missing parent → FILESYSTEM_ERROR ENOENT; recursive creates intermediates (162)", async () => {
    const s = sandbox(fresh("mkdir"));
    ok(await s.mkdir("/workspace/a"));
    fails(await s.mkdir("/workspace/a"), { cls: "FileSystemError", code: "FILESYSTEM_ERROR", status: 500, errno: "EEXIST", operation: "directory.create" });
    fails(await s.mkdir("/workspace/x/y"), { cls: "FileSystemError", code: "FILESYSTEM_ERROR", status: 500, errno: "ENOENT" });
    const r = ok(await s.mkdir("/workspace/x/y/z", { recursive: true }));
    assert.equal(r.path, "/workspace/x/y/z");
    assert.equal(r.recursive, true);
    assert.deepEqual(ok(await s.listFiles("/workspace", { recursive: true })).files.map((f) => f.relativePath).sort(), ["a", "x", "x/y", "x/y/z"]);
    ok(await s.mkdir("/workspace"));
  });

  it("deleteFile of a directory without recursive → IS_DIRECTORY; with recursive → removed; force on a missing path → success (163)", async () => {
    const s = sandbox(fresh("delete"));
    ok(await s.mkdir("/workspace/empty"));
    ok(await s.mkdir("/workspace/full"));
    ok(await s.writeFile("/workspace/full/f.txt", "x"));
    for (const p of ["/workspace/empty", "/workspace/full"]) {
      fails(await s.deleteFile(p), { cls: "FileSystemError", code: "IS_DIRECTORY", status: 400, errno: "EISDIR", operation: "file.delete" });
    }
    ok(await s.deleteFile("/workspace/full", { recursive: true }));
    ok(await s.deleteFile("/workspace/empty", { recursive: true }));
    assert.deepEqual(ok(await s.listFiles("/workspace")).files, []);
    ok(await s.deleteFile("/workspace/missing", { force: true }));
    fails(await s.deleteFile("/workspace/missing"), { cls: "FileNotFoundError", code: "FILE_NOT_FOUND", status: 404, errno: "ENOENT" });
    fails(await s.deleteFile("/workspace", { recursive: true }), { cls: "PermissionDeniedError", code: "PERMISSION_DENIED", status: 403, errno: "EACCES" });
  });

  it("renameFile: file onto a non-empty directory → IS_DIRECTORY; directory onto a non-empty directory → FILESYSTEM_ERROR ENOTEMPTY (164)", async () => {
    const s = sandbox(fresh("rename"));
    ok(await s.mkdir("/workspace/d1"));
    ok(await s.writeFile("/workspace/d1/x.txt", "x"));
    ok(await s.mkdir("/workspace/d2"));
    ok(await s.writeFile("/workspace/d2/y.txt", "y"));
    ok(await s.writeFile("/workspace/f.txt", "f"));
    const tree = await treeOf(s);
    fails(await s.renameFile("/workspace/f.txt", "/workspace/d1"), { cls: "FileSystemError", code: "IS_DIRECTORY", status: 400, errno: "EISDIR", operation: "file.rename" });
    fails(await s.renameFile("/workspace/d1", "/workspace/d2"), { cls: "FileSystemError", code: "FILESYSTEM_ERROR", status: 500, errno: "ENOTEMPTY" });
    fails(await s.moveFile("/workspace/d1", "/workspace/f.txt"), { cls: "FileSystemError", code: "NOT_DIRECTORY", status: 400, errno: "ENOTDIR", operation: "file.move" });
    fails(await s.moveFile("/workspace/f.txt", "/workspace/nodir/f.txt"), { cls: "FileNotFoundError", code: "FILE_NOT_FOUND", status: 404, errno: "ENOENT" });
    assert.deepEqual(await treeOf(s), tree);
    const r = ok(await s.renameFile("f.txt", "/workspace/d1/g.txt"));
    assert.deepEqual([r.path, r.newPath], ["/workspace/f.txt", "/workspace/d1/g.txt"]);
    ok(await s.moveFile("/workspace/d1", "/workspace/d3"));
    assert.equal(ok(await s.readFile("/workspace/d3/g.txt")).content, "f");
  });

  it("readFile of a directory → IS_DIRECTORY; writeFile under a file → NOT_DIRECTORY; listFiles of a file → NOT_DIRECTORY (165)", async () => {
    const s = sandbox(fresh("confusion"));
    ok(await s.mkdir("/workspace/dir"));
    ok(await s.writeFile("/workspace/file.txt", "x"));
    const tree = await treeOf(s);
    fails(await s.readFile("/workspace/dir"), { cls: "FileSystemError", code: "IS_DIRECTORY", status: 400, errno: "EISDIR" });
    fails(await s.writeFile("/workspace/dir", "x"), { cls: "FileSystemError", code: "IS_DIRECTORY", status: 400, errno: "EISDIR" });
    fails(await s.writeFile("/workspace", "x"), { cls: "FileSystemError", code: "IS_DIRECTORY", status: 400, errno: "EISDIR", message: "Cannot write to the /workspace root" });
    fails(await s.writeFile("/workspace/file.txt/child.txt", "x"), { cls: "FileSystemError", code: "NOT_DIRECTORY", status: 400, errno: "ENOTDIR" });
    fails(await s.listFiles("/workspace/file.txt"), { cls: "FileSystemError", code: "NOT_DIRECTORY", status: 400, errno: "ENOTDIR", operation: "directory.list" });
    fails(await s.listFiles("/workspace/nope"), { cls: "FileNotFoundError", code: "FILE_NOT_FOUND", status: 404, errno: "ENOENT" });
    fails(await s.mkdir("/workspace/file.txt/sub", { recursive: true }), { cls: "FileSystemError", code: "FILESYSTEM_ERROR", status: 500, errno: "ENOTDIR" });
    fails(await s.writeFile("/workspace/nodir/a.txt", "x"), { cls: "FileNotFoundError", code: "FILE_NOT_FOUND", status: 404, errno: "ENOENT" });
    assert.deepEqual(await treeOf(s), tree);
  });

  it("writeFile then readFile 'hello' → content, size 5, utf-8, not binary, text/plain (166)", async () => {
    const s = sandbox(fresh("hello"));
    const wr = ok(await s.writeFile("/workspace/hello.txt", "hello", { encoding: "utf8" }));
    assert.equal(wr.success, true);
    assert.equal(wr.path, "/workspace/hello.txt");
    assert.match(wr.timestamp, ISO_RE);
    const r = ok(await s.readFile("/workspace/hello.txt"));
    assert.deepEqual(
      [r.success, r.path, r.content, r.size, r.encoding, r.isBinary, r.mimeType],
      [true, "/workspace/hello.txt", "hello", 5, "utf-8", false, "text/plain"],
    );
    ok(await s.writeFile("/workspace/data.json", "{}"));
    assert.equal(ok(await s.readFile("/workspace/data.json")).mimeType, "application/json");
    ok(await s.writeFile("/workspace/x.py", "1"));
    assert.equal(ok(await s.readFile("/workspace/x.py")).mimeType, "text/x-python");
  });

  it("binary content 00 01 02 ff fe round-trips as base64, isBinary true; Uint8Array, streams and encoding none (167)", async () => {
    const s = sandbox(fresh("binary"));
    const bytes = [0x00, 0x01, 0x02, 0xff, 0xfe];
    ok(await s.writeFile("/workspace/b.bin", b64(bytes), { encoding: "base64" }));
    const r = ok(await s.readFile("/workspace/b.bin", { encoding: "base64" }));
    assert.deepEqual([r.content, r.isBinary, r.size, r.encoding, r.mimeType], [b64(bytes), true, 5, "base64", "application/octet-stream"]);
    ok(await s.writeFile("/workspace/u.bin", { $bytes: b64(bytes) }));
    assert.equal(ok(await s.readFile("/workspace/u.bin", { encoding: "base64" })).content, b64(bytes));
    const streamed = Buffer.from("streamed in three chunks");
    ok(await s.writeFile("/workspace/s.txt", { $stream: streamed.toString("base64"), chunks: 3 }));
    assert.equal(ok(await s.readFile("/workspace/s.txt")).content, "streamed in three chunks");
    // The seed's ReadFileStreamResult: the bytes in content, a ReadableStream of Uint8Array chunks (the fixture reads
    // it with getReader()); the read's path, size, mimeType and timestamp beside it.
    const none = ok(await s.readFile("/workspace/b.bin", { encoding: "none" }));
    assert.match(none.timestamp, ISO_RE);
    assert.deepEqual({ ...none, timestamp: null }, {
      success: true,
      path: "/workspace/b.bin",
      content: { $stream: b64(bytes), chunks: 1 },
      size: 5,
      mimeType: "application/octet-stream",
      timestamp: null,
    });
    const textStream = ok(await s.readFile("/workspace/s.txt", { encoding: "none" }));
    assert.deepEqual([textStream.content, textStream.size, textStream.mimeType], [{ $stream: streamed.toString("base64"), chunks: 1 }, streamed.length, "text/plain"]);
    const lossy = ok(await s.readFile("/workspace/b.bin"));
    assert.equal(lossy.encoding, "utf-8");
    assert.equal(lossy.isBinary, true);
  });

  it("listFiles omits .hidden entries unless includeHidden; recursive includes nested entries (168)", async () => {
    const s = sandbox(fresh("list"));
    ok(await s.writeFile("/workspace/.hidden", "h"));
    ok(await s.mkdir("/workspace/.config"));
    ok(await s.writeFile("/workspace/.config/c.txt", "c"));
    ok(await s.mkdir("/workspace/sub"));
    ok(await s.writeFile("/workspace/sub/n.txt", "nested"));
    ok(await s.writeFile("/workspace/top.txt", "t"));
    const names = (r) => ok(r).files.map((f) => f.relativePath).sort();
    assert.deepEqual(names(await s.listFiles("/workspace")), ["sub", "top.txt"]);
    assert.deepEqual(names(await s.listFiles("/workspace", { recursive: true })), ["sub", "sub/n.txt", "top.txt"]);
    assert.deepEqual(names(await s.listFiles("/workspace", { includeHidden: true })), [".config", ".hidden", "sub", "top.txt"]);
    assert.deepEqual(names(await s.listFiles("/workspace", { recursive: true, includeHidden: true })), [
      ".config", ".config/c.txt", ".hidden", "sub", "sub/n.txt", "top.txt",
    ]);
    const sub = ok(await s.listFiles("/workspace/sub"));
    assert.equal(sub.count, 1);
    const [f] = sub.files;
    assert.deepEqual([f.name, f.absolutePath, f.relativePath, f.type, f.size, f.mode], ["n.txt", "/workspace/sub/n.txt", "n.txt", "file", 6, "-rw-r--r--"]);
    assert.deepEqual(f.permissions, { readable: true, writable: true, executable: false });
    assert.match(f.modifiedAt, ISO_RE);
  });

  it("exists: a missing path and an escaping path answer exists false, the root true (169)", async () => {
    const s = sandbox(fresh("exists"));
    ok(await s.writeFile("/workspace/here.txt", "x"));
    assert.equal(ok(await s.exists("/workspace/missing")).exists, false);
    assert.equal(ok(await s.exists("/etc/passwd")).exists, false);
    assert.equal(ok(await s.exists("../../etc/passwd")).exists, false);
    assert.equal(ok(await s.exists("/workspace")).exists, true);
    assert.equal(ok(await s.exists("here.txt")).exists, true);
  });

  it("a files body over 2 MiB → 413 Request too large, through the wire and through writeFile (170)", async () => {
    const h = { "x-sandbox-id": "files-big", "content-type": "application/json" };
    const r = await w.wire({ id: "files-big", method: "POST", path: "/files", headers: h, bodyBytes: 2 * MiB + 1 });
    assert.equal(r.status, 413);
    assert.equal(r.json.message, "Request too large");
    const s = sandbox("files-big");
    // 1.6 MB of bytes is 2.1 MB of base64.
    fails(await s.writeFile("/workspace/a.bin", { $bytes: b64(new Uint8Array(1600000)) }), { ...vf("Request too large"), status: 413 });
    assert.deepEqual(ok(await s.getInfo()).workspace, { files: 0, bytes: 0 });
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe("bad input (issue 11): the seed's error class and code, nothing half-written", () => {
  const long = "/workspace/" + "a".repeat(4097);
  const deep = "/workspace/" + "d/".repeat(257) + "f.txt";
  const nul = "/workspace/a\u0000b.txt";
  const escaping = ["../x.txt", "/etc/x.txt", "/workspace/../../x.txt", "/tmp"];
  const denied = { cls: "PermissionDeniedError", code: "PERMISSION_DENIED", status: 403, errno: "EACCES" };
  const invalid = { cls: "FileSystemError", code: "FILESYSTEM_ERROR", status: 500, errno: "EINVAL" };
  const tooLong = { cls: "FileSystemError", code: "FILESYSTEM_ERROR", status: 500, errno: "ENAMETOOLONG" };

  it("every files-API call with an escaping path → PermissionDeniedError (EACCES); exists → false", async () => {
    const s = sandbox(fresh("bad-escape"));
    ok(await s.writeFile("/workspace/src.txt", "src"));
    const tree = await treeOf(s);
    for (const p of escaping) {
      fails(await s.readFile(p), denied);
      fails(await s.writeFile(p, "x"), denied);
      fails(await s.mkdir(p, { recursive: true }), denied);
      fails(await s.deleteFile(p, { recursive: true, force: true }), denied);
      fails(await s.renameFile(p, "/workspace/dst.txt"), denied);
      fails(await s.renameFile("/workspace/src.txt", p), denied);
      fails(await s.moveFile("/workspace/src.txt", p), denied);
      fails(await s.listFiles(p), denied);
      assert.equal(ok(await s.exists(p)).exists, false);
    }
    assert.deepEqual(await treeOf(s), tree);
  });

  it("every files-API call with a NUL byte in the path → FileSystemError (EINVAL); exists → false", async () => {
    const s = sandbox(fresh("bad-nul"));
    ok(await s.writeFile("/workspace/src.txt", "src"));
    const tree = await treeOf(s);
    fails(await s.readFile(nul), invalid);
    fails(await s.writeFile(nul, "x"), invalid);
    fails(await s.mkdir(nul), invalid);
    fails(await s.deleteFile(nul, { force: true }), invalid);
    fails(await s.renameFile("/workspace/src.txt", nul), invalid);
    fails(await s.moveFile(nul, "/workspace/dst.txt"), invalid);
    fails(await s.listFiles(nul), invalid);
    assert.equal(ok(await s.exists(nul)).exists, false);
    assert.deepEqual(await treeOf(s), tree);
  });

  it("creating an entry under a too long or too deep path → FileSystemError (ENAMETOOLONG)", async () => {
    const s = sandbox(fresh("bad-long"));
    ok(await s.writeFile("/workspace/src.txt", "src"));
    // The deepest directory there may be (256 components below the root), and an entry one deeper.
    const deepest = "/workspace/" + Array(256).fill("d").join("/");
    ok(await s.mkdir(deepest, { recursive: true }));
    ok(await s.mkdir("/workspace/tree/sub", { recursive: true }));
    const tree = await treeOf(s);
    for (const p of [long, `${deepest}/f.txt`]) {
      fails(await s.writeFile(p, "x"), tooLong);
      fails(await s.mkdir(p, { recursive: true }), tooLong);
      fails(await s.renameFile("/workspace/src.txt", p), tooLong);
      fails(await s.moveFile("/workspace/src.txt", p), tooLong);
      assert.equal(ok(await s.exists(p)).exists, false);
    }
    fails(await s.mkdir(deep, { recursive: true }), tooLong);
    // A subtree moved under the deepest directory would put its children too deep.
    fails(await s.moveFile("/workspace/tree", `${"/workspace/" + Array(255).fill("d").join("/")}/tree`), tooLong);
    assert.deepEqual(await treeOf(s), tree);
  });

  it("a bad context id: unknown, empty, or not a string → ContextNotFoundError or ValidationFailedError", async () => {
    const s = sandbox(fresh("bad-context"));
    const notFound = { cls: "ContextNotFoundError", code: "CONTEXT_NOT_FOUND", status: 404 };
    fails(await s.runCode("1", { context: "no-such-context" }), notFound);
    fails(await s.runCode("1", { context: "../../etc" }), notFound);
    fails(await s.deleteCodeContext("no-such-context"), notFound);
    fails(await s.runCode("1", { context: { id: 42 } }), vf("contextId must be a non-empty string"));
    assert.deepEqual(ok(await s.listCodeContexts()), []);
  });

  it("a binding that is not a runtime and a runtime of another protocol leave no context behind", async () => {
    const s = sandbox(fresh("bad-binding"));
    fails(await s.runCode("1", { binding: "PLAIN" }), vf("Binding 'PLAIN' is not a sandbox-workers runtime Worker"));
    fails(await s.runCode("1", { binding: "NOTABINDING" }), vf("Unknown binding 'NOTABINDING'"));
    fails(await s.runCode("1", { binding: "PROTO2" }), vf("Binding 'PROTO2' speaks interpreter protocol 2; this caller supports 1"));
    assert.deepEqual(ok(await s.listCodeContexts()), []);
    assert.deepEqual(ok(await s.getInfo()).contexts, []);
  });

  it("hostile executes: oversized code, malformed envVars and cwd → 4xx ValidationFailedError; a guest over the workspace limits → a guest error, the tree unchanged", async () => {
    const s = sandbox(fresh("hostile"));
    ok(await s.writeFile("/workspace/keep.txt", "keep"));
    const tree = await treeOf(s);
    fails(await s.runCode(repeat("1;", 32769), { binding: "JAVASCRIPT" }), { ...vf("Code exceeds 64 KiB"), status: 413 });
    fails(await s.runCode("1", { binding: "JAVASCRIPT", envVars: "A=1" }), vf("envVars must be an object"));
    fails(await s.runCode("1", { binding: "JAVASCRIPT", envVars: { A: 1 } }), vf("envVars values must be strings"));
    fails(await s.createCodeContext({ binding: "JAVASCRIPT", cwd: 7 }), vf("cwd must be a non-empty string"));
    fails(await s.createCodeContext({ binding: "JAVASCRIPT", envVars: { A: null } }), vf("envVars values must be strings"));
    fails(await s.createCodeContext({ binding: 42 }), vf("binding is required"));
    const big = ok(await s.runCode('fs.writeFileSync("/workspace/big.bin", new Uint8Array(1048577)); 1', { binding: "JAVASCRIPT" }));
    assert.ok(big.error, "a guest error for a file over 1 MiB");
    const many = ok(await s.runCode(
      'let e = null; try { for (let i = 0; i < 17; i++) fs.writeFileSync("/workspace/m" + i + ".bin", new Uint8Array(1048576)); } catch (x) { e = x.code } e',
      { binding: "JAVASCRIPT" },
    ));
    assert.equal(text(many), "'ENOSPC'");
    // The second execute succeeded with the 16 files it could write before ENOSPC: they are the sandbox's now.
    const after = ok(await s.getInfo()).workspace;
    assert.ok(after.bytes <= 16 * MiB, JSON.stringify(after));
    ok(await s.runCode('for (let i = 0; i < 17; i++) { try { fs.rmSync("/workspace/m" + i + ".bin") } catch {} } 1', { binding: "JAVASCRIPT" }));
    assert.deepEqual(await treeOf(s), tree);
  });

  it("more than 8 contexts → Cannot create more than 8 code contexts, checked before probing", async () => {
    const s = sandbox(fresh("eight"));
    for (let i = 0; i < 8; i++) ok(await s.createCodeContext({ binding: i % 2 ? "NOPROTO" : "JAVASCRIPT" }));
    fails(await s.createCodeContext({ binding: "JAVASCRIPT" }), vf("Cannot create more than 8 code contexts"));
    fails(await s.createCodeContext({ binding: "WEIRD" }), vf("Cannot create more than 8 code contexts"));
    assert.equal(ok(await s.listCodeContexts()).length, 8);
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe("workspace across languages, restarts and syncs", () => {
  it("a JavaScript context writes data.json with fs.writeFileSync, a Python context reads it with open(), the files API sees Python's file", async () => {
    const s = sandbox(fresh("cross"));
    const js = ok(await s.createCodeContext({ binding: "JAVASCRIPT" }));
    const py = ok(await s.createCodeContext({ binding: "PYTHON" }));
    ok(await s.runCode('fs.writeFileSync("/workspace/data.json", JSON.stringify({ from: "javascript", n: 41 })); 1', { context: js }));
    const read = ok(await s.runCode(
      "import json\nwith open('/workspace/data.json') as f:\n    d = json.load(f)\nwith open('/workspace/from_python.txt', 'w') as f:\n    f.write(d['from'] + ' ' + str(d['n'] + 1))\nd",
      { context: py },
    ));
    assert.deepEqual(read.results, [{ json: { from: "javascript", n: 41 } }]);
    assert.equal(ok(await s.readFile("/workspace/from_python.txt")).content, "javascript 42");
    const back = ok(await s.runCode('fs.readFileSync("/workspace/from_python.txt", "utf8")', { context: js }));
    assert.equal(text(back), "'javascript 42'");
    assert.deepEqual(ok(await s.listFiles("/workspace")).files.map((f) => f.name).sort(), ["data.json", "from_python.txt"]);
  });

  it("a Ruby context reads what JavaScript and Python wrote and writes a file both read back; its globals persist", async () => {
    const s = sandbox(fresh("cross-ruby"));
    const js = ok(await s.createCodeContext({ binding: "JAVASCRIPT" }));
    const py = ok(await s.createCodeContext({ binding: "PYTHON" }));
    const rb = ok(await s.createCodeContext({ binding: "RUBY" }));
    assert.equal(rb.language, "ruby");
    ok(await s.runCode('fs.writeFileSync("/workspace/data.json", JSON.stringify({ from: "javascript", n: 40 })); 1', { context: js }));
    ok(await s.runCode("open('/workspace/py.txt', 'w').write('python')\n1", { context: py }));
    const read = ok(await s.runCode(
      'require "json"\n$d = JSON.parse(File.read("/workspace/data.json"))\n' +
        'Dir.mkdir("/workspace/rb") unless Dir.exist?("/workspace/rb")\nDir.chdir("/workspace/rb")\n' +
        'File.write("from_ruby.txt", "#{$d["from"]} #{File.read("/workspace/py.txt")} #{$d["n"] + 1}")\n$d',
      { context: rb },
    ));
    assert.deepEqual(read.results, [{ json: { from: "javascript", n: 40 } }]);
    assert.equal(read.context.cwd, "/workspace/rb");
    assert.equal(ok(await s.readFile("/workspace/rb/from_ruby.txt")).content, "javascript python 41");
    assert.equal(text(ok(await s.runCode('fs.readFileSync("/workspace/rb/from_ruby.txt", "utf8")', { context: js }))), "'javascript python 41'");
    assert.equal(text(ok(await s.runCode("open('/workspace/rb/from_ruby.txt').read()", { context: py }))), "'javascript python 41'");
    const again = ok(await s.runCode('[$d["n"], Dir.pwd, File.read("from_ruby.txt")]', { context: rb }));
    assert.deepEqual(again.results, [{ json: [40, "/workspace/rb", "javascript python 41"] }]);
  });

  it("after a restart over the same storage, the sandbox's files, contexts and a context's globals survive (145)", async () => {
    const s = sandbox(fresh("restart"));
    ok(await s.setEnvVars({ KEPT: "yes" }));
    const js = ok(await s.createCodeContext({ binding: "JAVASCRIPT", cwd: "/workspace" }));
    const py = ok(await s.createCodeContext({ binding: "PYTHON" }));
    ok(await s.runCode('var kept = 41; fs.mkdirSync("/workspace/empty"); fs.writeFileSync("/workspace/guest.txt", "written by the guest"); kept', { context: js }));
    ok(await s.runCode("counter = 10", { context: py }));
    ok(await s.writeFile("/workspace/api.txt", "written by the API"));
    const before = await treeOf(s);
    await restart();
    assert.deepEqual(await treeOf(s), before);
    assert.deepEqual(ok(await s.listCodeContexts()).map((c) => c.id), [js.id, py.id]);
    assert.equal(text(ok(await s.runCode("kept + 1", { context: js }))), "42");
    assert.equal(text(ok(await s.runCode("counter + 1", { context: py }))), "11");
    assert.equal(text(ok(await s.runCode('fs.readFileSync("/workspace/api.txt", "utf8") + " / " + process.env.KEPT', { context: js }))), "'written by the API / yes'");
    assert.equal(ok(await s.readFile("/workspace/guest.txt")).content, "written by the guest");
    const info = ok(await s.getInfo());
    assert.deepEqual(info.contexts.map((c) => c.executions), [3, 2]);
    assert.deepEqual(info.envVars, { KEPT: "yes" });
  });

  it("only changed files move: after a restart each file is pulled once; an execute that changes one file returns only it", async () => {
    const s = sandbox(fresh("sync"));
    for (let i = 0; i < 5; i++) ok(await s.writeFile(`/workspace/f${i}.txt`, `file ${i}`));
    const ctx = ok(await s.createCodeContext({ binding: "JAVASCRIPT" }));
    await w.clearSpy("js");
    ok(await s.runCode("1", { context: ctx }));
    ok(await s.runCode("2", { context: ctx }));
    let spy = await w.spy("js");
    const pulled = spy.executes.map((e) => e.getFiles.flatMap((g) => g.paths).sort());
    assert.deepEqual(pulled, [["/workspace/f0.txt", "/workspace/f1.txt", "/workspace/f2.txt", "/workspace/f3.txt", "/workspace/f4.txt"], []]);
    assert.deepEqual(spy.executes.map((e) => e.result.files), [[], []]);

    await restart();
    await w.clearSpy("js");
    ok(await s.runCode("3", { context: ctx }));
    const r = ok(await s.runCode('fs.writeFileSync("/workspace/f2.txt", "changed"); 4', { context: ctx }));
    assert.equal(text(r), "4");
    ok(await s.writeFile("/workspace/f4.txt", "changed by the API"));
    ok(await s.runCode("5", { context: ctx }));
    spy = await w.spy("js");
    const paths = spy.executes.map((e) => e.getFiles.flatMap((g) => g.paths).sort());
    // First execute after the restart: the interpreter's mirror is gone, each file is pulled exactly once.
    assert.deepEqual(paths[0], ["/workspace/f0.txt", "/workspace/f1.txt", "/workspace/f2.txt", "/workspace/f3.txt", "/workspace/f4.txt"]);
    assert.deepEqual(paths[1], []);
    assert.deepEqual(paths[2], ["/workspace/f4.txt"]);
    assert.deepEqual(spy.executes.map((e) => e.result.files.map((f) => f.path)), [[], ["/workspace/f2.txt"], []]);
    assert.equal(ok(await s.readFile("/workspace/f2.txt")).content, "changed");
  });

  it("concurrent client calls on one sandbox are served one at a time: every write and execute lands, none is lost", async () => {
    const s = sandbox(fresh("concurrent"));
    const ctx = ok(await s.createCodeContext({ binding: "JAVASCRIPT" }));
    ok(await s.runCode("var runs = 0; 0", { context: ctx }));
    const calls = [];
    for (let i = 0; i < 12; i++) {
      calls.push(s.writeFile(`/workspace/api-${i}.txt`, `api ${i}`));
      calls.push(s.runCode(`runs += 1; fs.writeFileSync("/workspace/guest-${i}.txt", "guest ${i}"); runs`, { context: ctx }));
    }
    const answers = await Promise.all(calls);
    for (const r of answers) ok(r);
    const counts = answers.filter((_, i) => i % 2 === 1).map((r) => Number(text(r.value))).sort((a, b) => a - b);
    assert.deepEqual(counts, Array.from({ length: 12 }, (_, i) => i + 1));
    const names = ok(await s.listFiles("/workspace")).files.map((f) => f.name).sort();
    const want = [];
    for (let i = 0; i < 12; i++) want.push(`api-${i}.txt`, `guest-${i}.txt`);
    assert.deepEqual(names, want.sort());
    assert.equal(ok(await s.getInfo()).contexts[0].executions, 13);
  });

  it("the README's caller quick start works as written", async () => {
    const first = await (await w.fetch("https://quickstart.test/")).json();
    assert.deepEqual(first, { visits: "1", python: "42", file: { n: 42 }, missing: "FILE_NOT_FOUND", contexts: 2 });
    const second = await (await w.fetch("https://quickstart.test/")).json();
    assert.deepEqual(second, { visits: "2", python: "42", file: { n: 42 }, missing: "FILE_NOT_FOUND", contexts: 2 });
  });
});
