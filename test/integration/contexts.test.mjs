// Code contexts in workerd (Miniflare, on-disk Durable Object storage): the /interpreters routes through the real
// runtime Worker and its real Interpreter Durable Object, executeInContext from a caller Worker with a real getFiles
// callback (fixtures/context-caller.js), the workspace mirror, snapshots across eviction (a Miniflare restart over the
// same storage directory) and an engine build change. protocol §10.4 items 70-105 and §10.5 items 106-114.
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startRuntime, assertErrorResponse, jsonBody, rawHttp, rawToResponse } from "./helpers.mjs";

const persist = mkdtempSync(path.join(tmpdir(), "sw-contexts-"));

async function start({ entry, bindings, persistPath = persist } = {}) {
  const rt = await startRuntime(
    [
      { helper: { name: "caller", entry: "context-caller.js", serviceBindings: { RUNTIME: "runtime" } } },
      { name: "runtime", entry, interpreter: true, bindings, routes: ["runtime.test/*"] },
    ],
    { resourcePersistencePath: persistPath },
  );
  const post = (p, body) =>
    rt.fetch(p, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return {
    ...rt,
    /** executeInContext from the caller Worker: {key?, contextId?, code, envVars?, disabled?, answer?, hash?}. */
    run: async (body) => (await post("/run", body)).json(),
    raw: async (key, args) => (await post("/raw", { key, args })).json(),
    files: async (map) => (await post("/files", map)).json(),
    dirs: async (list) => (await post("/dirs", list)).json(),
    calls: async () => (await rt.fetch("/calls")).json(),
    sandbox: async () => (await rt.fetch("/sandbox")).json(),
    runtime: (p, init) => rt.fetch(`https://runtime.test${p}`, init),
    createContext: async (key, id, extra = {}) => {
      const res = await rt.fetch(`https://runtime.test/interpreters/${key}/contexts`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ id, ...extra }),
      });
      return { status: res.status, body: await res.json() };
    },
  };
}

const text = (r) => {
  assert.equal(r.ok, true, JSON.stringify(r).slice(0, 500));
  assert.equal(r.result.error, undefined, `unexpected error: ${JSON.stringify(r.result.error)}`);
  return r.result.results[0]?.text;
};

let rt;
before(async () => {
  rt = await start();
});
after(async () => {
  await rt?.dispose();
  rmSync(persist, { recursive: true, force: true });
});

describe("protocol §2.6 context routes through the Worker (items 74-81)", () => {
  it("items 74-77: create, duplicate, 8-context cap, id validation", async () => {
    const created = await rt.createContext("routes", "ctx-1");
    assert.equal(created.status, 201);
    assert.equal(created.body.id, "ctx-1");
    assert.equal(created.body.cwd, "/workspace");
    assert.match(created.body.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const dup = await rt.createContext("routes", "ctx-1");
    assert.equal(dup.status, 400);
    assert.match(dup.body.message, /already exists/);
    for (let i = 2; i <= 8; i++) assert.equal((await rt.createContext("routes", `ctx-${i}`)).status, 201);
    const ninth = await rt.createContext("routes", "ctx-9");
    assert.equal(ninth.status, 400);
    assert.equal(ninth.body.message, "Cannot create more than 8 code contexts");
    for (const id of ["", "x".repeat(129)]) {
      const bad = await rt.createContext("routes2", id);
      assert.equal(bad.body.message, "id must be a non-empty string of at most 128 characters");
    }
  });

  it("POST /contexts over 96 KiB → 413, declared or chunked (the Worker forwards at most limit + 1 bytes)", async () => {
    // Raw HTTP: the answer comes before the client finished sending, which Node's fetch reports as EPIPE.
    const head = "POST /interpreters/big/contexts HTTP/1.1\r\nHost: runtime.test\r\nContent-Type: application/json\r\n";
    const pad = "x".repeat(200_000);
    const declared = JSON.stringify({ id: "big", pad });
    await assertErrorResponse(
      rawToResponse(await rawHttp(rt.mf, `${head}Content-Length: ${declared.length}\r\n\r\n`, declared)),
      413, "Request too large");
    const chunk = (text) => `${text.length.toString(16)}\r\n${text}\r\n`;
    const unterminated = chunk('{"id":"s","pad":"') + chunk("y".repeat(100_000)) + chunk("y".repeat(100_000));
    await assertErrorResponse(
      rawToResponse(await rawHttp(rt.mf, `${head}Transfer-Encoding: chunked\r\n\r\n`, unterminated)),
      413, "Request too large");
    // A malformed upload (a chunk longer than its declared size) fails the body stream: 400, as for POST /execute.
    await assertErrorResponse(
      rawToResponse(await rawHttp(rt.mf, `${head}Transfer-Encoding: chunked\r\n\r\n`, `10\r\n{"id":"s","pad":"\r\n${unterminated}`)),
      400, "Invalid JSON");
  });

  it("item 78: cwd validation and normalization", async () => {
    assert.equal((await rt.createContext("routes3", "x", { cwd: "" })).body.message, "cwd must be a non-empty string");
    const escape = await rt.createContext("routes3", "x", { cwd: "/etc" });
    assert.equal(escape.status, 400);
    assert.equal(escape.body.message, "Path escapes /workspace: /etc");
    const ok = await rt.createContext("routes3", "y", { cwd: "sub/./deeper/.." });
    assert.equal(ok.status, 201);
    assert.equal(ok.body.cwd, "/workspace/sub");
  });

  it("items 79-81: delete a context, DELETE / wipes, no listing route", async () => {
    await rt.createContext("routes4", "ctx-1");
    const del = await rt.runtime("/interpreters/routes4/contexts/ctx-1", { method: "DELETE" });
    assert.equal(del.status, 200);
    assert.deepEqual(await del.json(), { success: true });
    const again = await rt.runtime("/interpreters/routes4/contexts/ctx-1", { method: "DELETE" });
    assert.equal(again.status, 404);
    const body = await again.json();
    assert.equal(body.code, "CONTEXT_NOT_FOUND");
    assert.equal(body.message, "Code context 'ctx-1' not found");
    assert.deepEqual(body.context, { contextId: "ctx-1" });

    await rt.createContext("routes4", "ctx-2");
    const wipe = await rt.runtime("/interpreters/routes4", { method: "DELETE" });
    assert.deepEqual(await jsonBody(wipe), { success: true });
    assert.equal((await rt.runtime("/interpreters/routes4/contexts/ctx-2", { method: "DELETE" })).status, 404);

    await assertErrorResponse(await rt.runtime("/interpreters/routes4/contexts"), 404, "Not found");
  });
});

describe("protocol §2.7 executeInContext validation (items 82-85)", () => {
  const ws = { dirs: [], manifest: {} };
  const expect = async (key, args, status, message, code = "VALIDATION_FAILED") => {
    const r = await rt.raw(key, args);
    assert.equal(r.ok, false, JSON.stringify(r));
    assert.equal(r.status, status);
    assert.equal(r.body.code, code);
    if (message) assert.equal(r.body.message, message);
    assert.equal(r.body.httpStatus, status);
    return r;
  };
  it("items 82-85: each bad argument has its own status and message (unknown context 404; bad key, blank or 64 KiB+ code, missing or malformed workspace, non-string envVars, missing contextId)", async () => {
    await rt.createContext("val", "c1");
    await expect("val", { contextId: "nope", code: "1", workspace: ws }, 404, "Code context 'nope' not found",
      "CONTEXT_NOT_FOUND");
    await expect("not a valid key!", { contextId: "c1", code: "1", workspace: ws }, 400, "Invalid interpreter key");
    await expect("val", { contextId: "c1", code: "  ", workspace: ws }, 400, "Non-empty code is required");
    await expect("val", { contextId: "c1", code: "x".repeat(65537), workspace: ws }, 413, "Code exceeds 64 KiB");
    await expect("val", { contextId: "c1", code: "1" }, 400, "workspace is required");
    await expect("val", { contextId: "c1", code: "1", workspace: { dirs: "x", manifest: {} } }, 400,
      "workspace.dirs must be an array of strings");
    await expect("val", { contextId: "c1", code: "1", workspace: { dirs: [], manifest: [] } }, 400,
      "workspace.manifest must be an object");
    await expect("val", { contextId: "c1", code: "1", workspace: { dirs: [], manifest: {}, disabled: "yes" } }, 400,
      "workspace.disabled must be a boolean");
    await expect("val", { contextId: "c1", code: "1", envVars: { A: 1 }, workspace: ws }, 400,
      "envVars values must be strings");
    await expect("val", { code: "1", workspace: ws }, 400, "contextId must be a non-empty string");
  });
});

describe("protocol §10.5 JavaScript sessions through executeInContext (items 106-114)", () => {
  before(async () => {
    // At most 8 contexts per Interpreter: item 114 gets an Interpreter of its own.
    for (const id of ["s106", "s107", "s108", "s109", "s110", "s111", "s112", "s113"])
      await rt.createContext("sessions", id);
    await rt.createContext("sessions-114", "s114");
  });
  const run = (contextId, code, extra = {}) =>
    rt.run({ key: contextId === "s114" ? "sessions-114" : "sessions", contextId, code, ...extra });

  it("item 106: top-level declarations persist", async () => {
    await run("s106", "var a = 1; let b = 2; const c = 3; class D { hi() { return 4; } }");
    assert.equal(text(await run("s106", "a + b + c + new D().hi()")), "10");
  });
  it("item 107: declarations persist across top-level await", async () => {
    await run("s107", "let z = 5; await Promise.resolve(); z");
    assert.equal(text(await run("s107", "z")), "5");
  });
  it("item 108: fs writes reach the sandbox, sandbox files reach fs", async () => {
    const w = await run("s108", 'fs.writeFileSync("/workspace/a.txt", "hi")');
    assert.equal(w.ok, true);
    assert.deepEqual(w.result.workspace.files.map((f) => [f.path, f.data.$bytes]), [["/workspace/a.txt", "hi"]]);
    await rt.files({ "/workspace/b.txt": "from host" });
    assert.equal(text(await run("s108", 'fs.readFileSync("/workspace/b.txt", "utf8")')), "'from host'");
  });
  it("item 109: a missing file is ENOENT", async () => {
    assert.equal(text(await run("s109", 'try { fs.readFileSync("/workspace/missing.txt") } catch (e) { e.code }')),
      "'ENOENT'");
  });
  it("item 110: mkdir + chdir; the context keeps the cwd", async () => {
    const r = await run("s110", 'fs.mkdirSync("/workspace/sub"); process.chdir("sub")');
    assert.equal(r.result.context.cwd, "/workspace/sub");
    const again = await run("s110", "process.cwd()");
    assert.equal(text(again), "'/workspace/sub'");
    assert.equal(again.result.context.cwd, "/workspace/sub");
  });
  it("item 111: import() from /workspace", async () => {
    await run("s111", 'fs.writeFileSync("/workspace/lib.mjs", "export const v = 7;")');
    assert.equal(text(await run("s111", 'const m = await import("./lib.mjs"); m.v')), "7");
  });
  it("item 112: a fuel limit keeps the instance and its state", async () => {
    await run("s112", "var survivor = 42");
    const limited = await run("s112", "while (true) {}");
    assert.equal(limited.result.error.name, "ExecutionLimitError");
    assert.equal(limited.result.error.message, "Execution fuel exhausted");
    assert.deepEqual(limited.result.logs, { stdout: [], stderr: [] });
    assert.equal(limited.result.usage.fuelConsumed, limited.result.usage.fuelLimit);
    assert.equal(limited.result.context.snapshotMs, undefined, "item 96: no snapshot after a limit round");
    assert.equal(text(await run("s112", "survivor")), "42");
    // An interrupt, not a trap: a global set earlier in the same execute survives (a reset would restore the last
    // snapshot, taken before it), also when the loop's iterations are builtin calls (docs/fuel.md, "QuickJS's
    // interrupt poll").
    const calls = await run("s112", "var early = 7; { const a = new Array(1e6).fill(0); for (;;) a.fill(1) }");
    assert.equal(calls.result.error?.name, "ExecutionLimitError", JSON.stringify(calls.result.error));
    assert.equal(text(await run("s112", "[survivor, early].join()")), "'42,7'");
  });
  it("item 113: a TypeError keeps the state", async () => {
    await run("s113", "var kept = 1");
    const err = await run("s113", "null.x");
    assert.equal(err.result.error.name, "TypeError");
    assert.equal(text(await run("s113", "kept")), "1");
  });
  it("item 114: a disabled workspace answers EACCES, read live", async () => {
    const codes = await run("s114",
      'const r = []; for (const f of [() => fs.writeFileSync("/workspace/x.txt", "x"), () => fs.readFileSync("/workspace/x.txt")]) { try { f(); r.push("ok") } catch (e) { r.push(e.code) } } r.push(fs.existsSync("/workspace"), process.cwd()); try { process.chdir("sub") } catch (e) { r.push(e.code) } r',
      { disabled: true });
    assert.equal(codes.ok, true, JSON.stringify(codes));
    assert.deepEqual(codes.result.results[0].json, ["EACCES", "EACCES", false, "/workspace", "EACCES"]);
    assert.equal(text(await run("s114", 'fs.writeFileSync("/workspace/y.txt", "y"); "ok"')), "'ok'");
  });
});

// patches/explicit-resource-management.patch in a session: a DisposableStack (native data inside the engine) made by
// one execution is disposed by the next, and a top-level `using` is the script's SyntaxError, the state kept.
describe("explicit resource management in a JavaScript context", () => {
  before(async () => {
    await rt.createContext("using", "u1");
  });
  const run = (code) => rt.run({ key: "using", contextId: "u1", code });
  it("a block's `using` disposes in its execution; a DisposableStack disposes in a later one", async () => {
    assert.equal(text(await run(`var log = []; { using r = { [Symbol.dispose]() { log.push("block") } }; log.push("body") }
      var stack = new DisposableStack(); stack.defer(() => log.push("deferred")); stack.use({ [Symbol.dispose]() { log.push("used") } }); log.join()`)),
    "'body,block'");
    const top = await run("using x = null;");
    assert.equal(top.result.error?.name, "SyntaxError");
    assert.equal(text(await run("stack.dispose(); [log.join(), stack.disposed].join(' ')")), "'body,block,used,deferred true'");
  });
});

describe("protocol §2.8-2.9 the workspace mirror (items 86-93)", () => {
  before(async () => {
    await rt.files({ $reset: true });
    await rt.createContext("mirror", "c1");
  });
  const run = (code, extra = {}) => rt.run({ key: "mirror", contextId: "c1", code, ...extra });

  it("items 86-88: one getFiles call for exactly the missing paths, none when nothing changed", async () => {
    await rt.files({ "/workspace/a.txt": "A", "/workspace/b.txt": "B" });
    await run("1");
    assert.deepEqual(await rt.calls(), [["/workspace/a.txt", "/workspace/b.txt"]]);
    await rt.files({ "/workspace/c.txt": "C" });
    assert.equal(text(await run('fs.readFileSync("/workspace/c.txt", "utf8")')), "'C'");
    assert.deepEqual((await rt.calls()).slice(1), [["/workspace/c.txt"]]);
    await run("2");
    assert.equal((await rt.calls()).length, 2);
  });
  it("the strong hash form (sha256:) is accepted per entry", async () => {
    await rt.files({ "/workspace/s.txt": "strong" });
    assert.equal(text(await run('fs.readFileSync("/workspace/s.txt", "utf8")', { hash: "sha256" })), "'strong'");
    const before = (await rt.calls()).length;
    await run("3", { hash: "sha256" });
    assert.equal((await rt.calls()).length, before, "unchanged files are not pulled again");
  });
  it("items 89-90: getFiles answering an extra path, or too little, is INTERNAL_ERROR", async () => {
    await rt.files({ "/workspace/d.txt": "D" });
    const extra = await run("1", { answer: "extra" });
    assert.equal(extra.ok, false);
    assert.equal(extra.status, 500);
    assert.equal(extra.body.code, "INTERNAL_ERROR");
    assert.equal(extra.body.message, "Sandbox returned an invalid workspace file entry");
    const empty = await run("1", { answer: "empty" });
    assert.equal(empty.body.message, "Sandbox did not provide 1 workspace file(s)");
    const notArray = await run("1", { answer: "notarray" });
    assert.equal(notArray.body.message, "Sandbox returned an invalid workspace file list");
    const badEntry = await run("1", { answer: "badentry" });
    assert.equal(badEntry.body.message, "Sandbox returned an invalid workspace file entry");
    const threw = await run("1", { answer: "throw" });
    assert.equal(threw.status, 502);
    assert.equal(threw.body.code, "INTERNAL_ERROR");
  });
  it("item 91: a mirror file absent from the manifest is gone before the code runs", async () => {
    await rt.files({ "/workspace/d.txt": null });
    await run("1");
    await rt.files({ "/workspace/b.txt": null });
    assert.equal(text(await run('fs.existsSync("/workspace/b.txt")')), "false");
  });
  it("item 92: a guest write comes back as bytes; a delete comes back in deleted", async () => {
    const r = await run('fs.writeFileSync("/workspace/out.txt", "written"); fs.rmSync("/workspace/a.txt")');
    assert.deepEqual(r.result.workspace.files.map((f) => f.path), ["/workspace/out.txt"]);
    assert.equal(r.result.workspace.files[0].data.$bytes, "written");
    assert.equal(typeof r.result.workspace.files[0].updatedAt, "number");
    assert.deepEqual(r.result.workspace.deleted, ["/workspace/a.txt"]);
    assert.deepEqual(await rt.sandbox(), {
      "/workspace/c.txt": "C",
      "/workspace/out.txt": "written",
      "/workspace/s.txt": "strong",
    });
  });
  it("item 93: write then throw rolls the mirror back", async () => {
    const r = await run('fs.writeFileSync("/workspace/gone.txt", "x"); throw new Error("boom")');
    assert.equal(r.result.error.message, "boom");
    assert.deepEqual(r.result.workspace.files, []);
    assert.deepEqual(r.result.workspace.deleted, []);
    assert.equal(text(await run('fs.existsSync("/workspace/gone.txt")')), "false");
  });
  it("dirs is the complete post-run directory list", async () => {
    const r = await run('fs.mkdirSync("/workspace/n1/n2", { recursive: true })');
    assert.deepEqual(r.result.workspace.dirs, ["/workspace/n1", "/workspace/n1/n2"]);
  });
});

describe("protocol §4.4-4.5 executions and snapshots (items 94-96, 101, 105)", () => {
  it("items 94-95: executions count, the snapshot record", async () => {
    await rt.createContext("snap", "c1");
    const r1 = await rt.run({ key: "snap", contextId: "c1", code: "var counter = 1; counter" });
    assert.equal(text(r1), "1");
    const s = r1.result.context.snapshot;
    assert.ok(s, "a snapshot was taken");
    assert.equal(s.build.length, 64, "build is the engine's sha256");
    assert.equal(s.stale, false);
    assert.ok(s.pages > 0);
    assert.equal(s.bytes, s.pages * 65536);
    assert.ok(s.storedBytes > 0 && s.storedBytes <= s.bytes, "compressed rows (docs/snapshots.md)");
    assert.equal(typeof s.takenAt, "number");
    assert.equal(typeof r1.result.context.snapshotMs, "number");
    const r2 = await rt.run({ key: "snap", contextId: "c1", code: "++counter" });
    assert.equal(text(r2), "2");
    assert.equal(r2.result.executionCount, 2);
    assert.equal(r2.result.context.executions, 2);
    assert.equal(r2.result.language, "javascript");
    assert.match(r2.result.engine, /QuickJS/);
  });
  it("item 96: a limit round leaves the stored record exactly as it was", async () => {
    await rt.createContext("snap", "lim");
    const r1 = await rt.run({ key: "snap", contextId: "lim", code: "var v = 1" });
    const r2 = await rt.run({ key: "snap", contextId: "lim", code: "v = 2; while (true) {}" });
    assert.equal(r2.result.error.name, "ExecutionLimitError");
    assert.deepEqual(r2.result.context.snapshot, r1.result.context.snapshot);
    assert.equal(text(await rt.run({ key: "snap", contextId: "lim", code: "v" })), "2", "the live instance is kept");
  });
  it("item 101: deleting the resident's context; the same id starts fresh", async () => {
    await rt.createContext("snap", "del");
    await rt.run({ key: "snap", contextId: "del", code: "var gone = 1" });
    assert.equal((await rt.runtime("/interpreters/snap/contexts/del", { method: "DELETE" })).status, 200);
    await rt.createContext("snap", "del");
    assert.equal(text(await rt.run({ key: "snap", contextId: "del", code: "typeof gone" })), "'undefined'");
  });
  it("contexts of one Interpreter share one resident: switching restores from the snapshot", async () => {
    await rt.createContext("snap", "a");
    await rt.createContext("snap", "b");
    await rt.run({ key: "snap", contextId: "a", code: "var which = 'a'" });
    await rt.run({ key: "snap", contextId: "b", code: "var which = 'b'" });
    assert.equal(text(await rt.run({ key: "snap", contextId: "a", code: "which" })), "'a'");
    assert.equal(text(await rt.run({ key: "snap", contextId: "b", code: "which" })), "'b'");
  });
  it("item 105: a call that arrives while another waits for getFiles runs after it and sees its state", async () => {
    await rt.files({ $reset: true });
    await rt.createContext("conc", "c1");
    await rt.files({ "/workspace/slow.txt": "x" });
    // The first call's getFiles does not answer until the second call has been sent, and the second is sent only once
    // the first is inside getFiles (fixtures/context-caller.js): the two overlap, whatever the machine's speed.
    const [slow, fast] = await Promise.all([
      rt.run({ key: "conc", contextId: "c1", code: "var order = ['slow']; order.length", holdGetFiles: "conc" }),
      rt.run({ key: "conc", contextId: "c1", code: "order.push('fast'); order.join()", after: "conc" }),
    ]);
    assert.equal(text(slow), "1");
    assert.equal(text(fast), "'slow,fast'");
  });
});

describe("eviction, redeploy and idle expiry (items 99, 100, 102)", () => {
  it("item 99: a new Interpreter instance over the same storage continues the counter", async () => {
    await rt.createContext("evict", "c1");
    await rt.run({ key: "evict", contextId: "c1", code: "var n = 41; function inc() { return ++n; } class K {}" });
    await rt.dispose();
    rt = await start();
    const r = await rt.run({ key: "evict", contextId: "c1", code: "inc(); typeof K === 'function' ? n : -1" });
    assert.equal(text(r), "42");
    assert.equal(r.result.executionCount, 2);
  });
  it("item 100: another engine build boots fresh and records the new build", async () => {
    await rt.createContext("build", "c1");
    await rt.run({ key: "build", contextId: "c1", code: "var old = 1" });
    await rt.dispose();
    rt = await start({ entry: "javascript-build-b.js" });
    const r = await rt.run({ key: "build", contextId: "c1", code: "typeof old" });
    assert.equal(text(r), "'undefined'");
    assert.equal(r.result.context.snapshot.build, "test-build-b");
    await rt.dispose();
    rt = await start();
  });
  it("item 102: INTERPRETER_IDLE_TTL_MS '1' wipes an idle interpreter on its alarm", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "sw-ttl-"));
    const ttl = await start({ bindings: { INTERPRETER_IDLE_TTL_MS: "1" }, persistPath: dir });
    try {
      assert.equal((await ttl.createContext("ttl", "c1")).status, 201);
      // The alarm is armed 1 ms ahead; once it ran, the context is gone. Each probe that still finds the context
      // touches the alarm again (1 ms ahead) and takes longer than that itself, so the wipe follows within a few
      // probes: poll a bounded number of times, with no sleep and no time in the assertion.
      let r;
      let probes = 0;
      while (probes < 1000) {
        probes++;
        r = await ttl.run({ key: "ttl", contextId: "c1", code: "1" });
        if (!r.ok) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
      assert.equal(r.ok, false, `the idle interpreter was wiped (still there after ${probes} probes)`);
      assert.equal(r.status, 404);
      assert.equal(r.body.code, "CONTEXT_NOT_FOUND");
    } finally {
      await ttl.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
