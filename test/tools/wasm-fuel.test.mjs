// sw-wasm-fuel end to end (docs/fuel-tool.md): a C guest and the prebuilt zeroperl, instrumented, run under V8 with
// a JS `sandbox.charge`. Run by `npm test` ("wasm fuel tool" suite):
//   node --no-turbo-fast-api-calls --test test/tools/wasm-fuel.test.mjs
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
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

// --stack-mark (docs/fuel-tool.md "The stack mark"): each set of the stack pointer also lowers sw_stack_low; the host
// resets it to sw_stack_pointer and later reads how deep the stack went. Nothing else changes: same output, same fuel.
describe('the stack mark (--stack-mark)', () => {
  const args = ['--weighted', '--scale', '4'];
  let plain, marked, stackFirst;
  before(() => {
    stackFirst = buildGuest({ stackFirst: true });
    plain = new WebAssembly.Module(instrument(tool, stackFirst, path.join(buildDir, 'fuel_work.sf.wasm'), args));
    const bytes = instrument(tool, stackFirst, path.join(buildDir, 'fuel_work.sf.mark.wasm'), [...args, '--stack-mark']);
    assert.ok(WebAssembly.validate(bytes));
    marked = new WebAssembly.Module(bytes);
  });

  test('a module whose stack does not come first, or that already exports the mark, is refused', () => {
    const r = spawnSync(tool, [buildGuest(), path.join(buildDir, 'refused.wasm'), '--stack-mark'], { encoding: 'utf8' });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /--stack-mark: data at \d+ lies below the stack's top \(\d+\): the stack does not come first/);
    const twice = spawnSync(tool, [path.join(buildDir, 'fuel_work.sf.mark.wasm'), path.join(buildDir, 'refused.wasm'),
      '--stack-mark', '--existing-charge', 'reuse'], { encoding: 'utf8' });
    assert.equal(twice.status, 1);
    assert.match(twice.stderr, /the module already exports sw_(fuel_left|stack_low)/);
  });

  test('the same output and fuel; the mark is how deep the stack went, the pointer back at the top', () => {
    const a = runCommand(plain, ['work', '20'], meter());
    const b = runCommand(marked, ['work', '20'], meter());
    assert.equal(a.exit, 0);
    assert.equal(b.stdout, a.stdout);
    assert.equal(b.ticks, a.ticks);
    const e = b.exports;
    assert.equal(e.sw_stack_base.value, 0);
    assert.equal(e.sw_stack_top.value, 1 << 20);
    assert.equal(e.sw_stack_pointer.value, e.sw_stack_top.value, 'a finished call leaves the pointer at the top');
    // round_of_work's 2 KiB array and fib(21)'s 21 frames lie between the top and the mark.
    const used = e.sw_stack_top.value - e.sw_stack_low.value;
    assert.ok(used > 2048 && used < 64 * 1024, `the stack went ${used} bytes deep`);
    // Reset to the pointer, nothing run: the mark stays; exported constants cannot be set.
    e.sw_stack_low.value = e.sw_stack_pointer.value;
    assert.equal(e.sw_stack_low.value, 1 << 20);
    assert.throws(() => { e.sw_stack_top.value = 0; });
  });

  test('zeroperl (asyncify): a die through eval still works, and the mark follows its calls', () => {
    const out = path.join(buildDir, 'zeroperl.mark.wasm');
    const perl = bootPerl(new WebAssembly.Module(instrument(tool, zeroperlPath(), out, ['--stack-mark'])), meter());
    const e = perl.exports;
    assert.equal(e.sw_stack_base.value, 0);
    assert.equal(e.sw_stack_top.value, 8 << 20);
    e.sw_stack_low.value = e.sw_stack_pointer.value;
    const shallow = perl.eval('print 1 + 1, "\\n";');
    assert.equal(shallow.stdout, '2\n');
    const afterShallow = e.sw_stack_low.value;
    assert.ok(afterShallow < e.sw_stack_top.value);
    e.sw_stack_low.value = e.sw_stack_pointer.value;
    const code = 'sub d { my $n = shift; return 0 unless $n; my $r; my @x = sort { $r //= 1 + d($n - 1); 0 } 1, 2; $r } ' +
      'my $r = eval { die "boom\\n"; 1 }; print "caught=$@", d(100), "\\n";';
    const deep = perl.eval(code);
    assert.equal(deep.rc, 0);
    assert.equal(deep.stdout, 'caught=boom\n100\n');
    assert.ok(e.sw_stack_low.value < afterShallow - 10_000, `${e.sw_stack_low.value} vs ${afterShallow}`);
    assert.equal(e.sw_stack_pointer.value, e.sw_stack_top.value);
    perl.close();
  });
});

// Weighted mode (--weighted [--scale N]): every straight-line run charged its static cost, bulk memory by length.
describe('weighted mode on the C guest', () => {
  let original, modules;
  const weighted = (batch, scale) => modules[`${batch}/${scale}`];
  before(() => {
    const wasm = buildGuest();
    original = new WebAssembly.Module(fs.readFileSync(wasm));
    modules = {};
    for (const [batch, scale] of [[1, 1], [1024, 1], [1024, 7], [64, 40]]) {
      const bytes = instrument(tool, wasm, path.join(buildDir, `fuel_work.w${batch}.s${scale}.wasm`),
        ['--weighted', '--batch', String(batch), '--scale', String(scale)]);
      assert.ok(WebAssembly.validate(bytes));
      modules[`${batch}/${scale}`] = new WebAssembly.Module(bytes);
    }
  });

  test('prints what the original prints, and exports its scale', () => {
    for (const args of [['work', '20'], ['copy', '3']]) {
      const plain = runCommand(original, args);
      assert.equal(plain.exit, 0);
      assert.equal(runCommand(weighted(1024, 7), args, meter()).stdout, plain.stdout);
    }
    const names = WebAssembly.Module.exports(weighted(1024, 7)).map((e) => e.name);
    assert.ok(names.includes('sw_fuel_scale') && names.includes('sw_fuel_left') && names.includes('sw_fuel_batch'));
  });

  test('the weight spent is deterministic and does not depend on the batch or the scale', () => {
    const first = runCommand(weighted(1024, 1), ['work', '20'], meter()).ticks;
    assert.ok(first > 1_000_000, `weight ${first}`);
    for (const [b, s] of [[1024, 1], [1, 1], [1024, 7], [64, 40]]) {
      assert.equal(runCommand(weighted(b, s), ['work', '20'], meter()).ticks, first, `batch ${b} scale ${s}`);
    }
    // Weighted counts more than one per function entry and loop head: straight-line code costs too.
    const tickMode = instrument(tool, buildGuest(), path.join(buildDir, 'fuel_work.t.wasm'));
    const ticksOnly = runCommand(new WebAssembly.Module(tickMode), ['work', '20'], meter()).ticks;
    assert.ok(first > 3 * ticksOnly, `weight ${first}, ticks ${ticksOnly}`);
  });

  test('charges are whole units: weight / scale, the remainder carried to the next charge', () => {
    const m = meter();
    const r = runCommand(weighted(64, 40), ['work', '20'], m);
    assert.ok(m.calls > 0);
    // Every charge is at least one batch of units; the total is the weight over the scale, less what is pending.
    assert.ok(m.charged >= m.calls * 64);
    assert.ok(Math.abs(m.charged * 40 - r.ticks) <= 64 * 40 + 40, `charged ${m.charged}, weight ${r.ticks}`);
  });

  test('a memory.copy is charged by its length (one per 4 bytes)', () => {
    const w = (n) => runCommand(weighted(1024, 1), ['copy', String(n)], meter()).ticks;
    const ten = w(10), twenty = w(20);
    const perCopy = (twenty - ten) / 10;
    assert.ok(perCopy >= (1 << 20) / 4, `weight per 1 MiB copy ${perCopy}`);
    assert.ok(perCopy < (1 << 20) / 4 + 1000, `weight per 1 MiB copy ${perCopy}`);
    // In tick mode the same copy is free: one instruction between two ticks.
    const tickMode = new WebAssembly.Module(instrument(tool, buildGuest(), path.join(buildDir, 'fuel_work.t.wasm')));
    const t = (n) => runCommand(tickMode, ['copy', String(n)], meter()).ticks;
    assert.ok((t(20) - t(10)) / 10 < 100);
  });

  test('a throwing charge stops an infinite loop within one batch', () => {
    const m = meter(1_000_000);
    const r = runCommand(weighted(1024, 7), ['spin'], m);
    assert.ok(r.error instanceof BudgetExceeded, String(r.error));
    // Late by at most one batch, plus the weight a loop keeps in its local before it flushes (4,096) over the scale.
    assert.ok(m.charged > 1_000_000 && m.charged <= 1_000_000 + 1024 + Math.ceil(4096 / 7) + 2, `charged ${m.charged}`);
  });

  test('the feature module (SIMD, exceptions, bulk memory, atomics, tail calls, references) stays valid', () => {
    const wasm = path.join(buildDir, 'features.wasm');
    execFileSync('wat2wasm', ['--enable-all', path.join(root, 'test', 'tools', 'guests', 'features.wat'), '-o', wasm]);
    const out = path.join(buildDir, 'features.weighted.wasm');
    assert.ok(WebAssembly.validate(instrument(tool, wasm, out, ['--weighted', '--scale', '3'])));
    execFileSync('wasm-validate', ['--enable-all', out]);
  });
});

// An engine that already charges some of its own work through sandbox.charge (QuickJS, CPython, Lua).
describe('a module that imports sandbox.charge itself', () => {
  const wat = `(module
    (import "sandbox" "charge" (func $charge (param i32) (result i32)))
    (func (export "run") (param $n i32) (local $i i32)
      (drop (call $charge (i32.const 100000)))
      (loop $l
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br_if $l (i32.lt_u (local.get $i) (local.get $n))))))`;
  let wasm;
  before(() => {
    fs.mkdirSync(buildDir, { recursive: true });
    fs.writeFileSync(path.join(buildDir, 'own-charge.wat'), wat);
    wasm = path.join(buildDir, 'own-charge.wasm');
    execFileSync('wat2wasm', [path.join(buildDir, 'own-charge.wat'), '-o', wasm]);
  });
  const run = (mode) => {
    const bytes = instrument(tool, wasm, path.join(buildDir, `own-charge.${mode}.wasm`),
      ['--weighted', '--existing-charge', mode]);
    const m = meter();
    const { exports } = new WebAssembly.Instance(new WebAssembly.Module(bytes), { sandbox: { charge: (u) => { m.charge(u); return 0; } } });
    exports.run(100_000);
    return ticks(m, exports);
  };

  test('is refused by default, reused with --existing-charge reuse, and muted with --existing-charge mute', () => {
    assert.throws(() => instrument(tool, wasm, path.join(buildDir, 'own-charge.refused.wasm'), ['--weighted']));
    const reused = run('reuse'), muted = run('mute');
    // The loop's own weight is the same; the module's 100,000-unit charge counts only when reused.
    assert.equal(reused - muted, 100_000);
    assert.ok(muted > 100_000, `loop weight ${muted}`);  // ≥ one per iteration
  });
});

// Weighted mode folds a small loop-free function into its direct callers: no metering inside it, its whole weight
// added to the caller's straight-line run (cpp/tools/wasm_fuel.cpp, foldStaticCosts). What must still hold: its work
// is counted, and recursion, calls through a table and exported functions stay metered by themselves.
describe('weighted mode folds small loop-free functions into their callers', () => {
  const wat = `(module
    (table 1 funcref)
    (elem (i32.const 0) $viaTable)
    (type $t (func (param i32) (result i32)))
    (func $leaf (param i32) (result i32) (i32.mul (i32.add (local.get 0) (i32.const 3)) (i32.const 5)))
    (func $twoLeaves (param i32) (result i32) (call $leaf (call $leaf (local.get 0))))
    (func $viaTable (param i32) (result i32) (i32.add (local.get 0) (i32.const 1)))
    (func $rec (param i32) (result i32)
      (if (result i32) (local.get 0)
        (then (i32.add (call $rec (i32.sub (local.get 0) (i32.const 1))) (i32.const 1)))
        (else (i32.const 0))))
    (func (export "direct") (param $n i32) (result i32) (local $i i32) (local $s i32)
      (loop $l
        (local.set $s (call $twoLeaves (local.get $s)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br_if $l (i32.lt_u (local.get $i) (local.get $n))))
      (local.get $s))
    (func (export "indirect") (param $n i32) (result i32) (local $i i32) (local $s i32)
      (loop $l
        (local.set $s (call_indirect (type $t) (local.get $s) (i32.const 0)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br_if $l (i32.lt_u (local.get $i) (local.get $n))))
      (local.get $s))
    (func (export "rec") (param i32) (result i32) (call $rec (local.get 0))))`;
  let folded, stderr;
  before(() => {
    fs.mkdirSync(buildDir, { recursive: true });
    fs.writeFileSync(path.join(buildDir, 'fold.wat'), wat);
    const wasm = path.join(buildDir, 'fold.wasm');
    execFileSync('wat2wasm', [path.join(buildDir, 'fold.wat'), '-o', wasm]);
    const out = path.join(buildDir, 'fold.weighted.wasm');
    const r = spawnSync(tool, [wasm, out, '--weighted', '--batch', '1'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    stderr = r.stderr;
    folded = new WebAssembly.Module(fs.readFileSync(out));
  });
  const run = (name, n, budget) => {
    const m = meter(budget);
    const { exports } = new WebAssembly.Instance(folded, { sandbox: { charge: m.charge } });
    let value, error;
    try { value = exports[name](n); } catch (e) { error = e; }
    return { value, error, weight: ticks(m, exports) };
  };

  test('two leaves called through a loop-free function: folded, and every call still costs its weight', () => {
    assert.match(stderr, / 2 small functions charged at their call sites/);  // $leaf and $twoLeaves only
    // Per iteration: the loop's own run plus $twoLeaves (a call, two calls of $leaf of 2 operations each).
    const a = run('direct', 1000), b = run('direct', 2000);
    assert.equal(a.value, [...Array(1000)].reduce((s) => ((((s + 3) * 5 + 3) * 5) | 0), 0));
    const perIteration = (b.weight - a.weight) / 1000;
    assert.ok(perIteration >= 8 + 2 * (8 + 2) + 3, `weight per iteration ${perIteration}`);
    assert.equal(perIteration, Math.round(perIteration));  // static: the same every iteration
  });

  test('a function reached through a table meters itself', () => {
    const a = run('indirect', 1000), b = run('indirect', 2000);
    assert.equal(b.value, 2000);
    assert.ok((b.weight - a.weight) / 1000 >= 12 + 1, `weight per iteration ${(b.weight - a.weight) / 1000}`);
  });

  test('--indirect-call-weight sets what a call through a table weighs (an engine\'s calibration)', () => {
    const wasm = path.join(buildDir, 'fold.wasm');
    const out = path.join(buildDir, 'fold.indirect40.wasm');
    const r = spawnSync(tool, [wasm, out, '--weighted', '--batch', '1', '--indirect-call-weight', '40'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const heavier = new WebAssembly.Module(fs.readFileSync(out));
    const weight = (module, n) => {
      const m = meter();
      const { exports } = new WebAssembly.Instance(module, { sandbox: { charge: m.charge } });
      exports.indirect(n);
      return ticks(m, exports);
    };
    const perIteration = (module) => (weight(module, 2000) - weight(module, 1000)) / 1000;
    assert.equal(perIteration(heavier) - perIteration(folded), 40 - 12);  // one call_indirect per iteration
    const refused = spawnSync(tool, [wasm, out, '--indirect-call-weight', '40'], { encoding: 'utf8' });
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, /--indirect-call-weight needs --weighted/);
  });

  test('loop-free recursion is never folded: it is metered and a budget stops it', () => {
    const a = run('rec', 1000), b = run('rec', 2000);
    assert.equal(b.value, 2000);
    assert.ok((b.weight - a.weight) / 1000 >= 8 + 3, `weight per level ${(b.weight - a.weight) / 1000}`);
    const stopped = run('rec', 5000, 1000);
    assert.ok(stopped.error instanceof BudgetExceeded, String(stopped.error));
  });
});
