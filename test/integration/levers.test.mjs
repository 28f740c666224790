// Issue 23's attack review, run from outside in workerd (Miniflare): levers a caller or a guest should not have.
//   * a forged cwd (Perl redefining its driver's entry point, Python rebinding its driver's cwd function, JavaScript's
//     process.chdir) is never stored, in the Interpreter nor in the caller's Sandbox registry;
//   * context ids "." and ".." (raw or percent-encoded) are refused on every route, and no route changes meaning after
//     URL normalization (DELETE /interpreters/K/contexts/%2e%2e used to wipe the whole Interpreter);
//   * every limit of executeInContext's workspace manifest is a 400 VALIDATION_FAILED naming the limit, and the
//     Interpreter keeps serving;
//   * Perl out of memory is an ExecutionLimitError, not an EngineError panic.
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { helperWorkerOptions, languageConfig, runtimeWorkerOptions, startMiniflare, wranglerWorker } from "./helpers.mjs";

const persist = mkdtempSync(path.join(tmpdir(), "sw-levers-"));
const RUNTIMES = { JAVASCRIPT: "sandbox-javascript", PYTHON: "sandbox-python", PERL: "sandbox-perl", CAPPED: "sandbox-capped" };
const HOSTS = { JAVASCRIPT: "js.test", PYTHON: "py.test", PERL: "pl.test", CAPPED: "capped.test" };
let mf;

const start = async () => {
  mf = await startMiniflare(
    [
      {
        ...helperWorkerOptions({ name: "caller", entry: "client-caller.js", serviceBindings: RUNTIMES }),
        durableObjects: { Sandbox: { className: "Sandbox", useSQLite: true } },
      },
      helperWorkerOptions({
        name: "direct", entry: "context-caller.js", serviceBindings: { RUNTIME: RUNTIMES.JAVASCRIPT, ...RUNTIMES },
        routes: ["direct.test/*"],
      }),
      runtimeWorkerOptions({ name: RUNTIMES.JAVASCRIPT, language: "javascript", routes: [`${HOSTS.JAVASCRIPT}/*`] }),
      runtimeWorkerOptions({ name: RUNTIMES.PYTHON, language: "python", routes: [`${HOSTS.PYTHON}/*`] }),
      runtimeWorkerOptions({ name: RUNTIMES.PERL, language: "perl", routes: [`${HOSTS.PERL}/*`] }),
      // The JavaScript runtime with a 1 MiB cap on what one context's snapshot may store.
      runtimeWorkerOptions({
        name: RUNTIMES.CAPPED, language: "javascript", routes: [`${HOSTS.CAPPED}/*`],
        bindings: { INTERPRETER_MAX_SNAPSHOT_BYTES: "1048576" },
      }),
    ],
    { resourcePersistencePath: persist },
  );
};
before(start);
after(async () => {
  await mf?.dispose();
  rmSync(persist, { recursive: true, force: true });
});

const fetch = (url, init) => mf.dispatchFetch(url, init);
const postJson = async (url, body) =>
  (await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })).json();
/** One client call in the caller Worker: getSandbox(env.Sandbox, id)[method](...args) → {ok, value | error}. */
const call = (id, method, ...args) => postJson("https://caller.test/call", { id, method, args });
const ok = (r) => {
  assert.equal(r.ok, true, JSON.stringify(r.error ?? r).slice(0, 600));
  return r.value;
};
/** executeInContext(key, args) on a runtime, straight from a caller Worker (no Sandbox in between). */
const raw = (binding, key, args) => postJson("https://direct.test/raw", { binding, key, args });
const EMPTY = { dirs: [], manifest: {} };
const createContext = async (binding, key, id) => {
  const res = await fetch(`https://${HOSTS[binding]}/interpreters/${key}/contexts`, {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id }),
  });
  return { status: res.status, body: await res.json() };
};
const text = (r) => {
  assert.equal(r.ok, true, JSON.stringify(r).slice(0, 600));
  assert.equal(r.result.error, undefined, JSON.stringify(r.result.error));
  return r.result.results[0]?.text;
};

describe("a forged cwd is never stored (Interpreter and Sandbox registry)", () => {
  const FORGERS = {
    // The driver's entry point redefined: every later call reports `cwd` as the cwd.
    PERL: (cwd) =>
      "no warnings 'redefine'; my $run = \\&Sandbox::run; *Sandbox::run = sub { my $r = $run->(@_); " +
      `$Sandbox::CWD = '${cwd}'; $Sandbox::OUT =~ s{"cwd":"[^"]*"}{"cwd":"${cwd}"}; $r }; 'armed'`,
    // The driver's own cwd function, found through gc and rebound in the driver's globals.
    PYTHON: (cwd) =>
      "import gc\n" +
      "g = next(f.__globals__ for f in gc.get_objects() if type(f).__name__ == 'function' and '_session_cwd' in f.__globals__)\n" +
      `g['_session_cwd'] = lambda: '${cwd}'\n'armed'`,
    // No way to reach the driver's cwd from JavaScript: chdir is refused, and a rebound process.cwd is only JS.
    JAVASCRIPT: (cwd) => `let e; try { process.chdir('${cwd}') } catch (x) { e = x.code } process.cwd = () => '${cwd}'; 'armed'`,
  };
  const ATTACKS = Object.fromEntries(Object.entries(FORGERS).map(([b, forge]) => [b, [forge("/etc/../.."), "1"]]));

  for (const binding of ["PERL", "PYTHON"]) {
    it(`${binding}: the channel is real: a forged cwd under /workspace is stored, normalized`, async () => {
      const key = `cwd-ok-${binding.toLowerCase()}`;
      assert.equal((await createContext(binding, key, "c")).status, 201);
      await raw(binding, key, { contextId: "c", code: FORGERS[binding]("/workspace/./x/../y"), workspace: EMPTY });
      const next = await raw(binding, key, { contextId: "c", code: "1", workspace: EMPTY });
      assert.equal(text(next), "1");
      assert.equal(next.result.context.cwd, "/workspace/y");
    });
  }

  for (const [binding, [attack, after]] of Object.entries(ATTACKS)) {
    it(`${binding}: the Interpreter keeps /workspace`, async () => {
      const key = `cwd-${binding.toLowerCase()}`;
      assert.equal((await createContext(binding, key, "c")).status, 201);
      const armed = await raw(binding, key, { contextId: "c", code: attack, workspace: EMPTY });
      assert.equal(text(armed).replace(/'/g, ""), "armed");
      assert.equal(armed.result.context.cwd, "/workspace");
      const next = await raw(binding, key, { contextId: "c", code: after, workspace: EMPTY });
      assert.equal(text(next), "1");
      assert.equal(next.result.context.cwd, "/workspace");
    });

    it(`${binding}: the caller's Sandbox keeps /workspace (result and GET /contexts)`, async () => {
      const id = `cwd-${binding.toLowerCase()}`;
      const ctx = ok(await call(id, "interpreter.createCodeContext", { binding }));
      const armed = ok(await call(id, "interpreter.runCode", attack, { context: ctx.id }));
      assert.equal(armed.error, undefined, JSON.stringify(armed.error));
      const next = ok(await call(id, "interpreter.runCode", after, { context: ctx.id }));
      assert.equal(next.results[0].text, "1");
      assert.equal(next.context.cwd, "/workspace");
      const listed = ok(await call(id, "interpreter.listCodeContexts"));
      assert.deepEqual(listed.map((c) => c.cwd), ["/workspace"]);
    });
  }
});

describe("context ids '.' and '..' are refused on every route; no route changes meaning after normalization", () => {
  const refused = "Context id must not be '.' or '..'";

  it("DELETE /interpreters/K/contexts/%2e%2e (or ..) is not DELETE /interpreters/K: the context and its state stay", async () => {
    assert.equal((await createContext("JAVASCRIPT", "dots", "keep")).status, 201);
    assert.equal(text(await raw("JAVASCRIPT", "dots", { contextId: "keep", code: "var x = 41; x", workspace: EMPTY })), "41");
    for (const tail of ["%2e%2e", "%2E%2E", "..", ".%2e", "%2e", ".", ""]) {
      const res = await fetch(`https://${HOSTS.JAVASCRIPT}/interpreters/dots/contexts/${tail}`, { method: "DELETE" });
      const body = await res.text();  // the plain 404 of an unknown route, or the Interpreter's JSON one
      assert.equal(res.status, 404, `${tail}: ${body}`);
      assert.ok(!body.includes('"success"'), `${tail}: ${body}`);
    }
    // The trailing-slash form of the whole-Interpreter route is what those normalize to: refused too.
    assert.equal((await fetch(`https://${HOSTS.JAVASCRIPT}/interpreters/dots/`, { method: "DELETE" })).status, 404);
    assert.equal(text(await raw("JAVASCRIPT", "dots", { contextId: "keep", code: "x + 1", workspace: EMPTY })), "42");
    // The whole-Interpreter route itself still works.
    const wipe = await fetch(`https://${HOSTS.JAVASCRIPT}/interpreters/dots`, { method: "DELETE" });
    assert.deepEqual(await wipe.json(), { success: true });
    const gone = await raw("JAVASCRIPT", "dots", { contextId: "keep", code: "1", workspace: EMPTY });
    assert.equal(gone.status, 404);
  });

  it("an Interpreter refuses to create or run a context named '.' or '..', and a key '.' or '..'", async () => {
    for (const id of [".", ".."]) {
      const created = await createContext("JAVASCRIPT", "dots2", id);
      assert.equal(created.status, 400);
      assert.equal(created.body.message, refused);
      const r = await raw("JAVASCRIPT", "dots2", { contextId: id, code: "1", workspace: EMPTY });
      assert.equal(r.status, 400);
      assert.equal(r.body.code, "VALIDATION_FAILED");
      assert.equal(r.body.message, refused);
      const key = await raw("JAVASCRIPT", id, { contextId: "c", code: "1", workspace: EMPTY });
      assert.equal(key.status, 400);
      assert.equal(key.body.message, "Invalid interpreter key");
    }
  });

  it("the client's deleteCodeContext('..') / ('.') refuses before sending; the sandbox, its contexts and files stay", async () => {
    const id = "dots-client";
    const ctx = ok(await call(id, "interpreter.createCodeContext", { binding: "JAVASCRIPT" }));
    assert.equal(ok(await call(id, "interpreter.runCode", "var y = 1; y", { context: ctx.id })).results[0].text, "1");
    ok(await call(id, "writeFile", "/workspace/kept.txt", "kept"));
    for (const bad of ["..", "."]) {
      const r = await call(id, "interpreter.deleteCodeContext", bad);
      assert.equal(r.ok, false);
      assert.equal(r.error.class, "ValidationFailedError");
      assert.equal(r.error.code, "VALIDATION_FAILED");
      assert.equal(r.error.message, refused);
    }
    const info = ok(await call(id, "getInfo"));
    assert.equal(info.contexts.length, 1);
    assert.equal(info.workspace.files, 1);
    assert.equal(ok(await call(id, "interpreter.runCode", "y + 1", { context: ctx.id })).results[0].text, "2");
    // The Sandbox refuses such an id on its own routes too (a client that skipped the check).
    const run = await call(id, "interpreter.runCode", "1", { contextId: ".." });
    assert.equal(run.ok, false);
    assert.equal(run.error.code, "VALIDATION_FAILED");
    assert.equal(run.error.message, refused);
  });
});

describe("every limit of the workspace manifest is a 400 naming the limit; the Interpreter keeps serving", () => {
  const h = "0000000000000000";
  const deep = (levels) => "/workspace" + "/d".repeat(levels);
  let long = "/workspace";
  while (long.length < 100_000) long += "/a";
  const manyFiles = (n, name = (i) => `/workspace/f${i}`) => Object.fromEntries(Array.from({ length: n }, (_, i) => [name(i), h]));
  const CASES = [
    ["a 100 KB dirs entry", { dirs: [long], manifest: {} }, /^workspace\.dirs entry exceeds the path limit of 4096 bytes: /],
    ["a dirs entry 300 levels deep", { dirs: [deep(300)], manifest: {} }, /^workspace\.dirs entry exceeds the depth limit of 256 levels/],
    ["a dirs entry with a 300-byte name", { dirs: ["/workspace/" + "n".repeat(300)], manifest: {} }, /^workspace\.dirs entry has a name over the limit of 255 bytes/],
    ["a dirs entry listed twice", { dirs: ["/workspace/d", "/workspace/./d/"], manifest: {} }, /^workspace\.dirs lists a directory twice: \/workspace\/d$/],
    ["a dirs entry with a NUL", { dirs: ["/workspace/a\u0000"], manifest: {} }, /^workspace\.dirs entry contains a NUL character/],
    ["a manifest path over the path limit", { dirs: [], manifest: { [deep(2100)]: h } }, /^workspace\.manifest path exceeds the path limit of 4096 bytes/],
    ["a manifest path 300 levels deep", { dirs: [], manifest: { [deep(300)]: h } }, /^workspace\.manifest path exceeds the depth limit of 256 levels/],
    ["a manifest path with a 300-byte name", { dirs: [], manifest: { ["/workspace/" + "n".repeat(300)]: h } }, /has a name over the limit of 255 bytes/],
    ["4,097 manifest files", { dirs: [], manifest: manyFiles(4097) }, /^workspace\.manifest exceeds the limit of 4096 entries$/],
    ["manifest paths over 1 MiB in total", { dirs: [], manifest: manyFiles(2100, (i) => `/workspace/${"p".repeat(250)}/${String(i).padStart(250, "0")}`) },
      /^workspace\.manifest paths exceed the limit of 1 MiB total$/],
    ["two manifest keys for one path", { dirs: [], manifest: { "/workspace/a": h, "/workspace/./a": h } }, /^workspace\.manifest names one path twice: \/workspace\/a$/],
    ["a file that is a dirs entry", { dirs: ["/workspace/x"], manifest: { "/workspace/x": h } }, /^workspace\.manifest path is also a directory: \/workspace\/x$/],
    ["a file under a file", { dirs: [], manifest: { "/workspace/f": h, "/workspace/f/g": h } }, /^workspace\.manifest path is also a directory: \/workspace\/f$/],
    ["a file that is the parent of a dirs entry", { dirs: ["/workspace/f/sub"], manifest: { "/workspace/f": h } }, /is also a directory: \/workspace\/f$/],
    ["the root as a file", { dirs: [], manifest: { "/workspace": h } }, /^workspace\.manifest path is the \/workspace root, a directory/],
  ];

  before(async () => {
    assert.equal((await createContext("JAVASCRIPT", "manifest", "c")).status, 201);
    assert.equal(text(await raw("JAVASCRIPT", "manifest", { contextId: "c", code: "var kept = 7; kept", workspace: EMPTY })), "7");
  });

  for (const [what, workspace, message] of CASES) {
    it(`${what}: 400 VALIDATION_FAILED, then the context answers with its state`, async () => {
      const r = await raw("JAVASCRIPT", "manifest", { contextId: "c", code: "kept", workspace });
      assert.equal(r.ok, false, JSON.stringify(r).slice(0, 300));
      assert.equal(r.status, 400, JSON.stringify(r.body).slice(0, 300));
      assert.equal(r.body.code, "VALIDATION_FAILED");
      assert.match(r.body.message, message);
      assert.ok(r.body.message.length < 400, "the message shows a bounded part of the path");
      assert.equal(text(await raw("JAVASCRIPT", "manifest", { contextId: "c", code: "kept + 1", workspace: EMPTY })), "8");
    });
  }

  it("at the limits exactly: accepted (4,096 files, a 255-byte name, 256 levels)", async () => {
    for (const workspace of [
      { dirs: [], manifest: manyFiles(4096) },
      { dirs: ["/workspace/" + "n".repeat(255)], manifest: {} },
      { dirs: [deep(256)], manifest: {} },
    ]) {
      const r = await raw("JAVASCRIPT", "manifest", { contextId: "c", code: "kept", workspace });
      // Manifest files are pulled with getFiles, which this caller answers with []: a 500 after validation passed.
      if (Object.keys(workspace.manifest).length) assert.equal(r.status, 500, JSON.stringify(r).slice(0, 300));
      else assert.equal(text(r), "7");
    }
  });
});

describe("Perl out of memory is ExecutionLimitError: Memory limit exceeded", () => {
  for (const [what, code] of [
    ["a repeated string of 1 GB", "my $x = 'a' x 1_000_000_000; length $x"],
    ["a constant-folded sort of a huge list", "my @x = sort 1 .. 100_000_000; scalar @x"],
  ]) {
    it(`${what}: stateless and in a context; the context keeps working`, async () => {
      const res = await fetch(`https://${HOSTS.PERL}/execute`, {
        method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ code }),
      });
      const body = await res.json();
      assert.equal(res.status, 200);
      assert.deepEqual({ name: body.error?.name, message: body.error?.message },
        { name: "ExecutionLimitError", message: "Memory limit exceeded" }, JSON.stringify(body.error));
      const key = `oom-${what.length}`;
      assert.equal((await createContext("PERL", key, "c")).status, 201);
      assert.equal(text(await raw("PERL", key, { contextId: "c", code: "our $k = 5; $k", workspace: EMPTY })), "5");
      const r = await raw("PERL", key, { contextId: "c", code, workspace: EMPTY });
      assert.equal(r.ok, true);
      assert.deepEqual({ name: r.result.error?.name, message: r.result.error?.message },
        { name: "ExecutionLimitError", message: "Memory limit exceeded" });
      assert.equal(text(await raw("PERL", key, { contextId: "c", code: "$k + 1", workspace: EMPTY })), "6");
    });
  }
});

describe("INTERPRETER_MAX_SNAPSHOT_BYTES caps what one context's snapshot stores (the Playground's storage lever)", () => {
  it("safe by default: every runtime with contexts caps a snapshot at 32 MiB; the issue's 40 MB os.urandom is not stored", async () => {
    for (const language of ["javascript", "python", "perl", "lua"])
      assert.equal(wranglerWorker(languageConfig(language)).workerOptions.bindings.INTERPRETER_MAX_SNAPSHOT_BYTES, "33554432", language);
    // The Python runtime here runs with its own wrangler config: one 80-byte request used to store 81 MiB.
    assert.equal((await createContext("PYTHON", "urandom", "c")).status, 201);
    const small = await raw("PYTHON", "urandom", { contextId: "c", code: "k = 5\nk", workspace: EMPTY });
    assert.equal(text(small), "5");
    const stored = small.result.context.snapshot.storedBytes;
    const big = await raw("PYTHON", "urandom", { contextId: "c", code: "import os\nX = os.urandom(40_000_000)\nlen(X)", workspace: EMPTY });
    assert.equal(text(big), "40000000");
    assert.equal(big.result.context.snapshot.stale, true);
    assert.equal(big.result.context.snapshot.storedBytes, stored, "the stored record is the one before");
    // The live context keeps its state; a restart of workerd restores the last snapshot that fit.
    assert.equal(text(await raw("PYTHON", "urandom", { contextId: "c", code: "len(X) + k", workspace: EMPTY })), "40000005");
    await mf.dispose();
    await start();
    assert.equal(text(await raw("PYTHON", "urandom", { contextId: "c", code: "'X' in globals(), k", workspace: EMPTY })), "(False, 5)");
  });

  it("a round whose snapshot would be over the cap is not stored: the record goes stale, the live state stays, an eviction restores the last snapshot that fit", async () => {
    assert.equal((await createContext("CAPPED", "cap", "c")).status, 201);
    const small = await raw("CAPPED", "cap", { contextId: "c", code: "var x = 1; x", workspace: EMPTY });
    assert.equal(text(small), "1");
    assert.equal(small.result.context.snapshot.stale, false);
    const storedBefore = small.result.context.snapshot.storedBytes;
    assert.ok(storedBefore < 1048576, `a small context stores ${storedBefore} bytes`);
    // About 2.4 MB of random doubles: incompressible, over the cap.
    const big = await raw("CAPPED", "cap", {
      contextId: "c", workspace: EMPTY,
      code: "globalThis.big = new Float64Array(300000); for (let i = 0; i < big.length; i++) big[i] = Math.random(); big.length",
    });
    assert.equal(text(big), "300000");
    assert.equal(big.result.context.snapshot.stale, true);
    assert.equal(big.result.context.snapshot.storedBytes, storedBefore, "the stored record is the one before");
    assert.equal(big.result.context.snapshotMs, undefined, "no snapshot was written");
    assert.equal(text(await raw("CAPPED", "cap", { contextId: "c", code: "big.length + x", workspace: EMPTY })), "300001");
    // A restart of workerd: the context restores the last snapshot that fit.
    await mf.dispose();
    await start();
    const after = await raw("CAPPED", "cap", { contextId: "c", code: "typeof globalThis.big + ':' + x", workspace: EMPTY });
    assert.equal(after.result.context.restored, undefined);
    assert.equal(text(after).replace(/'/g, ""), "undefined:1");
  });
});
