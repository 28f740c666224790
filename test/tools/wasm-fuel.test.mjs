// sw-wasm-fuel end to end (docs/fuel-tool.md): a C guest and the prebuilt zeroperl, instrumented, run under V8 with
// a JS `sandbox.charge`. Run by `npm test` ("wasm fuel tool" suite):
//   node --no-turbo-fast-api-calls --test test/tools/wasm-fuel.test.mjs
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import { BudgetExceeded, bootPerl, buildDir, root, buildGuest, buildTool, instrument, meter, runCommand, ticks,
  zeroperlPath } from './fuel-harness.mjs';

let tool;
before(() => {
  tool = buildTool();
});

describe('a C guest (fib, loops, qsort and call_indirect)', () => {
  let original, byBatch;
  before(() => {
    const wasm = buildGuest();
    original = new WebAssembly.Module(fs.readFileSync(wasm));
    byBatch = {};
    for (const batch of [1, 1024, 1 << 20]) {
      const bytes = instrument(tool, wasm, path.join(buildDir, `fuel_work.b${batch}.wasm`), ['--batch', String(batch)]);
      assert.ok(WebAssembly.validate(bytes));
      byBatch[batch] = new WebAssembly.Module(bytes);
    }
  });

  test('the instrumented guest prints what the original prints', () => {
    const plain = runCommand(original, ['work', '20']);
    assert.equal(plain.exit, 0);
    assert.match(plain.stdout, /^checksum=\d+\n$/);
    const metered = runCommand(byBatch[1024], ['work', '20'], meter());
    assert.equal(metered.exit, 0);
    assert.equal(metered.stdout, plain.stdout);
  });

  test('ticks are positive, the same on every run, and the same for every batch size', () => {
    const first = runCommand(byBatch[1024], ['work', '20'], meter());
    const second = runCommand(byBatch[1024], ['work', '20'], meter());
    assert.ok(first.ticks > 100_000, `ticks ${first.ticks}`);
    assert.equal(second.ticks, first.ticks);
    assert.equal(runCommand(byBatch[1], ['work', '20'], meter()).ticks, first.ticks);
    assert.equal(runCommand(byBatch[1 << 20], ['work', '20'], meter()).ticks, first.ticks);
    // More work, more ticks.
    assert.ok(runCommand(byBatch[1024], ['work', '40'], meter()).ticks > first.ticks);
  });

  test('charges come in batches: every call charges exactly batch + 1 ticks (the tick that went below zero)', () => {
    const m = meter();
    const r = runCommand(byBatch[1024], ['work', '20'], m);
    assert.ok(m.calls > 0);
    assert.equal(m.charged, m.calls * 1025);
    assert.equal(m.calls, Math.floor(r.ticks / 1025));
  });

  test('a charge that throws past the budget stops an infinite loop', () => {
    for (const batch of [1, 1024]) {
      const m = meter(1_000_000);
      const r = runCommand(byBatch[batch], ['spin'], m);
      assert.ok(r.error instanceof BudgetExceeded, String(r.error));
      // The overdrawing charge is at most one batch (plus the tick that crossed zero) past the budget.
      assert.ok(m.charged > 1_000_000 && m.charged <= 1_000_000 + batch + 1, `charged ${m.charged}`);
    }
  });
});

test('a module using SIMD, legacy exceptions, bulk memory, atomics, tail calls and reference types stays valid', () => {
  fs.mkdirSync(buildDir, { recursive: true });
  const wasm = path.join(buildDir, 'features.wasm');
  execFileSync('wat2wasm', ['--enable-all', path.join(root, 'test', 'tools', 'guests', 'features.wat'), '-o', wasm]);
  const bytes = instrument(tool, wasm, path.join(buildDir, 'features.fuel.wasm'));
  assert.ok(WebAssembly.validate(bytes));
  execFileSync('wasm-validate', ['--enable-all', path.join(buildDir, 'features.fuel.wasm')]);
  const exports = WebAssembly.Module.exports(new WebAssembly.Module(bytes)).map((e) => `${e.kind} ${e.name}`);
  assert.deepEqual(exports, ['function f', 'global sw_fuel_left', 'global sw_fuel_batch']);
});

describe('zeroperl 1.0.10 (prebuilt, asyncify-instrumented)', () => {
  let original, metered;
  before(() => {
    const wasm = zeroperlPath();
    const out = path.join(buildDir, 'zeroperl.fuel.wasm');
    fs.mkdirSync(buildDir, { recursive: true });
    const bytes = instrument(tool, wasm, out, ['--max-pages', '16384']);
    assert.ok(WebAssembly.validate(bytes));
    original = new WebAssembly.Module(fs.readFileSync(wasm));
    metered = new WebAssembly.Module(bytes);
    // Same input, same bytes.
    assert.deepEqual(instrument(tool, wasm, `${out}.again`, ['--max-pages', '16384']), bytes);
    fs.rmSync(`${out}.again`);
  });

  const code = 'my $s = 0; $s += $_ for 1..300_000; print "sum=$s\\n";';

  test('init and eval of a loop still work, and charge', () => {
    const plain = bootPerl(original);
    const expected = plain.eval(code);
    plain.close();
    assert.equal(expected.rc, 0);
    assert.equal(expected.stdout, 'sum=45000150000\n');

    const m = meter();
    const perl = bootPerl(metered, m);
    const afterInit = ticks(m, perl.exports);
    assert.ok(afterInit > 0);
    const r = perl.eval(code);
    assert.equal(r.rc, 0);
    assert.equal(r.stdout, expected.stdout);
    const evalTicks = ticks(m, perl.exports) - afterInit;
    assert.ok(evalTicks > 300_000, `eval ticks ${evalTicks}`);  // at least one per iteration
    // Deterministic: a second fresh instance spends exactly the same.
    const m2 = meter();
    const again = bootPerl(metered, m2);
    assert.equal(ticks(m2, again.exports), afterInit);
    again.eval(code);
    assert.equal(ticks(m2, again.exports) - afterInit, evalTicks);
    perl.close();
    again.close();
  });

  test('die inside eval {} (a longjmp through asyncify) behaves as in the original', () => {
    const code = 'my $r = eval { die "boom\\n"; 1 }; print "caught=$@"; my @a = sort { $b <=> $a } map { $_ * 3 } 1..1000; print "$a[0]\\n";';
    const plain = bootPerl(original);
    const expected = plain.eval(code);
    plain.close();
    assert.equal(expected.stdout, 'caught=boom\n3000\n');
    const m = meter();
    const perl = bootPerl(metered, m);
    const r = perl.eval(code);
    perl.close();
    assert.equal(r.rc, 0);
    assert.equal(r.stdout, expected.stdout);
  });

  test('a throwing charge stops `1 while 1`', () => {
    const probe = meter();
    bootPerl(metered, probe).close();
    const limited = meter(probe.charged + 5_000_000);  // boots, then runs out inside the loop
    const perl = bootPerl(metered, limited);
    const r = perl.eval('1 while 1;');
    assert.ok(r.error instanceof BudgetExceeded, String(r.error));
    perl.close();
  });
});
