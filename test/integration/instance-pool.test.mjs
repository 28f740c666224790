// The instance pool (cpp/core/builtin.cpp, docs/boot-images.md "The instance pool"), through the real core and shim in
// Node (./testing loads the Worker's modules as workerd would): a built-in engine's instance is reused for later
// requests and contexts after its memory is reset to the boot image, instead of instantiating the module again. Each
// test counts the instantiations the core asks the shim for, so it shows that reuse happened, and checks in the same
// run that nothing a program changed reached the next one. (The same isolation is checked in workerd by
// javascript.test.mjs and python.test.mjs, where the pool is in use but cannot be observed from outside.)
import { describe, it, before } from "node:test";
import assert from "node:assert/strict";
import { createTestInterpreter, createTestState } from "../../worker-shim/testing.js";

const { handleRequest, getCore } = await import("../../worker-shim/core.js");
const { javascriptEngine } = await import("../../worker-shim/javascript.js");
const { pythonEngine } = await import("../../engines/python/engine.js");

let core;
let instantiations = 0;
before(async () => {
  core = await getCore();
  const instantiate = core.hostInstantiateGuest.bind(core);
  core.hostInstantiateGuest = (server, host) => {
    instantiations++;
    return instantiate(server, host);
  };
});

// One POST /execute as the Worker's fetch handler runs it; `idle`: the isolate then gets to run what the response
// left in ctx.waitUntil (preparing the next request's instance) before the next request, as between real requests.
async function execute(engine, code, { idle = true } = {}) {
  const pending = [];
  const response = await handleRequest(
    engine,
    new Request("https://runtime.internal/execute", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ code }),
    }),
    {},
    { waitUntil: (p) => pending.push(p) },
  );
  const body = await response.json();
  if (idle) await Promise.all(pending);
  return body;
}

const cases = {
  javascript: {
    engine: () => javascriptEngine,
    dirty: "globalThis.leak = 1; Object.prototype.polluted = 2; Array.prototype.push = null; 0",
    check: "[typeof leak, ({}).polluted === undefined, typeof [].push]",
    clean: ["undefined", true, "function"],
    grow: "const a = new Uint8Array(24 * 1024 * 1024); a[a.length - 1] = 1; a.length",
    counter: ["var counter = 41", "++counter"],
  },
  python: {
    engine: () => pythonEngine,
    dirty: "import sys, json\nleak = 1\njson.dumps = None\nsys.modules['leaked'] = 1",
    check: "import sys, json\n['leak' in globals(), callable(json.dumps), 'leaked' in sys.modules]",
    clean: [false, true, false],
    grow: "b = bytearray(24 * 1024 * 1024)\nlen(b)",
    counter: ["counter = 41", "counter += 1\ncounter"],
  },
};

for (const [language, c] of Object.entries(cases)) {
  describe(`${language}: the instance pool`, () => {
    it("sequential stateless requests reuse instances instead of instantiating, and each starts pristine", async () => {
      await execute(c.engine(), "1 + 1"); // warm: the first instance of this engine in the isolate
      const before = instantiations;
      for (let i = 0; i < 6; i++) {
        const dirty = await execute(c.engine(), c.dirty, { idle: i % 2 === 0 });
        assert.equal(dirty.error, undefined, JSON.stringify(dirty.error));
        const r = await execute(c.engine(), c.check, { idle: i % 2 === 1 });
        assert.deepEqual(r.results[0].json, c.clean);
      }
      assert.equal(instantiations, before, "no new instance for 12 requests");
    });

    it("an instance whose memory grew is dropped, not reused: the next request instantiates and sees fresh memory", async () => {
      const fresh = (await execute(c.engine(), "1 + 1")).usage.memoryBytes;
      const big = await execute(c.engine(), c.grow, { idle: false });
      assert.ok(big.usage.memoryBytes > fresh, JSON.stringify(big.usage));
      const before = instantiations;
      // The grown instance was not parked, so the next request (no spare: the previous one did not idle) needs a new one.
      const next = await execute(c.engine(), "1 + 1");
      assert.equal(next.usage.memoryBytes, fresh);
      assert.equal(instantiations, before + 1);
    });

    it("a context restored into a new Interpreter takes a pooled instance and gets its own state back", async () => {
      const pending = [];
      const state = () => Object.assign(createTestState({ db }), { waitUntil: (p) => pending.push(p) });
      const db = createTestState().db;
      const run = async (interpreter, code) => {
        const r = await interpreter.executeInContext("pool", { contextId: "c", code, workspace: { dirs: [], manifest: {} } }, () => []);
        assert.equal(r.ok, true, JSON.stringify(r).slice(0, 400));
        assert.equal(r.result.error, undefined, JSON.stringify(r.result.error));
        return r.result;
      };
      const first = createTestInterpreter(c.engine(), state());
      const created = await first.fetch(new Request("https://interpreter.internal/contexts", {
        method: "POST", headers: { "x-interpreter-key": "pool", "content-type": "application/json" }, body: JSON.stringify({ id: "c" }),
      }));
      assert.equal(created.status, 201);
      await run(first, c.counter[0]);
      await execute(c.engine(), c.dirty); // a stateless request dirties an instance, which goes back to the pool
      await Promise.all(pending.splice(0));
      for (let i = 0; i < 3; i++) {
        // A new Interpreter over the same storage (the Durable Object was evicted): it restores the snapshot.
        const before = instantiations;
        const restored = createTestInterpreter(c.engine(), state());
        const r = await run(restored, c.counter[1]);
        assert.deepEqual(r.results, [{ text: String(42 + i) }]);
        assert.equal(instantiations, before, "the restore took a pooled instance");
        await Promise.all(pending.splice(0)); // idle: the isolate prepares the next spare (a new instance)
      }
      db.close();
    });
  });
}
