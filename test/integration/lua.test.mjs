// The Lua runtime Worker (engines/lua/wrangler.jsonc): an Engine written in JavaScript on the public ./wasi and
// ./snapshot API (engines/lua/engine.js), in workerd through Miniflare: stateless results, logs, errors, env, limits,
// hostile input, and code contexts through a caller Worker with a real getFiles callback and on-disk Durable Object
// storage, across a restart.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { jsonBody } from "./helpers.mjs";
import { useLanguageRuntime, hostileCases, contextText } from "./language-runtime.mjs";

const rt = useLanguageRuntime("lua");

const text = contextText;

describe("the Lua runtime Worker: probe and stateless results", () => {
  it("GET /interpreter reports lua with contexts", async () => {
    const body = await jsonBody(await rt.fetch("https://runtime.test/interpreter"));
    assert.equal(body.language, "lua");
    assert.equal(body.engine, "Lua 5.4.7");
    assert.equal(body.contexts, true);
  });

  it("a table becomes json; print goes to stdout; envVars are os.getenv; usage is reported", async () => {
    const r = await rt.exec('print("hello")\nreturn { name = os.getenv("NAME"), sum = 45 }', { NAME: "世界" });
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    assert.deepEqual(r.results, [{ json: { name: "世界", sum: 45 } }]);
    assert.deepEqual(r.logs, { stdout: ["hello"], stderr: [] });
    assert.equal(r.language, "lua");
    assert.equal(r.engine, "Lua 5.4.7");
    assert.equal(r.usage.fuelLimit, 50_000_000);
    assert.ok(r.usage.fuelConsumed > 0 && r.usage.fuelConsumed < 1_000_000, JSON.stringify(r.usage));
    assert.ok(r.usage.memoryBytes > 0, JSON.stringify(r.usage));
  });

  it("usage counts every unit: the meter's last partial batch is charged when a run returns (WasiHost.flushFuel)", async () => {
    // The metered module charges the host once per 1,024 units; without the flush, fuel moved in steps of 1,024.
    const fuel = async (n) => {
      const r = await rt.exec(`local x = 0 for i = 1, ${n} do x = x + i end return x`);
      assert.deepEqual(r.results, [{ text: String((n * (n + 1)) / 2) }]);
      return r.usage.fuelConsumed;
    };
    const a = await fuel(100), b = await fuel(200), again = await fuel(100);
    assert.equal(again, a, "the same program, the same fuel");
    assert.ok(a > 0 && b > a && b - a < 1024, `100 iterations: ${a}, 200 iterations: ${b}`);
  });

  it("results: the last expression is the result; strings raw, numbers as Lua prints them, nil is no result", async () => {
    assert.deepEqual((await rt.exec("1 + 1")).results, [{ text: "2" }]);
    assert.deepEqual((await rt.exec('"hi " .. "world"')).results, [{ text: "hi world" }]);
    assert.deepEqual((await rt.exec("1 / 2")).results, [{ text: "0.5" }]);
    assert.deepEqual((await rt.exec("10 // 3, 'second'")).results, [{ text: "3" }]);
    assert.deepEqual((await rt.exec("true")).results, [{ text: "true" }]);
    assert.deepEqual((await rt.exec("nil")).results, []);
    assert.deepEqual((await rt.exec("local x = 1")).results, []);
    assert.deepEqual((await rt.exec("local t = {} for i = 1, 3 do t[i] = i * i end return t")).results, [{ json: [1, 4, 9] }]);
    assert.match((await rt.exec("print")).results[0].text, /^builtin: |^function: /);
  });

  it("results: arrays and maps are json (nested, sorted keys); holes and mixed keys are text", async () => {
    assert.deepEqual((await rt.exec("{1, 'two', {three = 3}, 1.5}")).results, [{ json: [1, "two", { three: 3 }, 1.5] }]);
    assert.deepEqual((await rt.exec("{b = {}, a = true}")).results, [{ json: { a: true, b: {} } }]);
    assert.match((await rt.exec("{1, nil, 3, x = 1}")).results[0].text, /^table: /);
    const cyclic = await rt.exec("local t = {} t.self = t return t");
    assert.match(cyclic.results[0].text, /^table: /);
    assert.deepEqual((await rt.exec("setmetatable({}, {__tostring = function() return 'custom' end})")).results, [{ text: "custom" }]);
  });

  it("print, io.write and io.stderr are logs, split into lines", async () => {
    const r = await rt.exec('print("a", 1)\nio.write("b\\nc")\nio.write("\\n")\nio.stderr:write("e\\n")\nwarn("@on")\nwarn("w")');
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    assert.deepEqual(r.logs.stdout, ["a\t1", "b", "c"]);
    assert.deepEqual(r.logs.stderr, ["e", "Lua warning: w"]);
  });

  it("errors are LuaErrors with the position, a traceback, and the output before them", async () => {
    const r = await rt.exec('print("before")\nerror("boom")');
    assert.equal(r.error.name, "LuaError");
    assert.equal(r.error.message, "input:2: boom");
    assert.ok(r.error.traceback.some((f) => /input:2/.test(f)), JSON.stringify(r.error.traceback));
    assert.deepEqual(r.logs.stdout, ["before"]);
    assert.equal((await rt.exec("error({code = 1})")).error.message, '{"code":1}');
    const syntax = await rt.exec("1 +");
    assert.equal(syntax.error.name, "LuaError");
    assert.match(syntax.error.message, /unexpected symbol|expected/);
  });

  it("env: os.getenv sees only this request's envVars; UTF-8 round-trips", async () => {
    const r = await rt.exec('print(os.getenv("NAME")) print("こんにちは") return {os.getenv("NAME"), os.getenv("HOME") == nil}', { NAME: "世界" });
    assert.deepEqual(r.logs.stdout, ["世界", "こんにちは"]);
    assert.deepEqual(r.results, [{ json: ["世界", true] }]);
    assert.deepEqual((await rt.exec('os.getenv("NAME") == nil')).results, [{ text: "true" }]);
  });

  it("while true do end ends as ExecutionLimitError with empty logs", async () => {
    const r = await rt.exec('print("x")\nwhile true do end');
    assert.equal(r.error.name, "ExecutionLimitError");
    assert.equal(r.error.message, "Execution fuel exhausted");
    assert.deepEqual(r.logs, { stdout: [], stderr: [] });
  });

  it("output and result limits are ExecutionLimitErrors", async () => {
    const out = await rt.exec("for i = 1, 300 do print(i) end");
    assert.deepEqual([out.error.name, out.error.message], ["ExecutionLimitError", "Output limit exceeded"]);
    const res = await rt.exec('string.rep("y", 70000)');
    assert.deepEqual([res.error.name, res.error.message], ["ExecutionLimitError", "Result limit exceeded"]);
  });

  it("two requests never share globals or a random sequence", async () => {
    const a = await rt.exec("leak = 5 return {math.random(1e9), math.random(1e9), math.random(1e9)}");
    const b = await rt.exec("return {leak == nil, math.random(1e9), math.random(1e9), math.random(1e9)}");
    assert.equal(b.results[0].json[0], true);
    assert.notDeepEqual(a.results[0].json, b.results[0].json.slice(1));
  });

  it("the file system: nothing outside the preopens; a stateless request's /workspace refuses access", async () => {
    // The boot image's descriptors: an empty, disabled /workspace (docs/engine-authors.md, "A boot image").
    const r = await rt.exec('local a = io.open("/etc/passwd") local b, err = io.open("/workspace/x.txt", "w") return {a == nil, b == nil, err}');
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    assert.deepEqual(r.results, [{ json: [true, true, "/workspace/x.txt: Permission denied"] }]);
  });

  it("a dozen requests in one isolate (its pooled instance) each start from the image: nothing one changed is seen", async () => {
    const dirty = 'leak = 1 string.leaked = 2 math.pi = 3 package.loaded.leaked = true setmetatable(_G, { __index = function() return 9 end }) return 0';
    const check = 'return { rawget(_G, "leak") == nil, string.leaked == nil, math.pi, package.loaded.leaked == nil, getmetatable(_G) == nil }';
    for (let i = 0; i < 6; i++) {
      assert.deepEqual((await rt.exec(dirty)).results, [{ text: "0" }]);
      assert.deepEqual((await rt.exec(check)).results, [{ json: [true, true, 3.141592653589793, true, true] }]);
    }
  });
});

describe("the Lua runtime Worker: hostile and odd input ends as an error inside a 200 result", () => {
  const cases = [
    ["a syntax error", "1 +", "LuaError"],
    ["os.exit", "os.exit(3)", "LuaError"],
    ["io.popen", 'io.popen("ls")', "LuaError"],
    ["os.execute fails without running anything", 'return select(2, os.execute("ls"))', undefined],
    ["load of a binary chunk", "assert(load(string.dump(function() return 1 end)))", "LuaError"],
    ["debug.sethook is gone", "debug.sethook(print, 'c')", "LuaError"],
    ["package.loadlib is gone", "package.loadlib('x', 'y')", "LuaError"],
    ["string.rep over the size limit", 'string.rep("x", 2^40)', "LuaError"],
    ["string.rep over the heap cap", 'string.rep("x", 2^30)', "LuaError"],
    ["a doubling string", "local s = 'x' for i = 1, 40 do s = s .. s end return #s", "LuaError"],
    ["collectgarbage stop and a million tables", 'collectgarbage("stop") local t = {} for i = 1, 1e7 do t[i] = {} end', null],
    ["collectgarbage generational and step tricks", 'collectgarbage("generational") collectgarbage("step", 1e9) collectgarbage("incremental", 0, 0) return collectgarbage("count") > 0', undefined],
    ["deep Lua recursion", "local function f() return f() + 1 end return f()", "LuaError"],
    ["deep C recursion through gsub", 'local function g(s) return (string.gsub(s, ".", g)) end return g("x")', "LuaError"],
    ["an __index loop", "return setmetatable({}, {__index = function(t, k) return t[k] end}).x", "LuaError"],
    ["a catastrophic pattern", 'return string.find(string.rep("a", 5000), ".-.-.-.-b")', "ExecutionLimitError"],
    ["an infinite loop in a sort comparator", "table.sort({3, 2, 1}, function(a, b) while true do end end)", "ExecutionLimitError"],
    ["an infinite coroutine ping-pong", "local co = coroutine.wrap(function() while true do coroutine.yield() end end) while true do co() end", "ExecutionLimitError"],
    ["a printing loop", 'while true do print("x") end', "ExecutionLimitError"],
    ["a huge error message", 'error(string.rep("x", 1e6), 0)', "LuaError"],
    ["500 nested parentheses", `return ${"(".repeat(500)}1${")".repeat(500)}`, "LuaError"],
    ["closing stdout", "return io.stdout:close()", undefined],
    ["require of a missing module", 'require("socket")', "LuaError"],
  ];
  hostileCases((code) => rt.exec(code), cases);
});

describe("Lua code contexts", () => {
  const run = (contextId, code, extra = {}) => rt.run({ key: "lua", contextId, code, ...extra });

  it("globals and functions persist; locals do not", async () => {
    assert.equal((await rt.createContext("lua", "c-globals")).status, 201);
    assert.equal(text(await run("c-globals", "counter = 1 local gone = 2 function greet(n) return 'hi ' .. n end return 1")), "1");
    assert.equal(text(await run("c-globals", "counter + 1")), "2");
    assert.equal(text(await run("c-globals", "greet('world')")), "hi world");
    assert.equal(text(await run("c-globals", "gone == nil")), "true");
    const r = await run("c-globals", "counter");
    assert.equal(r.result.context.cwd, "/workspace");
    assert.equal(r.result.context.snapshot.stale, false);
  });

  it("env vars reach os.getenv per call, never kept", async () => {
    await rt.createContext("lua", "c-env");
    assert.equal(text(await run("c-env", 'os.getenv("X")', { envVars: { X: "12" } })), "12");
    assert.equal(text(await run("c-env", 'os.getenv("X") == nil')), "true");
  });

  it("a fuel limit is an ExecutionLimitError; the instance is dropped and the last snapshot restored", async () => {
    await rt.createContext("lua", "c-fuel");
    assert.equal(text(await run("c-fuel", "kept = 'before' return 1")), "1");
    const r = await run("c-fuel", "kept = 'lost' while true do end");
    assert.equal(r.result.error.name, "ExecutionLimitError");
    assert.equal(r.result.error.message, "Execution fuel exhausted");
    assert.equal(text(await run("c-fuel", "kept")), "before");
    assert.equal(text(await run("c-fuel", "kept = kept .. ' again' return kept")), "before again");
  });

  it("a Lua error keeps the instance and its state", async () => {
    await rt.createContext("lua", "c-error");
    await run("c-error", "earlier = 7");
    assert.equal((await run("c-error", 'error("boom")')).result.error.name, "LuaError");
    assert.equal(text(await run("c-error", "earlier")), "7");
  });

  it("math.random keeps its sequence across calls (a context's own snapshot is not re-seeded)", async () => {
    // Its own Interpreter (key) with two contexts: one Interpreter holds at most 8 contexts.
    const runK = (id, code) => rt.run({ key: "lua-rand", contextId: id, code });
    assert.equal((await rt.createContext("lua-rand", "a")).status, 201);
    assert.equal((await rt.createContext("lua-rand", "b")).status, 201);
    assert.equal(text(await runK("a", "math.randomseed(42) return 1")), "1");
    const first = text(await runK("a", "math.random(1e9)"));
    const second = text(await runK("a", "math.random(1e9)"));
    const b = (await runK("b", "math.randomseed(42) return {math.random(1e9), math.random(1e9)}")).result.results[0].json;
    assert.deepEqual(b, [Number(first), Number(second)]);
  });

  it("files written with io.open reach the workspace; the caller's files are readable", async () => {
    await rt.createContext("lua", "c-files");
    const r = await run("c-files", 'local f = assert(io.open("/workspace/out.txt", "w")) f:write("from lua") f:close() local g = assert(io.open("rel.txt", "w")) g:write("relative") g:close() return 1');
    assert.equal(r.result.error, undefined, JSON.stringify(r.result.error));
    const sandbox = await rt.sandbox();
    assert.equal(sandbox["/workspace/out.txt"], "from lua");
    assert.equal(sandbox["/workspace/rel.txt"], "relative");
    await rt.files({ "/workspace/in.txt": "from the caller" });
    assert.equal(text(await run("c-files", 'local f = assert(io.open("/workspace/in.txt")) local s = f:read("a") f:close() return s')), "from the caller");
    await rt.files({ "/workspace/mod.lua": "return { answer = 42 }" });
    assert.equal(text(await run("c-files", 'require("mod").answer')), "42");
  });

  it("an open file handle makes the snapshot stale until it is closed", async () => {
    await rt.createContext("lua", "c-fh");
    await rt.files({ "/workspace/x.txt": "data" });
    assert.equal((await run("c-fh", "before = 1")).result.context.snapshot.stale, false);
    const open = await run("c-fh", 'fh = assert(io.open("/workspace/x.txt")) return 1');
    assert.equal(open.result.error, undefined, JSON.stringify(open.result.error));
    assert.equal(open.result.context.snapshot.stale, true, JSON.stringify(open.result.context));
    assert.equal((await run("c-fh", "fh:close() return 1")).result.context.snapshot.stale, false);
  });

  it("a disabled workspace answers Permission denied", async () => {
    await rt.createContext("lua", "c-disabled");
    const r = await run("c-disabled", 'local f, err = io.open("/workspace/n.txt", "w") return {f == nil, err}', { disabled: true });
    assert.equal(r.result.error, undefined, JSON.stringify(r.result.error));
    assert.deepEqual(r.result.results, [{ json: [true, "/workspace/n.txt: Permission denied"] }]);
    assert.equal(r.result.context.cwd, "/workspace");
  });

  it("after a restart (a new Interpreter over the same storage) globals, functions and the random state survive", async () => {
    // Its own Interpreter (key): one Interpreter holds at most 8 contexts.
    const runR = (code) => rt.run({ key: "lua-restart", contextId: "c-restart", code });
    assert.equal((await rt.createContext("lua-restart", "c-restart")).status, 201);
    assert.equal(text(await runR("n = 41 function inc() n = n + 1 return n end math.randomseed(7) return 1")), "1");
    await rt.restart();
    const r = await runR("return {inc(), n, math.random(1e9)}");
    assert.equal(r.ok, true, JSON.stringify(r));
    assert.equal(r.result.error, undefined, JSON.stringify(r.result.error));
    // math.random continues from the snapshotted state (a context's own snapshot is not re-seeded).
    const seeded = (await rt.exec("math.randomseed(7) return math.random(1e9)")).results[0].text;
    assert.deepEqual(r.result.results[0].json, [42, 42, Number(seeded)]);
  });

  it("a context stores only what differs from the boot image, across a restart too (format 2)", async () => {
    // A whole snapshot of a small Lua context (format 1, every non-zero block of its 1.1 MB memory) stored ~52 KiB,
    // most of it the boot image's. Relative to the image only what the program and the calls changed is stored: the
    // heap's few pages, the driver's buffers, the part of the stack the calls used.
    const bound = 16 * 1024;
    const runS = (code) => rt.run({ key: "lua-small", contextId: "c-small", code });
    assert.equal((await rt.createContext("lua-small", "c-small")).status, 201);
    const first = await runS("t = { 'a', 'b' } x = 1 return x");
    assert.equal(text(first), "1");
    assert.ok(first.result.context.snapshot.storedBytes <= bound, JSON.stringify(first.result.context.snapshot));
    // After a restart the first call restores it in a new isolate: the image's pristine memory is made there first.
    await rt.restart();
    const again = await runS("x = x + 1 return x .. table.concat(t)");
    assert.equal(again.ok, true, JSON.stringify(again));
    assert.equal(again.result.context.restoreError, undefined, JSON.stringify(again.result.context));
    assert.equal(text(again), "2ab");
    assert.ok(again.result.context.snapshot.storedBytes <= bound, JSON.stringify(again.result.context.snapshot));
    assert.equal(text(await runS("x = x + 1 return x .. table.concat(t)")), "3ab");
  });
});
