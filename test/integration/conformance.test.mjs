// ./testing's runEngineConformance (protocol §5.7) in plain Node, driving the real core over node:sqlite: the
// JavaScript, Python, Perl, Ruby and Lua engines (sessions, snapshots, simulated eviction), the counter test engine (an
// Engine written in JavaScript with sessions) and the calc example (stateless only).
import { describe, it } from "node:test";
import { runEngineConformance } from "../../worker-shim/testing.js";

describe("runEngineConformance", () => {
  it("the JavaScript engine (QuickJS, with code contexts)", async () => {
    const { javascriptEngine } = await import("../../engines/javascript/engine.js");
    await runEngineConformance(javascriptEngine, {
      programs: {
        simple: { code: "1 + 1", expectResultText: "2" },
        error: { code: "null.x" },
        stateful: { define: "var x = 1; function f() { return x + 1; }", use: "f()", expectResultText: "2" },
      },
    });
  });

  it("the Python engine (CPython, with code contexts)", async () => {
    const { pythonEngine } = await import("../../engines/python/engine.js");
    await runEngineConformance(pythonEngine, {
      programs: {
        simple: { code: "1 + 1", expectResultText: "2" },
        error: { code: "None.x" },
        stateful: { define: "x = 1\ndef f():\n  return x + 1", use: "f()", expectResultText: "2" },
      },
    });
  });

  it("the Perl engine (zeroperl, with code contexts)", async () => {
    const { perlEngine } = await import("../../engines/perl/engine.js");
    await runEngineConformance(perlEngine, {
      programs: {
        simple: { code: "1 + 1", expectResultText: "2" },
        error: { code: "die 'nope'" },
        stateful: { define: "our $x = 1; sub f { $x + 1 } 1", use: "f()", expectResultText: "2" },
      },
    });
  });

  it("the Lua engine (Lua 5.4.7, written in JavaScript on ./wasi and ./snapshot, with code contexts)", async () => {
    const { luaEngine } = await import("../../engines/lua/engine.js");
    await runEngineConformance(luaEngine, {
      programs: {
        simple: { code: "1 + 1", expectResultText: "2" },
        error: { code: "error('nope')" },
        stateful: { define: "x = 1; function f() return x + 1 end", use: "f()", expectResultText: "2" },
      },
    });
  });

  it("the Ruby engine (CRuby, with code contexts)", async () => {
    const { rubyEngine } = await import("../../engines/ruby/engine.js");
    await runEngineConformance(rubyEngine, {
      programs: {
        simple: { code: "1 + 1", expectResultText: "2" },
        error: { code: "raise 'nope'" },
        stateful: { define: "x = 1; def f(v) = v + 1; $y = x", use: "f($y)", expectResultText: "2" },
      },
    });
  });

  it("the counter test engine (written in JavaScript, with code contexts over ./wasi and ./snapshot)", async () => {
    const { readFileSync } = await import("node:fs");
    const { buildCounterGuest } = await import("./fixtures/counter/build.mjs");
    const { makeCounterEngine } = await import("./fixtures/counter/engine.js");
    await runEngineConformance(makeCounterEngine(new WebAssembly.Module(readFileSync(buildCounterGuest()))), {
      programs: {
        simple: { code: "add 1; add 1", expectResultText: "2" },
        error: { code: "fail" },
        stateful: { define: "add 41", use: "get", expectResultText: "41" },
      },
    });
  });

  it("the calc example engine (stateless only)", async () => {
    const { engine } = await import("../../engines/calc/engine.js");
    await runEngineConformance(engine, {
      programs: { simple: { code: "1 + 2 * 3", expectResultText: "7" }, error: { code: "1 +" } },
    });
  });
});
