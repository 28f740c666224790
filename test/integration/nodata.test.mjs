// Engine modules without data segments (docs/boot-images.md, "The module the Worker ships"), through the real core and
// shim in Node (./testing loads the Worker's modules as workerd would). Every built-in engine ships
// engines/<name>/build/engine-nodata.wasm, engine.wasm with its data segments stripped, and a boot image that holds
// the whole booted memory. Checked here, for every built-in engine: the shipped module answers exactly like
// engine.wasm started from the same image (stateless, on new and on pooled instances, in a context and after the
// context is restored into a new Interpreter) and like a booted engine.wasm; and the shipped module is never run on
// memory its own image did not fill: without an image, with an image of another module or build, or when its claim
// to have no data segments is false, no instance starts and the request fails with an EngineError.
import { describe, it, before } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createTestInterpreter, createTestState } from "../../worker-shim/testing.js";

const { handleRequest, getCore, serverFor } = await import("../../worker-shim/core.js");
const { javascriptEngine } = await import("../../engines/javascript/engine.js");
const { pythonEngine } = await import("../../engines/python/engine.js");
const { perlEngine } = await import("../../engines/perl/engine.js");
const { rubyEngine } = await import("../../engines/ruby/engine.js");

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

const build = (name, file) => readFileSync(new URL(`../../engines/${name}/build/${file}`, import.meta.url));
const decoder = new TextDecoder();
// The JSON header of a boot image (cpp/snapshot/boot_image.h).
function imageHeader(bytes) {
  const b = new Uint8Array(bytes);
  const len = new DataView(b.buffer, b.byteOffset).getUint32(8, true);
  return { magic: decoder.decode(b.subarray(0, 8)), header: JSON.parse(decoder.decode(b.subarray(12, 12 + len))), len };
}
// An Engine object of its own (its own server in the core), pool slots as given.
function variant(engine, changes, slots = 1) {
  const e = { ...engine, ...changes };
  core._sw_builtin_set_pool_slots(serverFor(core, e), slots);
  return e;
}

async function execute(engine, code, { idle = true } = {}) {
  const pending = [];
  const response = await handleRequest(engine, new Request("https://runtime.internal/execute", {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ code }),
  }), {}, { waitUntil: (p) => pending.push(p) });
  assert.equal(response.status, 200);
  const body = await response.json();
  if (idle) await Promise.all(pending);
  return body;
}

// Programs that read what the data segments held: Unicode tables, embedded libraries and modules, format code.
const cases = {
  javascript: {
    engine: javascriptEngine,
    programs: ["1 + 1", "'straße ǅ'.toUpperCase() + 'İ'.toLowerCase().length", "JSON.stringify({ a: [1, { b: 2.5 }] })",
      "[3, 1, 2].sort().map((x) => x * 2).join(',')", "/\\p{Lu}+/u.exec('abcÄÖÜdef')[0]", "(123456.789).toFixed(2)",
      "console.log('out'); typeof Intl"],
    counter: ["var counter = 41", "++counter", "String.fromCodePoint(0x1F600).length + counter"],
  },
  python: {
    engine: pythonEngine,
    programs: ["1 + 1", "import unicodedata\nunicodedata.name('é')", "import json\njson.dumps({'a': [1, {'b': 2.5}]})",
      "sorted({'b': 1, 'a': 2}.items())", "import re\nre.sub(r'\\d', 'x', 'a1b22')", "'%.3f' % 3.14159",
      "print('out')\nimport decimal\nstr(decimal.Decimal('1.1') + decimal.Decimal('2.2'))"],
    counter: ["counter = 41", "counter += 1\ncounter", "import unicodedata\nunicodedata.lookup('SNOWMAN') + str(counter)"],
  },
  perl: {
    engine: perlEngine,
    programs: ["1 + 1", "join ',', map { $_ * 2 } 1 .. 3", "uc 'hello'", "use List::Util qw(sum max); sum(1 .. 10) . '/' . max(3, 9, 2)",
      "use Data::Dumper; $Data::Dumper::Indent = 0; $Data::Dumper::Sortkeys = 1; Dumper({ a => [1, 2] })",
      "sprintf('%.3f|%05d', 3.14159, 42)", "print \"out\\n\"; use Scalar::Util qw(reftype); reftype([])"],
    counter: ["our $counter = 41; 1", "++$counter", "use List::Util qw(sum); sum($counter, 1)"],
  },
  ruby: {
    engine: rubyEngine,
    programs: ["1 + 1", "[1, 2, 3].map { |x| x * 2 }.join(',')", "'straße'.upcase", "{ a: 1, 'b' => [2, 3] }.inspect",
      "require 'json'\nJSON.generate({ a: [1, 2.5] })", "format('%.3f|%05d', 3.14159, 42)", "puts 'out'\n(1..10).sum"],
    counter: ["counter = 41", "counter += 1", "require 'json'; JSON.generate([counter, $0.class.name])"],
  },
};

// What a request answers, without what may differ by how the instance started: fuel (a boot is metered) and memory.
const answer = (body) => ({ results: body.results, logs: body.logs, error: body.error });
// Everything a request answers from the same memory, but its duration; Perl's and Ruby's fuel may differ by a unit or
// so between instances (their unexported counters, instance-pool.test.mjs `fuelSlack`), every other engine's not.
function same(actual, expected, name, what) {
  const strip = ({ durationMs, usage, ...rest }) => ({ ...rest, usage: { ...usage, fuelConsumed: undefined } });
  assert.deepEqual(strip(actual), strip(expected), what);
  const slack = name === "perl" || name === "ruby" ? 0.01 : 0;
  assert.ok(Math.abs(actual.usage.fuelConsumed - expected.usage.fuelConsumed) <= slack * expected.usage.fuelConsumed,
    `${what}: fuel ${actual.usage.fuelConsumed} vs ${expected.usage.fuelConsumed}`);
}

for (const [name, c] of Object.entries(cases)) {
  describe(`${name}: the module without data segments`, () => {
    const withData = new WebAssembly.Module(build(name, "engine.wasm"));

    it("is what the Worker ships: no data section left, the same imports and exports, and the id its image records", () => {
      const shipped = c.engine.module;
      const [section] = WebAssembly.Module.customSections(shipped, "sw.nodata");
      assert.ok(section, "engine.module carries a sw.nodata section");
      const text = decoder.decode(section);
      const [, id, segments, bytes] = /^sw-nodata1;module=([0-9a-f]{16});segments=(\d+);bytes=(\d+)$/.exec(text) ?? [];
      assert.ok(id, text);
      assert.ok(Number(segments) > 0 && Number(bytes) > 100_000, text);
      const { magic, header } = imageHeader(c.engine.bootImage);
      assert.equal(magic, "SWBOOT2\n");
      assert.equal(header.module, id);
      assert.equal(header.build, c.engine.build);
      assert.deepEqual(WebAssembly.Module.imports(shipped), WebAssembly.Module.imports(withData));
      assert.deepEqual(WebAssembly.Module.exports(shipped), WebAssembly.Module.exports(withData));
      assert.equal(WebAssembly.Module.customSections(withData, "sw.nodata").length, 0);
      // What instantiation no longer copies left the module (give or take section headers and the sw.nodata section).
      assert.ok(build(name, "engine-nodata.wasm").length <= build(name, "engine.wasm").length - Number(bytes) + 256);
    });

    it("answers exactly like engine.wasm from the same image, on new and pooled instances, and like a booted engine", async () => {
      const shippedNew = variant(c.engine, {}, 0);
      const shippedPooled = variant(c.engine, {}, 1);
      const dataNew = variant(c.engine, { module: withData }, 0);
      const booted = variant(c.engine, { module: withData, bootImage: undefined }, 0);
      for (const code of c.programs) {
        const a = await execute(shippedNew, code);
        assert.equal(a.error, undefined, `${code}: ${JSON.stringify(a.error)}`);
        assert.ok(a.results.length > 0, code);
        // The same memory from the same image: every field, fuel and memory size included.
        same(await execute(dataNew, code), a, name, code);
        same(await execute(shippedPooled, code), a, name, code);
        same(await execute(shippedPooled, code), a, name, `${code} (again, pooled)`);
        assert.deepEqual(answer(await execute(booted, code)), answer(a), `${code} (booted)`);
      }
    });

    if (c.counter) {
      it("runs contexts, and a context restored into a new Interpreter continues exactly", async () => {
        const run = async (interpreter, code) => {
          const r = await interpreter.executeInContext("nodata", { contextId: "c", code, workspace: { dirs: [], manifest: {} } }, () => []);
          assert.equal(r.ok, true, JSON.stringify(r).slice(0, 400));
          assert.equal(r.result.error, undefined, JSON.stringify(r.result.error));
          return r.result.results;
        };
        const outcomes = {};
        for (const [label, engine] of Object.entries({
          shippedNew: variant(c.engine, {}, 0),
          shippedPooled: variant(c.engine, {}, 1),
          dataNew: variant(c.engine, { module: withData }, 0),
        })) {
          const pending = [];
          const db = createTestState().db;
          const state = () => Object.assign(createTestState({ db }), { waitUntil: (p) => pending.push(p) });
          const first = createTestInterpreter(engine, state());
          const created = await first.fetch(new Request("https://interpreter.internal/contexts", {
            method: "POST", headers: { "x-interpreter-key": "nodata", "content-type": "application/json" }, body: JSON.stringify({ id: "c" }),
          }));
          assert.equal(created.status, 201);
          const seen = [await run(first, c.counter[0]), await run(first, c.counter[1])];
          await Promise.all(pending.splice(0));
          for (let i = 0; i < 2; i++) {
            // A new Interpreter over the same storage (the Durable Object was evicted): it restores the snapshot.
            const restored = createTestInterpreter(engine, state());
            seen.push(await run(restored, c.counter[1]), await run(restored, c.counter[2]));
            await Promise.all(pending.splice(0));
          }
          db.close();
          outcomes[label] = seen;
        }
        const s = outcomes.shippedNew;
        assert.deepEqual([s[1], s[2], s[4]], [[{ text: "42" }], [{ text: "43" }], [{ text: "44" }]], JSON.stringify(s));
        assert.deepEqual(outcomes.shippedPooled, outcomes.shippedNew);
        assert.deepEqual(outcomes.dataNew, outcomes.shippedNew);
      });
    }
  });
}

// The module without data segments never runs on memory its own image did not fill.
describe("a module without data segments starts from its own boot image only", () => {
  const engine = pythonEngine;
  const refused = async (e, why) => {
    const before = instantiations;
    const r = await execute(e, "1 + 1");
    assert.equal(r.error?.name, "EngineError", `${why}: ${JSON.stringify(r).slice(0, 300)}`);
    assert.match(r.error.message, /no data segments/, why);
    assert.equal(instantiations, before, `${why}: nothing was instantiated`);
    return r;
  };

  it("without a boot image: refused, never booted", async () => {
    await refused(variant(engine, { bootImage: undefined }), "no image");
  });

  it("with the image of another module (another id) or another build: refused", async () => {
    const bytes = new Uint8Array(engine.bootImage.slice(0));
    const { header, len } = imageHeader(bytes);
    // Same length, another id: only the header's module field differs.
    const other = header.module.replace(/^./, (ch) => (ch === "0" ? "1" : "0"));
    const text = decoder.decode(bytes.subarray(12, 12 + len)).replace(`"module":"${header.module}"`, `"module":"${other}"`);
    bytes.set(new TextEncoder().encode(text), 12);
    assert.equal(imageHeader(bytes).header.module, other);
    await refused(variant(engine, { bootImage: bytes.buffer }), "another module's image");
    await refused(variant(engine, { build: "another-build" }), "another build's image");
    // The same altered image still starts engine.wasm (it has its data segments: the id ties only stripped modules).
    const withData = new WebAssembly.Module(build("python", "engine.wasm"));
    const r = await execute(variant(engine, { module: withData, bootImage: bytes.buffer }), "1 + 1");
    assert.deepEqual(r.results, [{ text: "2" }]);
  });

  it("a module that claims to have no data segments but has them: refused at its first instance", async () => {
    // engine.wasm with the sw.nodata section of the shipped module appended: the image takes it, the memory check not.
    const [section] = WebAssembly.Module.customSections(engine.module, "sw.nodata");
    const name = new TextEncoder().encode("sw.nodata");
    const payload = [name.length, ...name, ...new Uint8Array(section)];
    const size = [];
    for (let n = payload.length; ; n >>= 7) { size.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0)); if (n <= 0x7f) break; }
    const liar = new WebAssembly.Module(new Uint8Array([...build("python", "engine.wasm"), 0, ...size, ...payload]));
    const e = variant(engine, { module: liar }, 0);
    const before = instantiations;
    const r = await execute(e, "1 + 1", { idle: false }); // no spare: one instantiation
    assert.equal(r.error?.name, "EngineError", JSON.stringify(r).slice(0, 300));
    assert.match(r.error.message, /says it has no data segments, but its memory is not empty/);
    assert.equal(instantiations, before + 1);
  });

  it("contexts without the image: a new one is refused (no instance), a stored one keeps its snapshot", async () => {
    // A context's snapshot is stored relative to the boot image (format 2, docs/snapshots.md): without the image it
    // cannot be restored (BUILD_CHANGED), and the module cannot boot either. A deploy that lost the image must not
    // cost a context its state: the execute fails like an engine that cannot start, and the snapshot stays.
    const db = createTestState().db;
    const run = (interpreter, code) =>
      interpreter.executeInContext("k", { contextId: "c", code, workspace: { dirs: [], manifest: {} } }, () => []);
    const create = async (interpreter, id) => (await interpreter.fetch(new Request("https://interpreter.internal/contexts", {
      method: "POST", headers: { "x-interpreter-key": "k", "content-type": "application/json" }, body: JSON.stringify({ id }),
    }))).status;
    const first = createTestInterpreter(variant(engine, {}), createTestState({ db }));
    assert.equal(await create(first, "c"), 201);
    assert.deepEqual((await run(first, "x = 41\nx")).result.results, [{ text: "41" }]);

    const e = variant(engine, { bootImage: undefined });
    const noImage = createTestInterpreter(e, createTestState({ db }));
    const r = await run(noImage, "x += 1\nx");
    assert.equal(r.ok, false, JSON.stringify(r).slice(0, 300));
    assert.equal(r.status, 502);

    const before = instantiations;
    assert.equal(await create(noImage, "d"), 201);
    const d = await noImage.executeInContext("k", { contextId: "d", code: "1 + 1", workspace: { dirs: [], manifest: {} } }, () => []);
    // The engine could not start: the protocol's generic engine failure, as for any engine that fails to boot.
    assert.equal(d.ok, false, JSON.stringify(d).slice(0, 300));
    assert.equal(d.status, 502);
    assert.equal(instantiations, before, "nothing was instantiated");
    // The stored context is untouched by either: with the image back, it continues.
    const back = await run(createTestInterpreter(variant(engine, {}), createTestState({ db })), "x += 1\nx");
    assert.equal(back.result.context.restoreError, undefined, JSON.stringify(back.result.context));
    assert.deepEqual(back.result.results, [{ text: "42" }]);
    db.close();
  });
});
