// protocol §10.2 (POST /execute validation, items 6-23) over HTTP against the runtime Worker's shim and core (config from
// wrangler.jsonc) with the calc example engine, plus 'javascript' / 'python' echo Workers for the language alias table (protocol §2.4) and for seeing the payload
// exactly as the engine receives it, and a caller Worker that reaches the runtime through a Service Binding.
import { before, after, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  startRuntime,
  assertErrorResponse,
  assertExecutionResult,
  streamBody,
  rawHttp,
  rawToResponse,
} from "./helpers.mjs";
import { describeCode } from "./fixtures/digest.js";

const JSON_HEADERS = { "content-type": "application/json" };
let rt;

before(async () => {
  rt = await startRuntime([
    { entry: "calc.js" }, // the calc example engine behind the real shim and core
    { name: "js", entry: "echo-javascript.js", routes: ["js.test/*"] },
    { name: "py", entry: "echo-python.js", routes: ["py.test/*"] },
    { helper: { name: "caller", entry: "caller.js", serviceBindings: { RUNTIME: "runtime" }, routes: ["caller.test/*"] } },
  ]);
});
after(() => rt?.dispose());

const post = (body, init = {}) => rt.execute(body, init);
const echo = async (body, init = {}) => {
  const result = await assertExecutionResult(await post(body, { host: "js.test", ...init }));
  assert.equal(result.error, undefined, JSON.stringify(result.error));
  return result.results[0].json;
};
const utf8Length = (s) => Buffer.byteLength(s, "utf8");

describe("protocol §10.2 Content-Type (step 1)", () => {
  it("item 6: text/plain → 415", async () => {
    await assertErrorResponse(await post({ code: "1" }, { headers: { "content-type": "text/plain" } }), 415, "Content-Type must be application/json");
  });

  it("missing or look-alike content types → 415", async () => {
    // A string body gets text/plain from fetch; undo it by sending bytes with no content-type header.
    const noType = await rt.fetch("/execute", { method: "POST", body: new TextEncoder().encode('{"code":"1"}') });
    await assertErrorResponse(noType, 415, "Content-Type must be application/json");
    for (const type of ["text/json", "application/jso", "application/x-json", "json", "x-application/json", "multipart/form-data"]) {
      await assertErrorResponse(await post({ code: "1" }, { headers: { "content-type": type } }), 415, "Content-Type must be application/json");
    }
  });

  it("item 7: 'Application/JSON; charset=utf-8' (any case, with parameters) is accepted", async () => {
    for (const type of ["Application/JSON; charset=utf-8", "APPLICATION/JSON", "application/json;charset=UTF-8", "application/jsonp"]) {
      const result = await assertExecutionResult(await post({ code: "2 + 3" }, { headers: { "content-type": type } }));
      assert.deepEqual(result.results, [{ text: "5" }], type);
    }
  });

  it("the content-type check precedes the size check", async () => {
    const res = rawToResponse(await rawHttp(rt.mf, "POST /execute HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 98305\r\n\r\n", "{}"));
    await assertErrorResponse(res, 415, "Content-Type must be application/json");
  });
});

describe("protocol §10.2 request size (steps 2 and 4)", () => {
  it("item 8: Content-Length: 98305 with a small body → 413 before the body is read", async () => {
    // undici refuses to send a Content-Length that does not match the body, so this goes over a raw socket:
    // the headers promise 98,305 bytes, 12 are sent, and the 413 must come back without the rest.
    const res = rawToResponse(
      await rawHttp(rt.mf, "POST /execute HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 98305\r\n\r\n", '{"code":"1"}'),
    );
    await assertErrorResponse(res, 413, "Request too large");
  });

  it("Content-Length: 98305 with a matching body → 413", async () => {
    await assertErrorResponse(await post(" ".repeat(98305)), 413, "Request too large");
  });

  it("item 9: chunked body of 98,305 bytes without Content-Length → 413", async () => {
    const { stream } = streamBody(98305, { prefix: new TextEncoder().encode('{"code":"1"}') });
    const res = await rt.fetch("/execute", { method: "POST", headers: JSON_HEADERS, body: stream, duplex: "half" });
    await assertErrorResponse(res, 413, "Request too large");
  });

  it("a chunked body that never ends → 413 once 98,305 bytes arrived (reading stops at the limit)", async () => {
    // Raw HTTP/1.1: Transfer-Encoding: chunked, 98,305 bytes in 13 chunks and NO terminating zero-size chunk. The
    // response must arrive anyway, so the Worker cannot be waiting for the end of the body.
    let chunks = "";
    for (let left = 98305; left > 0; left -= 8192) {
      const n = Math.min(8192, left);
      chunks += n.toString(16) + "\r\n" + " ".repeat(n) + "\r\n";
    }
    const res = rawToResponse(
      await rawHttp(rt.mf, "POST /execute HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n", chunks),
    );
    await assertErrorResponse(res, 413, "Request too large");
  });

  it("an unterminated chunked body of exactly 98,304 bytes is not refused: the Worker keeps reading until it ends", async () => {
    // 98,304 bytes of `{"code":"7 * 6"` + spaces + `}` in 13 chunks, then — in a second write — the terminating
    // zero-size chunk. At the limit the Worker must still be reading (no 413), and what it answers is the run of
    // the complete body.
    const json = '{"code":"7 * 6"' + " ".repeat(98304 - 16) + "}";
    let chunks = "";
    for (let at = 0; at < json.length; at += 8192) {
      const piece = json.slice(at, at + 8192);
      chunks += piece.length.toString(16) + "\r\n" + piece + "\r\n";
    }
    const res = rawToResponse(
      await rawHttp(rt.mf, "POST /execute HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n", chunks, { then: "0\r\n\r\n" }),
    );
    assert.equal(res.status, 200);
    assert.equal(json.length, 98304);
    assert.deepEqual((await res.json()).results, [{ text: "42" }]);
  });

  it("a chunked body of exactly 98,304 bytes is read and validated", async () => {
    const prefix = new TextEncoder().encode('{"code":"7 * 6"');
    const total = 98304;
    // `{"code":"7 * 6"` + spaces + `}`: build the whole thing, then stream it.
    const bytes = new Uint8Array(total).fill(0x20);
    bytes.set(prefix, 0);
    bytes[total - 1] = 0x7d;
    let offset = 0;
    const stream = new ReadableStream({
      pull(c) {
        if (offset >= total) return c.close();
        c.enqueue(bytes.slice(offset, offset + 10000));
        offset += 10000;
      },
    });
    const result = await assertExecutionResult(await rt.fetch("/execute", { method: "POST", headers: JSON_HEADERS, body: stream, duplex: "half" }));
    assert.deepEqual(result.results, [{ text: "42" }]);
  });

  it("Content-Length: 98304 with a 98,304-byte body → accepted", async () => {
    const body = '{"code":"1 + 1"' + " ".repeat(98304 - 16) + "}";
    assert.equal(utf8Length(body), 98304);
    const result = await assertExecutionResult(await post(body));
    assert.deepEqual(result.results, [{ text: "2" }]);
  });

  it("a non-numeric Content-Length is left to the runtime (workerd rejects it before the Worker)", async () => {
    const res = await rawHttp(rt.mf, "POST /execute HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n", "{}");
    assert.equal(res.status, 400);
  });
});

describe("protocol §10.2 body presence and JSON (steps 3, 5, 6)", () => {
  it("step 3: a POST without any body (Service Binding, request.body === null) → 400 'JSON body required'", async () => {
    await assertErrorResponse(await rt.fetch("https://caller.test/execute?nobody=1", { method: "POST", headers: JSON_HEADERS }), 400, "JSON body required");
  });

  it("step 3 over HTTP/1.1: no Content-Length and no Transfer-Encoding → 400 'JSON body required'", async () => {
    const res = rawToResponse(await rawHttp(rt.mf, "POST /execute HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"));
    await assertErrorResponse(res, 400, "JSON body required");
  });

  it("an empty body (Content-Length: 0) is a body: → 400 'Invalid JSON'", async () => {
    await assertErrorResponse(await post(""), 400, "Invalid JSON");
  });

  it("requests through a Service Binding are validated the same way", async () => {
    const ok = await assertExecutionResult(await rt.fetch("https://caller.test/execute", { method: "POST", headers: JSON_HEADERS, body: '{"code":"2 ** 10"}' }));
    assert.deepEqual(ok.results, [{ text: "1024" }]);
    await assertErrorResponse(await rt.fetch("https://caller.test/execute", { method: "POST", headers: JSON_HEADERS, body: "{" }), 400, "Invalid JSON");
  });

  it("item 10: body '{' → 400 'Invalid JSON'", async () => {
    await assertErrorResponse(await post("{"), 400, "Invalid JSON");
  });

  it("other malformed JSON → 400 'Invalid JSON'", async () => {
    for (const body of ['{"code":"1",}', "{'code':'1'}", '{"code":"1"} x', '{"code":"\\x"}', "NaN", "   ", '{"code":"1"}{"code":"2"}', '{"code":"a\u0001"}']) {
      await assertErrorResponse(await post(body), 400, "Invalid JSON", undefined);
    }
  });

  it("item 11: body [1], null, \"x\" (and 1, true, []) → 400 'Expected an object'", async () => {
    for (const body of ["[1]", "null", '"x"', "1", "true", "[]", " \n[1]\n "]) {
      await assertErrorResponse(await post(body), 400, "Expected an object");
    }
  });

  it("JSON whitespace is allowed; a leading UTF-8 BOM is ignored (the reference's TextDecoder strips it)", async () => {
    const result = await assertExecutionResult(await post(' \t\r\n{"code":"3"} \n'));
    assert.deepEqual(result.results, [{ text: "3" }]);
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('{"code":"4"}')]);
    assert.deepEqual((await assertExecutionResult(await post(bom))).results, [{ text: "4" }]);
    // only one, and only at the start
    const twoBoms = new Uint8Array([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf, ...new TextEncoder().encode('{"code":"4"}')]);
    await assertErrorResponse(await post(twoBoms), 400, "Invalid JSON");
  });
});

describe("protocol §10.2 input and language (steps 7, 8)", () => {
  it("item 12: { code: '1', input: null } → 400", async () => {
    await assertErrorResponse(await post({ code: "1", input: null }), 400, "input is no longer supported; pass data with envVars");
  });

  it("input with any value, even without code, and before language → 400 input", async () => {
    for (const body of [{ input: 1 }, { code: "1", input: "x" }, { code: "1", input: {}, language: 5 }, { input: [], code: "" }]) {
      await assertErrorResponse(await post(body), 400, "input is no longer supported; pass data with envVars");
    }
  });

  it("item 13: { code: '1', language: 5 } → 400 'language must be a string' (also null, true, [], {})", async () => {
    for (const language of [5, null, true, [], {}]) {
      await assertErrorResponse(await post({ code: "1", language }), 400, "language must be a string");
    }
  });

  it("item 14: JS runtime, language 'python' → 400 with the value as sent", async () => {
    await assertErrorResponse(await post({ code: "1", language: "python" }, { host: "js.test" }), 400, "Unsupported language 'python' on this runtime (javascript)");
    await assertErrorResponse(await post({ code: "1", language: "Python3" }, { host: "js.test" }), 400, "Unsupported language 'Python3' on this runtime (javascript)");
    await assertErrorResponse(await post({ code: "1", language: "" }, { host: "js.test" }), 400, "Unsupported language '' on this runtime (javascript)");
    await assertErrorResponse(await post({ code: "1", language: "Jävascript'\"" }, { host: "js.test" }), 400, "Unsupported language 'Jävascript'\"' on this runtime (javascript)");
  });

  it("item 15: JS runtime, language ∈ {ts, TypeScript, js, NODE, javascript} → 200; the payload never carries language", async () => {
    for (const language of ["ts", "TypeScript", "js", "NODE", "javascript", "JavaScript", "TS", "Node"]) {
      const got = await echo({ code: "1 + 1", language });
      assert.deepEqual(got.payload, { code: "1 + 1" }, language);
    }
  });

  it("item 16: Python runtime, language 'Python3' (and python, PYTHON) → accepted; 'py', 'python2', 'javascript' → 400", async () => {
    for (const language of ["Python3", "python", "PYTHON", "python3"]) {
      const result = await assertExecutionResult(await post({ code: "x", language }, { host: "py.test" }));
      assert.equal(result.language, "python");
      assert.deepEqual(result.results[0].json.payload, { code: "x" });
    }
    for (const language of ["py", "python2", "javascript", "ts"]) {
      await assertErrorResponse(await post({ code: "x", language }, { host: "py.test" }), 400, `Unsupported language '${language}' on this runtime (python)`);
    }
  });

  it("calc runtime: 'CALC' accepted, 'js' rejected", async () => {
    assert.deepEqual((await assertExecutionResult(await post({ code: "1", language: "CALC" }))).results, [{ text: "1" }]);
    await assertErrorResponse(await post({ code: "1", language: "js" }), 400, "Unsupported language 'js' on this runtime (calc)");
  });

  it("language is checked before code", async () => {
    await assertErrorResponse(await post({ language: "python" }), 400, "Unsupported language 'python' on this runtime (calc)");
    await assertErrorResponse(await post({ code: 42, language: 1 }), 400, "language must be a string");
  });
});

describe("protocol §10.2 code (steps 9, 10)", () => {
  it("item 17: code missing, 42, '', '   \\n' → 400 'Non-empty code is required'", async () => {
    for (const body of [{}, { code: 42 }, { code: "" }, { code: "   \n" }, { code: null }, { code: ["1"] }, { code: { a: 1 } }, { code: true }]) {
      await assertErrorResponse(await post(body), 400, "Non-empty code is required");
    }
  });

  it("blank by JS String.prototype.trim: tabs, NBSP, U+2028/2029, U+3000, BOM → 400", async () => {
    await assertErrorResponse(await post({ code: "\t\v\f\r\n \u00a0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000\ufeff" }), 400, "Non-empty code is required");
  });

  it("not blank: U+200B (zero-width space) and U+0085 are not JS whitespace", async () => {
    for (const code of ["\u200b", "\u0085", "\u180e"]) {
      const got = await echo({ code });
      assert.equal(got.payload.code, code);
    }
  });

  it("item 18: code of 65,537 UTF-8 bytes → 413 'Code exceeds 64 KiB'; 65,536 bytes → accepted", async () => {
    const exact = "é".repeat(32768); // 65,536 UTF-8 bytes, 32,768 UTF-16 units
    assert.equal(utf8Length(exact), 65536);
    const got = await echo({ code: exact });
    assert.equal(got.payload.code, describeCode(exact));
    await assertErrorResponse(await post({ code: exact + "a" }, { host: "js.test" }), 413, "Code exceeds 64 KiB");
    // ASCII on the real Worker: the calc engine evaluates a 65,536-byte program.
    const ascii = "1" + " ".repeat(65535);
    assert.deepEqual((await assertExecutionResult(await post({ code: ascii }))).results, [{ text: "1" }]);
    await assertErrorResponse(await post({ code: ascii + " " }), 413, "Code exceeds 64 KiB");
    // 4-byte characters: 16,384 emoji = 65,536 bytes (32,768 UTF-16 units)
    await echo({ code: "😀".repeat(16384) });
    await assertErrorResponse(await post({ code: "😀".repeat(16384) + "x" }, { host: "js.test" }), 413, "Code exceeds 64 KiB");
  });

  it("code given with \\u escapes is measured after decoding", async () => {
    const escaped = '{"code":"' + "\\u00e9".repeat(32768) + '"}'; // 196,618 bytes → too large for the body anyway
    await assertErrorResponse(await post(escaped), 413, "Request too large");
    const fits = '{"code":"' + "\\u00e9".repeat(16000) + '"}'; // 96,011 bytes on the wire, 32,000 bytes of code
    const got = await echo(fits);
    assert.equal(got.payload.code, describeCode("é".repeat(16000)));
  });

  it("the code limit is checked before envVars", async () => {
    await assertErrorResponse(await post({ code: "1".repeat(65537), envVars: [] }), 413, "Code exceeds 64 KiB");
  });
});

describe("protocol §10.2 envVars (steps 11, 12)", () => {
  it("item 19: envVars [], null, 'x' (and 1, true) → 400 'envVars must be an object'", async () => {
    for (const envVars of [[], null, "x", 1, true, ["A"]]) {
      await assertErrorResponse(await post({ code: "1", envVars }), 400, "envVars must be an object");
    }
  });

  it("item 20: envVars { A: 1 } → 400 'envVars values must be strings' (also objects, arrays, booleans)", async () => {
    for (const envVars of [{ A: 1 }, { A: {} }, { A: [] }, { A: true }, { OK: "y", B: 2 }, { "1BAD": 1 }]) {
      await assertErrorResponse(await post({ code: "1", envVars }), 400, "envVars values must be strings");
    }
  });

  it("item 21: envVars { A: null } → accepted; A not visible to the guest", async () => {
    const got = await echo({ code: "A", envVars: { A: null } });
    assert.deepEqual(got.payload, { code: "A", envVars: {} });
    // calc: the name is undefined → a guest ReferenceError (200)
    const calc = await assertExecutionResult(await post({ code: "A", envVars: { A: null } }));
    assert.deepEqual(calc.error, { name: "ReferenceError", message: "A is not defined", traceback: [] });
    assert.deepEqual(calc.results, []);
  });

  it("item 22: envVars { '1BAD': 'x', OK: 'y' } → accepted; only OK visible", async () => {
    const got = await echo({ code: "x", envVars: { "1BAD": "x", OK: "y" } });
    assert.deepEqual(got.payload, { code: "x", envVars: { OK: "y" } });
    const calc = await assertExecutionResult(await post({ code: "OK * 2", envVars: { "1BAD": "x", OK: "21" } }));
    assert.deepEqual(calc.results, [{ text: "42" }]);
  });

  it("key pattern ^[A-Za-z_][A-Za-z0-9_]*$: invalid keys dropped silently, order kept, values verbatim", async () => {
    const envVars = {
      _: "u",
      a1: "lower",
      "": "empty",
      "A-B": "dash",
      "A B": "space",
      "É": "accent",
      "x.y": "dot",
      B: "",
      Z9_: "multi\nline \"quoted\" 世界 😀",
      N: null,
      "9": "digit",
    };
    const got = await echo({ code: "x", envVars });
    assert.deepEqual(got.payload.envVars, { _: "u", a1: "lower", B: "", Z9_: "multi\nline \"quoted\" 世界 😀" });
    // JSON object key order of the engine payload: JS property order puts integer-like keys first, so compare the
    // order of the valid (non-integer) keys only.
    assert.deepEqual(got.envKeys, ["_", "a1", "B", "Z9_"]);
  });

  it("a '__proto__' key is dropped (as the reference's plain-object assignment does); 'constructor' is kept", async () => {
    const got = await echo('{"code":"x","envVars":{"__proto__":"p","constructor":"c","A":"a"}}');
    assert.deepEqual(got.envKeys, ["constructor", "A"]);
    assert.deepEqual(got.payload.envVars, { constructor: "c", A: "a" });
  });

  it("envVars absent → the payload has no envVars key; {} → envVars: {}", async () => {
    assert.deepEqual((await echo({ code: "x" })).keys, ["code"]);
    assert.deepEqual((await echo({ code: "x", envVars: {} })).payload, { code: "x", envVars: {} });
  });

  it("a duplicate key: JSON.parse keeps the last value", async () => {
    const got = await echo('{"code":"first","code":"second","envVars":{"A":"1","A":"2"}}');
    assert.equal(got.payload.code, "second");
    assert.deepEqual(got.payload.envVars, { A: "2" });
  });

  it("unknown keys are ignored", async () => {
    const got = await echo({ code: "x", foo: 1, options: { a: 1 }, timeout: 5 });
    assert.deepEqual(got.payload, { code: "x" });
  });
});

describe("protocol §10.2 item 23: every 4xx above is an ErrorResponse", () => {
  it("shape: code, message, context {}, httpStatus = status, ISO timestamp, no-store (checked by every case above)", async () => {
    const body = await assertErrorResponse(await post("{"), 400, "Invalid JSON");
    assert.equal(Object.keys(body).length, 5);
    assert.equal(body.operation, undefined);
  });
});
