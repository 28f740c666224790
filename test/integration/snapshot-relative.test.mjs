// Context snapshots relative to the engine's boot image (docs/snapshots.md, "Relative to the boot image"), through the
// real core and shim in Node (./testing loads the Worker's modules as workerd would). For every built-in engine with
// contexts: a context stores only what differs from the image (format 2), and restores exactly into a new Interpreter
// on a new and on a pooled instance; a snapshot of the previous format (1: every non-zero block, what an engine
// without an image still writes, byte for byte as before) restores with its values and moves to format 2 on its next
// snapshot; a snapshot relative to another image, or restored where the engine has none, is refused (BUILD_CHANGED)
// and the context boots fresh.
import { describe, it, before } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createTestInterpreter, createTestState } from "../../worker-shim/testing.js";

const { getCore, serverFor } = await import("../../worker-shim/core.js");
const { javascriptEngine } = await import("../../engines/javascript/engine.js");
const { pythonEngine } = await import("../../engines/python/engine.js");
const { perlEngine } = await import("../../engines/perl/engine.js");
const { luaEngine } = await import("../../engines/lua/engine.js");
const { rubyEngine } = await import("../../engines/ruby/engine.js");

let core;
before(async () => {
  core = await getCore();
});

const build = (name, file) => readFileSync(new URL(`../../engines/${name}/build/${file}`, import.meta.url));
// An Engine object of its own (its own server in the core), pool slots as given.
function variant(engine, changes, slots = 1) {
  const e = { ...engine, ...changes };
  core._sw_builtin_set_pool_slots(serverFor(core, e), slots);
  return e;
}
// The same boot image (same build, module and memory) in another file: its header JSON re-serialised with spaces. An
// image rebuilt under the same engine build would differ like this, or more.
function reencodedImage(bytes) {
  const b = new Uint8Array(bytes);
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const len = view.getUint32(8, true);
  const header = JSON.parse(new TextDecoder().decode(b.subarray(12, 12 + len)));
  const text = new TextEncoder().encode(JSON.stringify(header, null, 1));
  const out = new Uint8Array(12 + text.length + b.length - 12 - len);
  out.set(b.subarray(0, 8));
  new DataView(out.buffer).setUint32(8, text.length, true);
  out.set(text, 12);
  out.set(b.subarray(12 + len), 12 + text.length);
  return out;
}

// Per engine: programs that build state, and the per-context storage target of issue 26 where it has one (for a small
// context: a counter, as bench/engines.mjs measures it).
const cases = {
  javascript: {
    engine: javascriptEngine,
    setup: ["var rows = Array.from({ length: 1000 }, (_, i) => ({ i, sq: i * i })); var counter = 41; rows.length",
      "function total(a) { return a.reduce((s, r) => s + r.sq, 0); } total(rows)"],
    next: "++counter + ':' + total(rows)",
    probe: "typeof counter",
    small: "var counter = 41",
    inc: "++counter",
    // Changes the heap, then runs out of fuel (a clean interrupt): no snapshot, the instance stays.
    dirty: 'counter = 999; var junk = Array.from({ length: 20000 }, (_, i) => "j" + i); for (;;) {}',
    expect: (n) => `'${41 + n}:332833500'`,
    fresh: "'undefined'",
  },
  python: {
    engine: pythonEngine,
    setup: ["import json, math, re, collections\nrows = [{'i': i, 'sq': i * i} for i in range(1000)]\ncounter = 41\nlen(rows)",
      "def total(a):\n    return sum(r['sq'] for r in a)\ntotal(rows)"],
    next: "counter += 1\nf'{counter}:{total(rows)}'",
    probe: "'counter' in globals()",
    small: "counter = 41",
    inc: "counter += 1\ncounter",
    // Changes the heap and keeps a descriptor open: the round is not snapshotted, the instance stays.
    dirty: "counter = 999\njunk = [str(i) * 3 for i in range(20000)]\nkeep = open('/workspace/keep.txt', 'w')\nNone",
    // CPython's allocator alone can add ~140 KB to a context's stored bytes in one small round (a new arena, a
    // collection: the fourth round of b in the test below, depending on where the build's heap lies), while the junk
    // above that a restore which trusted a stale record would carry into b is ~1.4 MB.
    dirtyGrowth: 512 * 1024,
    expect: (n) => `'${41 + n}:332833500'`,
    fresh: "False",
    maxStored: 512 * 1024,
  },
  perl: {
    engine: perlEngine,
    setup: ["our @rows = map { { i => $_, sq => $_ * $_ } } 0..999; our $counter = 41; scalar @rows",
      "use List::Util qw(sum); sub total { sum(map { $_->{sq} } @_) } total(@rows)"],
    next: "++$counter . ':' . total(@rows)",
    probe: "defined $counter ? 'yes' : 'no'",
    small: "our $counter = 41; 1",
    inc: "++$counter",
    // Changes the heap and keeps a descriptor open: the round is not snapshotted, the instance stays.
    dirty: "$counter = 999; our @junk = map { $_ x 3 } 1..2000; open(our $keep, '>', '/workspace/keep.txt'); 1",
    expect: (n) => `${41 + n}:332833500`,
    fresh: "no",
    maxStored: 1024 * 1024,
  },
  // An Engine written in JavaScript (engines/lua/engine.js, the public API) with a boot image: the same C++ decides.
  lua: {
    engine: luaEngine,
    setup: ["rows = {} for i = 0, 999 do rows[#rows + 1] = { i = i, sq = i * i } end counter = 41 return #rows",
      "function total(a) local s = 0 for _, r in ipairs(a) do s = s + r.sq end return s end return total(rows)"],
    next: "counter = counter + 1 return counter .. ':' .. total(rows)",
    probe: "return counter == nil and 'no' or 'yes'",
    small: "counter = 41",
    inc: "counter = counter + 1 return counter",
    // Changes the heap and keeps a descriptor open: the round is not snapshotted, the instance stays.
    dirty: "counter = 999 junk = {} for i = 1, 20 do junk[i] = tostring(i):rep(3) end keep = io.open('/workspace/keep.txt', 'w')",
    expect: (n) => `${41 + n}:332833500`,
    fresh: "no",
    // A whole snapshot of a small Lua context (format 1: every non-zero block of its 1.1 MB memory) stores ~52 KiB,
    // most of it the image's: relative to the image, what boot-to-first-execute changed (the heap's few pages, the
    // driver's buffers, the part of the stack the call used) is well under a third of that.
    maxStored: 16 * 1024,
  },
};

// One Durable Object's storage (on a shared database) and its Interpreters, one per "eviction".
function storage() {
  const db = createTestState().db;
  const pending = [];
  const state = () => Object.assign(createTestState({ db }), { waitUntil: (p) => pending.push(p) });
  const record = (id) => {
    const row = db.prepare("SELECT value FROM contexts WHERE id = ?").get(id);
    return JSON.parse(row.value).snapshot;
  };
  const rows = (id) => db.prepare("SELECT chunk, length(data) AS n FROM chunks WHERE context_id = ?").all(id);
  return { db, state, record, rows, idle: () => Promise.all(pending.splice(0)) };
}

async function create(interpreter, id) {
  const res = await interpreter.fetch(new Request("https://interpreter.internal/contexts", {
    method: "POST", headers: { "x-interpreter-key": "rel", "content-type": "application/json" }, body: JSON.stringify({ id }),
  }));
  assert.equal(res.status, 201);
}

async function run(interpreter, id, code) {
  const r = await interpreter.executeInContext("rel", { contextId: id, code, workspace: { dirs: [], manifest: {} } }, () => []);
  assert.equal(r.ok, true, JSON.stringify(r).slice(0, 400));
  assert.equal(r.result.error, undefined, `${code}: ${JSON.stringify(r.result.error)}`);
  return r.result;
}
const text = (result) => result.results.at(-1)?.text;

for (const [name, c] of Object.entries(cases)) {
  describe(`${name}: snapshots relative to the boot image`, () => {
    it("a snapshot reads the guest's memory in place (the scanner module)", async () => {
      // docs/snapshots.md, "Scanning in place": the core's snapshot of an engine's memory (a built-in engine's, or
      // the guest memory an Engine written in JavaScript registered with its WASI host, as Lua's) has the scanner module
      // (worker-shim/generated/scanner.wasm) hash and compare it where it is instead of copying it out. Values as always.
      const engine = variant(c.engine, {}, 1);
      const s = storage();
      const interpreter = createTestInterpreter(engine, s.state());
      await create(interpreter, "small");
      const before = core.swScanCalls ?? 0;
      await run(interpreter, "small", c.small);
      assert.equal(text(await run(interpreter, "small", c.inc)), "42");
      const calls = (core.swScanCalls ?? 0) - before;
      assert.ok(calls > 0, `${name}: ${calls} scan calls`);
      await s.idle();
      s.db.close();
    });

    it("store only what differs from the image, and restore exactly on new and pooled instances", async () => {
      for (const [label, slots] of [["new instance", 0], ["pooled", 1]]) {
        const engine = variant(c.engine, {}, slots);
        const s = storage();
        const first = createTestInterpreter(engine, s.state());
        await create(first, "c");
        for (const code of c.setup) await run(first, "c", code);
        const r1 = await run(first, "c", c.next);
        assert.equal(text(r1), c.expect(1), label);
        const rec = s.record("c");
        assert.equal(rec.format, 2, label);
        assert.match(rec.manifest, /^sw-snap2;pages=\d+;next=\d+;base=[0-9a-f]{16};seg=/, label);
        assert.equal(rec.build, c.engine.build);
        // What the rows hold is what the record says, and far less than the memory's non-zero pages.
        const stored = s.rows("c").reduce((n, row) => n + row.n, 0);
        assert.equal(r1.context.snapshot.storedBytes, stored, label);
        await create(first, "small");
        const small = (await run(first, "small", c.small)).context.snapshot;
        assert.ok(small.storedBytes < small.bytes / 8, `${label}: a small context stores ${small.storedBytes} of ${small.bytes}`);
        if (c.maxStored) assert.ok(small.storedBytes <= c.maxStored, `${label}: a small ${name} context stores ${small.storedBytes} bytes`);
        await s.idle();
        for (let i = 2; i <= 3; i++) {
          // A new Interpreter over the same storage (eviction): restores the context from its rows and the image.
          const again = createTestInterpreter(engine, s.state());
          const r = await run(again, "c", c.next);
          assert.equal(r.context.restored, undefined, JSON.stringify(r.context));
          assert.equal(r.context.restoreError, undefined, JSON.stringify(r.context));
          assert.equal(text(r), c.expect(i), `${label}: round ${i}`);
          await s.idle();
        }
        s.db.close();
      }
    });

    it("restores each context exactly over the instance the other one left, whether its memory is known or not", async () => {
      // One Interpreter, two contexts, one pool slot: every switch parks the resident and restores the other context
      // over it. Right after a committed snapshot the core knows what that memory holds and writes only what differs
      // (docs/snapshots.md, "A pooled instance the core knows"); after a round that ran without a snapshot (a trap, an
      // open descriptor) it does not, and the restore reads and compares the memory instead. Either way: exact values.
      const engine = variant(c.engine, {}, 1);
      const s = storage();
      const interpreter = createTestInterpreter(engine, s.state());
      await create(interpreter, "a");
      await create(interpreter, "b");
      for (const code of c.setup) await run(interpreter, "a", code);
      await run(interpreter, "b", c.small);
      let na = 0, nb = 0, ra, rb;
      const both = async (label) => {
        ra = await run(interpreter, "a", c.next);
        assert.equal(text(ra), c.expect(++na), label);
        rb = await run(interpreter, "b", c.inc);
        assert.equal(text(rb), String(41 + ++nb), label);
      };
      for (let i = 0; i < 3; i++) await both(`switch ${i}`);
      // a's memory changes after its last snapshot, without one; the instance then goes to the pool (its memory did
      // not grow) and b is restored over it. Had the restore trusted what a's last snapshot said of that memory, a's
      // new heap would stay in b's and b's next snapshot would store it.
      const dirty = await interpreter.executeInContext("rel", { contextId: "a", code: c.dirty, workspace: { dirs: [], manifest: {} } }, () => []);
      assert.equal(dirty.ok, true, JSON.stringify(dirty).slice(0, 400));
      assert.equal(dirty.result.context.snapshotMs, undefined, JSON.stringify(dirty.result.context));
      assert.equal(dirty.result.usage.memoryBytes, ra.usage.memoryBytes, "a's memory did not grow: its instance is pooled");
      const storedBefore = rb.context.snapshot.storedBytes;
      rb = await run(interpreter, "b", c.inc);
      assert.equal(text(rb), String(41 + ++nb), "b after a's unsnapshotted round");
      assert.ok(rb.context.snapshot.storedBytes < storedBefore + (c.dirtyGrowth ?? 64 * 1024),
        `b stores ${rb.context.snapshot.storedBytes} bytes, ${storedBefore} before`);
      // a continues from its last snapshot: the round that was not snapshotted is gone.
      assert.equal(text(await run(interpreter, "a", c.next)), c.expect(++na), "a after its unsnapshotted round");
      for (let i = 0; i < 2; i++) await both(`after, switch ${i}`);
      // A new Interpreter after idle time (the spare, exactly the image until used, is what the pool holds).
      await s.idle();
      const again = createTestInterpreter(engine, s.state());
      assert.equal(text(await run(again, "b", c.inc)), String(41 + ++nb), "b in a new Interpreter");
      assert.equal(text(await run(again, "a", c.next)), c.expect(++na), "a in a new Interpreter");
      await s.idle();
      s.db.close();
    });

    it("restores a format 1 snapshot with its values, and stores it relative to the image from then on", async () => {
      // An engine without a boot image (engine.wasm, booted) writes format 1: every non-zero block, as before.
      const withData = new WebAssembly.Module(build(name, "engine.wasm"));
      const noImage = variant(c.engine, { module: withData, bootImage: undefined }, 0);
      const s = storage();
      const old = createTestInterpreter(noImage, s.state());
      const v1 = {};
      for (const id of ["c0", "c1"]) {
        await create(old, id);
        for (const code of c.setup) await run(old, id, code);
        assert.equal(text(await run(old, id, c.next)), c.expect(1));
        v1[id] = s.record(id);
        assert.equal(v1[id].format, 1);
        assert.match(v1[id].manifest, /^sw-snap1;pages=\d+;next=\d+;seg=[^;]*;own=[^;]*$/);
      }
      await s.idle();

      // The same build with its image: the old snapshot restores, values intact; the next one is format 2. On a new
      // instance (c0) and on a pooled one (c1).
      for (const [id, slots] of [["c0", 0], ["c1", 1]]) {
        const engine = variant(c.engine, {}, slots);
        const upgraded = createTestInterpreter(engine, s.state());
        const r = await run(upgraded, id, c.next);
        assert.equal(r.context.restoreError, undefined, JSON.stringify(r.context));
        assert.equal(text(r), c.expect(2), id);
        const v2 = s.record(id);
        assert.equal(v2.format, 2);
        assert.ok(v2.storedBytes < v1[id].storedBytes, `${v2.storedBytes} < ${v1[id].storedBytes}`);
        await s.idle();
        const later = createTestInterpreter(engine, s.state());
        const r3 = await run(later, id, c.next);
        assert.equal(r3.context.restoreError, undefined, JSON.stringify(r3.context));
        assert.equal(text(r3), c.expect(3), `${id}, after the move to format 2`);
        await s.idle();
      }
      s.db.close();
    });

    it("refuses a snapshot relative to another image, or where the engine has none: BUILD_CHANGED, fresh state", async () => {
      const engine = variant(c.engine, {}, 1);
      const otherImage = variant(c.engine, { bootImage: reencodedImage(c.engine.bootImage) }, 1);
      const withData = new WebAssembly.Module(build(name, "engine.wasm"));
      const noImage = variant(c.engine, { module: withData, bootImage: undefined }, 0);
      // The re-encoded image itself works: a context of its own runs on it.
      {
        const s = storage();
        const i = createTestInterpreter(otherImage, s.state());
        await create(i, "own");
        for (const code of c.setup) await run(i, "own", code);
        assert.equal(text(await run(i, "own", c.next)), c.expect(1));
        await s.idle();
        s.db.close();
      }
      for (const [label, other, says] of [
        ["another image", otherImage, /starts from boot image [0-9a-f]{16}$/],
        ["no image", noImage, /has no boot image$/],
      ]) {
        const s = storage();
        const first = createTestInterpreter(engine, s.state());
        await create(first, "c");
        for (const code of c.setup) await run(first, "c", code);
        assert.equal(text(await run(first, "c", c.next)), c.expect(1));
        const base = /;base=([0-9a-f]{16});/.exec(s.record("c").manifest)[1];
        await s.idle();
        const second = createTestInterpreter(other, s.state());
        const r = await run(second, "c", c.probe);
        assert.equal(r.context.restored, false, label);
        assert.equal(r.context.restoreError.code, "BUILD_CHANGED", label);
        assert.match(r.context.restoreError.message, new RegExp(`^The snapshot is stored relative to boot image ${base}; this runtime's engine `), label);
        assert.match(r.context.restoreError.message, says, label);
        assert.equal(text(r), c.fresh, `${label}: the context booted fresh`);
        await s.idle();
        s.db.close();
      }
    });
  });
}

// docs/snapshots.md, "The stack mark": every built-in engine module is rewritten by our fuel tool so that each set of its
// stack pointer also lowers an exported mark; the core resets the mark when memory is what a snapshot's tracker says
// and, at the next snapshot, does not read the stack below it (nothing wrote there). What the core did is read through
// sw_do_counters (interp::Counters of the last execute). The stack used by a call that recursed through C (the
// engines' own calls from C: QuickJS and Ruby blocks, CPython's repr, Perl's sort comparator) is read and the values
// restore exactly; a round that used little stack leaves almost all of it unread.
const stackCases = {
  javascript: { engine: javascriptEngine, stackMiB: 1, small: "var c = 41",
    deep: "function d(n) { return n === 0 ? 0 : 1 + d(n - 1); } var depth = d(300); depth", depth: "300", inc: "++c",
    both: "c + ':' + depth", expect: "'42:300'" },
  python: { engine: pythonEngine, stackMiB: 1, small: "c = 41",
    deep: "x = []\nfor _ in range(300): x = [x]\ndepth = len(repr(x))\ndepth", depth: "602", inc: "c += 1\nc",
    both: "f'{c}:{depth}'", expect: "'42:602'" },
  perl: { engine: perlEngine, stackMiB: 8, small: "our $c = 41; 1",
    deep: "sub d { my $n = shift; return 0 unless $n; my $r; my @x = sort { $r //= 1 + d($n - 1); 0 } 1, 2; $r } our $depth = d(200); $depth",
    depth: "200", inc: "++$c", both: '"$c:$depth"', expect: "42:200" },
  ruby: { engine: rubyEngine, stackMiB: 16, small: "$c = 41",
    deep: "def d(n) = n == 0 ? 0 : [n].sum { |x| 1 + d(n - 1) }\n$depth = d(300)", depth: "300", inc: "$c += 1",
    both: '"#{$c}:#{$depth}"', expect: '"42:300"' },
};
const counters = (interpreter) => {
  let p = core._sw_do_counters(interpreter.handle);
  let json = "";
  while (core.HEAPU8[p] !== 0) json += String.fromCharCode(core.HEAPU8[p++]);
  return JSON.parse(json);
};

for (const [name, c] of Object.entries(stackCases)) {
  describe(`${name}: the stack mark`, () => {
    it("a snapshot skips the stack below the mark, reads what a deep call used, and restores exactly", async () => {
      const engine = variant(c.engine, {}, 1);
      const stackBlocks = c.stackMiB * 256;
      const s = storage();
      const first = createTestInterpreter(engine, s.state());
      await create(first, "c");
      await run(first, "c", c.small);
      const booted = counters(first);
      assert.equal(booted.booted, true);
      assert.equal(booted.blocksUnwritten, 0, "the first snapshot is a full one: it reads everything");
      assert.equal(text(await run(first, "c", c.deep)), c.depth);
      const deep = counters(first).blocksUnwritten;
      assert.equal(text(await run(first, "c", c.inc)), "42");
      const shallow = counters(first).blocksUnwritten;
      assert.ok(deep > 0 && deep < shallow, `${name}: ${deep} blocks unread after the deep call, ${shallow} after a small one`);
      assert.ok(shallow > stackBlocks * 0.9 && shallow < stackBlocks,
        `${name}: a small execute leaves ${shallow} of the stack's ${stackBlocks} blocks unread`);
      await s.idle();
      // Evicted: a new Interpreter restores the context (the mark starts again after the restore wrote memory).
      const again = createTestInterpreter(engine, s.state());
      const r = await run(again, "c", c.both);
      assert.equal(r.context.restoreError, undefined, JSON.stringify(r.context));
      assert.equal(text(r), c.expect);
      const restored = counters(again);
      assert.equal(restored.restored, true);
      assert.ok(restored.blocksUnwritten > stackBlocks * 0.9, `${name}: ${restored.blocksUnwritten} unread after a restore`);
      await s.idle();
      const third = createTestInterpreter(engine, s.state());
      assert.equal(text(await run(third, "c", c.both)), c.expect);
      await s.idle();
      s.db.close();
    });
  });
}
