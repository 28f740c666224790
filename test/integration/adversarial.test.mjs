// The adversarial suite (issue 13 part 4, docs/security.md): hostile programs and hostile callers against the real
// JavaScript and Python runtime Workers in workerd (Miniflare, on-disk SQLite). Every case is answered with the
// spec's error (a guest error or limit inside a 200 result, or the route's ErrorResponse), and after every case the
// next request is served and a context keeps its state (or boots fresh where the rules say so). The language suites
// already hold many stateless cases (python.test.mjs, perl.test.mjs, lua.test.mjs, ruby.test.mjs through
// hostileCases; javascript.test.mjs items 37-50; execution.test.mjs for bodies); this file adds what they lack.
import { describe, it, before } from "node:test";
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { useLanguageRuntime, hostileCases, contextText } from "./language-runtime.mjs";
import { assertErrorResponse, assertExecutionResult } from "./helpers.mjs";

// ---------------------------------------------------------------------------------------------------------------
// Shared by both languages

/**
 * One test per [what, code, name] case run in a context that holds `kept` (set by `setup`): the case answers a 200
 * result with an error (`name` a string: that error's name; null: any error but EngineError), and then the context
 * still reads `kept` back (the resident survived a guest error, or was restored from the last snapshot).
 */
function contextCases(rt, { key, setup, read, expect }, cases) {
  before(async () => {
    assert.equal((await rt.createContext(key, "c")).status, 201);
    assert.equal(contextText(await rt.run({ key, contextId: "c", code: setup })), expect);
  });
  for (const [what, code, name] of cases) {
    it(`in a context: ${what} → ${name ?? "a guest error or limit"}, and the context keeps its state`, async () => {
      const r = await rt.run({ key, contextId: "c", code });
      assert.equal(r.ok, true, JSON.stringify(r).slice(0, 300));
      const error = r.result.error;
      assert.ok(error, `an error for ${what}: ${JSON.stringify(r.result).slice(0, 300)}`);
      if (name) assert.equal(error.name, name, JSON.stringify(error));
      else assert.notEqual(error.name, "EngineError", JSON.stringify(error));
      assert.deepEqual(r.result.workspace.files, []);
      assert.equal(contextText(await rt.run({ key, contextId: "c", code: read })), expect);
    });
  }
}

// Every Durable Object SQLite file under the persistence directory whose meta row names Interpreter key `key`.
function interpreterDatabase(persist, key) {
  for (const entry of readdirSync(persist, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".sqlite")) continue;
    const file = path.join(entry.parentPath ?? entry.path, entry.name);
    const db = new DatabaseSync(file);
    try {
      const meta = db.prepare("SELECT value FROM meta WHERE key = 'interpreter'").get();
      if (meta && JSON.parse(meta.value).key === key) return file;
    } catch {
      // not an Interpreter's database
    } finally {
      db.close();
    }
  }
  throw new Error(`no storage for interpreter ${key}`);
}

/**
 * Storage damage of every kind, one Interpreter key per case, applied while the runtime is stopped: [what, sql,
 * after] where `after` is "fresh" (the context boots fresh: its state is gone, its id stays), "kept" (the damage does
 * not touch what a restore uses) or "wiped" (an unknown layout: the Interpreter's storage is wiped, protocol §4.6).
 */
const ROW_DAMAGE = [
  ["the context row's value truncated to half", "UPDATE contexts SET value = substr(value, 1, length(value) / 2)", "fresh"],
  ["the context row's value not JSON", "UPDATE contexts SET value = 'garbage'", "fresh"],
  ["the context row's value JSON null", "UPDATE contexts SET value = 'null'", "fresh"],
  ["the context row's value a number in a BLOB", "UPDATE contexts SET value = x'00ff'", "fresh"],
  ["the snapshot's build changed", `UPDATE contexts SET value = json_set(value, '$.snapshot.build', 'other')`, "fresh"],
  ["the snapshot's memoryPages changed", `UPDATE contexts SET value = json_set(value, '$.snapshot.memoryPages', json_extract(value, '$.snapshot.memoryPages') + 1)`, "fresh"],
  ["the snapshot's memoryPages a string", `UPDATE contexts SET value = json_set(value, '$.snapshot.memoryPages', 'many')`, "fresh"],
  ["the snapshot's pageCount above memoryPages", `UPDATE contexts SET value = json_set(value, '$.snapshot.pageCount', 1e9)`, "fresh"],
  ["the snapshot's chunkCount changed", `UPDATE contexts SET value = json_set(value, '$.snapshot.chunkCount', json_extract(value, '$.snapshot.chunkCount') + 1)`, "fresh"],
  ["the snapshot's storedBytes negative", `UPDATE contexts SET value = json_set(value, '$.snapshot.storedBytes', -1)`, "fresh"],
  ["the snapshot's handle beyond the memory", `UPDATE contexts SET value = json_set(value, '$.snapshot.handle', '99999999999')`, "fresh"],
  ["the snapshot's handle not a number", `UPDATE contexts SET value = json_set(value, '$.snapshot.handle', json('[1]'))`, "fresh"],
  ["the snapshot's extra a string", `UPDATE contexts SET value = json_set(value, '$.snapshot.extra', 'x')`, "fresh"],
  ["the snapshot's format unknown", `UPDATE contexts SET value = json_set(value, '$.snapshot.format', 99)`, "fresh"],
  ["the snapshot's manifest truncated", `UPDATE contexts SET value = json_set(value, '$.snapshot.manifest', substr(json_extract(value, '$.snapshot.manifest'), 1, 20))`, "fresh"],
  ["the snapshot's check altered", `UPDATE contexts SET value = json_set(value, '$.snapshot.check', '0000000000000000')`, "fresh"],
  ["the snapshot's check removed", `UPDATE contexts SET value = json_remove(value, '$.snapshot.check')`, "fresh"],
  ["the snapshot record not an object", `UPDATE contexts SET value = json_set(value, '$.snapshot', json('[1,2]'))`, "fresh"],
  ["the snapshot's takenAt and stale changed (not used by a restore)", `UPDATE contexts SET value = json_set(value, '$.snapshot.takenAt', 1, '$.snapshot.stale', json('true'))`, "kept"],
  ["the context's cwd outside /workspace", `UPDATE contexts SET value = json_set(value, '$.cwd', '/etc')`, "kept"],
  ["the context's cwd not a string", `UPDATE contexts SET value = json_set(value, '$.cwd', 7)`, "kept"],
  ["the context's executions a string", `UPDATE contexts SET value = json_set(value, '$.executions', 'many')`, "kept"],
  ["a chunk row truncated to half", "UPDATE chunks SET data = substr(data, 1, length(data) / 2)", "fresh"],
  ["a chunk row with one byte flipped", "UPDATE chunks SET data = substr(data, 1, 99) || x'5a' || substr(data, 101) WHERE chunk = (SELECT min(chunk) FROM chunks)", "fresh"],
  ["a chunk row stored as TEXT", "UPDATE chunks SET data = CAST(data AS TEXT)", "fresh"],
  ["a chunk row renumbered", "UPDATE chunks SET chunk = chunk + 1000", "fresh"],
  ["an extra chunk row", "INSERT INTO chunks (context_id, chunk, data) SELECT context_id, 4242, data FROM chunks LIMIT 1", "fresh"],
  ["every chunk row empty", "UPDATE chunks SET data = x''", "fresh"],
  ["the meta row's value truncated", "UPDATE meta SET value = substr(value, 1, 10)", "wiped"],
  ["the meta row's format unknown", `UPDATE meta SET value = json_set(value, '$.format', 1)`, "wiped"],
];

/** The storage-damage tests for one language: every case on its own key, two restarts in all. */
function storageDamage(rt, language, { set, read, fresh, text }) {
  const keyOf = (i) => `damage-${language}-${i}`;
  it(`${ROW_DAMAGE.length} kinds of damaged or truncated rows: each call answers as the rules say, and every context recovers`, async () => {
    for (let i = 0; i < ROW_DAMAGE.length; i++) {
      assert.equal((await rt.createContext(keyOf(i), "h")).status, 201);
      assert.equal(contextText(await rt.run({ key: keyOf(i), contextId: "h", code: set(41) })), text(41));
    }
    const edited = [];
    await rt.restart(() => {
      for (let i = 0; i < ROW_DAMAGE.length; i++) {
        const db = new DatabaseSync(interpreterDatabase(rt.persist, keyOf(i)));
        try {
          edited.push(Number(db.prepare(ROW_DAMAGE[i][1]).run().changes));
        } finally {
          db.close();
        }
      }
    });
    for (let i = 0; i < ROW_DAMAGE.length; i++) {
      const [what, , after] = ROW_DAMAGE[i];
      assert.ok(edited[i] >= 1, `${what}: the storage was edited`);
      const r = await rt.run({ key: keyOf(i), contextId: "h", code: read });
      if (after === "wiped") {
        assert.equal(r.ok, false, `${what}: ${JSON.stringify(r).slice(0, 300)}`);
        assert.equal(r.status, 404, what);
        assert.equal(r.body.code, "CONTEXT_NOT_FOUND", what);
        assert.equal((await rt.createContext(keyOf(i), "h")).status, 201, `${what}: the id can be created again`);
      } else {
        assert.equal(contextText(r), after === "kept" ? text(41) : fresh, `${what}: ${after}`);
      }
      // The context works and snapshots again.
      assert.equal(contextText(await rt.run({ key: keyOf(i), contextId: "h", code: set(7) })), text(7), what);
    }
    await rt.restart();
    for (let i = 0; i < ROW_DAMAGE.length; i++) {
      const r = await rt.run({ key: keyOf(i), contextId: "h", code: read });
      assert.equal(contextText(r), text(7), `${ROW_DAMAGE[i][0]}: the new snapshot restores`);
    }
  });
}

// Tricks in the caller's workspace manifest and dirs (executeInContext args, through /raw: getFiles answers []):
// [what, workspace, accepted]. Each is refused with an ErrorResponse-shaped failure (never the generic 502), or, where
// `accepted`, taken as the spec says (dirs: every directory is created, with no entry-count limit) inside /workspace.
const MANIFEST_TRICKS = [
  ["a manifest path with ..", { dirs: [], manifest: { "/workspace/../etc/passwd": "0000000000000000" } }],
  ["a manifest path outside /workspace", { dirs: [], manifest: { "/etc/passwd": "0000000000000000" } }],
  ["a relative manifest path", { dirs: [], manifest: { "a.txt": "0000000000000000" } }],
  ["a manifest path with //", { dirs: [], manifest: { "/workspace//a.txt": "0000000000000000" } }],
  ["a manifest path that is /workspace itself", { dirs: [], manifest: { "/workspace": "0000000000000000" } }],
  ["a manifest path with a NUL", { dirs: [], manifest: { "/workspace/a\u0000b": "0000000000000000" } }],
  ["a manifest path of 300-byte names", { dirs: [], manifest: { ["/workspace/" + "n".repeat(300)]: "0000000000000000" } }],
  ["a manifest path 300 levels deep", { dirs: [], manifest: { ["/workspace" + "/d".repeat(300)]: "0000000000000000" } }],
  ["a dirs entry with ..", { dirs: ["/workspace/../../tmp"], manifest: {} }],
  ["a dirs entry outside /workspace", { dirs: ["/stdlib/x"], manifest: {} }],
  ["a relative dirs entry (resolved under /workspace)", { dirs: ["sub"], manifest: {} }, true],
  ["a dirs entry that is /", { dirs: ["/"], manifest: {} }],
  ["a dirs entry with a NUL", { dirs: ["/workspace/a\u0000"], manifest: {} }],
  ["a file and a directory at one path", { dirs: ["/workspace/x"], manifest: { "/workspace/x": "0000000000000000" } }],
  ["a file under a file", { dirs: [], manifest: { "/workspace/f": "0000000000000000", "/workspace/f/g": "0000000000000000" } }],
  // Listing these in the guest took 23 s for 200,000 before fd_readdir resumed where it stopped (test_wasi_dos.cpp).
  ["100,000 dirs entries", { dirs: Array.from({ length: 100000 }, (_, i) => `/workspace/d${i}`), manifest: {} }, true],
  ["100,000 manifest keys", { dirs: [], manifest: Object.fromEntries(Array.from({ length: 100000 }, (_, i) => [`/workspace/f${i}`, "0000000000000000"])) }],
];

function manifestTricks(rt, language, key, probe) {
  before(async () => {
    assert.equal((await rt.createContext(key, "c")).status, 201);
  });
  for (const [what, workspace, accepted] of MANIFEST_TRICKS) {
    it(`${what}: ${accepted ? "accepted inside /workspace" : "an ErrorResponse-shaped failure (no guest runs)"}, and the next call works`, async () => {
      const r = await rt.raw(key, { contextId: "c", code: probe.code, workspace });
      if (accepted) {
        assert.equal(r.ok, true, `${what}: ${JSON.stringify(r).slice(0, 300)}`);
        assert.ok(r.result.workspace.dirs.every((d) => d.startsWith("/workspace/")), what);
        assert.equal(r.result.workspace.dirs.length, workspace.dirs.length, what);
      } else {
        assert.equal(r.ok, false, `${what}: ${JSON.stringify(r).slice(0, 300)}`);
        assert.ok(r.status >= 400 && r.status < 600 && r.status !== 502, `${what}: status ${r.status} ${JSON.stringify(r.body)}`);
        assert.equal(typeof r.body.code, "string");
        assert.equal(typeof r.body.message, "string");
        assert.equal(r.body.httpStatus, r.status);
      }
      // Nothing of it reached the mirror: the next call (empty workspace) sees an empty /workspace.
      const next = await rt.raw(key, { contextId: "c", code: probe.code, workspace: { dirs: [], manifest: {} } });
      assert.equal(next.ok, true, JSON.stringify(next).slice(0, 300));
      assert.deepEqual(next.result.results, [probe.empty], what);
    });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// JavaScript

describe("javascript", () => {
  const rt = useLanguageRuntime("javascript");
  const limit = "ExecutionLimitError";

  describe("hostile programs, stateless", () => {
    hostileCases((code) => rt.exec(code), [
      // loops
      ["an endless loop in a getter", "const o = { get x() { for (;;) {} } }; o.x", limit],
      ["an awaited promise that never settles", "await new Promise(() => {})", "Error"],
      ["an endless async loop", "(async () => { for (;;) await null })(); 1", limit],
      ["an endless promise-job loop", "function f() { Promise.resolve().then(f) } f(); 1", limit],
      ["an endless generator spread", "[...(function* () { for (;;) yield 1 })()]", null],
      ["an endless loop in a sort comparator", "[3, 2, 1].sort(() => { for (;;) {} })", limit],
      ["an endless loop in toJSON of the result", "({ toJSON() { for (;;) {} } })", limit],
      // regex bombs
      ["a nested-quantifier regex", '/(a*)*b/.test("a".repeat(40))', limit],
      ["an alternation regex bomb", '/^(a|a)*$/.test("a".repeat(40) + "!")', limit],
      ["a backtracking regex over a long string", '/^(\\w+\\s?)*$/.test("ab ".repeat(30) + "!")', limit],
      ["a regex of 10,000 nested groups", 'new RegExp("(".repeat(10000) + "a" + ")".repeat(10000)).test("a")', null],
      ["a global replace that doubles a 16 MiB string", '"a".repeat(1 << 24).replace(/a/g, "aa").length', null],
      // memory bombs
      ["a 4 GiB ArrayBuffer", "new ArrayBuffer(2 ** 32).byteLength", null],
      ["typed arrays until memory runs out", "const a = []; for (;;) a.push(new Float64Array(1 << 20))", null],
      ["a string that doubles until memory runs out", 'let s = "x"; for (;;) s += s', null],
      ['"x".repeat(2 ** 30)', '"x".repeat(2 ** 30).length', null],
      ["an object chain ten million deep", "let o = {}; for (let i = 0; i < 1e7; i++) o = { o }; 1", null],
      ["arrays of objects until memory runs out", "const a = []; for (;;) a.push({ a: 1, b: [1, 2, 3] })", null],
      ["a BigInt of 2 ** 2 ** 40", "2n ** (2n ** 40n)", null],
      ["a BigInt squared until memory runs out", "let b = 3n; for (;;) b = b * b", null],
      // deep recursion
      ["recursion through a getter", "const o = { get x() { return this.x } }; o.x", "InternalError"],
      ["recursion through toString", "const o = { toString() { return `${o}` } }; `${o}`", "InternalError"],
      ["recursion through a Proxy trap", "const p = new Proxy({}, { get: (t, k) => p[k] }); p.x", "InternalError"],
      ["recursion through Array.prototype.map", "function f() { return [1].map(f) } f()", "InternalError"],
      ["recursion through a constructor", "class A { constructor() { new A() } } new A()", "InternalError"],
      ["recursion through an async function", "async function f() { await f() } await f()", "InternalError"],
      // JSON bombs inside the guest
      // QuickJS's recursion check does not see V8's native stack (docs/security.md §4): JSON nested this deep
      // overflows the host's stack first, an EngineError trap; the instance is dropped.
      ["JSON.parse of 1,000,000 nested arrays (overflows the host's stack)", 'JSON.parse("[".repeat(1e6) + "]".repeat(1e6))', "EngineError"],
      ["JSON.parse of a 5,000,000-element array", 'JSON.parse("[" + "0,".repeat(5e6) + "0]").length', null],
      ["JSON.parse of an object with a million keys", 'JSON.parse("{" + Array.from({ length: 1e6 }, (_, i) => `"k${i}":0`).join(",") + "}")', null],
      // output and result floods
      ["a printing loop", 'for (;;) console.log("x")', limit],
      ["one 10 MB log line", 'console.log("x".repeat(1e7))', limit],
      ["a stderr flood", 'for (;;) console.error("e".repeat(1000))', limit],
      ["a 30 MB string result", '"x".repeat(3e7)', limit],
      ["a result with a million keys", "const o = {}; for (let i = 0; i < 1e6; i++) o['k' + i] = i; o", null],
      ["a result nested 100,000 deep (overflows the host's stack)", "let a = []; for (let i = 0; i < 1e5; i++) a = [a]; a", "EngineError"],
      ["a cyclic result", "const a = []; a.push(a); a", null],
      ["a Proxy result whose traps throw", "new Proxy({}, { ownKeys() { throw new Error('no') }, get() { throw new Error('no') } })", null],
    ]);
  });

  // Work the interpreter used to hide from its own counters (promise jobs, backtraces, normalization, compilation) is
  // charged by the Wasm-level meter like everything else (docs/fuel.md): ten times the work costs about ten times the
  // fuel. Counted in fuel, not time.
  const costOf = async (code) => {
    const r = await rt.exec(code);
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    return r.usage.fuelConsumed;
  };
  const scales = async (small, large) => {
    const [a, b] = [await costOf(small), await costOf(large)];
    assert.ok(a > 0 && b >= 5 * a && b <= 20 * a, `${a} then ${b} units for ten times the work`);
  };

  it("promise jobs are charged for their work: 20,000 jobs cost about ten times 2,000", async () => {
    const jobs = (n) => `let i = 0; function f() { if (++i < ${n}) Promise.resolve().then(f) } f(); await null; 1`;
    await scales(jobs(2000), jobs(20000));
  });

  it("an Error's backtrace is charged per stack frame: 100 Errors 201 frames deep cost about ten times 10", async () => {
    const errors = (n) => `function d(k) { return k ? d(k - 1) : new Error('e') } for (let i = 0; i < ${n}; i++) d(200); 1`;
    await scales(errors(10), errors(100));
  });

  it("Unicode normalization is charged per code point: 100,000 code points cost about ten times 10,000", async () => {
    const nfd = (n) => `"\\u00e9".repeat(${n}).normalize("NFD").length`;
    await scales(nfd(10000), nfd(100000));
  });

  it("compiling source is charged per byte: 20 evals of a 10,000-byte source cost about ten times 2", async () => {
    const evals = (n) => `const src = 'var x = 0;' + ';x = x + 1'.repeat(999); let n = 0; for (let i = 0; i < ${n}; i++) n += eval(src); n`;
    const r = await rt.exec(evals(20));
    assert.equal(r.results[0].text, "19980");
    await scales(evals(2), evals(20));
  });

  describe("hostile programs in a context", () => {
    contextCases(rt, { key: "js-hostile", setup: "var kept = 41; kept", read: "kept", expect: "41" }, [
      ["an endless loop", "for (;;) {}", limit],
      ["a regex bomb", '/(a*)*b/.test("a".repeat(40))', limit],
      ["typed arrays until memory runs out", "{ const a = []; for (;;) a.push(new Float64Array(1 << 20)) }", null],
      ["a string that doubles until memory runs out", '{ let s = "x"; for (;;) s += s }', null],
      ["a BigInt squared until memory runs out", "{ let b = 3n; for (;;) b = b * b }", null],
      ["deep recursion", "{ const f = () => f() + 1; f() }", "InternalError"],
      ["JSON.stringify of an array nested 100,000 deep (overflows the host's stack)", "{ let a = []; for (let i = 0; i < 1e5; i++) a = [a]; JSON.stringify(a).length }", "EngineError"],
      ["a printing loop", 'for (;;) console.log("x")', limit],
      ["a 30 MB string result", '"x".repeat(3e7)', null],
      ["an awaited promise that never settles", "await new Promise(() => {})", "Error"],
    ]);
  });

  describe("workspace floods in a context", () => {
    const key = "js-floods";
    const run = (code) => rt.run({ key, contextId: "c", code });
    const json = (r) => {
      assert.equal(r.ok, true, JSON.stringify(r).slice(0, 300));
      assert.equal(r.result.error, undefined, JSON.stringify(r.result.error));
      return r.result.results[0].json;
    };
    before(async () => {
      assert.equal((await rt.createContext(key, "c")).status, 201);
      await rt.files({ $reset: true });
    });
    // Each flood ends with an uncaught error: the mirror is rolled back and nothing reaches the caller.
    const assertRolledBack = async (r, errorCode) => {
      assert.equal(r.ok, true, JSON.stringify(r).slice(0, 300));
      assert.equal(r.result.error?.name, "Error", JSON.stringify(r.result.error));
      assert.match(r.result.error.message, new RegExp(errorCode));
      assert.deepEqual(r.result.workspace.files, []);
      assert.deepEqual(r.result.workspace.deleted, []);
      assert.deepEqual(r.result.workspace.dirs, []);
      assert.deepEqual(await rt.sandbox(), {});
      assert.deepEqual(json(await run('fs.readdirSync("/workspace")')), []);
    };

    it("size: a 1 MiB + 1 file is EFBIG; 16 MiB of files then one more is ENOSPC; rolled back when uncaught", async () => {
      // The file is created before the write fails: the guest removes it again.
      assert.deepEqual(json(await run('{ let code = "written"; try { fs.writeFileSync("/workspace/big", "x".repeat((1 << 20) + 1)) } catch (e) { code = e.code } fs.rmSync("/workspace/big"); [code] }')), ["EFBIG"]);
      assert.deepEqual(await rt.sandbox(), {});
      const fill = 'for (let i = 0; ; i++) fs.writeFileSync("/workspace/f" + i, "x".repeat(1 << 20))';
      await assertRolledBack(await run(fill), "ENOSPC");
    });

    it("count: directories until the entry limit is ENOSPC after 4,096 entries; rolled back when uncaught", async () => {
      const r = await run('{ let n = 0; try { for (;; n++) fs.mkdirSync("/workspace/d" + n) } catch (e) { throw new Error(e.code + " after " + n) } }');
      await assertRolledBack(r, "ENOSPC after 4096$");
    });

    it("depth: nested directories stop at ENAMETOOLONG at 256 levels; rolled back when uncaught", async () => {
      const r = await run('{ let p = "/workspace", n = 0; try { for (;; n++) { p += "/d"; fs.mkdirSync(p) } } catch (e) { throw new Error(e.code + " after " + n) } }');
      await assertRolledBack(r, "ENAMETOOLONG after 256$");
    });

    it("long names: a 255-byte name is fine, 256 bytes is ENAMETOOLONG", async () => {
      const r = await run('{ const ok = "/workspace/" + "n".repeat(255); fs.writeFileSync(ok, "x"); let code = null; try { fs.writeFileSync("/workspace/" + "n".repeat(256), "x") } catch (e) { code = e.code } fs.rmSync(ok); [code] }');
      assert.deepEqual(json(r), ["ENAMETOOLONG"]);
      assert.deepEqual(await rt.sandbox(), {});
    });

    it("renames: into its own subtree, over /workspace, and across mounts are refused", async () => {
      const r = await run(`{
        fs.mkdirSync("/workspace/a/b", { recursive: true });
        const codes = [];
        for (const [from, to] of [["/workspace/a", "/workspace/a/b/c"], ["/workspace/a", "/workspace"], ["/workspace/a", "/stdlib/a"], ["/workspace/a", "/workspace/../a"]]) {
          try { fs.renameSync(from, to); codes.push(null) } catch (e) { codes.push(e.code) }
        }
        fs.rmSync("/workspace/a", { recursive: true });
        codes }`);
      const codes = json(r);
      assert.equal(codes.length, 4);
      for (const c of codes) assert.equal(typeof c, "string", JSON.stringify(codes));
      assert.deepEqual(r.result.workspace.dirs, []);
    });

    it("guest path tricks: .., absolute paths outside /workspace, NUL and /stdlib writes are refused", async () => {
      const r = await run(`{
        const codes = [];
        for (const f of [() => fs.readFileSync("/workspace/../../etc/passwd"), () => fs.readFileSync("/etc/passwd"),
                         () => fs.writeFileSync("/workspace/../x", "x"), () => fs.writeFileSync("/stdlib/x", "x"),
                         () => fs.writeFileSync("/workspace/a\\0b", "x"), () => fs.readdirSync("/"),
                         () => fs.readFileSync("//workspace/x")]) {
          try { f(); codes.push(null) } catch (e) { codes.push(e.code ?? e.name) }
        }
        codes }`);
      const codes = json(r);
      assert.equal(codes.length, 7);
      for (const c of codes) assert.equal(typeof c, "string", JSON.stringify(codes));
      assert.deepEqual(r.result.workspace.files, []);
      assert.deepEqual(await rt.sandbox(), {});
    });

    it("after every flood the context still runs and snapshots", async () => {
      assert.equal(contextText(await run("var after = 1; after")), "1");
      await rt.restart();
      assert.equal(contextText(await run("after")), "1");
    });
  });

  describe("path tricks in the caller's manifest", () => {
    manifestTricks(rt, "javascript", "js-manifest", { code: 'fs.readdirSync("/workspace")', empty: { json: [] } });
  });

  describe("env-var and JSON floods", () => {
    it("POST /execute: 8,000 envVars keys in a 96 KiB body are accepted and reach the engine", async () => {
      const envVars = {};
      for (let i = 0; i < 8000; i++) envVars[`K${i}`] = "v";
      const r = await rt.exec("Object.keys(process.env).length", envVars);
      assert.deepEqual(r.results, [{ text: "8000" }]);
    });

    it("POST /execute: a body of a 96 KiB array, or 9,000 keys, in an ignored member is accepted", async () => {
      const zeros = `{"code":"1 + 1","x":[${"0,".repeat(45000)}0]}`;
      const host = { host: "runtime.test" };
      assert.deepEqual((await assertExecutionResult(await rt.execute(zeros, host))).results, [{ text: "2" }]);
      const keys = `{"code":"1 + 1",${Array.from({ length: 9000 }, (_, i) => `"${i}":0`).join(",")}}`;
      assert.ok(keys.length < 98304);
      assert.deepEqual((await assertExecutionResult(await rt.execute(keys, host))).results, [{ text: "2" }]);
      await assertErrorResponse(await rt.execute(`{"code":"1","x":${"[".repeat(600)}${"]".repeat(600)}}`, host), 400, "Invalid JSON");
    });

    it("executeInContext: 250,000 envVars keys (~3.5 MB of args) answer a result or a guest limit, and the context keeps working", async () => {
      assert.equal((await rt.createContext("js-env", "c")).status, 201);
      const envVars = {};
      for (let i = 0; i < 250000; i++) envVars[`K${i}`] = "v";
      const r = await rt.raw("js-env", { contextId: "c", code: "Object.keys(process.env).length", envVars, workspace: { dirs: [], manifest: {} } });
      assert.equal(r.ok, true, JSON.stringify(r).slice(0, 300));
      if (r.result.error) assert.notEqual(r.result.error.name, "EngineError", JSON.stringify(r.result.error));
      else assert.deepEqual(r.result.results, [{ text: "250000" }]);
      assert.equal(contextText(await rt.run({ key: "js-env", contextId: "c", code: "1 + 1" })), "2");
    });

    it("executeInContext: one envVars value of 3.9 MB is accepted", async () => {
      const r = await rt.raw("js-env", { contextId: "c", code: "process.env.BIG.length", envVars: { BIG: "x".repeat(3_900_000) }, workspace: { dirs: [], manifest: {} } });
      assert.equal(r.ok, true, JSON.stringify(r).slice(0, 300));
      if (r.result.error) assert.notEqual(r.result.error.name, "EngineError", JSON.stringify(r.result.error));
      else assert.deepEqual(r.result.results, [{ text: "3900000" }]);
    });

    it("executeInContext: args nested 1,000 deep, or an array of a million items, are refused and the context keeps working", async () => {
      let deep = [];
      for (let i = 0; i < 1000; i++) deep = [deep]; // over the core's 512 levels
      const nested = await rt.raw("js-env", { contextId: "c", code: "1", envVars: {}, workspace: { dirs: [], manifest: {} }, extra: deep });
      assert.equal(nested.ok, false, JSON.stringify(nested).slice(0, 300));
      assert.ok(nested.status === 400 || nested.status === 413, JSON.stringify(nested).slice(0, 300));
      const wide = await rt.raw("js-env", { contextId: "c", code: "1", workspace: { dirs: [], manifest: {} }, extra: new Array(1e6).fill(0) });
      assert.equal(wide.ok, true, JSON.stringify(wide).slice(0, 300)); // 2 MB of args: within the cap, ignored member
      assert.equal(contextText(await rt.run({ key: "js-env", contextId: "c", code: "2 + 2" })), "4");
    });
  });

  describe("damaged snapshot rows", () => {
    storageDamage(rt, "javascript", { set: (n) => `var kept = ${n}; kept`, read: "typeof kept === 'undefined' ? 'fresh' : kept", fresh: "'fresh'", text: String });
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Python

describe("python", () => {
  const rt = useLanguageRuntime("python");
  const limit = "ExecutionLimitError";

  describe("hostile programs, stateless (beyond python.test.mjs)", () => {
    hostileCases((code) => rt.exec(code), [
      ["an endless loop", "while True: pass", limit],
      ["an endless loop in __del__ at exit", "class A:\n  def __del__(self):\n    while True: pass\na = A()\ndel a", limit],
      ["an endless generator into list()", "import itertools\nlist(itertools.count())", null],
      ["a bytearray that doubles", "b = bytearray(1)\nwhile True: b = b + b", "MemoryError"],
      ["a list of lists until memory runs out", "a = []\nwhile True: a.append([0] * 1000)", null],
      ["a dict of a million entries as the result", "{str(i): i for i in range(10**6)}", null],
      ["a printing loop", "while True: print('x')", limit],
      ["one 10 MB print", "print('x' * 10**7)", limit],
      ["a 30 MB string result", "'x' * (3 * 10**7)", limit],
      ["json.loads of 100,000 nested lists", "import json\njson.loads('[' * 100000 + ']' * 100000)", "RecursionError"],
      ["a regex bomb with a backreference", "import re\nre.match(r'^(\\w+\\s?)*$', 'ab ' * 30 + '!')", null],
    ]);
  });

  describe("hostile programs in a context", () => {
    contextCases(rt, { key: "py-hostile", setup: "kept = 41\nkept", read: "kept", expect: "41" }, [
      ["an endless loop", "while True: pass", limit],
      ["a memory bomb", "x = bytearray(10**9)", "MemoryError"],
      // Inside a function: a global holding the full heap would make every later round of the context fail too (the
      // context keeps the guest's state, its memory included).
      ["a list of lists until memory runs out", "def g():\n  a = []\n  while True: a.append([0] * 1000)\ng()", null],
      ["runaway recursion", "def f(n): return f(n + 1)\nf(0)", "RecursionError"],
      ["a printing loop", "while True: print('x')", limit],
      ["a 30 MB string result", "'x' * (3 * 10**7)", null],
      ["a huge int to str", "str(10**100000)", "ValueError"],
      ["SystemExit", "raise SystemExit(3)", "SystemExit"],
    ]);
  });

  describe("workspace floods in a context", () => {
    const key = "py-floods";
    const run = (code) => rt.run({ key, contextId: "c", code });
    before(async () => {
      assert.equal((await rt.createContext(key, "c")).status, 201);
      await rt.files({ $reset: true });
    });
    for (const [what, code, errno] of [
      ["16 MiB of files and one more", "i = 0\nwhile True:\n  open(f'/workspace/f{i}', 'wb').write(bytes(1 << 20))\n  i += 1", "ENOSPC|No space"],
      ["directories until the entry limit", "import os\ni = 0\nwhile True:\n  os.mkdir(f'/workspace/d{i}')\n  i += 1", "ENOSPC|No space"],
      ["nested directories past the depth limit", "import os\np = '/workspace'\nwhile True:\n  p += '/d'\n  os.mkdir(p)", "ENAMETOOLONG|too long"],
    ]) {
      it(`${what} → OSError, rolled back, and the context keeps working`, async () => {
        const r = await run(code);
        assert.equal(r.ok, true, JSON.stringify(r).slice(0, 300));
        assert.equal(r.result.error?.name, "OSError", JSON.stringify(r.result.error));
        assert.match(r.result.error.message, new RegExp(errno));
        assert.deepEqual(r.result.workspace.files, []);
        assert.deepEqual(r.result.workspace.dirs, []);
        assert.deepEqual(await rt.sandbox(), {});
        const listing = await run("import os\nos.listdir('/workspace')");
        assert.equal(listing.ok, true);
        assert.deepEqual(listing.result.results, [{ json: [] }]);
      });
    }
    it("guest path tricks: .., paths outside the preopens and NUL are errors, nothing is written", async () => {
      const r = await run(`
out = []
for f in [lambda: open('/workspace/../../etc/passwd').read(), lambda: open('/etc/passwd').read(),
          lambda: open('/workspace/../x', 'w'), lambda: open('/stdlib/x', 'w'), lambda: open('/workspace/a\\0b', 'w')]:
    try:
        f()
        out.append(None)
    except Exception as e:
        out.append(type(e).__name__)
out`);
      assert.equal(r.ok, true, JSON.stringify(r).slice(0, 300));
      const names = r.result.results[0].json;
      assert.equal(names.length, 5);
      for (const n of names) assert.equal(typeof n, "string", JSON.stringify(names));
      assert.deepEqual(await rt.sandbox(), {});
    });
  });

  describe("path tricks in the caller's manifest", () => {
    manifestTricks(rt, "python", "py-manifest", { code: "import os\nos.listdir('/workspace')", empty: { json: [] } });
  });

  describe("env-var floods", () => {
    it("executeInContext: 100,000 envVars keys reach os.environ, and the context keeps working", async () => {
      assert.equal((await rt.createContext("py-env", "c")).status, 201);
      const envVars = {};
      for (let i = 0; i < 100000; i++) envVars[`K${i}`] = "v";
      const r = await rt.raw("py-env", { contextId: "c", code: "import os\nlen(os.environ)", envVars, workspace: { dirs: [], manifest: {} } });
      assert.equal(r.ok, true, JSON.stringify(r).slice(0, 300));
      if (r.result.error) assert.notEqual(r.result.error.name, "EngineError", JSON.stringify(r.result.error));
      else assert.deepEqual(r.result.results, [{ text: "100000" }]);
      assert.equal(contextText(await rt.run({ key: "py-env", contextId: "c", code: "1 + 1" })), "2");
    });
  });

  describe("damaged snapshot rows", () => {
    storageDamage(rt, "python", { set: (n) => `kept = ${n}\nkept`, read: "globals().get('kept', 'fresh')", fresh: "'fresh'", text: String });
  });
});
