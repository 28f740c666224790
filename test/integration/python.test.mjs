// The Python runtime Worker (engines/python/wrangler.jsonc) in workerd through Miniflare: stateless results
// (protocol §10.3 items 51-57), hostile and odd input, and code contexts through a caller Worker with a real getFiles callback
// and on-disk Durable Object storage, across a restart (protocol §10.5 items 115-122, 127).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { jsonBody } from "./helpers.mjs";
import { useLanguageRuntime, hostileCases, contextText } from "./language-runtime.mjs";

const rt = useLanguageRuntime("python");

const text = contextText;

describe("the Python runtime Worker: probe and stateless results", () => {
  it("GET /interpreter reports python with contexts", async () => {
    const body = await jsonBody(await rt.fetch("https://runtime.test/interpreter"));
    assert.equal(body.language, "python");
    assert.equal(body.engine, "CPython 3.13.15");
    assert.equal(body.contexts, true);
  });

  it("item 51: a dict result becomes json; print goes to stdout; envVars are os.environ", async () => {
    const r = await rt.exec('import os\nprint("hello")\n{"name": os.environ["NAME"], "sum": sum(range(10))}', { NAME: "世界" });
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    assert.deepEqual(r.results, [{ json: { name: "世界", sum: 45 } }]);
    assert.ok(r.logs.stdout.includes("hello"));
    assert.deepEqual(r.logs.stderr, []);
    assert.equal(r.language, "python");
    assert.equal(r.usage.fuelLimit, 100_000_000);
    assert.ok(r.usage.fuelConsumed > 0);
  });

  it("item 52: 1 / 0 is a ZeroDivisionError with a Python traceback", async () => {
    const r = await rt.exec("1 / 0");
    assert.equal(r.error.name, "ZeroDivisionError");
    assert.equal(r.error.message, "division by zero");
    assert.equal(r.error.traceback[0], "ZeroDivisionError: division by zero");
    assert.ok(r.error.traceback.some((l) => l.includes('File "<sandbox>", line 1')), JSON.stringify(r.error.traceback));
    assert.deepEqual(r.results, []);
  });

  it("item 53: a raised ValueError keeps its message", async () => {
    const r = await rt.exec('raise ValueError("broken")');
    assert.equal(r.error.name, "ValueError");
    assert.match(r.error.message, /broken/);
  });

  it("item 54: print lines are stdout entries", async () => {
    const r = await rt.exec('print("a")\nprint("b")');
    assert.deepEqual(r.logs.stdout, ["a", "b"]);
  });

  it("item 55: while True: pass ends as ExecutionLimitError with empty logs and the whole budget as usage", async () => {
    const r = await rt.exec('print("x")\nwhile True: pass');
    assert.equal(r.error.name, "ExecutionLimitError");
    assert.equal(r.error.message, "Execution fuel exhausted");
    assert.deepEqual(r.logs, { stdout: [], stderr: [] });
    assert.equal(r.usage.fuelConsumed, 100_000_000);
    assert.equal(r.usage.fuelLimit, 100_000_000);
  });

  it("item 56: the host environment never leaks (HOME is absent)", async () => {
    const r = await rt.exec('import os\nos.environ.get("HOME")', {});
    assert.equal(r.error, undefined);
    assert.deepEqual(r.results, []);
  });

  it("5,000 envVars (a body of 80 KiB) become os.environ exactly, and a program can change it", async () => {
    const envVars = {};
    for (let i = 0; i < 5000; i++) envVars[`K${i}`] = `v${i}`;
    const r = await rt.exec(
      "import os\nos.environ['NEW'] = 'x'\ndel os.environ['K1']\n" +
        "[len(os.environ), os.environ['K4999'], os.getenv('K0'), 'K1' in os.environ, os.environ['NEW']]",
      envVars,
    );
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    assert.deepEqual(r.results[0].json, [5000, "v4999", "v0", false, "x"]);
  });

  it("item 57: strings are repr text; None is no result", async () => {
    assert.deepEqual((await rt.exec("'hi'")).results, [{ text: "'hi'" }]);
    assert.deepEqual((await rt.exec("None")).results, []);
    assert.deepEqual((await rt.exec("2 + 3")).results, [{ text: "5" }]);
    assert.deepEqual((await rt.exec("True")).results, [{ text: "True" }]);
  });

  it("two requests never share globals or a random sequence", async () => {
    await rt.exec("secret = 42");
    assert.equal((await rt.exec("'secret' in globals()")).results[0].text, "False");
    const a = (await rt.exec("import random\n[random.random() for _ in range(4)]")).results[0].json;
    const b = (await rt.exec("import random\n[random.random() for _ in range(4)]")).results[0].json;
    assert.notDeepEqual(a, b);
  });

  // An isolate reuses a stateless request's engine instance for a later one, after writing the boot image's memory
  // back over it (docs/boot-images.md, "The instance pool"): nothing a program changes may survive into the next.
  it("a reused instance carries nothing over: modules, sys state and builtins changed by one request are pristine in the next", async () => {
    for (let i = 0; i < 3; i++) {
      await rt.exec(
        "import sys, json, builtins\njson.dumps = None\nsys.modules['leaked'] = 1\nsys.setrecursionlimit(77)\n" +
          "builtins.len = lambda x: -1\nsys.path.insert(0, '/leak')",
      );
      const r = await rt.exec(
        "import sys, json\n[callable(json.dumps), 'leaked' in sys.modules, sys.getrecursionlimit() != 77, len('ab'), '/leak' in sys.path]",
      );
      assert.deepEqual(r.results[0].json, [true, false, true, 2, false]);
    }
  });

  it("a request that ran out of fuel leaves nothing behind for the next one", async () => {
    const r1 = await rt.exec("leak = 7\nwhile True: pass");
    assert.equal(r1.error?.name, "ExecutionLimitError");
    assert.deepEqual((await rt.exec("'leak' in globals()")).results, [{ text: "False" }]);
  });

  it("a request that grew the memory is not reused as is: the next one sees the memory of a fresh instance", async () => {
    const fresh = (await rt.exec("1 + 1")).usage.memoryBytes;
    const big = await rt.exec("b = bytearray(24 * 1024 * 1024)\nlen(b)");
    assert.ok(big.usage.memoryBytes > fresh, JSON.stringify(big.usage));
    assert.equal((await rt.exec("1 + 1")).usage.memoryBytes, fresh);
  });

  it("the listed standard library modules import and work", async () => {
    const r = await rt.exec(
      "import json, re, math, datetime, collections, itertools, functools, decimal, fractions, statistics, random\n" +
        "import string, textwrap, csv, io, pathlib, dataclasses, typing, enum, heapq, bisect, base64, hashlib\n" +
        "import struct, zlib, unicodedata\n" +
        "[str(decimal.Decimal('1.1') + decimal.Decimal('2.2')), str(fractions.Fraction(1, 3) * 3),\n" +
        " statistics.mean([1, 2, 3, 4]), hashlib.sha256(b'abc').hexdigest()[:8],\n" +
        " zlib.decompress(zlib.compress(b'zz' * 100)) == b'zz' * 100, unicodedata.name('é'),\n" +
        " re.sub(r'(\\d+)', r'<\\1>', 'a1b22'), json.loads('[1, 2]'), math.comb(5, 2)]",
    );
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    assert.deepEqual(r.results[0].json, ["3.3", "1", 2.5, "ba7816bf", true, "LATIN SMALL LETTER E WITH ACUTE", "a<1>b<22>", [1, 2], 10]);
  });
});

describe("the Python runtime Worker: the file system outside /workspace", () => {
  it("paths outside /stdlib, /dev and /workspace do not exist; /stdlib is read-only; '..' out of a preopen is refused", async () => {
    const r = await rt.exec(
      "import os, errno, pathlib\nout = []\n" +
        "for f in (lambda: open('/etc/passwd'), lambda: os.listdir('/'), lambda: open('/tmp/x.txt', 'w'),\n" +
        "          lambda: os.stat(b'/usr'), lambda: os.mkdir('/data'), lambda: open('/stdlib/x.txt', 'w'),\n" +
        "          lambda: os.stat('/stdlib/../etc')):\n" +
        "  try:\n    f()\n    out.append('ok')\n  except OSError as e:\n    out.append(f'{type(e).__name__} {errno.errorcode[e.errno]}')\n" +
        "[out, pathlib.Path('/xyzzy').exists(), os.path.exists('/etc/passwd'), os.path.exists('/dev/null')]",
    );
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    assert.deepEqual(r.results[0].json, [
      ["FileNotFoundError ENOENT", "FileNotFoundError ENOENT", "FileNotFoundError ENOENT", "FileNotFoundError ENOENT",
        "FileNotFoundError ENOENT", "PermissionError EPERM", "PermissionError ENOTCAPABLE"],
      false, false, true,
    ]);
  });
});

describe("the Python runtime Worker: hostile and odd input ends as an error inside a 200 result", () => {
  const cases = [
    ["a syntax error", "def f(:\n  pass", "SyntaxError"],
    ["a memory bomb", "x = bytearray(10**9)", "MemoryError"],
    ["runaway recursion", "def f(n): return f(n + 1)\nf(0)", "RecursionError"],
    // C recursion (Py_C_RECURSION_LIMIT, retuned for V8's native stack): a guest error, never a host trap
    ["repr of a deeply nested list", "l = []\nfor i in range(100000): l = [l]\nrepr(l)", "RecursionError"],
    ["json.dumps of a deeply nested dict", "import json\nd = {}\nfor i in range(100000): d = {'k': d}\njson.dumps(d)", "RecursionError"],
    ["recursion through a slot", "class A:\n  def __hash__(self): return hash(A())\nhash(A())", "RecursionError"],
    ["a deeply nested expression", "eval('(' * 5000 + ')' * 5000)", null],
    ["KeyboardInterrupt", "raise KeyboardInterrupt", "KeyboardInterrupt"],
    ["SystemExit", "raise SystemExit(3)", "SystemExit"],
    ["exit()", "exit()", "SystemExit"],
    ["quit()", "quit(2)", "SystemExit"],
    ["os._exit", "import os\nos._exit(1)", "SystemExit"],
    ["input() with no stdin", "input()", "EOFError"],
    ["a huge int to str", "str(10**100000)", "ValueError"],
    ["a string bomb", '"x" * 10**8', null],
    ["a sort of ten million", "sorted(range(10**7))", null],
    ["a catastrophic regex", "import re\nre.match(r'^(a+)+$', 'a' * 40 + '!')", null],
    ["a huge power", "10**10**6", null],
    ["import subprocess and run", "import subprocess\nsubprocess.run(['ls'])", null],
    ["import socket and connect", "import socket\nsocket.create_connection(('example.com', 80))", null],
    ["start a thread", "import threading\nt = threading.Thread(target=print)\nt.start()", null],
    ["import webbrowser and open", "import webbrowser\nwebbrowser.open('https://example.com')", null],
    ["import antigravity", "import antigravity", null],
    ["a generator left open", "def g():\n  try:\n    yield 1\n  finally:\n    print('cleanup')\nx = g()\nnext(x)", undefined],
  ];
  hostileCases((code) => rt.exec(code), cases);
});

describe("Python code contexts (protocol §10.5 items 115-122, 127)", () => {
  const run = (contextId, code, extra = {}) => rt.run({ key: "py", contextId, code, ...extra });

  it("item 115: globals persist between executes", async () => {
    assert.equal((await rt.createContext("py", "c115")).status, 201);
    assert.equal(text(await run("c115", "counter = 1")), undefined);
    assert.equal(text(await run("c115", "counter + 1")), "2");
  });

  it("item 116: a fuel limit invalidates the instance; the next execute restores the last snapshot", async () => {
    await rt.createContext("py", "c116");
    await run("c116", "kept = 'before'");
    const r = await run("c116", "kept = 'lost'\nwhile True: pass");
    assert.equal(r.result.error.name, "ExecutionLimitError");
    assert.equal(text(await run("c116", "kept")), "'before'");
  });

  it("item 117: a Python exception keeps the instance and its globals", async () => {
    await rt.createContext("py", "c117");
    await run("c117", "earlier = 7");
    const r = await run("c117", 'raise ValueError("boom")');
    assert.equal(r.result.error.name, "ValueError");
    assert.equal(text(await run("c117", "earlier")), "7");
  });

  it("item 118: an open file makes the snapshot stale until it is closed", async () => {
    await rt.createContext("py", "c118");
    await rt.files({ "/workspace/x.txt": "data" });
    const first = await run("c118", "before = 1");
    assert.equal(first.result.context.snapshot.stale, false);
    const open = await run("c118", '__leaked_fh = open("/workspace/x.txt")');
    assert.equal(open.ok, true, JSON.stringify(open));
    assert.equal(open.result.context.snapshot.stale, true, JSON.stringify(open.result.context));
    assert.equal(open.result.context.snapshotMs, undefined);
    const closed = await run("c118", "__leaked_fh.close()");
    assert.equal(closed.result.context.snapshot.stale, false);
    assert.equal(typeof closed.result.context.snapshotMs, "number");
  });

  it("item 119: a module written to /workspace imports", async () => {
    await rt.createContext("py", "c119");
    await run("c119", "import os");
    await run("c119", 'open("/workspace/lib.py", "w").write("val = 7\\n")');
    assert.equal(text(await run("c119", "import lib\nlib.val")), "7");
    assert.equal((await rt.sandbox())["/workspace/lib.py"], "val = 7\n");
  });

  it("item 121: chdir under /workspace is the context's cwd", async () => {
    await rt.createContext("py", "c121");
    const r = await run("c121", 'import os\nos.mkdir("/workspace/sub")\nos.chdir("sub")');
    assert.equal(r.result.context.cwd, "/workspace/sub");
    assert.equal(text(await run("c121", "import os\nos.getcwd()")), "'/workspace/sub'");
  });

  it("item 122: a disabled workspace answers PermissionError; everything else works", async () => {
    await rt.createContext("py", "c122");
    const probe =
      "import os, json\nout = []\n" +
      "for f in (lambda: open('/workspace/n.txt', 'w'), lambda: open('/workspace/x.txt'), lambda: os.mkdir('/workspace/d'), lambda: os.listdir('/workspace')):\n" +
      "  try:\n    f()\n    out.append('ok')\n  except PermissionError:\n    out.append('PermissionError')\n" +
      "[out, os.getcwd(), json.dumps([1])]";
    const r = await run("c122", probe, { disabled: true });
    assert.equal(r.result.error, undefined, JSON.stringify(r.result.error));
    assert.deepEqual(r.result.results[0].json, [
      ["PermissionError", "PermissionError", "PermissionError", "PermissionError"],
      "/workspace",
      "[1]",
    ]);
    assert.equal(r.result.context.snapshot.stale, false);
  });

  it("items 120, 127: after a restart (a new Interpreter over the same storage) state survives and random is re-seeded", async () => {
    await rt.createContext("py", "c127");
    await run("c127", "import random\nn = 41\ndef inc():\n  global n\n  n += 1\n  return n\nclass K: pass\nstate = random.getstate()");
    await rt.restart();
    const r = await run("c127", "[inc(), K.__name__, 0 <= random.random() < 1, random.getstate() != state]");
    assert.equal(r.result.error, undefined, JSON.stringify(r.result.error));
    assert.deepEqual(r.result.results[0].json, [42, "K", true, true]);
  });
});
