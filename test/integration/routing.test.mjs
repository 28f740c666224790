// protocol §10.1 (probe and routing) over HTTP, plus the §2.5 forwarding preconditions, against the real runtime
// Worker's shim and core with the calc example engine, and variant Workers built from test/integration/fixtures.
import { before, after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { startRuntime, jsonBody, assertErrorResponse } from "./helpers.mjs";

let rt;
before(async () => {
  rt = await startRuntime([
    { entry: "calc.js" }, // the calc example engine behind the real shim and core; receives unrouted requests
    { name: "js", entry: "echo-javascript.js", routes: ["js.test/*"] }, // javascript + sessions, no INTERPRETER
    { name: "ido", entry: "interpreter.js", interpreter: true, routes: ["ido.test/*"] }, // javascript + sessions + INTERPRETER
    { name: "bad", entry: "bad-engine.js", routes: ["bad.test/*"] }, // invalid Engine description
  ]);
});
after(() => rt?.dispose());

async function assertPlainText(res, status, text) {
  assert.equal(res.status, status);
  assert.match(res.headers.get("content-type") ?? "", /^text\/plain/);
  assert.equal(await res.text(), text);
}

describe("protocol §10.1 GET /interpreter (capability probe)", () => {
  it("item 1: sessions engine with INTERPRETER bound → contexts: true, protocol 1, no-store", async () => {
    const res = await rt.fetch("https://ido.test/interpreter");
    assert.equal(res.status, 200);
    const body = await jsonBody(res);
    assert.deepEqual(body, { language: "javascript", engine: "echo-javascript 1.0", contexts: true, protocol: 1 });
    assert.deepEqual(Object.keys(body), ["language", "engine", "contexts", "protocol"]);
  });

  it("item 3: JS runtime deployed without INTERPRETER → contexts: false, language javascript", async () => {
    const res = await rt.fetch("https://js.test/interpreter");
    assert.equal(res.status, 200);
    assert.deepEqual(await jsonBody(res), { language: "javascript", engine: "echo-javascript 1.0", contexts: false, protocol: 1 });
  });

  it("the calc Worker (stateless engine) → contexts: false", async () => {
    const res = await rt.fetch("/interpreter");
    assert.equal(res.status, 200);
    assert.deepEqual(await jsonBody(res), { language: "calc", engine: "calc 1.0", contexts: false, protocol: 1 });
  });

  it("any method is answered by the probe (POST, PUT, DELETE)", async () => {
    for (const method of ["POST", "PUT", "DELETE"]) {
      const res = await rt.fetch("/interpreter", { method, body: method === "DELETE" ? undefined : "x" });
      assert.equal(res.status, 200, method);
      assert.equal((await jsonBody(res)).language, "calc");
    }
  });

  it("the host name is irrelevant and the query string is ignored", async () => {
    const res = await rt.fetch("http://anything.example:1234/interpreter?x=1");
    assert.equal(res.status, 200);
    assert.equal((await jsonBody(res)).protocol, 1);
  });
});

describe("protocol §10.1 routing", () => {
  it("item 4: GET /nope → 404 plain text 'Not found'", async () => {
    await assertPlainText(await rt.fetch("/nope"), 404, "Not found");
  });

  it("other unknown paths → 404 (/, /interpreter/, /execute/, /Execute, /interpreters)", async () => {
    for (const p of ["/", "/interpreter/", "/execute/", "/Execute", "/interpreters", "/execute/x"]) {
      await assertPlainText(await rt.fetch(p, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }), 404, "Not found");
    }
  });

  it("item 5: GET /execute → 405 plain text 'Method not allowed'", async () => {
    await assertPlainText(await rt.fetch("/execute"), 405, "Method not allowed");
  });

  it("PUT/DELETE/PATCH /execute → 405", async () => {
    for (const method of ["PUT", "DELETE", "PATCH"]) {
      await assertPlainText(await rt.fetch("/execute", { method }), 405, "Method not allowed");
    }
  });

  it("POST /execute?query is still /execute", async () => {
    const res = await rt.fetch("/execute?debug=1", { method: "POST", headers: { "content-type": "application/json" }, body: '{"code":"6*7"}' });
    assert.equal(res.status, 200);
    assert.deepEqual((await jsonBody(res)).results, [{ text: "42" }]);
  });
});

describe("protocol §2.5 /interpreters/:key/* preconditions and forwarding", () => {
  it("item 70: invalid key → 400 'Invalid interpreter key' (checked before the session check)", async () => {
    await assertErrorResponse(await rt.fetch("/interpreters/bad!key/contexts", { method: "POST" }), 400, "Invalid interpreter key");
    await assertErrorResponse(await rt.fetch(`/interpreters/${"k".repeat(129)}/contexts`, { method: "POST" }), 400, "Invalid interpreter key");
  });

  it("engine without sessions → 400 'Code contexts are not supported for calc'", async () => {
    await assertErrorResponse(await rt.fetch("/interpreters/k1/contexts", { method: "POST" }), 400, "Code contexts are not supported for calc");
  });

  it("sessions engine without INTERPRETER → 400 naming the missing binding", async () => {
    await assertErrorResponse(
      await rt.fetch("https://js.test/interpreters/k1/contexts", { method: "POST" }),
      400,
      "Code contexts are not supported: this Worker has no INTERPRETER Durable Object binding",
    );
  });

  it("with INTERPRETER: forwards path (no query), method, headers + x-interpreter-key, body; relays the DO response unchanged", async () => {
    const res = await rt.fetch("https://ido.test/interpreters/abc.DEF_1-2/contexts?drop=me", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"id":"c1"}',
    });
    assert.equal(res.status, 299);
    assert.equal(res.headers.get("x-from-stub"), "1");
    assert.deepEqual(await res.json(), {
      stub: true,
      method: "POST",
      path: "/contexts",
      key: "abc.DEF_1-2",
      contentType: "application/json",
      body: '{"id":"c1"}',
    });
    const root = await rt.fetch("https://ido.test/interpreters/k9", { method: "DELETE" });
    assert.equal(root.status, 299);
    const rootBody = await root.json();
    assert.equal(rootBody.path, "/");
    assert.equal(rootBody.method, "DELETE");
    assert.equal(rootBody.key, "k9");
  });
});

describe("protocol §3.6 generic fallback", () => {
  it("an invalid Engine description → every request is 502 INTERNAL_ERROR 'Engine execution failed'", async () => {
    await assertErrorResponse(await rt.fetch("https://bad.test/interpreter"), 502, "Engine execution failed", "INTERNAL_ERROR");
    await assertErrorResponse(
      await rt.fetch("https://bad.test/execute", { method: "POST", headers: { "content-type": "application/json" }, body: '{"code":"1"}' }),
      502,
      "Engine execution failed",
      "INTERNAL_ERROR",
    );
  });
});
