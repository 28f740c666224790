// Smoke test of the Python engine without the C++ core: engines/python/build/engine.wasm under node:wasi, driven
// through its wasmify exports with hand-encoded protobuf (test/harness.mjs), /stdlib from an extracted stdlib.tar,
// a temp dir as /workspace for sessions, and `sandbox.charge` as a JS meter that throws (the hard-mode trap) once the
// budget of 100,000,000 units is overdrawn. Covers protocol §10.3 items 51-57, fuel exhaustion, the builtin-work cases,
// protocol §10.5 items 115, 117, 119-121, the bad-input list and the wasmify failure paths.
//
//   node --no-turbo-fast-api-calls engines/python/test/smoke.mjs [engine.wasm]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { boot, loadModule, M, text, BUDGET } from './harness.mjs';

const t0 = performance.now();
const module = loadModule(process.argv.slice(2).find((a) => a.endsWith('.wasm')));
const compileMs = performance.now() - t0;

let passed = 0, failed = 0;
function check(name, fn) {
  try {
    fn();
    passed++;
    console.log(`ok   ${name}`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}\n     ${String(e?.stack ?? e).split('\n').slice(0, 6).join('\n     ')}`);
  }
}
const EMPTY_LOGS = { stdout: [], stderr: [] };
const results = (r) => r.outcome?.results;
const errorName = (r) => r.outcome?.error?.name;

check('imports: only WASI preview1 and sandbox.charge; the wasmify exports', () => {
  const foreign = WebAssembly.Module.imports(module).filter((i) => i.module !== 'wasi_snapshot_preview1');
  assert.deepEqual(foreign.map((i) => `${i.module}.${i.name}`), ['sandbox.charge']);
  const exports = WebAssembly.Module.exports(module).map((e) => e.name);
  for (const e of ['memory', '_initialize', '__stack_pointer', 'wasm_init', 'wasm_alloc', 'wasm_free', 'w_0_14', 'w_0_21',
    'w_0_24', 'w_0_25', 'w_0_26', 'w_0_27']) assert.ok(exports.includes(e), e);
});

// Warm-up: V8 runs a fresh module's eval loop in baseline code until it has tiered it up (engines/python/README.md).
const e = boot(module);
console.log(`     compile ${compileMs.toFixed(0)} ms; boot (instantiate + _initialize + wasm_init + New) ${e.bootMs.toFixed(0)} ms,` +
  ` ${e.bootFuel} units, memory ${e.memoryBytes()} bytes`);
for (let i = 0; i < 2; i++) boot(module).eval('while True: pass');

check('21: interrupt address is 0 (hard mode)', () => {
  assert.equal(e.call(M.INTERRUPT_ADDRESS, [])?.[1] ?? 0, 0);
});
check('51: envVars reach os.environ, print reaches stdout, a dict result is json', () => {
  const r = e.eval('import os\nprint("hello")\n{"name": os.environ["NAME"], "sum": sum(range(10))}', { env: { NAME: '世界' } });
  assert.deepEqual(r.outcome, { logs: { stdout: ['hello'], stderr: [] }, results: [{ json: { name: '世界', sum: 45 } }] });
  assert.ok(r.fuel > 0);
});
check('52: 1 / 0 is a ZeroDivisionError whose traceback starts with the message, then the <sandbox> line', () => {
  const r = e.eval('1 / 0');
  assert.equal(r.outcome.error.name, 'ZeroDivisionError');
  assert.equal(r.outcome.error.message, 'division by zero');
  assert.equal(r.outcome.error.traceback[0], 'ZeroDivisionError: division by zero');
  assert.equal(r.outcome.error.traceback[1], '  File "<sandbox>", line 1, in <module>');
  assert.deepEqual(results(r), []);
});
check('53: a ValueError raised in a function keeps its message and one traceback line per frame', () => {
  const r = e.eval('def f():\n    raise ValueError("broken")\nf()');
  assert.equal(errorName(r), 'ValueError');
  assert.match(r.outcome.error.message, /broken/);
  assert.deepEqual(r.outcome.error.traceback, ['ValueError: broken', '  File "<sandbox>", line 3, in <module>',
    '  File "<sandbox>", line 2, in f']);
});
check('54: each print is one stdout entry, without its newline', () => {
  assert.deepEqual(e.eval('print("a")\nprint("b")').outcome, { logs: { stdout: ['a', 'b'], stderr: [] }, results: [] });
});
check('56: os.environ holds exactly envVars (no HOME)', () => {
  assert.deepEqual(results(e.eval('import os\nos.environ.get("HOME")')), []);
  assert.deepEqual(results(e.eval('import os\nsorted(os.environ)', { env: { A: '1', B: 'x=y' } })), [{ json: ['A', 'B'] }]);
  assert.deepEqual(results(e.eval('import os\nos.environ["B"]', { env: { A: '1', B: 'x=y' } })), [{ text: "'x=y'" }]);
});
check('57: results are repr text, lists json; None and statements give no result', () => {
  assert.deepEqual(results(e.eval("'hi'")), [{ text: "'hi'" }]);
  assert.deepEqual(results(e.eval('None')), []);
  assert.deepEqual(results(e.eval('x = 1')), []);
  assert.deepEqual(results(e.eval('2 ** 64')), [{ text: '18446744073709551616' }]);
  assert.deepEqual(results(e.eval('[1, "a", None, True]')), [{ json: [1, 'a', null, true] }]);
  assert.deepEqual(results(e.eval('[float("nan")]')), [{ text: '[nan]' }]);
  assert.deepEqual(results(e.eval('(1, 2)')), [{ text: '(1, 2)' }]);
});
check('stateless: two evals on one handle share no globals', () => {
  e.eval('secret = 42');
  assert.deepEqual(results(e.eval("'secret' in globals()")), [{ text: 'False' }]);
  assert.deepEqual(results(e.eval('__name__')), [{ text: "'__main__'" }]);
});
check('stdout/stderr: print(file=), sys.stdout.write, buffer.write, stderr', () => {
  const r = e.eval('import sys\nprint("x", end="")\nprint("y")\nsys.stderr.write("e1\\ne2\\n")\nsys.stdout.buffer.write("é\\n".encode())\nprint("w", file=sys.stderr)');
  assert.deepEqual(r.outcome.logs, { stdout: ['xy', 'é'], stderr: ['e1', 'e2', 'w'] });
});
check('required stdlib modules import and work', () => {
  const r = e.eval(`import json, re, math, datetime, collections, itertools, functools, decimal, fractions, statistics
import random, string, textwrap, csv, io, pathlib, dataclasses, typing, enum, heapq, bisect, base64, hashlib, struct
import zlib, unicodedata
@dataclasses.dataclass
class P:
    x: int
class C(enum.Enum):
    A = 1
buf = io.StringIO(); csv.writer(buf).writerow([1, "a,b"])
{
  "json": json.loads(json.dumps({"k": [1, 2]})), "re": re.findall(r"\\d+", "a1b22"), "math": math.isqrt(17),
  "datetime": datetime.date(2024, 1, 31).isoformat(), "counter": collections.Counter("abca").most_common(1)[0][0],
  "itertools": list(itertools.accumulate([1, 2, 3])), "functools": functools.reduce(lambda a, b: a * b, [1, 2, 3, 4]),
  "decimal": str(decimal.Decimal(1) / 8), "fractions": str(fractions.Fraction(3, 6)), "statistics": statistics.mean([1, 2, 3]),
  "random": 0 <= random.random() < 1, "string": string.ascii_lowercase[:3], "textwrap": textwrap.wrap("aa bb cc", 5),
  "csv": buf.getvalue().strip(), "pathlib": pathlib.PurePosixPath("/a/b.txt").suffix, "dataclasses": repr(P(1)),
  "typing": typing.get_origin(typing.List[int]) is list, "enum": C.A.name, "heapq": heapq.nsmallest(2, [5, 1, 4]),
  "bisect": bisect.bisect([1, 3, 5], 4), "base64": base64.b64encode(b"hi").decode(),
  "hashlib": hashlib.sha256(b"abc").hexdigest()[:8], "md5": hashlib.md5(b"").hexdigest()[:8],
  "struct": struct.unpack("<I", struct.pack("<I", 7))[0], "zlib": zlib.decompress(zlib.compress(b"x" * 100)) == b"x" * 100,
  "unicodedata": unicodedata.name("é"),
}`);
  assert.deepEqual(r.outcome.error, undefined, JSON.stringify(r.outcome.error));
  assert.deepEqual(results(r), [{ json: {
    json: { k: [1, 2] }, re: ['1', '22'], math: 4, datetime: '2024-01-31', counter: 'a', itertools: [1, 3, 6], functools: 24,
    decimal: '0.125', fractions: '1/2', statistics: 2, random: true, string: 'abc', textwrap: ['aa bb', 'cc'], csv: '1,"a,b"',
    pathlib: '.txt', dataclasses: 'P(x=1)', typing: true, enum: 'A', heapq: [1, 4], bisect: 2, base64: 'aGk=',
    hashlib: 'ba7816bf', md5: 'd41d8cd9', struct: 7, zlib: true, unicodedata: 'LATIN SMALL LETTER E WITH ACUTE',
  } }]);
});
check('limits: output > 32,768 bytes -> ExecutionLimitError with empty logs (stateless)', () => {
  const r = e.eval('print("before")\nfor i in range(100000): print("x" * 100)');
  assert.deepEqual(r.outcome, { logs: EMPTY_LOGS, results: [],
    error: { name: 'ExecutionLimitError', message: 'Output limit exceeded', traceback: [] } });
  assert.deepEqual(e.eval('print("z" * 32000)').outcome.logs.stdout, ['z'.repeat(32000)]);
});
check('limits: result > 65,536 bytes -> ExecutionLimitError', () => {
  const r = e.eval('print("p")\n"y" * 70000');
  assert.deepEqual(r.outcome, { logs: EMPTY_LOGS, results: [],
    error: { name: 'ExecutionLimitError', message: 'Result limit exceeded', traceback: [] } });
  assert.equal(errorName(e.eval('list(range(20000))')), 'ExecutionLimitError');
  assert.equal(results(e.eval('"y" * 60000'))[0].text.length, 60002);
});

// Bad input: a clear guest error inside the outcome, and the handle stays usable.
const badInputs = [
  ['SyntaxError', '1 +', 'SyntaxError'],
  ['MemoryError', 'x = bytearray(200 * 1024 * 1024)', 'MemoryError'],
  ['MemoryError (list)', 'x = [0] * 10**9', 'MemoryError'],
  ['RecursionError', 'def f(): return f()\nf()', 'RecursionError'],
  ['RecursionError through C (__hash__)', 'class H:\n    def __hash__(self): return hash(self)\nhash(H())', 'RecursionError'],
  ['RecursionError nested data (repr)', 'l = []\nfor _ in range(100000): l = [l]\nrepr(l)', 'RecursionError'],
  ['KeyboardInterrupt', 'raise KeyboardInterrupt', 'KeyboardInterrupt'],
  ['SystemExit', 'raise SystemExit(3)', 'SystemExit'],
  ['exit()', 'exit()', 'SystemExit'],
  ['quit(2)', 'quit(2)', 'SystemExit'],
  ['sys.exit()', 'import sys\nsys.exit("bye")', 'SystemExit'],
  ['os._exit', 'import os\nos._exit(1)', 'SystemExit'],
  ['os.abort', 'import os\nos.abort()', 'OSError'],
  ['huge integer result', '10**100000', 'ValueError'],
  ['input()', 'input("? ")', 'EOFError'],
  ['import antigravity', 'import antigravity', 'ModuleNotFoundError'],
  ['import webbrowser', 'import webbrowser', 'ModuleNotFoundError'],
  ['subprocess', 'import subprocess\nsubprocess.run(["ls"])', 'OSError'],
  ['socket', 'import socket\nsocket.socket()', 'OSError'],
  ['threading', 'import threading\nthreading.Thread(target=print).start()', 'RuntimeError'],
  ['__str__ raising', 'class E(Exception):\n    def __str__(self): raise ValueError\nraise E()', 'E'],
  ['__repr__ raising', 'class R:\n    def __repr__(self): raise TypeError("no repr")\nR()', 'TypeError'],
  ['sys.stdout closed', 'import sys\nsys.stdout.close()\nprint("gone")', 'ValueError'],
  ['sys.stdout replaced', 'import sys\nsys.stdout = 42\nprint("gone")', 'AttributeError'],
  ['print() to a non-str write', 'import sys\nsys.stdout.write(b"x")', 'TypeError'],
  ['stack overflow in a C slot', 'class A:\n    def __getattr__(self, n): return getattr(self, n)\nA().x', 'RecursionError'],
  ['os.fork', 'import os\nos.fork()', 'AttributeError'],
  ['ctypes', 'import ctypes', 'ModuleNotFoundError'],
];
for (const [name, code, expected] of badInputs) {
  check(`bad input: ${name}`, () => {
    const r = e.eval(code);
    assert.ok(!r.trap, `trapped: ${r.trap}`);
    assert.ok(r.outcome?.error, JSON.stringify(r.outcome));
    if (expected) assert.equal(r.outcome.error.name, expected, JSON.stringify(r.outcome.error));
    assert.ok(r.outcome.error.traceback[0].split(':')[0].endsWith(r.outcome.error.name), r.outcome.error.traceback[0]);
    assert.deepEqual(results(e.eval('1 + 1')), [{ text: '2' }], 'handle still usable');
  });
}
check('bad input: del __builtins__ / sys.stdout = None (no error) keep the handle usable', () => {
  assert.deepEqual(results(e.eval('del __builtins__\n1')), [{ text: '1' }]);
  assert.deepEqual(e.eval('import sys\nsys.stdout = None\nprint("gone")').outcome, { logs: EMPTY_LOGS, results: [] });
  assert.deepEqual(e.eval('print("back")').outcome.logs.stdout, ['back']);
});
check('stdlib: doctest runs, unittest.mock, zoneinfo (IANA data), sysconfig (pymalloc) and asyncio import', () => {
  const r = e.eval(`import doctest, sysconfig, zoneinfo, asyncio
from unittest import mock
def f():
    '''
    >>> 1 + 1
    2
    >>> sum([1, 2])
    4
    '''
runner, report = doctest.DocTestRunner(verbose=False), []
for t in doctest.DocTestFinder().find(f, "f", globs={}):
    runner.run(t, out=report.append)
from datetime import datetime
tz = [str(datetime(2026, m, 1, tzinfo=zoneinfo.ZoneInfo("Europe/Berlin")).utcoffset()) for m in (1, 7)]
[sysconfig.get_config_var("SOABI"), sysconfig.get_platform().split("-")[0], sysconfig.get_config_var("WITH_PYMALLOC"),
 mock.Mock(return_value=3)(), [runner.failures, runner.tries, "Got:\\n    3" in "".join(report)], tz]`);
  assert.deepEqual(r.outcome, { logs: EMPTY_LOGS, results: [{ json: ['cpython-313-wasm32-wasi', 'wasi', 1, 3, [1, 2, true], ['1:00:00', '2:00:00']] }] });
});
check('asyncio.run: sleep (at once, in order), gather and tasks on the loop without sockets', () => {
  const r = e.eval(`import asyncio, time
order = []
async def w(name, delay):
    await asyncio.sleep(delay)
    order.append(name)
    return delay
async def main():
    t0 = time.monotonic()
    got = await asyncio.gather(w("b", 20), w("a", 10), asyncio.create_task(w("c", 30)))
    return [got, order, time.monotonic() - t0 < 5]
asyncio.run(main())`);
  assert.deepEqual(r.outcome, { logs: EMPTY_LOGS, results: [{ json: [[20, 10, 30], ['a', 'b', 'c'], true] }] });
});
check('sqlite3: an in-memory database; an endless query runs out of fuel inside SQLite', () => {
  const r = e.eval(`import sqlite3
c = sqlite3.connect(":memory:")
c.execute("create table t(x integer)")
c.executemany("insert into t values (?)", [(i,) for i in range(1000)])
[c.execute("select count(*), sum(x), max(x) from t").fetchone(), sqlite3.sqlite_version]`);
  assert.deepEqual(r.outcome, { logs: EMPTY_LOGS, results: [{ json: [[1000, 499500, 999], '3.40.1'] }] });
  const big = boot(module);
  const spin = big.eval('import sqlite3\nsqlite3.connect(":memory:").execute("with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) from c").fetchone()', { budget: BUDGET });
  assert.equal(spin.fuelExhausted, true);
});
check('time.sleep is the builtin, returns at once (a day-long sleep ends) and checks its argument', () => {
  const r = e.eval('import time\ntime.sleep(0); time.sleep(86400)\ntry:\n    time.sleep(-1)\nexcept ValueError as e:\n    print(e)\ntime.sleep.__self__ is time');
  assert.deepEqual(r.outcome, { logs: { stdout: ['sleep length must be non-negative'], stderr: [] }, results: [{ text: 'True' }] });
  assert.equal(errorName(e.eval('import time\ntime.sleep("1")')), 'TypeError');
});
check('paths outside /stdlib, /dev and /workspace do not exist: FileNotFoundError (wasi-libc#370), not PermissionError', () => {
  const r = e.eval(`import os, errno, pathlib
out = []
for f in (lambda: open("/etc/passwd"), lambda: os.listdir("/"), lambda: open("/tmp/x.txt", "w"), lambda: os.stat(b"/usr"),
          lambda: os.mkdir("/data"), lambda: os.rename("/a", "/workspace/b"), lambda: open(pathlib.Path("/etc/hosts"))):
    try:
        f()
        out.append("ok")
    except OSError as e:
        out.append(f"{type(e).__name__} {errno.errorcode[e.errno]} {e.filename!r}")
[out, pathlib.Path("/xyzzy").exists(), os.path.exists("/etc/passwd")]`);
  assert.deepEqual(results(r), [{ json: [[
    "FileNotFoundError ENOENT '/etc/passwd'", "FileNotFoundError ENOENT '/'", "FileNotFoundError ENOENT '/tmp/x.txt'",
    "FileNotFoundError ENOENT b'/usr'", "FileNotFoundError ENOENT '/data'", "FileNotFoundError ENOENT '/a'",
    "FileNotFoundError ENOENT '/etc/hosts'"], false, false] }]);
});
check('the CJK codecs are not built: their encodings are unknown (LookupError), UTF-8 and the single-byte ones work', () => {
  const r = e.eval(`out = []
for name in ("shift_jis", "gbk", "big5", "euc_kr", "iso2022_jp"):
    try:
        "x".encode(name)
    except LookupError as e:
        out.append(str(e))
[out, "日本".encode("utf-8").decode(), "é".encode("cp1252"), "Ж".encode("koi8_r")]`);
  assert.deepEqual(results(r), [{ text: "[['unknown encoding: shift_jis', 'unknown encoding: gbk', 'unknown encoding: big5', " +
    "'unknown encoding: euc_kr', 'unknown encoding: iso2022_jp'], '日本', b'\\xe9', b'\\xf6']" }]);
});
check('a huge repeat is a catchable MemoryError, not fuel exhaustion', () => {
  const r = e.eval('try:\n    [None] * 2**28\nexcept MemoryError:\n    print("caught")', { budget: BUDGET });
  assert.ok(!r.trap, String(r.trap));
  assert.deepEqual(r.outcome.logs.stdout, ['caught']);
});
check('bad input: a generator left open (its finally runs, output kept)', () => {
  const r = e.eval('def g():\n    try:\n        yield 1\n    finally:\n        print("closed")\nx = g()\nnext(x)');
  assert.deepEqual(r.outcome, { logs: { stdout: ['closed'], stderr: [] }, results: [{ text: '1' }] });
});
check('bad input: output before an error is kept', () => {
  const r = e.eval('print("before")\nraise RuntimeError("boom")');
  assert.deepEqual(r.outcome.logs, { stdout: ['before'], stderr: [] });
  assert.equal(errorName(r), 'RuntimeError');
});
check('bad input: lone surrogates in output and env values round-trip', () => {
  const r = e.eval('import os\nprint("\\ud800")\nos.environ["K"]', { env: { K: 'ü 世界' } });
  assert.deepEqual(r.outcome, { logs: { stdout: ['?'], stderr: [] }, results: [{ text: "'ü 世界'" }] });
});
check('wasmify: undecodable request -> no response; bad handle / source_len -> failure', () => {
  const invalidUtf8 = e.call(M.EVAL, [[1, e.handle], [2, new Uint8Array([0x31, 0xff])]]);
  assert.equal(JSON.parse(text(invalidUtf8[1])).error.name, 'SyntaxError');
  const garbage = new Uint8Array([0x0b, 0x01]); // wire type 3
  const p = e.exports.wasm_alloc(garbage.length);
  new Uint8Array(e.exports.memory.buffer).set(garbage, p);
  assert.equal(e.exports.w_0_14(p, garbage.length), 0n);
  e.exports.wasm_free(p);
  assert.equal(e.eval('1', { raw: [[1, 0], [2, '1']] }).failure, 'invalid handle');
  assert.equal(e.eval('1', { raw: [[1, e.handle], [2, '1'], [3, 5]] }).failure, 'source_len does not match source');
  assert.deepEqual(results(e.eval('3')), [{ text: '3' }]);
});

// Fuel (hard mode): the meter traps inside sandbox.charge; the instance is then discarded.
const fuelCases = [
  ['55: while True: pass', 'while True: pass'],
  ['"x" * 10**8', '"x" * 10**8'],
  ['sorted(range(10**7))', 'sorted(range(10**7))'],
  ["re.match(r'^(a+)+$', 'a'*40+'!')", "import re\nre.match(r'^(a+)+$', 'a' * 40 + '!')"],
  ['10**10**7 (10**10**6 fits in a budget since the Wasm-level meter: ~0.35 s)', '10**10**7'],
  ['any(iter(int, 1))', 'any(iter(int, 1))'],
  ['str.join of a huge list', '",".join(["abc"] * 10**7)'],
  ['re-raising in except (exception context chain)', 'def f(n):\n    try:\n        return f(n + 1)\n    except RecursionError:\n        return f(n + 1)\nf(0)'],
];
for (const [name, code] of fuelCases) {
  // Work inside builtins is charged as it happens: the budget runs out within one charge of its end (the times are
  // printed, not asserted; bench/RESULTS.md keeps seconds per budget).
  check(`fuel: ${name} -> fuel exhausted (at most 10% past the budget) or MemoryError`, () => {
    const x = boot(module);
    const r = x.eval(code, { budget: BUDGET });
    console.log(`     ${r.fuelExhausted ? 'fuel exhausted' : errorName(r) ?? 'no error'} after ${r.ms.toFixed(0)} ms, ${r.fuel} units`);
    assert.ok(r.fuelExhausted || errorName(r) === 'MemoryError', JSON.stringify(r.outcome ?? String(r.trap)));
    if (r.fuelExhausted) assert.ok(r.fuel > BUDGET && r.fuel <= BUDGET + 10_000_000);
  });
}
check('fuel: a small program uses a small part of the budget', () => {
  const r = e.eval('def fib(n): return n if n < 2 else fib(n - 1) + fib(n - 2)\nfib(20)');
  assert.deepEqual(results(r), [{ text: '6765' }]);
  console.log(`     fib(20): ${r.fuel} units (${(r.fuel / BUDGET * 100).toFixed(2)}% of the budget), ${r.ms.toFixed(1)} ms`);
  assert.ok(r.fuel < BUDGET / 10);
});

// Sessions (protocol §6.3, §10.5): /workspace is a temp dir.
const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-py-ws-'));
process.on('exit', () => fs.rmSync(ws, { recursive: true, force: true }));
const s = boot(module, { workspace: ws });
check('115: a global set by one session execute is visible to the next', () => {
  const a = s.session('counter = 1');
  assert.deepEqual(a.outcome, { logs: EMPTY_LOGS, results: [], cwd: '/workspace' });
  assert.equal(a.cwd, '/workspace');
  assert.deepEqual(results(s.session('counter + 1')), [{ text: '2' }]);
});
check('117: raise ValueError("boom") keeps the globals', () => {
  const r = s.session('raise ValueError("boom")');
  assert.equal(errorName(r), 'ValueError');
  assert.equal(r.outcome.cwd, '/workspace');
  assert.deepEqual(results(s.session('counter')), [{ text: '1' }]);
});
check('session env: os.environ rebuilt before every call', () => {
  assert.deepEqual(results(s.session('import os\nos.environ.get("A")', { env: { A: 'one' } })), [{ text: "'one'" }]);
  assert.deepEqual(results(s.session('os.environ.get("A")')), []);
});
check('119: a module written to /workspace imports', () => {
  assert.deepEqual(s.session('with open("/workspace/lib.py", "w") as f:\n    f.write("val = 7\\n")').outcome.error, undefined);
  assert.deepEqual(results(s.session('import lib\nlib.val')), [{ text: '7' }]);
  fs.writeFileSync(path.join(ws, 'hostlib.py'), 'val = 8\n'); // written by the host between calls
  assert.deepEqual(results(s.session('import hostlib\nhostlib.val')), [{ text: '8' }]);
});
check('sqlite3: a database file in /workspace persists between calls of the session', () => {
  const w = s.session('import sqlite3, contextlib\nwith contextlib.closing(sqlite3.connect("/workspace/s.db")) as c, c:\n    c.execute("create table n(v)")\n    c.execute("insert into n values (42)")');
  assert.equal(w.outcome.error, undefined, JSON.stringify(w.outcome.error));
  assert.ok(fs.statSync(path.join(ws, 's.db')).size >= 8192);
  assert.deepEqual(results(s.session('with contextlib.closing(sqlite3.connect("/workspace/s.db")) as c:\n    v = c.execute("select v from n").fetchall()\nv')), [{ json: [[42]] }]);
});
check('121: os.mkdir + os.chdir -> session cwd /workspace/sub', () => {
  const r = s.session('import os\nos.mkdir("/workspace/sub"); os.chdir("sub")');
  assert.equal(r.outcome.error, undefined, JSON.stringify(r.outcome.error));
  assert.equal(r.outcome.cwd, '/workspace/sub');
  assert.equal(r.cwd, '/workspace/sub');
  assert.deepEqual(results(s.session('os.getcwd()')), [{ text: "'/workspace/sub'" }]);
  assert.deepEqual(results(s.session('os.getcwd()', { cwd: '/workspace' })), [{ text: "'/workspace'" }]);
  assert.deepEqual(results(s.session('os.getcwd()', { cwd: '/etc' })), [{ text: "'/workspace'" }]);
  const out = s.session('os.chdir("/stdlib")');
  assert.equal(out.outcome.cwd, '/workspace');
  assert.equal(out.cwd, '/workspace');
});
check('120: after a restore, random is re-seeded and works', () => {
  s.session('import random\nrandom.seed(1)');
  const seeded = results(s.session('random.random()'))[0].text;
  s.session('random.seed(1)');
  assert.equal(s.afterRestore(1), 1);
  assert.deepEqual(results(s.session('0 <= random.random() < 1')), [{ text: 'True' }]);
  s.session('random.seed(1)');
  s.afterRestore(0);
  assert.notEqual(results(s.session('random.random()'))[0].text, seeded);
});
check('session: output limit keeps the logs captured so far', () => {
  const r = s.session('print("first")\nfor i in range(1000): print("y" * 100)');
  assert.equal(r.outcome.error?.message, 'Output limit exceeded');
  assert.equal(r.outcome.logs.stdout[0], 'first');
  assert.ok(r.outcome.logs.stdout.length > 100);
  assert.deepEqual(results(s.session('counter')), [{ text: '1' }]);
});
check('116: while True: pass in a session traps (the host invalidates the instance)', () => {
  const x = boot(module, { workspace: ws });
  x.session('kept = 1');
  const r = x.session('while True: pass', { budget: BUDGET });
  assert.ok(r.fuelExhausted);
});
check('Free', () => {
  assert.equal(s.call(M.FREE, [[1, s.handle]])?.[1], 1);
});

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
