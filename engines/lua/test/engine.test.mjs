// The Lua engine (engines/lua/build/engine.wasm) through its C ABI, under our own WASI host (the core's, when
// worker-shim/generated is built) and under node:wasi with a JS fuel counter. Build it first:
// `bash scripts/engines/lua.sh`. Run: node --no-turbo-fast-api-calls --test engines/lua/test/
import assert from 'node:assert/strict';
import { describe, it, before, after } from 'node:test';
import { boot, hasCore } from './harness.mjs';

const kinds = ['node', ...((await hasCore()) ? ['core'] : [])];
if (kinds.length === 1) console.log('# worker-shim/generated is not built: only node:wasi (bash scripts/build.sh core)');

const limitError = (message) => ({ name: 'ExecutionLimitError', message, traceback: [] });

for (const kind of kinds) {
  describe(`Lua engine under ${kind === 'core' ? 'our WASI host (the core)' : 'node:wasi'}`, () => {
    let engine;
    before(async () => { engine = await boot(kind); });
    after(() => engine?.dispose());

    // A fresh instance for tests that must trap or that need a clean state.
    async function fresh(fn) {
      const e = await boot(kind);
      try { return await fn(e); } finally { e.dispose(); }
    }
    const run = (code, opts) => {
      const r = engine.eval(code, opts);
      assert.ok(!r.trap, `unexpected trap: ${r.trap}`);
      assert.ok(!r.failure, 'driver failure');
      return r.outcome;
    };
    const errorOf = (code, opts) => {
      const o = run(code, opts);
      assert.ok(o.error, `expected an error from ${code}, got ${JSON.stringify(o)}`);
      assert.deepEqual(o.results, []);
      return o.error;
    };

    it('a last expression is the result, as text: 1 + 1 -> "2"', () => {
      assert.deepEqual(run('1 + 1'), { logs: { stdout: [], stderr: [] }, results: [{ text: '2' }] });
      assert.deepEqual(run('"hi"').results, [{ text: 'hi' }]);
      assert.deepEqual(run('true').results, [{ text: 'true' }]);
      assert.deepEqual(run('0.5').results, [{ text: '0.5' }]);
      assert.deepEqual(run('nil').results, []);
      assert.deepEqual(run('local x = 1').results, []);
      assert.match(run('print').results[0].text, /^function: /);
    });

    it('statements run when the code is not an expression; an explicit return gives the result', () => {
      assert.deepEqual(run('local a = 2\nlocal b = 3\nreturn a * b').results, [{ text: '6' }]);
      assert.deepEqual(run('for i = 1, 3 do end').results, []);
    });

    it('arrays and string-keyed tables are json, nested, keys sorted', () => {
      assert.deepEqual(run('return {1,2,3}').results, [{ json: [1, 2, 3] }]);
      assert.deepEqual(run('{a=1}').results, [{ json: { a: 1 } }]);
      const o = run('{b={1,"x",true}, a=0.1, c={d={}}}');
      assert.deepEqual(o.results, [{ json: { a: 0.1, b: [1, 'x', true], c: { d: {} } } }]);
      assert.ok(engine.eval('{z=1, a=2}').raw.includes('{"a":2,"z":1}'));
    });

    it('tables that are not JSON fall back to text: holes, mixed keys, cycles, functions, inf', () => {
      for (const code of ['{1, nil, 3}', '{1, a=2}', 'local t = {} t.self = t return t', '{f = print}', '{x = 1/0}',
                          'setmetatable({}, {__tostring = function() return "custom" end})']) {
        const [entry] = run(code).results;
        assert.ok(entry && 'text' in entry, `${code}: ${JSON.stringify(entry)}`);
      }
      assert.deepEqual(run('setmetatable({}, {__tostring = function() return "custom" end})').results, [{ text: 'custom' }]);
    });

    it('print and io.write go to stdout lines, io.stderr:write to stderr', () => {
      const o = run('print("a", 1, nil) io.write("b", 2, "\\n", "c") io.stderr:write("e1\\ne2\\n") io.stdout:write("!")');
      assert.deepEqual(o.logs, { stdout: ['a\t1\tnil', 'b2', 'c!'], stderr: ['e1', 'e2'] });
      assert.deepEqual(o.results, []);
    });

    it('warn writes "Lua warning: …" lines to stderr once "@on" was given (off by default, as in lua.c)', () => {
      assert.deepEqual(run('warn("silent")').logs.stderr, []);
      const o = run('warn("@on") warn("a", "b") warn("@off") warn("gone") warn("@on") warn("@x is content", "!")');
      assert.deepEqual(o.logs.stderr, ['Lua warning: ab', 'Lua warning: @x is content!']);
    });

    it('output before an error is kept', () => {
      const o = run('print("before") error("boom")');
      assert.deepEqual(o.logs.stdout, ['before']);
      assert.equal(o.error.message, 'input:1: boom');
    });

    it('errors are LuaError with a message and traceback lines', () => {
      const e = errorOf('local function f() error("boom") end\nf()');
      assert.equal(e.name, 'LuaError');
      assert.equal(e.message, 'input:1: boom');
      assert.deepEqual(e.traceback, ["[C]: in function 'error'", "input:1: in local 'f'", 'input:2: in main chunk']);
      const syntax = errorOf('x = = 1');
      assert.equal(syntax.name, 'LuaError');
      assert.match(syntax.message, /^input:1: unexpected symbol near '='/);
      assert.match(errorOf('nil + 1').message, /attempt to perform arithmetic on a nil value/);
    });

    it('error({code=1}): a table error object becomes its JSON text', () => {
      const e = errorOf('error({code=1})');
      assert.equal(e.message, '{"code":1}');
      assert.equal(errorOf('error(setmetatable({}, {__tostring = function() return "E!" end}))').message, 'E!');
      assert.equal(errorOf('error()').message, '(error object is a nil value)');
      assert.equal(errorOf('error(string.rep("x", 1e6), 0)').message.length, 65536, 'long messages are cut');
    });

    it('os.exit, io.popen and os.execute do not reach the host', () => {
      assert.match(errorOf('os.exit()').message, /os\.exit is not available in the sandbox/);
      assert.match(errorOf('os.exit(0, true)').message, /os\.exit is not available/);
      assert.match(errorOf('io.popen("ls")').message, /'popen' not supported/);
      assert.deepEqual(run('os.execute()').results, [{ text: 'false' }]);
      assert.deepEqual(run('select("#", os.execute("ls"))').results, [{ text: '3' }]);
      assert.deepEqual(run('select(2, os.execute("ls"))').results, [{ text: 'Function not implemented' }]);
    });

    it('binary chunks are refused: load, and through string.dump', () => {
      const e = errorOf('assert(load(string.dump(function() return 1 end)))');
      assert.match(e.message, /attempt to load a binary chunk \(mode is 't'\)/);
      assert.match(errorOf('assert(load("\\27Lua", "x", "b"))').message, /attempt to load a binary chunk/);
      assert.deepEqual(run('load("return 7")()').results, [{ text: '7' }]);
    });

    it('no temporary files, no C modules, no closing stdout, no reading outside the preopens, format widths capped', () => {
      assert.deepEqual(run('io.open("/etc/passwd")').results, []);
      assert.deepEqual(run('io.tmpfile()').results, []);
      assert.match(errorOf('os.tmpname()').message, /unable to generate a unique filename/);
      assert.deepEqual(run('select(2, io.stdout:close())').results, [{ text: 'cannot close standard file' }]);
      assert.deepEqual(run('package.loadlib').results, []);
      assert.match(errorOf('string.format("%099999d", 1)').message, /invalid conversion/);
      assert.match(errorOf('require("nosuch")').message, /module 'nosuch' not found/);
    });

    it('debug keeps traceback and getinfo only (no sethook: it would switch metering off)', () => {
      assert.deepEqual(run('debug.sethook').results, []);
      assert.deepEqual(run('debug.getregistry').results, []);
      assert.match(run('debug.traceback("x")').results[0].text, /^x\nstack traceback:/);
    });

    it('string.rep bombs are bounded: too large, or not enough memory (catchable)', () => {
      assert.match(errorOf('string.rep("x", 2^40)').message, /resulting string too large/);
      assert.equal(errorOf('string.rep("x", 2^30)').message, 'not enough memory');
      assert.deepEqual(run('select(2, pcall(string.rep, "x", 2^30))').results, [{ text: 'not enough memory' }]);
      assert.deepEqual(run('#string.rep("x", 10e6)').results, [{ text: '10000000' }]);
    });

    it('the Lua heap is capped: a growing table ends in a catchable "not enough memory", and the state survives', () => {
      const o = run('local t = {} local ok, err = pcall(function() while true do t[#t + 1] = {#t} end end) t = nil ' +
                    'collectgarbage() return err');
      assert.deepEqual(o.results, [{ text: 'not enough memory' }]);
      assert.deepEqual(run('1 + 1').results, [{ text: '2' }]);
      assert.ok(engine.memoryBytes() <= 64 * 1024 * 1024);
    });

    it('millions of small objects with the collector stopped: "not enough memory", and the handle still answers', async () => {
      await fresh((e) => {
        const r = e.eval('collectgarbage("stop") local t = {} for i = 1, 1e7 do t[i] = {} end');
        assert.ok(!r.trap && !r.failure, String(r.trap));
        assert.equal(r.outcome.error.message, 'not enough memory');
        assert.deepEqual(e.eval('1 + 1').outcome.results, [{ text: '2' }]);
        assert.ok(e.memoryBytes() <= 64 * 1024 * 1024);
      });
    });

    it('collectgarbage("count") works', () => {
      const kb = Number(run('collectgarbage("count")').results[0].text);
      assert.ok(kb > 10 && kb < 48 * 1024, String(kb));
    });

    it('deep recursion is a Lua error, never a host stack overflow (Lua, gsub callbacks, metamethods, tostring)', () => {
      assert.match(errorOf('local function f(n) return f(n + 1) + 1 end return f(1)').message, /stack overflow/);
      assert.match(errorOf('local function g(s) return (string.gsub(s, ".", g)) end return g("x")').message,
                   /C stack overflow/);
      assert.match(errorOf('setmetatable({}, {__index = function(t, k) return t[k] end}).x').message,
                   /C stack overflow/);
      assert.match(errorOf('local t = setmetatable({}, {__tostring = function(t) return tostring(t) end}) ' +
                           'return tostring(t)').message, /C stack overflow/);
      assert.match(errorOf('local co; co = function() return coroutine.wrap(co)() end return co()').message,
                   /C stack overflow/);
      assert.match(errorOf('assert(load("return " .. string.rep("(", 500) .. "1" .. string.rep(")", 500)))').message,
                   /C levels|overflow/);
      assert.deepEqual(run('"still alive"').results, [{ text: 'still alive' }]);
    });

    it('fuel: while true do end is stopped by the host trapping the charge (hard mode)', async () => {
      await fresh((e) => {
        const r = e.eval('while true do end', { budget: 1_000_000 });
        assert.ok(r.trap, 'expected a trap');
        assert.ok(r.fuelExhausted, `expected the fuel trap, got ${r.trap}`);
        assert.ok(r.fuel >= 1_000_000 && r.fuel <= 1_020_000, String(r.fuel));
      });
    });

    it('fuel: every throw (error, coroutine.yield) is charged as the Wasm exception it is (the meter weighs throw)', () => {
      // A longjmp is a Wasm exception, ~1.5 us of V8's unwinding against ~20 ns per unit: the fuel tool weighs each
      // `throw` 4,000 (docs/fuel-tool.md), about 35 units here, so 10,000 throws cost over 300,000 more than none.
      const plain = engine.eval('for i = 1, 10000 do local x = i end');
      const errors = engine.eval('for i = 1, 10000 do pcall(error) end');
      const yields = engine.eval('local co = coroutine.wrap(function() while true do coroutine.yield() end end) for i = 1, 10000 do co() end');
      assert.ok(errors.fuel >= plain.fuel + 300_000, `${errors.fuel} vs ${plain.fuel}`);
      assert.ok(yields.fuel >= plain.fuel + 300_000, `${yields.fuel} vs ${plain.fuel}`);
    });

    it('fuel: work in C without Lua instructions is charged (pattern matching, sort, allocation)', async () => {
      await fresh((e) => {
        const r = e.eval('string.find(string.rep("a", 5000), ".-.-.-.-b")', { budget: 5_000_000 });
        assert.ok(r.fuelExhausted, 'a backtracking pattern runs out of fuel');
      });
      // Sorting and copying in C cost in proportion to their work (the Wasm-level meter charges every loop).
      const sort = engine.eval('local t = {} for i = 1, 20000 do t[i] = -i end table.sort(t)');
      const fill = engine.eval('local t = {} for i = 1, 20000 do t[i] = -i end');
      assert.ok(sort.fuel > 2 * fill.fuel, `${sort.fuel} vs ${fill.fuel}`);
      const small = engine.eval('local s = string.rep("x", 8e5)');
      const rep = engine.eval('local s = string.rep("x", 8e6)');
      assert.ok(rep.fuel >= 5 * small.fuel && rep.fuel >= 8e6 / 256, `${rep.fuel} vs ${small.fuel}`);
    });

    it('output limit: more than 200 lines or 32,768 bytes -> ExecutionLimitError, stateless logs empty', () => {
      const lines = run('for i = 1, 300 do print(i) end');
      assert.deepEqual(lines.error, limitError('Output limit exceeded'));
      assert.deepEqual(lines.logs, { stdout: [], stderr: [] });
      const bytes = run('io.write(string.rep("x", 40000))');
      assert.deepEqual(bytes.error, limitError('Output limit exceeded'));
      assert.deepEqual(run('for i = 1, 200 do print(i) end').logs.stdout.length, 200);
      assert.equal(run('print(string.rep("é", 16000))').error, undefined);
      assert.deepEqual(run('print(string.rep("é", 17000))').error, limitError('Output limit exceeded'));
    });

    it('output limit ends an endless printing loop (no fuel trap); a session keeps the lines so far', () => {
      const r = engine.eval('while true do print("x") end', { session: true });
      assert.ok(!r.trap, String(r.trap));
      assert.deepEqual(r.outcome.error, limitError('Output limit exceeded'));
      assert.equal(r.outcome.logs.stdout.length, 200);
      assert.equal(r.outcome.cwd, '/workspace');
    });

    it('output limit: a pcall or a coroutine around the print does not keep the loop going', () => {
      // Every C function call after the limit raises the error (patches/output-limit.patch): pcall is one too.
      for (const code of ['while true do pcall(print, "x") end',
                          'coroutine.wrap(function() while true do print("x") end end)()',
                          'while true do pcall(coroutine.wrap(function() print("x") end)) end']) {
        const r = engine.eval(code, { session: true });
        assert.ok(!r.trap, `${code}: ${r.trap}`);
        assert.deepEqual(r.outcome.error, limitError('Output limit exceeded'), code);
        assert.equal(r.outcome.logs.stdout.length, 200, code);
      }
    });

    it('result limit: a result over 65,536 bytes -> ExecutionLimitError', () => {
      assert.deepEqual(run('string.rep("x", 65536)').results[0].text.length, 65536);
      assert.deepEqual(run('string.rep("x", 65537)').error, limitError('Result limit exceeded'));
      assert.deepEqual(run('string.rep("x", 20e6)').error, limitError('Result limit exceeded'));
      const big = run('local t = {} for i = 1, 20000 do t[i] = i end return t');
      assert.deepEqual(big.error, limitError('Result limit exceeded'));
      assert.deepEqual(big.results, []);
    });

    it('os.getenv answers the request\'s env vars only, non-ASCII round-trips', () => {
      const env = { GREETING: 'héllo ✓ 😀', EMPTY: '' };
      assert.deepEqual(run('os.getenv("GREETING")', { env }).results, [{ text: 'héllo ✓ 😀' }]);
      assert.deepEqual(run('os.getenv("EMPTY")', { env }).results, [{ text: '' }]);
      assert.deepEqual(run('os.getenv("HOME")', { env }).results, []);
      assert.deepEqual(run('os.getenv("PATH")').results, []);
      assert.deepEqual(run('os.getenv("GREETING")').results, [], 'env vars do not outlive their request');
    });

    it('sessions: globals persist on one handle; the outcome carries cwd', () => {
      const first = run('counter = 41; function bump() counter = counter + 1 return counter end', { session: true });
      assert.equal(first.cwd, '/workspace');
      assert.deepEqual(run('bump()', { session: true }).results, [{ text: '42' }]);
      assert.deepEqual(run('counter').results, [{ text: '42' }]);
      assert.equal(run('1').cwd, undefined, 'a stateless outcome has no cwd');
      assert.equal(engine.cwd(), '/workspace');
    });

    it('after restore from a boot image re-seeds math.random', () => {
      assert.equal(engine.afterRestore(true), 0);
      assert.equal(engine.afterRestore(false), 0);
      const a = run('math.random(1, 2^40)').results[0].text;
      engine.afterRestore(true);
      const b = run('math.random(1, 2^40)').results[0].text;
      assert.notEqual(a, b);
    });

    it('invalid UTF-8 and NUL bytes in text stay valid JSON', () => {
      const o = engine.eval('print("a\\0b\\255") return "\\255x"');
      assert.deepEqual(o.outcome.logs.stdout, ['a\u0000b\ufffd']);
      assert.deepEqual(o.outcome.results, [{ text: '\ufffdx' }]);
    });
  });
}
