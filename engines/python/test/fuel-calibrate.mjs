// Fuel calibration of the Python engine (engines/python/README.md "Fuel"): seconds per 100,000,000 units for a set of
// workloads, each in a fresh instance (as production runs stateless requests), after a warm-up so that V8 has tiered
// the eval loop up to optimized code.
//
//   node --no-turbo-fast-api-calls engines/python/test/fuel-calibrate.mjs [engine.wasm] [--runs N]
import { boot, loadModule, BUDGET } from './harness.mjs';

const args = process.argv.slice(2);
const runs = Number(args.includes('--runs') ? args[args.indexOf('--runs') + 1] : 3);
const wasmPath = args.find((a) => a.endsWith('.wasm'));
const module = loadModule(wasmPath);

const cases = [
  ['while True: pass', 'while True: pass'],
  ['int loop (i += 1)', 'i = 0\nwhile i < 3_000_000: i += 1'],
  ['function calls', 'def f(a, b): return a + b\nfor i in range(1_000_000): f(i, 1)'],
  ['method calls / attributes', 'class P:\n  def __init__(s, x): s.x = x\n  def get(s): return s.x\nt = 0\nfor i in range(300_000): t += P(i).get()'],
  ['str(i) list comprehension', 'x = [str(i) for i in range(500_000)]'],
  ['dict churn', 'd = {}\nfor i in range(500_000): d[i % 1000] = d.get(i % 777, 0) + 1'],
  ['string += in a function (in place)', 'def build():\n  s = ""\n  for i in range(500_000): s += "ab"\n  return len(s)\nbuild()'],
  ['string += at module level (copies)', 's = ""\nfor i in range(20_000): s += "ab"'],
  ['sorted(random floats)', 'import random\nrandom.seed(1)\nv = [random.random() for _ in range(200_000)]\nv.sort()'],
  ['sorted(range(10**6)) + reverse', 'sorted(range(10**6), reverse=True)[:1]'],
  ['x in list (C loop)', 'l = list(range(2000))\nn = 0\nfor i in range(3000): n += (i * 7919) % 4000 in l'],
  ['sum/max over a list (C loop)', 'l = list(range(100_000))\nfor i in range(100): max(l); sum(l)'],
  ['str.join / repeat', 'for i in range(300): ",".join(["abc"] * 10_000); "xy" * 100_000'],
  ['json dumps/loads', 'import json\nd = [{"a": i, "b": str(i), "c": [i, i + 1]} for i in range(20_000)]\nfor _ in range(3): json.loads(json.dumps(d))'],
  ['re.findall', 'import re\ns = "abc 123 def 4567 " * 20_000\nlen(re.findall(r"\\d+", s))'],
  ['catastrophic regex', 'import re\nre.match(r"^(a+)+$", "a" * 40 + "!")'],
  ['big int multiply', 'a = 3 ** 200_000\nb = 7 ** 200_000\nfor _ in range(20): a * b'],
  ['big int str()', 'import sys\nsys.set_int_max_str_digits(0)\nlen(str(7 ** 60_000))'],
  ['10**10**6', '10**10**6'],
  ['"x" * 10**8', '"x" * 10**8'],
  ['sorted(range(10**7))', 'sorted(range(10**7))'],
  ['any(iter(int, 1))', 'any(iter(int, 1))'],
];

function measure(code) {
  const e = boot(module);
  const r = e.eval(code, { budget: BUDGET });
  return { ms: r.ms, fuel: r.fuel, exhausted: !!r.fuelExhausted, error: r.outcome?.error?.name, trap: r.trap && !r.fuelExhausted ? String(r.trap) : undefined };
}

// Warm-up: V8 runs the eval loop in baseline code until it has tiered it up (the first run of a fresh isolate).
for (let i = 0; i < 3; i++) measure('while True: pass');
for (const [, code] of cases.slice(1, 8)) measure(code);

console.log('workload'.padEnd(34), 'units'.padStart(12), 'ms'.padStart(8), 's/100M'.padStart(8), ' outcome');
for (const [name, code] of cases) {
  let best;
  for (let i = 0; i < runs; i++) {
    const m = measure(code);
    if (!best || m.ms < best.ms) best = m;
  }
  const per100M = best.fuel ? (best.ms / 1000) * (1e8 / best.fuel) : 0;
  const how = best.exhausted ? 'fuel exhausted' : best.trap ? `trap ${best.trap}` : best.error ?? 'ok';
  console.log(name.padEnd(34), String(best.fuel).padStart(12), best.ms.toFixed(0).padStart(8), per100M.toFixed(2).padStart(8), ` ${how}`);
}
