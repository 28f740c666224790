// The caller's Sandbox Durable Object (worker-shim/sandbox.js over cpp/sandbox) in workerd: a caller Worker exporting
// it (fixtures/sandbox-caller.js) and the real JavaScript runtime Worker bound as JAVASCRIPT, in one Miniflare with
// on-disk storage. A smoke test of the whole path — protocol §7.4 context creation with the probe, §7.5 execute through
// executeInContext with the getFiles pull and the result's workspace diff, protocol §7.7 files API. The full client suite is
// test/integration/sandbox*.test.mjs of the client work.
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startMiniflare, helperWorkerOptions, runtimeWorkerOptions, BASE } from "./helpers.mjs";

const persist = mkdtempSync(path.join(tmpdir(), "sw-sandbox-smoke-"));
let mf;

async function start() {
  const caller = helperWorkerOptions({
    name: "caller",
    entry: "sandbox-caller.js",
    serviceBindings: { JAVASCRIPT: "runtime", STATELESS: "stateless" },
  });
  caller.durableObjects = { SANDBOX: { className: "Sandbox", useSQLite: true } };
  // STATELESS: the same runtime Worker deployed without its INTERPRETER binding, so its probe says contexts: false.
  const stateless = runtimeWorkerOptions({ name: "stateless", entry: "../../../engines/javascript/worker.js", routes: ["stateless.test/*"] });
  mf = await startMiniflare([caller, runtimeWorkerOptions({ name: "runtime", routes: ["runtime.test/*"] }), stateless], {
    resourcePersistencePath: persist,
  });
}

async function call(method, p, body, id = "smoke") {
  const init = { method, headers: { "x-sandbox-id": id } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers["content-type"] = "application/json";
  }
  const res = await mf.dispatchFetch(new URL(p, BASE), init);
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text), text };
}

describe("Sandbox Durable Object in workerd (smoke)", () => {
  before(start);
  after(async () => {
    await mf?.dispose();
    rmSync(persist, { recursive: true, force: true });
  });

  let contextId;

  it("creates a context on the JAVASCRIPT binding (201, a UUID id, language from the probe)", async () => {
    const r = await call("POST", "/contexts", { binding: "JAVASCRIPT" });
    assert.equal(r.status, 201, r.text);
    assert.match(r.body.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(r.body.binding, "JAVASCRIPT");
    assert.equal(r.body.language, "javascript");
    assert.equal(r.body.cwd, "/workspace");
    contextId = r.body.id;
  });

  it("keeps state across executes in the context: globalThis.n = 1, then n + 1 is 2", async () => {
    const a = await call("POST", "/execute", { code: "globalThis.n = 1", contextId });
    assert.equal(a.status, 200, a.text);
    assert.equal(a.body.error, undefined, a.text);
    const b = await call("POST", "/execute", { code: "n + 1", contextId });
    assert.equal(b.status, 200, b.text);
    assert.deepEqual(b.body.results, [{ text: "2" }]);
    assert.equal(b.body.executionCount, 2);
    assert.equal(b.body.context.id, contextId);
    assert.equal(b.body.context.executions, 2);
    assert.equal(typeof b.body.context.expiresAt, "number");
    assert.equal(b.body.workspace, undefined);
  });

  it("serves a file written through POST /files to guest code (fs.readFileSync), pulled by getFiles", async () => {
    const w = await call("POST", "/files", { op: "write", path: "/workspace/input.txt", content: "from the files API" });
    assert.equal(w.status, 200, w.text);
    const r = await call("POST", "/execute", {
      code: "fs.readFileSync('/workspace/input.txt', 'utf8')",
      contextId,
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.error, undefined, r.text);
    assert.deepEqual(r.body.results, [{ text: "'from the files API'" }]);
  });

  it("applies the result's written file to the sandbox: POST /files reads it back", async () => {
    const r = await call("POST", "/execute", {
      code: "fs.writeFileSync('/workspace/out.txt', 'written by the guest'); 'done'",
      contextId,
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.error, undefined, r.text);
    const read = await call("POST", "/files", { op: "read", path: "/workspace/out.txt" });
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.content, "written by the guest");
    assert.equal(read.body.size, 20);
  });

  it("survives a restart over the same storage: contexts, files and the guest's state", async () => {
    await mf.dispose();
    await start();
    const info = await call("GET", "/");
    assert.equal(info.status, 200, info.text);
    assert.equal(info.body.id, "smoke");
    assert.equal(info.body.contexts.length, 1);
    assert.equal(info.body.contexts[0].executions, 4);
    assert.equal(info.body.workspace.files, 2);
    const read = await call("POST", "/files", { op: "read", path: "/workspace/out.txt" });
    assert.equal(read.body.content, "written by the guest");
    const r = await call("POST", "/execute", { code: "n + 1", contextId });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.results, [{ text: "2" }]);
  });

  it("runs statelessly on a contexts:false binding, with the sandbox's env vars, and registers no context", async () => {
    const env = await call("POST", "/env", { envVars: { GREETING: "hi" } });
    assert.equal(env.status, 200, env.text);
    const r = await call("POST", "/execute", { code: "process.env.GREETING + '!'", binding: "STATELESS" });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.results, [{ text: "'hi!'" }]);
    assert.equal(r.body.language, "javascript");
    assert.equal(r.body.context, undefined);
    assert.equal(r.body.executionCount, undefined);
    const refused = await call("POST", "/contexts", { binding: "STATELESS" });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.message, "Code contexts are not supported by binding 'STATELESS' (javascript)");
    const list = await call("GET", "/contexts");
    assert.deepEqual(list.body.contexts.map((c) => c.binding), ["JAVASCRIPT"]);
  });

  it("answers bad input with the spec's errors, not 500s", async () => {
    const noId = await mf.dispatchFetch(new URL("/", BASE));
    assert.equal(noId.status, 400);
    assert.equal((await noId.json()).code, "VALIDATION_FAILED");
    const unknown = await call("POST", "/contexts", { binding: "NOPE" });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.message, "Unknown binding 'NOPE'");
    const missing = await call("POST", "/files", { op: "read", path: "/workspace/missing" });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.code, "FILE_NOT_FOUND");
    assert.equal(missing.body.operation, "file.read");
    const gone = await call("POST", "/execute", { code: "1", contextId: "missing" });
    assert.equal(gone.status, 404);
    assert.equal(gone.body.code, "CONTEXT_NOT_FOUND");
    const nf = await call("GET", "/nope");
    assert.equal(nf.status, 404);
    assert.equal(nf.body.message, "Not found");
  });

  it("destroys the sandbox: DELETE / then no contexts and no files", async () => {
    const d = await call("DELETE", "/");
    assert.equal(d.status, 200, d.text);
    assert.deepEqual(d.body, { success: true });
    const list = await call("GET", "/contexts");
    assert.deepEqual(list.body.contexts, []);
    const exists = await call("POST", "/files", { op: "exists", path: "/workspace/out.txt" });
    assert.equal(exists.body.exists, false);
  });
});
