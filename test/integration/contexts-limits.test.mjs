// Denial-of-service limits of code contexts in workerd (Miniflare, on-disk SQLite), issue 13 (docs/limits.md):
// a guest's rename tower stays within the path limits and its result stays small; a 100 KB workspace.dirs path is
// refused (400, naming the limit) without wedging the Interpreter; oversized args are refused before the core parses them; a context row or
// chunk rows edited on disk boot fresh and the context recovers.
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { startRuntime } from "./helpers.mjs";

const persist = mkdtempSync(path.join(tmpdir(), "sw-limits-"));

async function start() {
  const rt = await startRuntime(
    [
      { helper: { name: "caller", entry: "context-caller.js", serviceBindings: { RUNTIME: "runtime" } } },
      { name: "runtime", interpreter: true, routes: ["runtime.test/*"] },
    ],
    { resourcePersistencePath: persist },
  );
  const post = (p, body) =>
    rt.fetch(p, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return {
    ...rt,
    run: async (body) => (await post("/run", body)).json(),
    runText: async (body) => (await post("/run", body)).text(),
    raw: async (key, args) => (await post("/raw", { key, args })).json(),
    createContext: async (key, id) => {
      const res = await rt.fetch(`https://runtime.test/interpreters/${key}/contexts`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ id }),
      });
      assert.equal(res.status, 201);
    },
  };
}

const text = (r) => {
  assert.equal(r.ok, true, JSON.stringify(r).slice(0, 500));
  assert.equal(r.result.error, undefined, `unexpected error: ${JSON.stringify(r.result.error)}`);
  return r.result.results[0]?.text;
};

// Every Durable Object SQLite file Miniflare keeps under the persistence directory.
function sqliteFiles(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith(".sqlite")) out.push(path.join(entry.parentPath ?? entry.path, entry.name));
  }
  return out;
}

// Runs `sql` on every DO database that has a contexts table (the runtime is stopped meanwhile).
function editStorage(sql) {
  let edited = 0;
  for (const file of sqliteFiles(persist)) {
    const db = new DatabaseSync(file);
    try {
      const has = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'contexts'").get();
      if (has) edited += Number(db.prepare(sql).run().changes);
    } finally {
      db.close();
    }
  }
  return edited;
}

let rt;
before(async () => {
  rt = await start();
});
after(async () => {
  await rt?.dispose();
  rmSync(persist, { recursive: true, force: true });
});

describe("workspace path limits (docs/limits.md)", () => {
  it("a rename tower of 255-byte names stops at ENAMETOOLONG and its result stays small", async () => {
    await rt.createContext("tower", "c1");
    const code = `
      const n = "n".repeat(255), t = "t".repeat(255);
      fs.mkdirSync("/workspace/" + t);
      let rounds = 0, code = null;
      try {
        for (; rounds < 400; rounds++) {
          fs.mkdirSync("/workspace/" + n);
          fs.renameSync("/workspace/" + t, "/workspace/" + n + "/" + t);
          fs.renameSync("/workspace/" + n, "/workspace/" + t);
        }
      } catch (e) { code = e.code }
      [rounds, code]`;
    const body = await rt.runText({ key: "tower", contextId: "c1", code });
    const r = JSON.parse(body);
    assert.equal(r.ok, true, body.slice(0, 500));
    // 4,096 path bytes hold 16 levels of 255-byte names: the 16th move is refused inside the guest.
    assert.deepEqual(r.result.results[0].json, [15, "ENAMETOOLONG"]);
    // The tower (16 levels: the first directory and 15 moves) and the last, unused top directory.
    assert.equal(r.result.workspace.dirs.length, 17);
    assert.ok(body.length < 100_000, `the whole answer is ${body.length} bytes`);
    console.log(`rename tower: result ${body.length} bytes`);
  });

  it("a 100 KB workspace.dirs path is 400 VALIDATION_FAILED naming the path limit, and every later call still works, in every context", async () => {
    await rt.createContext("deepdirs", "c1");
    await rt.createContext("deepdirs", "c2");
    let deep = "/workspace";
    while (deep.length < 100_000) deep += "/a";
    const r = await rt.raw("deepdirs", { contextId: "c1", code: "1", workspace: { dirs: [deep], manifest: {} } });
    assert.equal(r.ok, false, JSON.stringify(r).slice(0, 300));
    assert.equal(r.status, 400);
    assert.equal(r.body.code, "VALIDATION_FAILED");
    assert.match(r.body.message, /^workspace\.dirs entry exceeds the path limit of 4096 bytes: \/workspace\/a\/a/);
    assert.equal(text(await rt.run({ key: "deepdirs", contextId: "c1", code: "1 + 1" })), "2");
    assert.equal(text(await rt.run({ key: "deepdirs", contextId: "c2", code: "2 + 2" })), "4");
  });
});

describe("executeInContext sizes (docs/limits.md)", () => {
  it("args over 4 MiB are 413 'Request too large'; the Interpreter keeps working", async () => {
    await rt.createContext("bigargs", "c1");
    const r = await rt.raw("bigargs", {
      contextId: "c1", code: "1", envVars: { A: "x".repeat(5 * 1048576) }, workspace: { dirs: [], manifest: {} },
    });
    assert.equal(r.ok, false);
    assert.equal(r.status, 413);
    assert.equal(r.body.code, "VALIDATION_FAILED");
    assert.equal(r.body.message, "Request too large");
    assert.equal(text(await rt.run({ key: "bigargs", contextId: "c1", code: "3" })), "3");
  });

  it("an envVars object of 9,800 keys is accepted and reaches the engine", async () => {
    await rt.createContext("manykeys", "c1");
    const envVars = {};
    for (let i = 0; i < 9800; i++) envVars[`KEY_${i}`] = "v";
    envVars.KEY_7 = "seven";
    const t0 = performance.now();
    const r = await rt.run({ key: "manykeys", contextId: "c1", code: "Object.keys(process.env).length + ':' + process.env.KEY_7", envVars });
    const many = performance.now() - t0;
    assert.equal(text(r), "'9800:seven'");
    const t1 = performance.now();
    await rt.run({ key: "manykeys", contextId: "c1", code: "1" });
    console.log(`9,800-key envVars: ${many.toFixed(1)} ms round trip, {"code":"1"}: ${(performance.now() - t1).toFixed(1)} ms`);
  });
});

describe("restore from storage edited behind the Interpreter's back (docs/limits.md)", () => {
  const restart = async (sql) => {
    await rt.dispose();
    const n = editStorage(sql);
    rt = await start();
    return n;
  };

  for (const [what, sql] of [
    ["a bad handle in the context row", `UPDATE contexts SET value = json_set(value, '$.snapshot.handle', '12345') WHERE id = 'h'`],
    ["bad extra.globals in the context row", `UPDATE contexts SET value = json_set(value, '$.snapshot.extra', json('{"globals":{"__stack_pointer":"16"}}')) WHERE id = 'h'`],
    ["a damaged chunk row", `UPDATE chunks SET data = zeroblob(length(data)) WHERE context_id = 'h'`],
    ["a missing chunk row", `DELETE FROM chunks WHERE context_id = 'h'`],
  ]) {
    it(`${what}: the next call boots fresh and the context recovers`, async () => {
      const key = `edit-${what.replace(/[^a-z]+/g, "-")}`.slice(0, 60);
      await rt.createContext(key, "h");
      assert.equal(text(await rt.run({ key, contextId: "h", code: "var kept = 41; kept" })), "41");
      assert.ok((await restart(sql)) >= 1, "the storage was edited");
      const fresh = await rt.run({ key, contextId: "h", code: "typeof kept" });
      assert.equal(text(fresh), "'undefined'", "booted fresh instead of running the edited snapshot");
      assert.equal(text(await rt.run({ key, contextId: "h", code: "var kept = 7; kept" })), "7");
      await restart("SELECT 1");
      assert.equal(text(await rt.run({ key, contextId: "h", code: "kept" })), "7", "the new snapshot restores");
    });
  }
});
