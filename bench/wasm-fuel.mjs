#!/usr/bin/env node
// Benchmark (not a test): what sw-wasm-fuel's metering costs (docs/fuel-tool.md). The same work, original module
// versus instrumented (batch 1024, a JS `sandbox.charge` that only counts), interleaved in rounds whose order
// alternates so that background load hits both alike; median wall time of each, and their ratio.
//   1. the C guest test/tools/guests/fuel_work.c, `work N` (fib, qsort, calls through function pointers);
//   2. zeroperl 1.0.10: one eval of `my $s=0; $s += $_ for 1..3_000_000; $s` in a freshly booted instance.
//   3. ruby.wasm 2.10.1 (Ruby 3.4 when measured; 4.0 since issue 28): one request `s = 0; 1_000_000.times { |i| s += i }; s` through the Ruby driver
//      (engines/ruby/test/prototype.mjs) in one booted instance each, the package's ruby.wasm against
//      engines/ruby/build/engine.wasm (the same module metered; build it first: scripts/engines/ruby.sh).
// Modules are compiled once; only the run (C: wasi.start; Perl: zeroperl_eval) is timed. Also prints zeroperl's
// size, raw and gzip -9, before and after.
//
//   node --no-turbo-fast-api-calls bench/wasm-fuel.mjs [--reps 7] [--rounds 300] [--stack-mark]
// --stack-mark: what the stack mark costs (docs/fuel-tool.md "The stack mark") instead: "original" is each module
// metered in weighted mode as the engines are, "instrumented" the same plus --stack-mark (the C guest linked with its
// stack first; Ruby: the package's ruby.wasm metered both ways).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import zlib from 'node:zlib';

import { bootPerl, buildDir, buildGuest, buildTool, instrument, meter, runCommand, ticks, zeroperlPath }
  from '../test/tools/fuel-harness.mjs';

const { values: opts } = parseArgs({ options: { reps: { type: 'string', default: '7' },
  rounds: { type: 'string', default: '300' }, 'stack-mark': { type: 'boolean', default: false } } });
const mark = opts['stack-mark'];
const weighted = ['--weighted', '--existing-charge', 'mute'];
if (mark) console.log('--stack-mark: weighted metering without the stack mark ("original") against with it');
const reps = Number(opts.reps);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;

const cpu = (fs.readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/) ?? [])[1];
console.log(`machine: ${os.availableParallelism()} CPUs, ${cpu}; Node ${process.version}`);
console.log(`load average at start: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);

const tool = buildTool();
fs.mkdirSync(buildDir, { recursive: true });

// Interleaved rounds: [original, instrumented], order alternating; returns the medians and the last tick count.
function compare(name, runOriginal, runMetered) {
  const times = { original: [], metered: [] };
  let lastTicks = 0;
  runOriginal();  // warm-up: lazy compilation and tier-up happen here, not in the timed runs
  runMetered();
  for (let i = 0; i < reps; ++i) {
    const order = i % 2 ? ['metered', 'original'] : ['original', 'metered'];
    for (const which of order) {
      const t0 = process.hrtime.bigint();
      const r = which === 'original' ? runOriginal() : runMetered();
      times[which].push(ms(t0));
      if (which === 'metered') lastTicks = r;
    }
  }
  const o = median(times.original), m = median(times.metered);
  console.log(`${name}: original ${o.toFixed(1)} ms, instrumented ${m.toFixed(1)} ms, ratio ${(m / o).toFixed(3)} ` +
    `(median of ${reps}; ${lastTicks.toLocaleString('en-US')} ticks per run)`);
}

// 1. The C guest.
const guest = buildGuest({ stackFirst: mark });
const guestOriginal = new WebAssembly.Module(mark
  ? instrument(tool, guest, path.join(buildDir, 'fuel_work.fuel.nomark.wasm'), weighted) : fs.readFileSync(guest));
const guestMetered = new WebAssembly.Module(instrument(tool, guest, path.join(buildDir, 'fuel_work.fuel.wasm'),
  mark ? [...weighted, '--stack-mark'] : []));
const args = ['work', opts.rounds];
let expected;
compare(`C guest (fuel_work work ${opts.rounds})`,
  () => { const r = runCommand(guestOriginal, args, mark ? meter() : undefined); expected ??= r.stdout; return 0; },
  () => {
    const r = runCommand(guestMetered, args, meter());
    if (r.stdout !== expected) throw new Error(`output differs: ${r.stdout} vs ${expected}`);
    return r.ticks;
  });

// 2. zeroperl.
const perlWasm = zeroperlPath();
const perlBytes = mark ? instrument(tool, perlWasm, path.join(buildDir, 'zeroperl.fuel.nomark.wasm'), weighted)
  : fs.readFileSync(perlWasm);
const perlFuelBytes = instrument(tool, perlWasm, path.join(buildDir, 'zeroperl.fuel.wasm'),
  mark ? [...weighted, '--stack-mark'] : []);
const perlOriginal = new WebAssembly.Module(perlBytes);
const perlMetered = new WebAssembly.Module(perlFuelBytes);
const code = 'my $s=0; $s += $_ for 1..3_000_000; print "$s\\n";';
function perlRun(module, withMeter) {
  const m = withMeter ? meter() : undefined;
  const perl = bootPerl(module, m);
  const before = m ? ticks(m, perl.exports) : 0;
  const t0 = process.hrtime.bigint();
  const r = perl.eval(code);
  const t = ms(t0);
  const spent = m ? ticks(m, perl.exports) - before : 0;
  perl.close();
  if (r.rc !== 0 || r.stdout !== '4500001500000\n') throw new Error(`perl: rc ${r.rc} ${r.stdout}`);
  return { t, spent };
}
{
  // Boot is not timed: time only the eval (perlRun measures it itself).
  const times = { original: [], metered: [] };
  let spent = 0;
  perlRun(perlOriginal, mark);
  perlRun(perlMetered, true);
  for (let i = 0; i < reps; ++i) {
    for (const which of i % 2 ? ['metered', 'original'] : ['original', 'metered']) {
      const r = perlRun(which === 'original' ? perlOriginal : perlMetered, mark || which === 'metered');
      times[which].push(r.t);
      if (which === 'metered') spent = r.spent;
    }
  }
  const o = median(times.original), m = median(times.metered);
  console.log(`zeroperl eval ($s += $_ for 1..3_000_000): original ${o.toFixed(1)} ms, instrumented ${m.toFixed(1)} ms, ` +
    `ratio ${(m / o).toFixed(3)} (median of ${reps}; ${spent.toLocaleString('en-US')} ticks per eval)`);
}

// 3. Ruby.
{
  const { execFileSync } = await import('node:child_process');
  const { boot, run } = await import('../engines/ruby/test/prototype.mjs');
  const rubyBuild = path.join(buildDir, '..', '..', 'engines', 'ruby', 'build');
  const cache = process.env.SW_CACHE ?? path.join(os.homedir(), '.cache', 'sandbox-workers');
  const npmDir = path.join(cache, 'engines', 'ruby', 'npm');
  const tgz = fs.readdirSync(npmDir).find((f) => f.endsWith('.tgz'));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-ruby-fuel-'));
  execFileSync('tar', ['-xzf', path.join(npmDir, tgz), '-C', work, 'package/dist/ruby.wasm']);
  fs.mkdirSync(path.join(work, 'stdlib'));
  execFileSync('tar', ['-xf', path.join(rubyBuild, 'stdlib.tar'), '-C', path.join(work, 'stdlib')]);
  const pkg = path.join(work, 'package/dist/ruby.wasm');
  const original = new WebAssembly.Module(mark ? instrument(tool, pkg, path.join(work, 'nomark.wasm'), weighted)
    : fs.readFileSync(pkg));
  const metered = new WebAssembly.Module(mark ? instrument(tool, pkg, path.join(work, 'mark.wasm'), [...weighted, '--stack-mark'])
    : fs.readFileSync(path.join(rubyBuild, 'engine.wasm')));
  const rawOut = fs.openSync('/dev/null', 'w');
  const vms = { original: boot(original, { stdlibDir: path.join(work, 'stdlib'), rawOut }),
    metered: boot(metered, { stdlibDir: path.join(work, 'stdlib'), rawOut }) };
  const rubyCode = 's = 0; 1_000_000.times { |i| s += i }; s';
  const rubyRun = (which) => {
    const vm = vms[which];
    const before = vm.state.charged;
    const out = run(vm, rubyCode);
    if (out.results?.[0]?.text !== '499999500000') throw new Error(`ruby: ${JSON.stringify(out).slice(0, 200)}`);
    return vm.state.charged - before;
  };
  compare(`ruby.wasm request (${rubyCode})`, () => rubyRun('original'), () => rubyRun('metered'));
  fs.rmSync(work, { recursive: true, force: true });
}

const gz = (b) => zlib.gzipSync(b, { level: 9 }).length;
const fmt = (n) => n.toLocaleString('en-US');
console.log(`zeroperl.wasm size: raw ${fmt(perlBytes.length)} -> ${fmt(perlFuelBytes.length)} ` +
  `(+${((perlFuelBytes.length / perlBytes.length - 1) * 100).toFixed(2)}%), gzip -9 ${fmt(gz(perlBytes))} -> ` +
  `${fmt(gz(perlFuelBytes))} (+${((gz(perlFuelBytes) / gz(perlBytes) - 1) * 100).toFixed(2)}%)`);
console.log(`load average at end: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
