// Fault injection (issue 13 part 5, docs/security.md): the real runtime Workers in workerd (Miniflare, on-disk
// SQLite) with the faults of fixtures/faults.js -- a SQL write that fails in the middle of a snapshot, an engine trap,
// an exception inside core code a guest re-entered -- plus workerd disposed while an execute is in flight, and a
// caller whose getFiles throws, never settles, or answers with the wrong bytes or far too many. After every fault the
// next call is served and the context holds the state of its last good snapshot.
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startRuntime, assertExecutionResult, assertErrorResponse } from "./helpers.mjs";

const persist = mkdtempSync(path.join(tmpdir(), "sw-faults-"));
const LANGUAGES = ["javascript", "python", "perl", "ruby", "lua"];
// Per language: the code that sets the context's state `kept` to n, and the code that reads it back as text.
const STATE = {
  javascript: { set: (n) => `var kept = ${n}; kept`, get: "kept", text: (n) => String(n) },
  python: { set: (n) => `kept = ${n}\nkept`, get: "kept", text: (n) => String(n) },
  perl: { set: (n) => `our $kept = ${n}; $kept`, get: "$kept", text: (n) => String(n) },
  ruby: { set: (n) => `kept = ${n}; kept`, get: "kept", text: (n) => String(n) },
  lua: { set: (n) => `kept = ${n} return kept`, get: "return kept", text: (n) => String(n) },
};

async function start() {
  const rt = await startRuntime(
    [
      {
        helper: {
          name: "caller",
          entry: "context-caller.js",
          serviceBindings: Object.fromEntries(LANGUAGES.map((l) => [l.toUpperCase(), l])),
        },
      },
      ...LANGUAGES.map((l) => ({ name: l, language: l, entry: `faults-${l}.js`, interpreter: true, routes: [`${l}.test/*`] })),
    ],
    { resourcePersistencePath: persist },
  );
  const post = (p, body) =>
    rt.fetch(p, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return {
    ...rt,
    post,
    run: async (language, body) => (await post("/run", { binding: language.toUpperCase(), ...body })).json(),
    files: async (map) => (await post("/files", map)).json(),
    calls: async () => (await rt.fetch("/calls")).json(),
    fault: async (language, key, spec) => (await post(`https://${language}.test/fault?key=${key}`, spec)).json(),
    createContext: async (language, key, id) => {
      const res = await post(`https://${language}.test/interpreters/${key}/contexts`, { id });
      return { status: res.status, body: await res.json() };
    },
  };
}

const ok = (r) => {
  assert.equal(r.ok, true, JSON.stringify(r).slice(0, 500));
  return r.result;
};
const text = (r) => {
  const result = ok(r);
  assert.equal(result.error, undefined, `unexpected error: ${JSON.stringify(result.error)}`);
  return result.results[0]?.text;
};

// One describe for the file, so its hooks and its Miniflare belong to it alone when index.js runs every file in
// one process.
describe("fault injection", () => {
  let rt;
  const restart = async () => {
    await rt.dispose();
    rt = await start();
  };
  before(async () => {
    rt = await start();
  });
  after(async () => {
    await rt?.dispose();
    rmSync(persist, { recursive: true, force: true });
  });

  describe("storage failing mid-snapshot", () => {
    for (const language of ["javascript", "python"]) {
      it(`${language}: whichever write of a snapshot fails, the round answers, the previous snapshot stays and restores`, async () => {
        const { set, get, text: t } = STATE[language];
        const key = `snapfail-${language}`;
        assert.equal((await rt.createContext(language, key, "c")).status, 201);
        const run = (code) => rt.run(language, { key, contextId: "c", code });
        assert.equal(text(await run(set(1))), t(1));
        let good = ok(await run(get)).context.snapshot; // the record of the last snapshot written
        let value = 1;
        let injected = 0;
        // The n-th write of a round fails, for n = 1, 2, ... until a round has fewer writes than n.
        for (let n = 1; n < 40; n++) {
          const { failedWrites } = await rt.fault(language, key, { failWrite: n });
          const r = await run(set(value + 1));
          assert.equal(text(r), t(value + 1), "the round itself answers");
          const after = await rt.fault(language, key, { failWrite: 0 });
          if (after.failedWrites === failedWrites) {
            value += 1; // this round had fewer than n writes: all written, its state is the context's
            break;
          }
          injected++;
          assert.equal(r.result.context.snapshotMs, undefined, "no snapshot was written");
          assert.deepEqual(r.result.context.snapshot, good, "the record still describes the previous snapshot");
          // The live instance no longer matches storage: the next call restores the previous snapshot.
          const back = await run(get);
          assert.equal(text(back), t(value), `write ${n}: restored from the previous snapshot`);
          assert.equal(back.result.context.snapshot.takenAt >= good.takenAt, true);
          // And a snapshot can be written again.
          value += 1;
          const again = await run(set(value));
          assert.equal(text(again), t(value));
          assert.equal(typeof again.result.context.snapshotMs, "number");
          good = again.result.context.snapshot;
        }
        assert.ok(injected >= 2, `a round writes a chunk row and the context row at least (${injected} writes injected)`);
        await restart();
        assert.equal(text(await rt.run(language, { key, contextId: "c", code: get })), t(value), "restores after a restart");
      });
    }

    it("a failed write while creating a context is 502 INTERNAL_ERROR; creating it again works", async () => {
      const key = "createfail";
      assert.equal((await rt.createContext("javascript", key, "seed")).status, 201); // the meta row exists
      const { cores } = await rt.fault("javascript", key, { failWrite: 1 });
      const failed = await rt.post(`https://javascript.test/interpreters/${key}/contexts`, { id: "c" });
      await assertErrorResponse(failed, 502, "Engine execution failed", "INTERNAL_ERROR");
      // The core answered the SqlError itself (sw_do_exchange_body_received's guard catches it). A trap while the
      // exception unwound would be a 502 too, but the shim's, with the core dropped (docs/testing.md: the ASan core).
      assert.equal((await rt.fault("javascript", key, { failWrite: 0 })).cores, cores, "no core was dropped");
      assert.equal((await rt.createContext("javascript", key, "c")).status, 201);
      assert.equal(text(await rt.run("javascript", { key, contextId: "c", code: "1 + 1" })), "2");
    });
  });

  describe("engine traps", () => {
    for (const language of LANGUAGES) {
      it(`${language}: a trap in the middle of an execute is EngineError; the context continues from its last snapshot`, async () => {
        const { set, get, text: t } = STATE[language];
        const key = `trap-${language}`;
        assert.equal((await rt.createContext(language, key, "c")).status, 201);
        const run = (code) => rt.run(language, { key, contextId: "c", code });
        assert.equal(text(await run(set(5))), t(5));
        const { traps } = await rt.fault(language, key, { trap: 1 });
        const trapped = ok(await run(set(6)));
        assert.equal((await rt.fault(language, key, { trap: 0 })).traps, traps + 1, "the trap was injected");
        assert.equal(trapped.error?.name, "EngineError", JSON.stringify(trapped));
        assert.deepEqual(trapped.results, []);
        const back = await run(get);
        assert.equal(text(back), t(5), "restored from the snapshot before the trap");
        assert.equal(back.result.executionCount, 3);
      });

      it(`${language}: a trap in a stateless execute is EngineError; the next request is served`, async () => {
        // Stateless instances live in the Worker's isolate, not the Durable Object's: arm it there.
        const arm = async (trap) =>
          (await rt.fetch(`https://${language}.test/fault-here`, { method: "POST", body: JSON.stringify({ trap }) })).json();
        const { traps } = await arm(1);
        const r = await assertExecutionResult(await rt.execute({ code: STATE[language].set(1) }, { host: `${language}.test` }));
        assert.equal((await arm(0)).traps, traps + 1, "the trap was injected");
        assert.equal(r.error?.name, "EngineError", JSON.stringify(r));
        const next = await assertExecutionResult(await rt.execute({ code: STATE[language].set(2) }, { host: `${language}.test` }));
        assert.equal(next.error, undefined, JSON.stringify(next.error));
        assert.deepEqual(next.results, [{ text: STATE[language].text(2) }]);
      });
    }
  });

  describe("an exception inside core code a guest re-entered (core boundary)", () => {
    it("python: getRandomValues throwing under os.urandom is 502 INTERNAL_ERROR; the next call restores the context", async () => {
      const key = "boundary";
      assert.equal((await rt.createContext("python", key, "c")).status, 201);
      const run = (code) => rt.run("python", { key, contextId: "c", code });
      assert.equal(text(await run("kept = 9\nkept")), "9");
      await rt.fault("python", key, { randomThrows: 1 });
      const r = await run("import os\nkept = 10\nlen(os.urandom(8))");
      assert.equal(r.ok, false, JSON.stringify(r).slice(0, 300));
      assert.equal(r.status, 502);
      assert.equal(r.body.code, "INTERNAL_ERROR");
      assert.equal(r.body.message, "Engine execution failed");
      const back = await run("kept");
      assert.equal(text(back), "9", "the new core restored the last snapshot");
      assert.equal(text(await run("import os\nlen(os.urandom(8))")), "8");
    });

    it("python stateless: the same throw is 502 INTERNAL_ERROR; the next request gets a fresh core", async () => {
      const arm = await rt.fetch("https://python.test/fault-here", { method: "POST", body: JSON.stringify({ randomThrows: 1 }) });
      assert.equal(arm.status, 200);
      const r = await rt.execute({ code: "import os\nlen(os.urandom(8))" }, { host: "python.test" });
      await assertErrorResponse(r, 502, "Engine execution failed", "INTERNAL_ERROR");
      const next = await assertExecutionResult(await rt.execute({ code: "import os\nlen(os.urandom(8))" }, { host: "python.test" }));
      assert.deepEqual(next.results, [{ text: "8" }]);
    });
  });

  describe("a trap of the core itself", () => {
    it("javascript: a WebAssembly.RuntimeError from a core entry point is 502 INTERNAL_ERROR; a fresh core serves the next request", async () => {
      const arm = async (coreTrap) =>
        (await rt.fetch("https://javascript.test/fault-here", { method: "POST", body: JSON.stringify({ coreTrap }) })).json();
      // A core is up in this isolate before the trap (the Worker's /fault-here itself never touches one).
      await assertExecutionResult(await rt.execute({ code: "0" }, { host: "javascript.test" }));
      const { coreTraps, cores } = await arm(1);
      const r = await rt.execute({ code: "1 + 1" }, { host: "javascript.test" });
      await assertErrorResponse(r, 502, "Engine execution failed", "INTERNAL_ERROR");
      const after = await arm(0);
      assert.equal(after.coreTraps, coreTraps + 1, "the trap was injected");
      assert.equal(after.cores, cores + 1, "the trapped core was discarded and a new one instantiated");
      const next = await assertExecutionResult(await rt.execute({ code: "1 + 1" }, { host: "javascript.test" }));
      assert.deepEqual(next.results, [{ text: "2" }]);
      assert.equal((await arm(0)).cores, cores + 1, "the new core keeps serving");
      // And again: the new core is wrapped the same way, so the recovery is not a one-off.
      await arm(1);
      await assertErrorResponse(await rt.execute({ code: "2 + 2" }, { host: "javascript.test" }), 502,
        "Engine execution failed", "INTERNAL_ERROR");
      const again = await assertExecutionResult(await rt.execute({ code: "2 + 2" }, { host: "javascript.test" }));
      assert.deepEqual(again.results, [{ text: "4" }]);
    });
    // Issue 13 part 1: any throw out of a core export drops that core, whoever called it and whatever was thrown.
    it("javascript: a trap while the core prepares the spare instance (after the response) drops that core; the next request gets a fresh one", async () => {
      const arm = async (spec) =>
        (await rt.fetch("https://javascript.test/fault-here", { method: "POST", body: JSON.stringify(spec) })).json();
      await assertExecutionResult(await rt.execute({ code: "0" }, { host: "javascript.test" }));
      const { coreTraps, cores } = await arm({ coreTrap: 1, coreTrapExport: "sw_builtin_prepare_spare" });
      const r = await assertExecutionResult(await rt.execute({ code: "1 + 1" }, { host: "javascript.test" }));
      assert.deepEqual(r.results, [{ text: "2" }], "the response went out before the spare was prepared");
      // The spare is prepared in ctx.waitUntil after the response: wait until the trap was injected (no timing).
      let seen = coreTraps;
      for (let i = 0; i < 200 && seen === coreTraps; i++) {
        seen = (await arm({ coreTrap: 1, coreTrapExport: "sw_builtin_prepare_spare" })).coreTraps;
      }
      assert.equal(seen, coreTraps + 1, "the trap was injected");
      await arm({ coreTrap: 0 });
      const next = await assertExecutionResult(await rt.execute({ code: "2 + 3" }, { host: "javascript.test" }));
      assert.deepEqual(next.results, [{ text: "5" }]);
      assert.equal((await arm({ coreTrap: 0 })).cores, cores + 1, "the trapped core was discarded and a new one instantiated");
    });

    it("javascript: a RangeError (not a RuntimeError) out of the Interpreter's getFiles-failure export drops the Durable Object's core; the context restores on the new one", async () => {
      const key = "core-rangeerror";
      assert.equal((await rt.createContext("javascript", key, "c")).status, 201);
      await rt.files({ $reset: true });
      const run = (body) => rt.run("javascript", { key, contextId: "c", ...body });
      assert.equal(text(await run({ code: "var kept = 3; kept" })), "3");
      await rt.files({ "/workspace/a.txt": "A" }); // the next call pulls it, and getFiles throws
      const { cores } = await rt.fault("javascript", key, { coreTrap: 1, coreTrapExport: "sw_do_execute_files_failed", coreTrapError: "RangeError" });
      const r = await run({ code: "kept = 4", answer: "throw" });
      assert.equal(r.ok, false, JSON.stringify(r).slice(0, 300));
      assert.equal(r.body.code, "INTERNAL_ERROR");
      const after = await rt.fault("javascript", key, { coreTrap: 0 });
      assert.equal(after.coreTraps >= 1, true, "the throw was injected");
      assert.equal(after.cores, cores + 1, "the core that threw was discarded and a new one instantiated");
      const back = ok(await run({ code: '[kept, fs.readFileSync("/workspace/a.txt", "utf8")]' }));
      assert.deepEqual(back.results[0].json, [3, "A"], "the new core restored the last snapshot and pulled the file");
      await rt.files({ $reset: true });
    });
  });

  describe("workerd disposed while an execute is in flight", () => {
    it("while the execute waits for getFiles: after a restart the context restores and nothing of the round exists", async () => {
      const key = "killed";
      assert.equal((await rt.createContext("javascript", key, "c")).status, 201);
      await rt.files({ $reset: true });
      const run = (body) => rt.run("javascript", { key, contextId: "c", ...body });
      assert.equal(text(await run({ code: "var kept = 1; kept" })), "1");
      await rt.files({ "/workspace/new.txt": "new" }); // the next call must pull it
      const inflight = run({
        code: 'fs.writeFileSync("/workspace/partial.txt", "x"); kept = 2; kept',
        holdGetFiles: "kill",
      }).catch((error) => ({ killed: String(error) }));
      await rt.fetch("/inside?gate=kill");
      await rt.dispose();
      const lost = await inflight;
      rt = await start(); // over the same storage; the caller's in-memory workspace is gone too
      assert.notEqual(lost.ok, true, `the call in flight never answered a result: ${JSON.stringify(lost).slice(0, 300)}`);
      await rt.files({ "/workspace/new.txt": "new" });
      const r = await run({ code: '[kept, fs.existsSync("/workspace/partial.txt"), fs.readFileSync("/workspace/new.txt", "utf8")]' });
      assert.deepEqual(ok(r).results[0].json, [1, false, "new"]);
      assert.equal(r.result.executionCount, 2, "the killed round was never counted");
      assert.deepEqual(r.result.workspace.files, []);
    });

    it("at an arbitrary point of an execute: after a restart the state and the execution count agree", async () => {
      const key = "killed-anywhere";
      assert.equal((await rt.createContext("javascript", key, "c")).status, 201);
      await rt.files({ $reset: true });
      const run = (code) => rt.run("javascript", { key, contextId: "c", code });
      assert.equal(text(await run("var kept = 1; kept")), "1");
      const inflight = run("kept += 1; kept").catch(() => null);
      await rt.dispose();
      await inflight;
      rt = await start();
      const r = ok(await run("kept"));
      const kept = Number(r.results[0].text);
      // Either the round was committed (its snapshot and its count) or not at all.
      assert.ok(kept === 1 || kept === 2, `kept = ${kept}`);
      assert.equal(r.executionCount, kept + 1);
    });
  });

  describe("getFiles faults: INTERNAL_ERROR, the code never runs, the mirror is unchanged", () => {
    const key = "getfiles";
    const run = (body) => rt.run("javascript", { key, contextId: "c", ...body });
    before(async () => {
      assert.equal((await rt.createContext("javascript", key, "c")).status, 201);
      await rt.files({ $reset: true });
      await rt.files({ "/workspace/a.txt": "A1" });
      assert.equal(text(await run({ code: 'var rounds = 1; fs.readFileSync("/workspace/a.txt", "utf8")' })), "'A1'");
    });

    // After a failed pull: the next call pulls the file again, the guest sees the caller's bytes, and the failed
    // rounds ran nothing (rounds is still 1 and the count went up by one per round that ran).
    const assertIntact = async (count) => {
      const callsBefore = (await rt.calls()).length;
      const r = ok(await run({ code: 'rounds += 1; [rounds, fs.readFileSync("/workspace/a.txt", "utf8")]' }));
      assert.deepEqual(r.results[0].json, [2, "A2"]);
      assert.equal(r.executionCount, count);
      assert.deepEqual((await rt.calls()).slice(callsBefore), [["/workspace/a.txt"]]);
      // Back to a file the mirror must pull again for the next case, and to one round.
      await rt.files({ "/workspace/a.txt": "A1" });
      assert.equal(text(await run({ code: 'rounds = 1; fs.readFileSync("/workspace/a.txt", "utf8")' })), "'A1'");
    };
    let count = 1;

    for (const [answer, status, code, message] of [
      ["throw", 502, "INTERNAL_ERROR", "Engine execution failed"],
      ["tampered", 500, "INTERNAL_ERROR", "Sandbox did not provide 1 workspace file(s)"],
      ["empty", 500, "INTERNAL_ERROR", "Sandbox did not provide 1 workspace file(s)"],
      ["extra", 500, "INTERNAL_ERROR", "Sandbox returned an invalid workspace file entry"],
      ["huge", 500, "NO_SPACE", "Workspace exceeds 16 MiB total"],
    ]) {
      it(`getFiles answering '${answer}' → ${status} ${code} '${message}'`, async () => {
        await rt.files({ "/workspace/a.txt": "A2" });
        const r = await run({ code: "rounds = 100", answer });
        assert.equal(r.ok, false, JSON.stringify(r).slice(0, 300));
        assert.equal(r.status, status);
        assert.equal(r.body.code, code);
        assert.equal(r.body.message, message);
        count += 1;
        await assertIntact(count);
        count += 1;
      });
    }

    it("a getFiles that never settles, abandoned by its caller: the Interpreter is not wedged", { timeout: 60_000 }, async () => {
      await rt.files({ "/workspace/a.txt": "A2" });
      const r = await (await rt.post("/run", { binding: "JAVASCRIPT", key, contextId: "c", code: "rounds = 100", answer: "hang", detach: "hang" })).json();
      assert.deepEqual(r, { detached: true });
      count += 1;
      await assertIntact(count);
      count += 1;
    });
  });
});
