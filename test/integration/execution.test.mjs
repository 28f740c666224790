// POST /execute results over HTTP: the calc engine end to end through the shim and core (wrangler.jsonc config), and the
// ExecutionResult assembly by the core (protocol §2.3 "Responses", §3.1-§3.5) through a scripted test engine whose
// behaviour is chosen by the request's `code` (test/integration/fixtures/engines.js).
import { before, after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { startRuntime, assertErrorResponse, assertExecutionResult } from "./helpers.mjs";

const RESULT_KEYS = ["code", "language", "engine", "durationMs", "logs", "results"];
let rt;

before(async () => {
  rt = await startRuntime([
    { entry: "calc.js" }, // the calc example engine behind the real shim and core
    { name: "scripted", entry: "scripted.js", routes: ["scripted.test/*"] },
  ]);
});
after(() => rt?.dispose());

const calc = async (body) => assertExecutionResult(await rt.execute(body));
const script = async (code) => {
  const result = await assertExecutionResult(await rt.execute({ code }, { host: "scripted.test" }));
  assert.equal(result.code, code);
  assert.equal(result.language, "scripted");
  assert.equal(result.engine, "scripted 1.0");
  return result;
};
const hostError = (name, message) => ({ name, message, traceback: [] });
const EMPTY_LOGS = { stdout: [], stderr: [] };

describe("calc engine end to end", () => {
  it("`1 + 2 * X` with envVars { X: '3' } → results [{ text: '7' }], exact key order", async () => {
    const result = await calc({ code: "1 + 2 * X", envVars: { X: "3" } });
    assert.deepEqual(Object.keys(result), RESULT_KEYS);
    assert.equal(result.code, "1 + 2 * X");
    assert.equal(result.language, "calc");
    assert.equal(result.engine, "calc 1.0");
    assert.deepEqual(result.logs, EMPTY_LOGS);
    assert.deepEqual(result.results, [{ text: "7" }]);
  });

  it("operators, precedence, unary minus, powers, fractions", async () => {
    const cases = [
      ["(1 + 2) * 3", "9"],
      ["2 ** 3 ** 2", "512"],
      ["-2 ** 2", "-4"],
      ["7 % 4 + 10 / 4", "5.5"],
      ["1 / 0", "Infinity"],
      ["0 / 0", "NaN"],
      ["A * B - C", "-1"],
      [".5e1 + 1.", "6"],
    ];
    for (const [code, text] of cases) {
      const result = await calc({ code, envVars: { A: "2", B: "3", C: "7" } });
      assert.deepEqual(result.results, [{ text }], code);
      assert.equal(result.error, undefined, code);
    }
  });

  it("code is echoed verbatim (unicode, newlines, surrounding whitespace)", async () => {
    const code = "  \n 1 +\t2 \n";
    assert.equal((await calc({ code })).code, code);
    const weird = "1 + 世界";
    const result = await calc({ code: weird });
    assert.equal(result.code, weird);
    assert.deepEqual(result.error, hostError("SyntaxError", "Unexpected character '世'"));
  });

  it("guest errors are 200 with error, results [], key order …, results, error", async () => {
    const cases = [
      ["1 +", hostError("SyntaxError", "Unexpected end of input")],
      ["(1", hostError("SyntaxError", "Expected ')'")],
      ["1 2", hostError("SyntaxError", "Unexpected token '2'")],
      ["Y * 2", hostError("ReferenceError", "Y is not defined")],
      ["$", hostError("SyntaxError", "Unexpected character '$'")],
    ];
    for (const [code, error] of cases) {
      const result = await calc({ code });
      assert.deepEqual(Object.keys(result), [...RESULT_KEYS, "error"], code);
      assert.deepEqual(result.error, error, code);
      assert.deepEqual(result.results, [], code);
      assert.deepEqual(result.logs, EMPTY_LOGS, code);
    }
  });

  it("envVars are per request: a value from one call is not visible to the next", async () => {
    assert.deepEqual((await calc({ code: "SECRET", envVars: { SECRET: "42" } })).results, [{ text: "42" }]);
    assert.deepEqual((await calc({ code: "SECRET" })).error, hostError("ReferenceError", "SECRET is not defined"));
  });

  it("durationMs is a finite number (its value is the machine's, never asserted)", async () => {
    const result = await calc({ code: "1" });
    assert.ok(Number.isFinite(result.durationMs));
  });
});

describe("engine throws (protocol §2.3, §10.3 item 69)", () => {
  it("Error → 200, EngineError with its message, empty logs, results [], no usage", async () => {
    const result = await script("throw");
    assert.deepEqual(Object.keys(result), [...RESULT_KEYS, "error"]);
    assert.deepEqual(result.logs, EMPTY_LOGS);
    assert.deepEqual(result.results, []);
    assert.deepEqual(result.error, hostError("EngineError", "engine exploded"));
    assert.equal("usage" in result, false);
  });

  it("a TypeError raised inside the engine; a thrown non-Error → 'Execution failed'; an Error's empty message is kept", async () => {
    assert.deepEqual((await script("throw-type")).error, hostError("EngineError", "Cannot read properties of null (reading 'boom')"));
    assert.deepEqual((await script("throw-string")).error, hostError("EngineError", "Execution failed"));
    assert.deepEqual((await script("throw-empty")).error, hostError("EngineError", ""));
  });

  it("messages are truncated to 2,048 characters", async () => {
    assert.deepEqual((await script("throw-long")).error, hostError("EngineError", "é".repeat(2048)));
    assert.deepEqual((await script("throw-limit-long")).error, hostError("ExecutionLimitError", "L".repeat(2048)));
    const split = (await script("throw-surrogate")).error.message; // "a" + 1,500 emoji: 2,048 units cut a pair
    assert.ok(split.length <= 2048 && split.length >= 2047, `length ${split.length}`);
    assert.ok(split.startsWith("a😀😀"));
  });

  it("ExecutionLimitError (instance, default message, or any error named so) → name ExecutionLimitError", async () => {
    for (const [code, message] of [
      ["throw-limit", "Execution fuel exhausted"],
      ["throw-limit-default", "Execution limit exceeded"],
      ["throw-limit-by-name", "Output limit exceeded"],
    ]) {
      const result = await script(code);
      assert.deepEqual(result.error, hostError("ExecutionLimitError", message), code);
      assert.deepEqual(result.logs, EMPTY_LOGS);
      assert.deepEqual(result.results, []);
      assert.equal("usage" in result, false);
    }
  });

  it("async engines: rejected promises map the same way", async () => {
    assert.deepEqual((await script("reject")).error, hostError("EngineError", "async engine exploded"));
    assert.deepEqual((await script("reject-limit")).error, hostError("ExecutionLimitError", "Execution fuel exhausted"));
  });
});

describe("engine outcomes (assembled by the core)", () => {
  it("an engine that resolves after a timer, and one that returns a thenable, are awaited for their outcome", async () => {
    const result = await script("async");
    // The outcome only exists after the engine's timer fired: its logs and result prove the core awaited it.
    assert.deepEqual(result.logs, { stdout: ["async done"], stderr: [] });
    assert.deepEqual(result.results, [{ text: "42" }]);
    assert.ok(Number.isFinite(result.durationMs));
    assert.deepEqual((await script("thenable")).results, [{ text: "from a thenable" }]);
  });

  it("usage is relayed, key order code, language, engine, durationMs, logs, results, usage", async () => {
    const result = await script("usage");
    assert.deepEqual(Object.keys(result), [...RESULT_KEYS, "usage"]);
    assert.deepEqual(result.usage, { fuelConsumed: 123, fuelLimit: 50000000, memoryBytes: 65536 });
    assert.deepEqual(result.logs, { stdout: ["a", "b"], stderr: ["c"] });
  });

  it("guest error with logs and usage: key order …, results, error, usage; traceback kept", async () => {
    const result = await script("guest-error");
    assert.deepEqual(Object.keys(result), [...RESULT_KEYS, "error", "usage"]);
    assert.deepEqual(result.logs, { stdout: ["before"], stderr: [] });
    assert.deepEqual(result.results, []);
    assert.deepEqual(result.error, { name: "TypeError", message: "oops", traceback: ["TypeError: oops", "    at <eval>:1"] });
    assert.deepEqual(result.usage, { fuelConsumed: 7, fuelLimit: 100, memoryBytes: 1024 });
    const limit = await script("guest-limit");
    assert.deepEqual(limit.error, hostError("ExecutionLimitError", "Execution fuel exhausted"));
    assert.deepEqual(limit.logs, { stdout: ["x"], stderr: [] });
  });

  it("json results and no-value results", async () => {
    assert.deepEqual((await script("json-result")).results, [{ json: { a: [1, 2, { b: null }], s: "世界", t: true } }]);
    const none = await script("no-result");
    assert.deepEqual(none.results, []);
    assert.deepEqual(Object.keys(none), RESULT_KEYS);
  });

  it("strings survive the round trip (escapes, control characters, emoji, U+2028)", async () => {
    const result = await script("unicode");
    assert.deepEqual(result.logs, { stdout: ["tab\there \"quoted\" \\ 😀 \u0001", "世界"], stderr: ["\u2028\u2029"] });
    assert.deepEqual(result.results, [{ text: "'😀 世界'" }]);
  });

  it("unknown script → the engine's own guest error", async () => {
    assert.deepEqual((await script("nope")).error, { name: "NameError", message: "unknown script nope", traceback: [] });
  });
});

describe("output and result limits enforced by the core (protocol §3.2, §3.3)", () => {
  it("200 log entries across both streams are fine", async () => {
    const result = await script("logs-200");
    assert.equal(result.logs.stdout.length + result.logs.stderr.length, 200);
    assert.equal(result.error, undefined);
    assert.deepEqual(result.results, [{ text: "done" }]);
  });

  it("201 entries → ExecutionLimitError 'Output limit exceeded', the first 200 kept, result dropped", async () => {
    for (const code of ["logs-201", "logs-201-stdout"]) {
      const result = await script(code);
      assert.deepEqual(result.error, hostError("ExecutionLimitError", "Output limit exceeded"), code);
      assert.equal(result.logs.stdout.length + result.logs.stderr.length, 200, code);
      assert.equal(result.logs.stdout[0], "line 0");
      assert.deepEqual(result.results, [], code);
    }
  });

  it("32,768 UTF-16 units of output are fine; 32,769 → Output limit exceeded", async () => {
    const ok = await script("logs-32768");
    assert.equal(ok.error, undefined);
    assert.equal(ok.logs.stdout[0].length + ok.logs.stderr[0].length, 32768);
    const over = await script("logs-32769");
    assert.deepEqual(over.error, hostError("ExecutionLimitError", "Output limit exceeded"));
    assert.deepEqual(over.logs, { stdout: ["a".repeat(16384)], stderr: [] });
  });

  it("a 65,536-byte result is fine; 65,537 bytes → Result limit exceeded (text and json)", async () => {
    assert.equal((await script("result-65536")).results[0].text.length, 65536);
    for (const code of ["result-65537", "result-huge-json"]) {
      const result = await script(code);
      assert.deepEqual(result.error, hostError("ExecutionLimitError", "Result limit exceeded"), code);
      assert.deepEqual(result.results, [], code);
    }
  });

  it("a 5 MiB result → Result limit exceeded, logs kept, small response", async () => {
    const res = await rt.execute({ code: "result-huge" }, { host: "scripted.test" });
    const text = await res.clone().text();
    assert.ok(text.length < 1000, `response is ${text.length} bytes`);
    const result = await assertExecutionResult(res);
    assert.deepEqual(result.error, hostError("ExecutionLimitError", "Result limit exceeded"));
    assert.deepEqual(result.logs, { stdout: ["kept"], stderr: [] });
  });
});

describe("broken outcomes → EngineError", () => {
  it("unserializable outcome (BigInt, cycle) → EngineError naming the serialization failure", async () => {
    assert.deepEqual(
      (await script("bigint")).error,
      hostError("EngineError", "Engine returned an outcome that cannot be serialized: Do not know how to serialize a BigInt"),
    );
    const cycle = await script("circular");
    assert.equal(cycle.error.name, "EngineError");
    assert.match(cycle.error.message, /^Engine returned an outcome that cannot be serialized: Converting circular structure to JSON/);
    assert.deepEqual(cycle.logs, EMPTY_LOGS);
    assert.equal("usage" in cycle, false);
  });

  it("outcomes that break the Engine contract", async () => {
    const cases = {
      undefined: "Engine returned an invalid outcome: not an object",
      "not-object": "Engine returned an invalid outcome: not an object",
      "bad-results": "Engine returned an invalid outcome: results must be an array of at most one entry",
      "two-results": "Engine returned an invalid outcome: results must be an array of at most one entry",
      "bad-logs": "Engine returned an invalid outcome: logs.stdout and logs.stderr must be arrays of strings",
      "bad-error": "Engine returned an invalid outcome: error.name and error.message must be strings",
      "bad-usage": "Engine returned an invalid outcome: usage must carry numeric fuelConsumed, fuelLimit and memoryBytes",
    };
    for (const [code, message] of Object.entries(cases)) {
      const result = await script(code);
      assert.deepEqual(Object.keys(result), [...RESULT_KEYS, "error"], code);
      assert.deepEqual(result.error, hostError("EngineError", message), code);
      assert.deepEqual(result.logs, EMPTY_LOGS, code);
      assert.deepEqual(result.results, [], code);
    }
  });

  it("a json result nested 500 deep is relayed", async () => {
    let v = (await script("deep-json-500")).results[0].json;
    let depth = 0;
    while (Array.isArray(v)) { v = v[0]; depth++; }
    assert.equal(depth, 500);
  });
});

describe("hostile bodies", () => {
  it("invalid UTF-8 in the body → 400 Invalid JSON", async () => {
    const enc = new TextEncoder();
    for (const bad of [[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf8, 0x88, 0x80, 0x80, 0x80]]) {
      const body = new Uint8Array([...enc.encode('{"code":"1","x":"'), ...bad, ...enc.encode('"}')]);
      await assertErrorResponse(await rt.execute(body), 400, "Invalid JSON");
    }
    await assertErrorResponse(await rt.execute(new Uint8Array([0x7b, 0x22, 0x63, 0x6f, 0x64, 0x65, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d])), 400, "Invalid JSON");
  });

  it("lone surrogates written as \\u escapes are valid JSON", async () => {
    const result = await calc('{"code":"1","x":"\\ud800"}');
    assert.deepEqual(result.results, [{ text: "1" }]);
  });

  it("100,000 '[' → 413 (over 96 KiB); 98,000 '[' → 400 Invalid JSON; deep but closed nesting → 400; the Worker keeps serving", async () => {
    await assertErrorResponse(await rt.execute("[".repeat(100000)), 413, "Request too large");
    await assertErrorResponse(await rt.execute("[".repeat(98000)), 400, "Invalid JSON");
    await assertErrorResponse(await rt.execute('{"code":"1","a":' + "[".repeat(98000 - 20)), 400, "Invalid JSON");
    await assertErrorResponse(await rt.execute('{"code":"1","a":' + '{"a":'.repeat(16000) + "1" + "}".repeat(16000) + "}"), 400, "Invalid JSON");
    const after = await calc({ code: "1 + 2 * X", envVars: { X: "3" } });
    assert.deepEqual(after.results, [{ text: "7" }]);
  });

  it("moderate nesting in an ignored key is accepted", async () => {
    const result = await calc('{"code":"5","extra":' + "[".repeat(200) + "]".repeat(200) + "}");
    assert.deepEqual(result.results, [{ text: "5" }]);
  });

  it("many members and long strings in ignored keys", async () => {
    const members = Array.from({ length: 5000 }, (_, i) => `"k${i}":${i}`).join(",");
    assert.deepEqual((await calc(`{"code":"9",${members}}`)).results, [{ text: "9" }]);
    assert.deepEqual((await calc({ code: "8", pad: "\\".repeat(40000) })).results, [{ text: "8" }]);
  });
});

describe("concurrency", () => {
  it("50 parallel requests on the real Worker all get their own correct result", async () => {
    const n = 50;
    const results = await Promise.all(
      Array.from({ length: n }, (_, i) => rt.execute({ code: "1 + 2 * X", envVars: { X: String(i) } }).then(assertExecutionResult)),
    );
    results.forEach((result, i) => {
      assert.deepEqual(result.results, [{ text: String(1 + 2 * i) }], `request ${i}`);
      assert.equal(result.code, "1 + 2 * X");
    });
  });

  it("50 parallel mixed requests (async engine, throws, validation errors) do not cross-talk", async () => {
    const kinds = ["async", "throw", "ok", "usage", "reject-limit"];
    const calls = Array.from({ length: 50 }, (_, i) => {
      const kind = kinds[i % kinds.length];
      if (i % 7 === 0) return rt.execute("{", { host: "scripted.test" }).then((res) => assertErrorResponse(res, 400, "Invalid JSON").then(() => "invalid"));
      return rt.execute({ code: kind }, { host: "scripted.test" }).then(assertExecutionResult).then((r) => {
        assert.equal(r.code, kind);
        if (kind === "async") assert.deepEqual(r.results, [{ text: "42" }]);
        if (kind === "throw") assert.equal(r.error.name, "EngineError");
        if (kind === "ok") assert.deepEqual(r.results, [{ text: "ok" }]);
        if (kind === "usage") assert.equal(r.usage.fuelConsumed, 123);
        if (kind === "reject-limit") assert.equal(r.error.name, "ExecutionLimitError");
        return kind;
      });
    });
    const done = await Promise.all(calls);
    assert.equal(done.length, 50);
  });
});
