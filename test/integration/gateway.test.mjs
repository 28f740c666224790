// The Playground gateway (gateway/worker.js over cpp/gateway) in workerd, with every real runtime Worker behind its
// Service Bindings: protocol §10.9 items 185-188 and the §8 errors. Lua is our fifth language, so GET /languages lists
// five entries where the item's four-runtime gateway lists four. The Sandbox routes here reach a spy Durable Object
// (fixtures/gateway-sandbox-spy.js) that answers with what it received.
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ROOT, helperWorkerOptions, assertErrorResponse, assertExecutionResult, jsonBody, streamBody, wranglerWorker } from "./helpers.mjs";
import { startPlayground, LANGUAGES, GATEWAY_CONFIG, MANIFESTS } from "../playground/harness.mjs";

const json = (body) => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

// The limits the gateway reports for a runtime: its manifest's (engines/<id>/engine.json, which its engine.js reads
// too) and the protocol's request caps.
function manifestLimits(language) {
  const { limits } = MANIFESTS.find((l) => l.id === language);
  return { codeBytes: 65536, requestBytes: 98304, fuel: limits.fuel, memoryBytes: limits.memoryBytes };
}

describe("Playground gateway", () => {
  let pg;
  before(async () => {
    const spy = helperWorkerOptions({ name: "spy", entry: "gateway-sandbox-spy.js" });
    spy.durableObjects = { SANDBOX: "Sandbox" };
    pg = await startPlayground({
      gateway: { durableObjects: { SANDBOX: { className: "Sandbox", scriptName: "spy" }, LIMITER: { className: "Limiter", useSQLite: true } } },
      extraWorkers: [spy],
    });
  });
  after(() => pg?.dispose());

  it("POST /execute/python runs on the Python runtime, POST /execute on JavaScript, /execute/lua on Lua (item 185)", async () => {
    const python = await assertExecutionResult(await pg.fetch("/execute/python", json({ code: "import sys\nprint('hi')\n6 * 7" })));
    assert.equal(python.language, "python");
    assert.deepEqual(python.results, [{ text: "42" }]);
    assert.deepEqual(python.logs.stdout, ["hi"]);
    const js = await assertExecutionResult(await pg.fetch("/execute", json({ code: "[1, 2].map((n) => n * 2)" })));
    assert.equal(js.language, "javascript");
    assert.deepEqual(js.results, [{ json: [2, 4] }]);
    const lua = await assertExecutionResult(await pg.fetch("/execute/lua", json({ code: "return 1 + 1" })));
    assert.equal(lua.language, "lua");
    for (const language of ["perl", "ruby"]) {
      const r = await assertExecutionResult(await pg.fetch(`/execute/${language}`, json({ code: "1 + 1" })));
      assert.equal(r.language, language);
      assert.deepEqual(r.results, [{ text: "2" }]);
    }
  });

  it("POST /execute/php is 400 Unsupported language: php (item 185)", async () => {
    await assertErrorResponse(await pg.fetch("/execute/php", json({ code: "1" })), 400, "Unsupported language: php");
  });

  it("envVars reach the runtime, invalid keys dropped, as the runtime's own POST /execute does", async () => {
    const r = await assertExecutionResult(
      await pg.fetch("/execute/python", json({ code: "import os\nsorted(os.environ.items())", envVars: { X: "1", "bad-key": "2" } })),
    );
    assert.deepEqual(r.results, [{ json: [["X", "1"]] }]);
  });

  it("POST /execute/<language> is validated like the runtime's POST /execute (protocol §2.3 with that runtime's language)", async () => {
    await assertErrorResponse(
      await pg.fetch("/execute/python", { method: "POST", headers: { "content-type": "text/plain" }, body: "{}" }),
      415, "Content-Type must be application/json");
    await assertErrorResponse(
      await pg.fetch("/execute/python", { method: "POST", headers: { "content-type": "application/json" }, body: "{" }),
      400, "Invalid JSON");
    await assertErrorResponse(await pg.fetch("/execute/python", json({ code: "1", language: "ruby" })), 400,
      "Unsupported language 'ruby' on this runtime (python)");
    await assertErrorResponse(await pg.fetch("/execute/ruby", json({ code: "   " })), 400, "Non-empty code is required");
    await assertErrorResponse(await pg.fetch("/execute/perl", json({ code: "x".repeat(65537) })), 413, "Code exceeds 64 KiB");
    const { stream } = streamBody(98_305); // limit + 1: nothing is left to send once the gateway stops reading
    await assertErrorResponse(
      await pg.fetch("/execute/lua", { method: "POST", headers: { "content-type": "application/json" }, body: stream, duplex: "half" }),
      413, "Request too large");
    const ts = await assertExecutionResult(await pg.fetch("/execute/javascript", json({ code: "const n: number = 2; n", language: "ts" })));
    assert.deepEqual(ts.results, [{ text: "2" }]);
  });

  it("a fuel-exhausting program is a 200 with ExecutionLimitError, relayed unchanged", async () => {
    const r = await assertExecutionResult(await pg.fetch("/execute/javascript", json({ code: "while (true) {}" })));
    assert.equal(r.error.name, "ExecutionLimitError");
    assert.equal(r.error.message, "Execution fuel exhausted");
  });

  it("GET /execute is 405 Use POST with Allow: POST; POST /languages 405 with Allow: GET; PUT on a sandbox 405 with Allow: GET, POST, DELETE (item 186)", async () => {
    const cases = [
      ["GET", "/execute", "Use POST", "POST"],
      ["PUT", "/execute/python", "Use POST", "POST"],
      ["POST", "/languages", "Method not allowed", "GET"],
      ["PUT", "/languages/python/sandboxes/abc", "Method not allowed", "GET, POST, DELETE"],
    ];
    for (const [method, p, message, allow] of cases) {
      const res = await pg.fetch(p, { method });
      assert.equal(res.headers.get("allow"), allow, `${method} ${p}`);
      await assertErrorResponse(res, 405, message);
    }
  });

  it("GET /languages lists each runtime from its probe, with its package, mode, capabilities and limits (item 188, five runtimes)", async () => {
    const res = await pg.fetch("/languages");
    assert.equal(res.status, 200);
    const { languages } = await jsonBody(res);
    assert.deepEqual(languages.map((l) => l.id), LANGUAGES);
    const version = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).version;
    for (const entry of languages) {
      const probe = await (await pg.fetch(`/execute/${entry.id}`, json({ code: "1" }))).json();
      assert.equal(entry.enabled, true, entry.id);
      assert.equal(entry.engine, probe.engine, `${entry.id}: the engine its runtime reports`);
      assert.equal(entry.package, `@sandbox-workers/${entry.id}`);
      assert.equal(entry.version, version);
      assert.equal(entry.binding, entry.id.toUpperCase());
      assert.deepEqual(entry.limits, manifestLimits(entry.id), `${entry.id}: the manifest's limits`);
      // The budget the runtime itself metered the probe with: its Engine's limits are the same manifest's.
      assert.equal(probe.usage.fuelLimit, entry.limits.fuel, `${entry.id}: the runtime's own budget`);
      assert.ok(probe.usage.fuelConsumed > 0 && probe.usage.fuelConsumed < entry.limits.fuel, `${entry.id}: ${probe.usage.fuelConsumed}`);
      // Every built-in runtime has code contexts (Ruby since issue 26); a stateless one would be "stateless",
      // ["execute", "files"] (test/unit/test_gateway.cpp).
      assert.equal(entry.contexts, true);
      assert.equal(entry.mode, "both");
      assert.deepEqual(entry.capabilities, ["execute", "contexts", "files"]);
    }
    assert.equal(languages.find((l) => l.id === "python").name, "Python");
  });

  it("POST /languages/python/sandboxes/abc/execute reaches the Sandbox with binding PYTHON, whatever the client sent (item 187)", async () => {
    const res = await pg.fetch("/languages/python/sandboxes/abc/execute", json({ code: "x = 1", binding: "EVIL" }));
    assert.equal(res.status, 200);
    const seen = await res.json();
    assert.equal(seen.method, "POST");
    assert.equal(seen.path, "/execute");
    assert.equal(seen.sandboxId, "abc");
    assert.deepEqual(JSON.parse(seen.body), { code: "x = 1", binding: "PYTHON" });
    const ctx = await (await pg.fetch("/languages/lua/sandboxes/abc/contexts", json({ cwd: "/workspace" }))).json();
    assert.deepEqual(JSON.parse(ctx.body), { cwd: "/workspace", binding: "LUA" });
  });

  it("sandbox sub-paths are forwarded as they are: GET /, DELETE a context, POST /files bodies unchanged", async () => {
    const info = await (await pg.fetch("/languages/perl/sandboxes/s1")).json();
    assert.deepEqual([info.method, info.path, info.sandboxId, info.bodyLength], ["GET", "/", "s1", null]);
    const del = await (await pg.fetch("/languages/perl/sandboxes/s1/contexts/ctx%2Fweird%20id", { method: "DELETE" })).json();
    assert.deepEqual([del.method, del.path], ["DELETE", "/contexts/ctx%2Fweird%20id"]);
    const body = { op: "list", path: "/workspace", binding: "KEPT" };
    const files = await (await pg.fetch("/languages/perl/sandboxes/s1/files", json(body))).json();
    assert.deepEqual(JSON.parse(files.body), body);
  });

  it("issue 23: .../sandboxes/ID/contexts/%2e%2e never reaches the Sandbox as DELETE / (the whole sandbox)", async () => {
    // The URL parser makes .../contexts/%2e%2e (and ..) into .../sandboxes/ID/: refused, never forwarded.
    for (const tail of ["contexts/%2e%2e", "contexts/..", "contexts/.%2E", ""]) {
      const res = await pg.fetch(`/languages/perl/sandboxes/s1/${tail}`, { method: "DELETE" });
      assert.equal(res.status, 404, tail);
      const body = await res.json();
      assert.equal(body.code, "VALIDATION_FAILED", tail);
      assert.equal(body.method, undefined, `${tail}: reached the Sandbox`);
    }
  });

  it("sandbox routes refuse unknown languages and bad sandbox ids with the sandbox id rules' messages", async () => {
    await assertErrorResponse(await pg.fetch("/languages/php/sandboxes/abc"), 400, "Unsupported language: php");
    await assertErrorResponse(await pg.fetch("/languages/python/sandboxes/-abc"), 400,
      'Invalid sandbox id "-abc": cannot start or end with a hyphen');
    await assertErrorResponse(await pg.fetch("/languages/python/sandboxes/root/execute", json({ code: "1" })), 400,
      "Invalid sandbox id \"root\": 'root' is a reserved name");
    await assertErrorResponse(await pg.fetch(`/languages/python/sandboxes/${"a".repeat(64)}`), 400,
      `Invalid sandbox id "${"a".repeat(64)}": must match /^[A-Za-z0-9._-]{1,63}$/`);
  });

  it("sandbox POST bodies are capped: 96 KiB for /execute and /contexts, 2 MiB for /files; /execute bodies must be objects", async () => {
    const big = (n) => ({ method: "POST", headers: { "content-type": "application/json" }, body: streamBody(n).stream, duplex: "half" });
    await assertErrorResponse(await pg.fetch("/languages/python/sandboxes/abc/execute", big(98_305)), 413, "Request too large");
    await assertErrorResponse(await pg.fetch("/languages/python/sandboxes/abc/contexts", big(98_305)), 413, "Request too large");
    const underCap = await (await pg.fetch("/languages/python/sandboxes/abc/files", big(1_000_000))).json();
    assert.equal(underCap.bodyLength, 1_000_000);
    await assertErrorResponse(await pg.fetch("/languages/python/sandboxes/abc/files", big(2 * 1048576 + 1)), 413, "Request too large");
    await assertErrorResponse(
      await pg.fetch("/languages/python/sandboxes/abc/execute", { method: "POST", headers: { "content-type": "application/json" }, body: "[1]" }),
      400, "Expected an object");
  });

  it("every other path is the page, served from the static assets", async () => {
    const page = await pg.fetch("/");
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-type"), /^text\/html/);
    assert.match(await page.text(), /<div id="editor"/);
    const script = await pg.fetch("/app.js");
    assert.equal(script.status, 200);
    assert.match(script.headers.get("content-type"), /javascript/);
    assert.equal((await pg.fetch("/no-such-file.txt")).status, 404);
  });
});

describe("Playground gateway without some of its runtimes", () => {
  let pg;
  before(async () => {
    // Only JavaScript is running; the PYTHON binding points at a Worker that is not a runtime.
    pg = await startPlayground({
      languages: ["javascript"],
      gateway: {
        serviceBindings: { JAVASCRIPT: "sandbox-javascript", PYTHON: "not-a-runtime" },
        durableObjects: { LIMITER: { className: "Limiter", useSQLite: true } }, // no SANDBOX; the limits still apply
      },
      extraWorkers: [helperWorkerOptions({ name: "not-a-runtime", entry: "gateway-sandbox-spy.js" })],
    });
  });
  after(() => pg?.dispose());

  it("a runtime whose binding is missing is 502 INTERNAL_ERROR Engine execution failed; GET /languages lists it as not enabled", async () => {
    await assertErrorResponse(await pg.fetch("/execute/perl", json({ code: "1" })), 502, "Engine execution failed", "INTERNAL_ERROR");
    const { languages } = await (await pg.fetch("/languages")).json();
    assert.deepEqual(languages.map((l) => [l.id, l.enabled]), [
      ["javascript", true], ["python", false], ["perl", false], ["ruby", false], ["lua", false],
    ]);
    assert.equal(languages[1].engine, null);
    assert.match(languages[1].error, /Binding 'PYTHON' is not a sandbox-workers runtime Worker/);
  });

  it("a sandbox route without a Sandbox Durable Object binding is 502, not a crash", async () => {
    await assertErrorResponse(await pg.fetch("/languages/python/sandboxes/abc"), 502, "Engine execution failed", "INTERNAL_ERROR");
  });
});

describe("Playground gateway with its own Sandbox Durable Object", () => {
  let pg;
  let persist;
  before(async () => {
    persist = mkdtempSync(path.join(tmpdir(), "sw-gateway-"));
    pg = await startPlayground({ languages: ["javascript", "python", "ruby"], shared: { resourcePersistencePath: persist } });
  });
  after(async () => {
    await pg?.dispose();
    rmSync(persist, { recursive: true, force: true });
  });

  it("a context created through the gateway keeps its state from one execute to the next", async () => {
    const created = await pg.fetch("/languages/python/sandboxes/gw-state/contexts", json({ binding: "EVIL" }));
    assert.equal(created.status, 201);
    const context = await created.json();
    assert.equal(context.binding, "PYTHON");
    assert.equal(context.language, "python");
    const first = await assertExecutionResult(
      await pg.fetch("/languages/python/sandboxes/gw-state/execute", json({ code: "n = 41", contextId: context.id })));
    assert.equal(first.error, undefined);
    const second = await assertExecutionResult(
      await pg.fetch("/languages/python/sandboxes/gw-state/execute", json({ code: "n + 1", contextId: context.id })));
    assert.deepEqual(second.results, [{ text: "42" }]);
    assert.equal(second.context.id, context.id);
    assert.equal(second.executionCount, 2);
  });

  it("one sandbox id under two languages is one sandbox with a context per binding, sharing its files", async () => {
    const write = await pg.fetch("/languages/javascript/sandboxes/gw-two/files",
      json({ op: "write", path: "/workspace/note.txt", content: "shared note" }));
    assert.equal(write.status, 200);
    const py = await assertExecutionResult(
      await pg.fetch("/languages/python/sandboxes/gw-two/execute", json({ code: "open('/workspace/note.txt').read()" })));
    assert.deepEqual(py.results, [{ text: "'shared note'" }]);
    const js = await assertExecutionResult(
      await pg.fetch("/languages/javascript/sandboxes/gw-two/execute", json({ code: 'fs.readFileSync("/workspace/note.txt", "utf8")' })));
    assert.deepEqual(js.results, [{ text: "'shared note'" }]);
    const info = await (await pg.fetch("/languages/ruby/sandboxes/gw-two")).json();
    assert.equal(info.id, "gw-two");
    assert.deepEqual(info.contexts.map((c) => c.binding).sort(), ["JAVASCRIPT", "PYTHON"]);
  });

  it("Ruby through a sandbox runs in its own context, which keeps its state and shares the sandbox's files", async () => {
    const first = await assertExecutionResult(
      await pg.fetch("/languages/ruby/sandboxes/gw-two/execute", json({ code: 'note = File.read("/workspace/note.txt"); 1 + 1' })));
    assert.equal(first.language, "ruby");
    assert.equal(first.error, undefined, JSON.stringify(first.error));
    assert.deepEqual(first.results, [{ text: "2" }]);
    assert.ok(first.context?.id, JSON.stringify(first.context));
    const second = await assertExecutionResult(
      await pg.fetch("/languages/ruby/sandboxes/gw-two/execute", json({ code: "note", contextId: first.context.id })));
    assert.deepEqual(second.results, [{ text: '"shared note"' }]);
    const info = await (await pg.fetch("/languages/ruby/sandboxes/gw-two")).json();
    assert.deepEqual(info.contexts.map((c) => c.binding).sort(), ["JAVASCRIPT", "PYTHON", "RUBY"]);
  });
});

describe("Playground gateway as deployed (gateway/wrangler.jsonc's own vars)", () => {
  let pg;
  before(async () => {
    const { workerOptions } = wranglerWorker(GATEWAY_CONFIG);
    // The config's bindings as they are, not the local `npm run playground` override.
    pg = await startPlayground({ languages: ["javascript"], gateway: { bindings: workerOptions.bindings } });
  });
  after(() => pg?.dispose());

  it("issue 23: the files API is off unless a variable turns it on; code still runs in a sandbox", async () => {
    const { workerOptions } = wranglerWorker(GATEWAY_CONFIG);
    assert.equal(workerOptions.bindings.SANDBOX_FILE_API, "disabled");
    const res = await pg.fetch("/languages/javascript/sandboxes/deployed/files", json({ op: "write", path: "/workspace/a.txt", content: "x" }));
    assert.equal(res.status, 403);
    const body = await res.json();
    assert.equal(body.code, "NOT_SUPPORTED");
    const info = await (await pg.fetch("/languages/javascript/sandboxes/deployed")).json();
    assert.equal(info.fileApi, false);
    const run = await (await pg.fetch("/languages/javascript/sandboxes/deployed/execute", json({ code: "6 * 7" }))).json();
    assert.equal(run.results[0].text, "42");
  });
});
