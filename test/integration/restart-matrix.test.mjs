// Issue 23 item 3, the restart matrix: for every engine with code contexts, three contexts in one Interpreter driven
// round-robin (so each execute restores the previous round's snapshot), then a fuel limit, a trap, a heap grown past
// 16 MiB and a 100-file workspace, each the last thing its context did before the runtime went away; then the exact
// values after the restart, more executes, and a second restart after those. Twice: a new Miniflare over the same
// on-disk storage (an eviction), and a real `wrangler dev --persist-to` process killed with SIGKILL and started
// again over the same directory. Values are checked exactly: a context that booted fresh, restored an older snapshot
// or lost its heap or files fails here even when nothing reports an error.
//
// Engines: JavaScript, Perl and Ruby as their own wrangler configs; Python and Lua as their runtime with the test-only
// trap hook of fixtures/faults.js (the same engine, core and shim: neither language has a guest program that traps,
// so the trap is injected where a guest's would surface); the counter engine (an Engine written in JavaScript,
// fixtures/counter/).
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { helperWorkerOptions, runtimeWorkerOptions, startMiniflare, WRANGLER_CONFIG, languageConfig } from "./helpers.mjs";
import { startWrangler, variantConfig, callerConfig } from "./wrangler-process.mjs";
import { buildCounterGuest } from "./fixtures/counter/build.mjs";

const KEY = "matrix";
const CONTEXTS = ["c0", "c1", "c2"];
// The 100-file workspace every execute carries: /workspace/data/f<i>.txt holds i, so reading them all gives
// 0 + … + 99 = 4950 plus 10,000 per file found.
const DATA = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`/workspace/data/f${i}.txt`, String(i)]));
const FILES_VALUE = String(4950 + 10000 * 100);
// The grown heap: 20 MiB, whose byte 4096*k is k & 255; the sum of those 5,120 bytes is 20 * (0 + … + 255).
const HEAP_BYTES = String(20 << 20);
const HEAP_SUM = String(20 * 32640);
const FUEL = { name: "ExecutionLimitError", message: "Execution fuel exhausted" };

// Per engine: its Worker (name, Service Binding of the caller, how Miniflare and wrangler run it) and its programs.
// Every program's result text is an integer; `n` is the context's counter.
const ENGINES = {
  javascript: {
    worker: { name: "sandbox-javascript", language: "javascript" },
    init: (n) => `var n = ${n}; n`,
    inc: "n += 1; n",
    spin: "for (;;) {}",
    // QuickJS's recursion check does not see the host's stack: this overflows it, a trap (docs/security.md).
    trap: { code: 'JSON.parse("[".repeat(1e6) + "]".repeat(1e6))' },
    grow: "var big = new Uint8Array(20 << 20); for (let i = 0; i < big.length; i += 4096) big[i] = (i >> 12) & 255; big.length",
    heap: "{ let s = 0; for (let i = 0; i < big.length; i += 4096) s += big[i]; s }",
    files: '{ let s = 0, c = 0; for (let i = 0; i < 100; i++) { const p = "/workspace/data/f" + i + ".txt"; if (fs.existsSync(p)) { s += Number(fs.readFileSync(p, "utf8")); c++ } } fs.writeFileSync("/workspace/own-javascript.txt", String(n)); s + 10000 * c }',
    own: 'Number(fs.readFileSync("/workspace/own-javascript.txt", "utf8"))',
  },
  python: {
    worker: { name: "sandbox-python", language: "python", entry: "faults-python.js" },
    init: (n) => `n = ${n}\nn`,
    inc: "n += 1\nn",
    spin: "while True:\n    pass",
    trap: { inject: true },
    grow: "big = bytearray(20 << 20)\nfor i in range(0, len(big), 4096):\n    big[i] = (i >> 12) & 255\nlen(big)",
    heap: "sum(big[::4096])",
    files:
      "import os\ns = c = 0\nfor i in range(100):\n    p = f'/workspace/data/f{i}.txt'\n    if os.path.exists(p):\n" +
      "        s += int(open(p).read())\n        c += 1\nopen('/workspace/own-python.txt', 'w').write(str(n))\ns + 10000 * c",
    own: "int(open('/workspace/own-python.txt').read())",
  },
  perl: {
    worker: { name: "sandbox-perl", language: "perl" },
    init: (n) => `$main::n = ${n}; $main::n`,
    inc: "$main::n += 1; $main::n",
    spin: "1 while 1",
    // A regular expression of 100,000 nested groups overflows the guest's stack: a trap.
    trap: { code: "my $r = '(' x 100000; 'x' =~ /${r}/" },
    // vec extends the string in place (a `x` repetition would hold a second 20 MiB copy, over Perl's memory limit).
    grow: "vec($main::big, (20 << 20) - 1, 8) = 0; vec($main::big, $_ << 12, 8) = $_ & 255 for 0 .. 5119; length $main::big",
    heap: "my $s = 0; $s += vec($main::big, $_ << 12, 8) for 0 .. 5119; $s",
    files:
      "my ($s, $c) = (0, 0); for my $i (0 .. 99) { open(my $h, '<', \"/workspace/data/f$i.txt\") or next; local $/; $s += <$h>; $c++ } " +
      "open(my $o, '>', '/workspace/own-perl.txt') or die $!; print $o $main::n; close $o; $s + 10000 * $c",
    own: "open(my $h, '<', '/workspace/own-perl.txt') or die $!; local $/; 0 + <$h>",
  },
  // Ruby keeps top-level locals between executes (one binding per context, docs/code-contexts.md "Ruby"): n is one.
  ruby: {
    worker: { name: "sandbox-ruby", language: "ruby" },
    init: (n) => `n = ${n}; n`,
    inc: "n += 1; n",
    spin: "loop {}",
    // Recursion through C methods overflows asyncify's buffer: the VM executes `unreachable`, a trap (engines/ruby/README.md).
    trap: { code: "def g(k) = [1].each { g(k + 1) }; g(0)" },
    grow: 'big = "\\0".b * (20 << 20); 0.step(big.bytesize - 1, 4096) { |i| big.setbyte(i, (i >> 12) & 255) }; big.bytesize',
    heap: "s = 0; 0.step(big.bytesize - 1, 4096) { |i| s += big.getbyte(i) }; s",
    files:
      's = c = 0; 100.times { |i| path = "/workspace/data/f#{i}.txt"; next unless File.exist?(path); s += File.read(path).to_i; c += 1 }; ' +
      'File.write("/workspace/own-ruby.txt", n.to_s); s + 10000 * c',
    own: 'File.read("/workspace/own-ruby.txt").to_i',
  },
  lua: {
    worker: { name: "sandbox-lua", language: "lua", entry: "faults-lua.js" },
    init: (n) => `n = ${n} return n`,
    inc: "n = n + 1 return n",
    spin: "while true do end",
    trap: { inject: true },
    grow: "big = {} for k = 0, 5119 do big[k + 1] = string.char(k % 256) .. string.rep('x', 4095) end return #big * 4096",
    heap: "local s = 0 for k = 1, #big do s = s + big[k]:byte(1) end return s",
    files:
      "local s, c = 0, 0 for i = 0, 99 do local f = io.open('/workspace/data/f' .. i .. '.txt') if f then s = s + tonumber(f:read('a')) c = c + 1 f:close() end end " +
      "local o = assert(io.open('/workspace/own-lua.txt', 'w')) o:write(tostring(n)) o:close() return s + 10000 * c",
    own: "local f = assert(io.open('/workspace/own-lua.txt')) local v = tonumber(f:read('a')) f:close() return v",
  },
  // An Engine written in JavaScript (fixtures/counter/): its only state is a counter; `grow`/`heap` keep and sum a
  // heap block, `write` puts the counter in a file (it cannot read files: its file check is the caller's copy).
  counter: {
    worker: { name: "sandbox-counter", language: "javascript", entry: "counter-runtime.js" },
    init: (n) => `add ${n}`,
    inc: "add 1",
    spin: "spin",
    trap: { code: "trap", name: "RuntimeError" }, // the engine reports its own trap (and invalidates its session)
    grow: "grow 20",
    growsTo: (n) => String(n), // its result is the counter
    heap: "heap",
    heapOut: "stdout",
    files: "write /workspace/own-counter.txt",
    filesValue: (n) => String(n),
    own: null,
  },
};

const bindingOf = (language) => language.toUpperCase();
const LANGUAGES = Object.keys(ENGINES);

/** The whole stack in one Miniflare over on-disk storage; restart() = a new Miniflare over the same directory. */
async function miniflareStack(persist) {
  const start = () =>
    startMiniflare(
      [
        helperWorkerOptions({
          name: "caller", entry: "context-caller.js",
          serviceBindings: Object.fromEntries(LANGUAGES.map((l) => [bindingOf(l), ENGINES[l].worker.name])),
        }),
        ...LANGUAGES.map((l) => {
          const { name, language, entry } = ENGINES[l].worker;
          return runtimeWorkerOptions({ name, language, entry, interpreter: Boolean(entry) });
        }),
      ],
      { resourcePersistencePath: persist },
    );
  let mf = await start();
  return {
    call: async (p, body) => {
      const res = await mf.dispatchFetch(new URL(p, "https://caller.test"), {
        method: body === undefined ? "GET" : "POST",
        headers: { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(120_000),
      });
      return res.json();
    },
    restart: async () => {
      await mf.dispose();
      mf = await start();
    },
    stop: () => mf?.dispose(),
  };
}

/** The whole stack in one `wrangler dev` process; restart() = SIGKILL of its process group, then a new one. */
async function wranglerStack(persist) {
  const dir = mkdtempSync(path.join(tmpdir(), "sw-matrix-configs-"));
  const configs = [callerConfig(dir, Object.fromEntries(LANGUAGES.map((l) => [bindingOf(l), ENGINES[l].worker.name])))];
  for (const l of LANGUAGES) {
    const { name, language, entry } = ENGINES[l].worker;
    configs.push(entry ? variantConfig(dir, { name, language, entry }) : languageConfig(language));
  }
  assert.ok(configs.includes(WRANGLER_CONFIG), "JavaScript runs from engines/javascript/wrangler.jsonc");
  let proc = await startWrangler(configs, persist, { readyPath: "/calls" });
  return {
    call: async (p, body) => {
      const res = await fetch(proc.url + p, {
        method: body === undefined ? "GET" : "POST",
        headers: { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(120_000),
      });
      const text = await res.text();
      try {
        return JSON.parse(text);
      } catch {
        throw new Error(`${p}: ${res.status} ${text.slice(0, 300)}\n${proc.log().slice(-2000)}`);
      }
    },
    restart: async () => {
      await proc.kill();
      proc = await startWrangler(configs, persist, { readyPath: "/calls" });
    },
    stop: async () => {
      await proc?.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const MODES = [
  { name: "a new Interpreter over the same storage (Miniflare restarted over its on-disk directory)", stack: miniflareStack },
  { name: "a real process restart (wrangler dev --persist-to, SIGKILL, started again over the same directory)", stack: wranglerStack },
];

for (const mode of MODES) {
  describe(`restart matrix: ${mode.name}`, () => {
    const persist = mkdtempSync(path.join(tmpdir(), "sw-matrix-"));
    let stack;
    // What each context must hold: its counter, and (c0) the counter it wrote into its own file.
    const model = Object.fromEntries(LANGUAGES.map((l) => [l, { n: {}, own: undefined }]));

    before(async () => {
      buildCounterGuest();
      stack = await mode.stack(persist);
      assert.deepEqual(await stack.call("/files", { $reset: true }), { ok: true });
      assert.deepEqual(await stack.call("/files", DATA), { ok: true });
    });
    after(async () => {
      await stack?.stop();
      rmSync(persist, { recursive: true, force: true });
    });

    const run = async (language, contextId, code) => {
      const t0 = performance.now();
      const r = await stack.call("/run", { binding: bindingOf(language), key: KEY, contextId, code });
      assert.equal(r.ok, true, `${language} ${contextId}: ${JSON.stringify(r).slice(0, 600)}`);
      return Object.assign(r.result, { $ms: performance.now() - t0 });
    };
    /** Runs `code` in the context and asserts it answered `expected` (its result text, or stdout for the counter's heap). */
    const expectValue = async (language, contextId, code, expected, { out = "result" } = {}) => {
      const r = await run(language, contextId, code);
      assert.equal(r.error, undefined, `${language} ${contextId} ${JSON.stringify(code).slice(0, 80)}: ${JSON.stringify(r.error)}`);
      const got = out === "stdout" ? r.logs.stdout[0] : r.results[0]?.text;
      assert.equal(got, expected, `${language} ${contextId}: ${JSON.stringify(code).slice(0, 80)}`);
      // A restore that did not happen is reported (docs/snapshots.md); none may happen here.
      assert.equal(r.context.restoreError, undefined, JSON.stringify(r.context.restoreError));
      return r;
    };
    const inc = (language, contextId) => {
      const m = model[language];
      m.n[contextId] += 1;
      return expectValue(language, contextId, ENGINES[language].inc, String(m.n[contextId]));
    };
    const checkHeap = (language) =>
      expectValue(language, "c2", ENGINES[language].heap, HEAP_SUM, { out: ENGINES[language].heapOut });
    // c0 reads the 100 files and writes its counter into its own file.
    const files = async (language) => {
      const e = ENGINES[language];
      const m = model[language];
      await expectValue(language, "c0", e.files, e.filesValue ? e.filesValue(m.n.c0) : FILES_VALUE);
      m.own = m.n.c0;
    };
    const checkFiles = async (language) => {
      const e = ENGINES[language];
      const sandbox = await stack.call("/sandbox");
      assert.equal(sandbox[`/workspace/own-${language}.txt`], String(model[language].own), "the guest's file reached the caller");
      for (const [p, v] of Object.entries(DATA)) assert.equal(sandbox[p], v);
      if (e.own) await expectValue(language, "c0", e.own, String(model[language].own));
    };
    // The caller's sandbox lives in its module state: carried across by hand, as its Durable Object's storage would.
    const restart = async (t) => {
      const sandbox = await stack.call("/sandbox");
      const t0 = performance.now();
      await stack.restart();
      t.diagnostic(`restart took ${Math.round(performance.now() - t0)} ms`);
      assert.deepEqual(await stack.call("/files", sandbox), { ok: true });
    };

    for (const language of LANGUAGES) {
      it(`${language}: three contexts round-robin, then a fuel limit (c0), a trap (c1), a 20 MiB heap (c2), a 100-file workspace`, async () => {
        const e = ENGINES[language];
        const m = model[language];
        for (const [i, id] of CONTEXTS.entries()) {
          const created = await stack.call("/forward", { binding: bindingOf(language), path: `/interpreters/${KEY}/contexts`, body: { id } });
          assert.equal(created.status, 201, JSON.stringify(created));
          m.n[id] = 100 * (i + 1);
          await expectValue(language, id, e.init(m.n[id]), String(m.n[id]));
        }
        for (let round = 0; round < 2; round++) for (const id of CONTEXTS) await inc(language, id);

        // c0: reads the 100 files, writes its own; then a fuel limit is the last thing it does.
        await files(language);
        await checkFiles(language);
        const spun = await run(language, "c0", e.spin);
        assert.deepEqual({ name: spun.error?.name, message: spun.error?.message }, FUEL);

        // c1: a trap drops the instance; the next execute continues from the snapshot before it. A second trap is
        // the last thing it does.
        const trap = async () => {
          if (e.trap.inject) {
            const armed = await stack.call("/forward", { binding: bindingOf(language), path: `/fault?key=${KEY}`, body: { trap: 1 } });
            assert.equal(armed.status, 200, JSON.stringify(armed));
          }
          const r = await run(language, "c1", e.trap.code ?? e.inc);
          assert.equal(r.error?.name, e.trap.name ?? "EngineError", JSON.stringify(r).slice(0, 400));
          assert.deepEqual(r.results, []);
        };
        await trap();
        await inc(language, "c1");
        await trap();

        // c2: grows its heap past 16 MiB, the last thing it does.
        const grown = await expectValue(language, "c2", e.grow, e.growsTo ? e.growsTo(m.n.c2) : HEAP_BYTES);
        assert.ok(grown.context.snapshot.bytes > 16 << 20, `the snapshot holds more than 16 MiB: ${JSON.stringify(grown.context.snapshot)}`);
        await checkHeap(language);
      });
    }

    it("restart #1", async (t) => {
      await restart(t);
    });

    for (const language of LANGUAGES) {
      it(`${language}: after restart #1, every context restores its exact values; then three more rounds`, async (t) => {
        // The first execute of each context restores it: its wall time (restore + execute + snapshot) is printed.
        const first = [await inc(language, "c0"), await inc(language, "c1"), await checkHeap(language)];
        t.diagnostic(`first executes after the restart (ms): ${first.map((r) => Math.round(r.$ms)).join(", ")}`);
        await checkFiles(language); // the file c0 wrote before the restart, read back by the guest
        await files(language);
        await checkFiles(language);
        for (let round = 0; round < 3; round++) for (const id of CONTEXTS) await inc(language, id);
      });
    }

    it("restart #2", async (t) => {
      await restart(t);
    });

    for (const language of LANGUAGES) {
      it(`${language}: after restart #2 (a restore followed by more executes, then a restart), exact values again`, async () => {
        for (const id of CONTEXTS) await inc(language, id);
        await checkHeap(language);
        await checkFiles(language);
      });
    }
  });
}
