// The instance pool (cpp/core/builtin.cpp, docs/boot-images.md "The instance pool"), through the real core and shim in
// Node (./testing loads the Worker's modules as workerd would): a built-in engine's instance is reused for later
// requests and contexts after its memory is reset to the boot image, instead of instantiating the module again. Each
// test counts the instantiations the core asks the shim for, so it shows that reuse happened, and checks in the same
// run that nothing a program changed reached the next one. (The same isolation is checked in workerd by
// javascript.test.mjs and python.test.mjs, where the pool is in use but cannot be observed from outside.)
import { describe, it, before } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createTestInterpreter, createTestState } from "../../worker-shim/testing.js";

const { handleRequest, getCore, serverFor } = await import("../../worker-shim/core.js");
const { javascriptEngine } = await import("../../engines/javascript/engine.js");
const { pythonEngine } = await import("../../engines/python/engine.js");
const { perlEngine } = await import("../../engines/perl/engine.js");
const { rubyEngine } = await import("../../engines/ruby/engine.js");
const { luaEngine } = await import("../../engines/lua/engine.js");

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
async function execute(engine, code, { idle = true, envVars } = {}) {
  const pending = [];
  const response = await handleRequest(
    engine,
    new Request("https://runtime.internal/execute", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(envVars ? { code, envVars } : { code }),
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
    // A small compute that allocates ~1 MiB (objects, a string, an array): fits the heap headroom the image has.
    allocate: "const a = Array.from({ length: 12000 }, (_, i) => ({ i, s: 'v' + i })); JSON.stringify(a).length + 'x'.repeat(100000).length",
    counter: ["var counter = 41", "++counter"],
  },
  python: {
    engine: () => pythonEngine,
    dirty: "import sys, json\nleak = 1\njson.dumps = None\nsys.modules['leaked'] = 1",
    check: "import sys, json\n['leak' in globals(), callable(json.dumps), 'leaked' in sys.modules]",
    clean: [false, true, false],
    grow: "b = bytearray(24 * 1024 * 1024)\nlen(b)",
    allocate: "import json\na = [{'i': i} for i in range(20000)]\nlen(json.dumps(a)) + len('x' * 200000)",
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

    it("a request that allocates about 1 MiB (within the free heap its boot image reserves) is still reset and reused", async () => {
      const fresh = (await execute(c.engine(), "1 + 1")).usage.memoryBytes;
      const before = instantiations;
      for (let i = 0; i < 4; i++) {
        const r = await execute(c.engine(), c.allocate, { idle: i % 2 === 0 });
        assert.equal(r.error, undefined, JSON.stringify(r.error));
        assert.equal(r.usage.memoryBytes, fresh, "the program did not grow memory");
        assert.deepEqual((await execute(c.engine(), c.check)).results[0].json, c.clean);
      }
      assert.equal(instantiations, before, "no new instance for 8 requests");
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

// Fresh engine state per call (protocol §1, POST /execute): whatever one request leaves in a pooled instance — environment
// variables, globals, files it tried to write, the fuel it burned — the next request on that instance must not see.
// Each check's answer on a reused instance must equal its answer on a newly instantiated one (an Engine object of its
// own with the pool turned off), and the reused requests must not have instantiated anything (so the reuse really
// happened). Every built-in engine.
const leaks = {
  javascript: {
    engine: () => javascriptEngine,
    env: ["process.env.SECRET", "[Object.keys(process.env), typeof process.env.SECRET]"],
    globals: [
      "globalThis.leak = 1; Object.prototype.polluted = 2; JSON.parse = null; Math.PI = 3; 0",
      "[typeof leak, ({}).polluted === undefined, typeof JSON.parse, Math.PI]",
    ],
    files: null, // a stateless JavaScript execute has no file API (fs is defined in code contexts only)
    burn: "let s = 0; for (let i = 0; i < 300000; i++) s += i; s",
  },
  python: {
    engine: () => pythonEngine,
    env: ["import os\nos.environ['SECRET']", "import os\n[sorted(os.environ), os.environ.get('SECRET')]"],
    globals: [
      "import sys, json, builtins\nleak = 1\nbuiltins.leaked = 2\njson.dumps = None\nsys.path.append('/leak')\n0",
      "import sys, json, builtins\n['leak' in globals(), hasattr(builtins, 'leaked'), callable(json.dumps), '/leak' in sys.path]",
    ],
    files: [
      "try:\n    open('/workspace/leak.txt', 'w').write('x')\n    r = 'written'\nexcept OSError as e:\n    r = type(e).__name__\nr",
      "import os\nos.path.exists('/workspace/leak.txt')",
    ],
    burn: "s = 0\nfor i in range(100000):\n    s += i\ns",
  },
  perl: {
    engine: () => perlEngine,
    env: ["$ENV{SECRET}", "[sort keys %ENV]"],
    globals: ["our $leak = 1; $main::other = 2; sub leaked { 3 } 0", "[defined($main::leak) ? 1 : 0, defined($main::other) ? 1 : 0, defined(&main::leaked) ? 1 : 0]"],
    files: [
      "open(my $f, '>', '/workspace/leak.txt') ? 'written' : 'refused'",
      "-e '/workspace/leak.txt' ? 1 : 0",
    ],
    burn: "my $s = 0; $s += $_ for 1 .. 100000; $s",
    fuelSlack: 0.01,
  },
  ruby: {
    engine: () => rubyEngine,
    env: ["ENV['SECRET']", "[ENV.to_h, ENV['SECRET']]"],
    globals: ["$leak = 1\nclass String; def leaked; 2; end; end\nLEAK = 3\n0", "[defined?($leak).nil? || $leak.nil?, ''.respond_to?(:leaked), defined?(LEAK).nil?]"],
    files: [
      "begin\n  File.write('/workspace/leak.txt', 'x')\n  'written'\nrescue SystemCallError, IOError => e\n  e.class.name\nend",
      "File.exist?('/workspace/leak.txt')",
    ],
    burn: "s = 0\n20000.times { |i| s += i }\ns", // more iterations grow Ruby's memory (its GC heap)
    fuelSlack: 0.01,
  },
};

for (const [language, c] of Object.entries(leaks)) {
  describe(`${language}: nothing one request leaves in a pooled instance reaches the next`, () => {
    // The answers of new instances: a server of its own whose pool has no slot instantiates for every request.
    const fresh = {};
    before(async () => {
      const unpooled = { ...c.engine() };
      core._sw_builtin_set_pool_slots(serverFor(core, unpooled), 0);
      fresh.env = await execute(unpooled, c.env[1]);
      fresh.globals = await execute(unpooled, c.globals[1]);
      if (c.files) fresh.files = await execute(unpooled, c.files[1]);
      fresh.fuel = await execute(unpooled, "1 + 1");
      for (const r of Object.values(fresh)) assert.equal(r.error, undefined, JSON.stringify(r.error));
      await execute(c.engine(), "1 + 1"); // the pooled server's first instance, and its spare
    });

    const reused = async (dirty, check, options = {}) => {
      const before = instantiations;
      const d = await execute(c.engine(), dirty, options);
      assert.equal(d.error, undefined, JSON.stringify(d.error));
      const r = await execute(c.engine(), check, { idle: false }); // no spare: the pooled instance itself
      assert.equal(instantiations, before, "both requests ran on reused instances");
      return { d, r };
    };

    it("environment variables: a later request without envVars sees none of them", async () => {
      const { d, r } = await reused(c.env[0], c.env[1], { envVars: { SECRET: "s3cret", OTHER: "1" } });
      assert.match(JSON.stringify(d.results), /s3cret/);
      assert.deepEqual(r.results, fresh.env.results);
    });

    it("globals, builtins and modules a request changed are back to the image", async () => {
      const { r } = await reused(c.globals[0], c.globals[1]);
      assert.deepEqual(r.results, fresh.globals.results);
    });

    if (c.files) it("a file a request tried to write in /workspace does not exist for the next", async () => {
      const { d, r } = await reused(c.files[0], c.files[1]);
      assert.doesNotMatch(JSON.stringify(d.results), /written/, "a stateless /workspace refuses writes");
      assert.deepEqual(r.results, fresh.files.results);
    });

    it("the fuel a request burned is not charged to the next: the same usage as on a fresh instance", async () => {
      const { d, r } = await reused(c.burn, "1 + 1");
      assert.ok(d.usage.fuelConsumed > 10 * fresh.fuel.usage.fuelConsumed, JSON.stringify(d.usage));
      assert.deepEqual(r.results, fresh.fuel.results);
      assert.equal(r.usage.memoryBytes, fresh.fuel.usage.memoryBytes);
      // Perl's and Ruby's `1 + 1` costs a few units more or less from one new instance to the next (their per-process
      // hash seeds); JavaScript's and Python's is exact.
      const slack = c.fuelSlack ?? 0;
      assert.ok(Math.abs(r.usage.fuelConsumed - fresh.fuel.usage.fuelConsumed) <= slack * fresh.fuel.usage.fuelConsumed,
        `${r.usage.fuelConsumed} vs ${fresh.fuel.usage.fuelConsumed} on a new instance`);
    });
  });
}

// A run that ran out of memory grew it, and a grown memory cannot shrink: that instance is dropped, never parked, and
// the next request runs on a new instance that answers like a fresh one.
describe("a request that ran out of memory is not reused", () => {
  const cases = [
    ["javascript", () => javascriptEngine, "const a = []; for (;;) a.push(new Array(100000).fill(1))", /out of memory|InternalError/i],
    ["python", () => pythonEngine, "a = []\nwhile True:\n    a.append(bytearray(1 << 20))", /MemoryError/],
  ];
  for (const [language, engine, code, expected] of cases) {
    it(`${language}: ${code.split("\n")[0]} … — the next request gets a new instance, pristine`, async () => {
      const fresh = await execute(engine(), "1 + 1");
      const failed = await execute(engine(), code, { idle: false });
      assert.match(JSON.stringify(failed.error), expected);
      const before = instantiations;
      const next = await execute(engine(), "1 + 1", { idle: false });
      assert.equal(instantiations, before + 1, "the failed instance was not parked");
      assert.deepEqual(next.results, fresh.results);
      assert.deepEqual(next.usage, fresh.usage);
    });
  }
});

// A run the host stopped mid-call (Python: the fuel is exhausted, a trap out of the guest's eval loop). JavaScript's
// and Python's modules keep no state outside linear memory and their exported globals (BuiltinEngine::resetAfterTrap,
// cpp/wasmify/registry.cpp), so the pool resets such an instance exactly instead of dropping it; Perl's and Ruby's
// have unexported mutable globals (the stack pointer, asyncify state) and a failed run of theirs is dropped.
describe("a request that trapped", () => {
  it("python: while True: pass — its instance is reset and reused, and the next request answers like a new instance", async () => {
    const unpooled = { ...pythonEngine };
    core._sw_builtin_set_pool_slots(serverFor(core, unpooled), 0);
    const fresh = await execute(unpooled, "import sys\n[sorted(k for k in globals() if not k.startswith('__')), 'leak' in sys.modules]");
    await execute(pythonEngine, "1 + 1");
    const before = instantiations;
    const trapped = await execute(pythonEngine, "import sys\nleak = 1\nsys.modules['leak'] = sys\nwhile True:\n    pass", { idle: false });
    assert.match(JSON.stringify(trapped.error), /ExecutionLimitError/);
    const next = await execute(pythonEngine, "import sys\n[sorted(k for k in globals() if not k.startswith('__')), 'leak' in sys.modules]", { idle: false });
    assert.equal(instantiations, before, "the trapped instance was reset, not replaced");
    assert.deepEqual(next.results, fresh.results);
    assert.equal(next.usage.memoryBytes, fresh.usage.memoryBytes);
  });

  // What makes that reset exact: every mutable global of the module is exported, so the boot image restores it. A
  // Wasm binary's global section (id 6) and export section (id 7), read directly.
  for (const language of ["javascript", "python"]) {
    it(`${language}: every mutable global of engine.wasm is exported (the pool's reset restores it)`, () => {
      const bytes = readFileSync(new URL(`../../engines/${language}/build/engine.wasm`, import.meta.url));
      let p = 8;
      const uleb = () => { let r = 0, shift = 0, b; do { b = bytes[p++]; r += (b & 0x7f) * 2 ** shift; shift += 7; } while (b & 0x80); return r; };
      const name = () => { const n = uleb(); p += n; };
      const limits = () => { const flags = uleb(); uleb(); if (flags & 1) uleb(); };
      const mutable = [];
      const exported = new Set();
      let globals = 0;
      while (p < bytes.length) {
        const id = bytes[p++];
        const end = uleb() + p;
        if (id === 2) { // imports: an imported global counts in the index space
          for (let n = uleb(); n > 0; n--) {
            name(); name();
            const kind = bytes[p++];
            if (kind === 0) uleb();
            else if (kind === 1) { p++; limits(); }
            else if (kind === 2) limits();
            else { p++; if (bytes[p++]) mutable.push(globals); globals++; }
          }
        } else if (id === 6) {
          for (let n = uleb(); n > 0; n--) {
            p++; // value type
            if (bytes[p++]) mutable.push(globals);
            globals++;
            // A constant init expression, then `end` (0x0b): i32/i64.const and global.get take a LEB128 immediate.
            for (let op = bytes[p++]; op !== 0x0b; op = bytes[p++]) {
              if (op === 0x41 || op === 0x42 || op === 0x23) uleb();
              else if (op === 0x43) p += 4;
              else if (op === 0x44) p += 8;
              else throw new Error(`unexpected opcode ${op} in a global's init expression`);
            }
          }
        } else if (id === 7) {
          for (let n = uleb(); n > 0; n--) { name(); const kind = bytes[p++]; const index = uleb(); if (kind === 3) exported.add(index); }
        }
        p = end;
      }
      assert.ok(mutable.length > 0, "the stack pointer at least");
      assert.deepEqual(mutable.filter((g) => !exported.has(g)), []);
    });
  }
});

// An Engine written in JavaScript that declares a boot image (Lua: `module`, `bootImage`; docs/engine-authors.md "A
// boot image"): its instances come from the same image, pristine memory and pool as a built-in engine's, through
// EngineInstances (run's second argument, SessionOptions.instances). The same checks, with values: what one request
// changed is gone for the next, the reuse happened (no instantiation), a trapped or grown instance is dropped, a context
// restored into a new Interpreter takes a pooled instance, and the instance started from the image, not booted.
describe("lua: an Engine written in JavaScript gets a boot image and the instance pool", () => {
  // The answers of new instances: a server of its own whose pool has no slot instantiates for every request.
  const unpooled = { ...luaEngine };
  // An Engine object without the image: every instance boots (sw_lua_new), as before boot images.
  const booting = { ...luaEngine, bootImage: undefined };
  const dirty = 'leak = 1 string.leaked = 2 math.pi = 3 package.loaded.leaked = true table.insert = nil ' +
    'setmetatable(_G, { __index = function() return 9 end }) collectgarbage("stop") return 0';
  const check = 'return { rawget(_G, "leak") == nil, string.leaked == nil, math.pi, package.loaded.leaked == nil, ' +
    'type(table.insert), getmetatable(_G) == nil, collectgarbage("isrunning") }';
  const clean = [true, true, 3.141592653589793, true, "function", true, true];
  let fresh;
  before(async () => {
    core._sw_builtin_set_pool_slots(serverFor(core, unpooled), 0);
    fresh = {
      check: await execute(unpooled, check),
      env: await execute(unpooled, 'return { os.getenv("SECRET") == nil, os.getenv("OTHER") == nil }'),
      fuel: await execute(unpooled, "return 1 + 1"),
    };
    for (const r of Object.values(fresh)) assert.equal(r.error, undefined, JSON.stringify(r.error));
    assert.deepEqual(fresh.check.results[0].json, clean);
    await execute(luaEngine, "return 1 + 1"); // the pooled server's first instance
  });

  it("sequential stateless requests reuse one instance instead of instantiating, and each starts pristine", async () => {
    const before = instantiations;
    for (let i = 0; i < 6; i++) {
      const d = await execute(luaEngine, dirty);
      assert.equal(d.error, undefined, JSON.stringify(d.error));
      const r = await execute(luaEngine, check);
      assert.deepEqual(r.results[0].json, clean);
    }
    assert.equal(instantiations, before, "no new instance for 12 requests");
  });

  it("environment variables and the fuel a request burned do not reach the next one on the same instance", async () => {
    const before = instantiations;
    const d = await execute(luaEngine, 'return os.getenv("SECRET")', { envVars: { SECRET: "s3cret", OTHER: "1" } });
    assert.deepEqual(d.results, [{ text: "s3cret" }]);
    const env = await execute(luaEngine, 'return { os.getenv("SECRET") == nil, os.getenv("OTHER") == nil }');
    assert.deepEqual(env.results, fresh.env.results);
    const burn = await execute(luaEngine, "local s = 0 for i = 1, 300000 do s = s + i end return s");
    assert.ok(burn.usage.fuelConsumed > 10 * fresh.fuel.usage.fuelConsumed, JSON.stringify(burn.usage));
    const next = await execute(luaEngine, "return 1 + 1");
    assert.deepEqual(next.results, [{ text: "2" }]);
    assert.deepEqual(next.usage, fresh.fuel.usage, "the same usage as on a new instance");
    assert.equal(instantiations, before, "every request ran on the reused instance");
  });

  it("instances start from the image, not by booting: math.random is re-seeded, the image's descriptors are kept", async () => {
    const randoms = new Set();
    for (let i = 0; i < 4; i++) {
      const r = await execute(luaEngine, "return math.random(1 << 50)");
      randoms.add(r.results[0].text);
    }
    assert.equal(randoms.size, 4, "every request draws its own sequence");
    // The image was taken with the session layout: a stateless instance has an empty, disabled /workspace (EACCES).
    const open = 'local f, err = io.open("/workspace/x.txt", "w") return err';
    assert.deepEqual((await execute(luaEngine, open)).results, [{ text: "/workspace/x.txt: Permission denied" }]);
    // EngineInstances says where each instance came from: the image, with the handle its boot returned.
    const seen = [];
    const instancesFor = core.instancesFor;
    core.instancesFor = function (server) {
      const instances = instancesFor.call(this, server);
      return { fromImage: (wasi) => { const s = instances.fromImage(wasi); seen.push(s && s.handle); return s; }, restore: instances.restore };
    };
    try {
      await execute(luaEngine, "return 1");
      await execute(booting, "return 1");
    } finally {
      core.instancesFor = instancesFor;
    }
    assert.equal(typeof seen[0], "bigint");
    assert.ok(seen[0] > 0n);
    assert.equal(seen[1], null, "an Engine without bootImage boots its instances");
  });

  it("a request that ran out of fuel, or grew memory, leaves no instance behind: the next one is new and pristine", async () => {
    for (const code of ["leak = 1 while true do end", "leak = {} for i = 1, 2e6 do leak[i] = i end return #leak"]) {
      await execute(luaEngine, "return 1");
      const failed = await execute(luaEngine, code);
      if (code.includes("while")) assert.equal(failed.error?.name, "ExecutionLimitError");
      else assert.ok(failed.usage.memoryBytes > fresh.fuel.usage.memoryBytes, JSON.stringify(failed.usage));
      const before = instantiations;
      const next = await execute(luaEngine, check);
      assert.equal(instantiations, before + 1, "the instance was not parked");
      assert.deepEqual(next.results[0].json, clean);
    }
  });

  it("a request whose guest trapped (a RuntimeError out of sw_lua_eval) leaves no instance behind", async () => {
    await execute(luaEngine, "return 1"); // an instance in the pool
    // The pooled instance, bound for the next request, traps in its eval as `unreachable` would.
    const bindGuest = core.bindGuest;
    core.bindGuest = function (host, guest) {
      core.bindGuest = bindGuest;
      const exports = { ...guest.instance.exports, sw_lua_eval: () => { throw new WebAssembly.RuntimeError("unreachable"); } };
      return bindGuest.call(this, host, { ...guest, instance: { exports } });
    };
    let failed;
    const before = instantiations;
    try {
      failed = await execute(luaEngine, "leak = 1 return 1");
    } finally {
      core.bindGuest = bindGuest;
    }
    assert.equal(instantiations, before, "the trapping request ran on the pooled instance");
    assert.deepEqual([failed.error?.name, failed.error?.message], ["EngineError", "unreachable"]);
    const next = await execute(luaEngine, check);
    assert.equal(instantiations, before + 1, "the trapped instance was not parked");
    assert.deepEqual(next.results[0].json, clean);
  });

  it("a context boots from the image, and is restored into a new Interpreter over a pooled instance with its own state", async () => {
    const db = createTestState().db;
    const run = async (interpreter, id, code) => {
      const r = await interpreter.executeInContext("lua-pool", { contextId: id, code, workspace: { dirs: [], manifest: {} } }, () => []);
      assert.equal(r.ok, true, JSON.stringify(r).slice(0, 400));
      assert.equal(r.result.error, undefined, JSON.stringify(r.result.error));
      return r.result;
    };
    const create = async (interpreter, id) => {
      const created = await interpreter.fetch(new Request("https://interpreter.internal/contexts", {
        method: "POST", headers: { "x-interpreter-key": "lua-pool", "content-type": "application/json" }, body: JSON.stringify({ id }),
      }));
      assert.equal(created.status, 201);
    };
    const first = createTestInterpreter(luaEngine, createTestState({ db }));
    await create(first, "a");
    await create(first, "b");
    // Two new contexts from the same image draw different random sequences (re-seeded after the image).
    const a = await run(first, "a", "counter = 41 return math.random(1 << 50)");
    const b = await run(first, "b", "counter = 99 return math.random(1 << 50)");
    assert.notDeepEqual(a.results, b.results);
    await execute(luaEngine, dirty); // a stateless request dirties an instance, which goes back to the pool
    for (let i = 0; i < 3; i++) {
      // A new Interpreter over the same storage (the Durable Object was evicted): it restores the snapshot.
      await execute(luaEngine, "return 1"); // the pool holds an instance a stateless request used
      const before = instantiations;
      const restored = createTestInterpreter(luaEngine, createTestState({ db }));
      const r = await run(restored, "a", "counter = counter + 1 return { counter, rawget(_G, 'leak') == nil, string.leaked == nil }");
      assert.deepEqual(r.results, [{ json: [42 + i, true, true] }]);
      assert.equal(instantiations, before, "the restore took the pooled instance");
    }
    // The other context, restored over the instance the first one used, is its own.
    const other = createTestInterpreter(luaEngine, createTestState({ db }));
    assert.deepEqual((await run(other, "b", "return counter")).results, [{ text: "99" }]);
    db.close();
  });
});
