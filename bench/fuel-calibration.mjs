// What one whole fuel budget buys, per language and workload class (docs/fuel.md, issue 22).
//
//   node bench/fuel-calibration.mjs [--runs N] [--warmup N] [--processes N] [--languages javascript,python,...]
//                                   [--attacks] [--json FILE] [--only REGEX]
//
// Each program loops forever on one kind of work, so it ends on fuel after exactly one whole budget; the CPU time it
// took is that budget's price in seconds for that work. Every runtime is the real Worker in workerd (Miniflare), the
// request is a stateless POST /execute. workerd's clocks do not advance while a guest computes, and a shared machine's
// wall time swings with its load, so the time is the CPU time of the workerd process (every thread's, from
// /proc/<pid>/task/*/schedstat) across the request, less the median of a trivial request (`1 + 1`). The target (issue 22): every
// class of every language within 0.5–2 s per whole budget, and within 2x of that language's plain loop.
// --attacks adds the native-heavy programs of test/integration/metering.test.mjs. Prints a Markdown table per
// language: the median and the worst of N runs, the ratio to the plain loop, and the outcome. Before the measured runs,
// --warmup passes (default 1) run every program once, so V8 has tiered the engine's hot functions up (a first run in
// a fresh isolate runs baseline code, up to ~2x slower per unit); the cold first run is printed too.
// --processes N (default 1): measure in N workerd processes one after another, each with its own warm-up. A row's
// seconds can differ by up to ~1.7x between processes on the same build (which tier of V8's code a long-running
// interpreter function got, most likely), while runs within one process agree to a few percent; so with N > 1 the
// seconds are the median over every run of every process, "x plain loop" is the median over processes of the row's
// ratio to the plain loop of the same process, and a column gives the range of the per-process medians.
import os from "node:os";
import fs from "node:fs";
import { execSync } from "node:child_process";
import { startLanguageRuntime } from "../test/integration/language-runtime.mjs";

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const RUNS = Number(opt("--runs", "3"));
const WARMUP = Number(opt("--warmup", "1"));
const LANGUAGES = opt("--languages", "javascript,python,perl,ruby,lua").split(",");
const ATTACKS = args.includes("--attacks");
const JSON_OUT = opt("--json", null);
const PROCESSES = Number(opt("--processes", "1"));
// --only: just the programs whose name matches (case-insensitive), and the plain loop, which the ratios divide by.
const ONLY = opt("--only", null) && new RegExp(opt("--only"), "i");

// [class, program]: every program loops forever on its class of work.
const CLASSES = {
  javascript: [
    ["plain loop", "for (;;) {}"],
    ["loop over a global", "var i = 0; for (;;) i++"],
    ["loop over a local (in a function)", "(() => { let i = 0; for (;;) i++ })()"],
    ["calls (fib)", "function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) } for (;;) fib(20)"],
    ["string building", "for (;;) { let s = ''; for (let i = 0; i < 10000; i++) s += 'ab' }"],
    ["string comparison (1 MB)", "const a = 'x'.repeat(1e6), b = 'x'.repeat(1e6); let n = 0; for (;;) n += a === b"],
    ["typed-array search", "const a = new Uint8Array(1e6); for (;;) a.indexOf(1)"],
    ["hashing (FNV in JS)", "const d = new Uint8Array(1e5).fill(7); for (;;) { let h = 2166136261; for (let i = 0; i < d.length; i++) h = Math.imul(h ^ d[i], 16777619) }"],
    ["sorting", "const a = Array.from({ length: 2e4 }, () => Math.random()); for (;;) a.slice().sort((x, y) => x - y)"],
    ["JSON", "const o = Array.from({ length: 2e3 }, (_, i) => ({ i, s: 'v' + i })); for (;;) JSON.parse(JSON.stringify(o))"],
    ["regex", "const s = 'ab'.repeat(5e4) + 'c'; for (;;) /(ab)+c/.test(s)"],
    ["big integers", "const x = 3n ** 5000n; for (;;) x * x"],
    ["allocation (objects)", "for (;;) { const a = []; for (let i = 0; i < 1e4; i++) a.push({ i }) }"],
    ["array insertion at the front", "const a = Array.from({ length: 1e4 }, (_, i) => i); for (;;) { a.unshift(0); a.shift() }"],
  ],
  python: [
    ["plain loop", "while True: pass"],
    ["loop over a global", "i = 0\nwhile True: i += 1"],
    ["loop over a local (in a function)", "def f():\n    i = 0\n    while True: i += 1\nf()"],
    ["calls (fib)", "def fib(n): return n if n < 2 else fib(n - 1) + fib(n - 2)\nwhile True: fib(20)"],
    ["string building", "while True:\n    s = ''\n    for i in range(10_000): s += 'ab'"],
    ["bytes comparison (1 MB)", "a = b'x' * 1_000_000\nb = b'x' * 1_000_000\nwhile True: a == b"],
    ["bytes search", "d = b'x' * 1_000_000\nwhile True: d.find(b'y')"],
    ["hashing (sha256)", "import hashlib\nd = b'x' * 1_000_000\nwhile True: hashlib.sha256(d).digest()"],
    ["compression (zlib)", "import zlib\nd = bytes(range(256)) * 4_000\nwhile True: zlib.compress(d)"],
    ["sorting", "import random\nl = [random.random() for _ in range(20_000)]\nwhile True: sorted(l)"],
    ["JSON", "import json\no = [{'i': i, 's': str(i)} for i in range(2_000)]\nwhile True: json.loads(json.dumps(o))"],
    ["regex", "import re\ns = 'ab' * 50_000 + 'c'\nwhile True: re.search('(ab)+c', s)"],
    ["big integers", "x = 3 ** 20_000\nwhile True: x * x"],
    ["decimals", "from decimal import Decimal, getcontext\ngetcontext().prec = 2_000\nwhile True: Decimal(2).sqrt()"],
    ["allocation (objects)", "class P:\n    pass\nwhile True: [P() for _ in range(10_000)]"],
    ["list insertion at the front", "l = list(range(10_000))\nwhile True:\n    l.insert(0, 0)\n    l.pop(0)"],
  ],
  perl: [
    ["plain loop", "while (1) {}"],
    ["loop over a global", "our $i = 0; while (1) { $i++ }"],
    ["loop over a lexical", "my $i = 0; while (1) { $i++ }"],
    ["calls (fib)", "sub fib { my $n = shift; $n < 2 ? $n : fib($n - 1) + fib($n - 2) } while (1) { fib(15) }"],
    ["string building", "while (1) { my $s = ''; $s .= 'ab' for 1..10_000 }"],
    ["string comparison (1 MB)", "my $a = 'x' x 1_000_000; my $b = 'x' x 1_000_000; my $n = 0; while (1) { $n++ if $a eq $b }"],
    ["string search", "my $s = 'x' x 1_000_000; while (1) { index($s, 'y') }"],
    ["sorting", "my @a = map { rand } 1..20_000; while (1) { my @b = sort { $a <=> $b } @a }"],
    ["regex", "my $s = ('ab' x 50_000) . 'c'; while (1) { $s =~ /(?:ab)+c/ }"],
    ["allocation (hashes)", "while (1) { my @a = map { +{ i => $_ } } 1..10_000 }"],
    ["array insertion at the front", "my @a = (1..10_000); while (1) { unshift @a, 0; shift @a }"],
    ["join and split", "my @a = ('abc') x 10_000; while (1) { my @b = split /,/, join ',', @a }"],
  ],
  ruby: [
    ["plain loop", "loop {}"],
    ["loop over a global", "$i = 0; loop { $i += 1 }"],
    ["loop over a local", "i = 0; loop { i += 1 }"],
    ["calls (fib)", "def fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2); loop { fib(15) }"],
    ["string building", "loop { s = +''; 10_000.times { s << 'ab' } }"],
    ["string comparison (1 MB)", "a = 'x' * 1_000_000; b = 'x' * 1_000_000; loop { a == b }"],
    ["string search", "s = 'x' * 1_000_000; loop { s.index('y') }"],
    ["sorting", "a = Array.new(20_000) { rand }; loop { a.sort }"],
    ["regex", "s = 'ab' * 50_000 + 'c'; loop { s =~ /(?:ab)+c/ }"],
    ["big integers", "x = 3 ** 20_000; loop { x * x }"],
    ["allocation (objects)", "loop { Array.new(10_000) { Object.new } }"],
    ["array insertion at the front", "a = (1..10_000).to_a; loop { a.unshift(0); a.shift }"],
  ],
  lua: [
    ["plain loop", "while true do end"],
    ["loop over a global", "i = 0 while true do i = i + 1 end"],
    ["loop over a local", "local i = 0 while true do i = i + 1 end"],
    ["calls (fib)", "local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end while true do fib(20) end"],
    ["string building", "while true do local t = {} for i = 1, 10000 do t[#t + 1] = 'ab' end local s = table.concat(t) end"],
    ["string comparison (1 MB)", "local a = string.rep('x', 1000000) local b = string.rep('x', 1000000) .. '' local n = 0 while true do if a == b then n = n + 1 end end"],
    ["string search", "local s = string.rep('x', 1000000) while true do string.find(s, 'y', 1, true) end"],
    ["sorting", "local t = {} for i = 1, 20000 do t[i] = math.random() end while true do local c = table.move(t, 1, #t, 1, {}) table.sort(c) end"],
    ["pattern matching", "local s = string.rep('ab', 50000) .. 'c' while true do string.find(s, '[ab]+c') end"],
    ["allocation (tables)", "while true do local a = {} for i = 1, 10000 do a[i] = { i = i } end end"],
    ["table insertion at the front", "local t = {} for i = 1, 10000 do t[i] = i end while true do table.insert(t, 1, 0) table.remove(t, 1) end"],
  ],
};

async function attackPrograms(language) {
  const src = fs.readFileSync(new URL("../test/integration/metering.test.mjs", import.meta.url), "utf8");
  const start = src.indexOf(`  ${language}: [`);
  const end = src.indexOf("\n  ],", start);
  // The test file's table is plain data: evaluate just that array literal.
  return start < 0 ? [] : new Function(`return ${src.slice(src.indexOf("[", start), end + 4)}`)();
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// The workerd process Miniflare started for this runtime: the newest child of this process named workerd.
function workerdPid() {
  let best = null;
  for (const d of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    let stat;
    try {
      stat = fs.readFileSync(`/proc/${d}/stat`, "utf8");
    } catch {
      continue;
    }
    const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (comm === "workerd" && Number(fields[1]) === process.pid && (!best || Number(d) > best)) best = Number(d);
  }
  if (!best) throw new Error("no workerd child process found");
  return best;
}
// CPU nanoseconds the process has run, all threads.
function cpuNs(pid) {
  let total = 0;
  for (const t of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(fs.readFileSync(`/proc/${pid}/task/${t}/schedstat`, "utf8").split(" ")[0]);
    } catch {}
  }
  return total;
}
let pid;
const timed = async (rt, code) => {
  const c0 = cpuNs(pid);
  const r = await rt.exec(code);
  return { ms: (cpuNs(pid) - c0) / 1e6, r };
};

const commit = (() => {
  try {
    return execSync("git rev-parse --short HEAD", { encoding: "utf8" }).trim();
  } catch {
    return "unknown";
  }
})();
console.log(`# fuel calibration: ${WARMUP} warm-up pass(es), ${RUNS} runs, commit ${commit}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model}), ` +
  `load ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}, Node ${process.version}\n`);

// One workerd process: the trivial request's CPU, then every program's warm-up and measured runs (seconds per budget).
async function measureProcess(language, programs) {
  const rt = await startLanguageRuntime(language);
  pid = workerdPid();
  try {
    const probe = language === "lua" ? "return 1 + 1" : "1 + 1";
    const trips = [];
    for (let i = 0; i < 7; i++) trips.push((await timed(rt, probe)).ms);
    const trip = median(trips);
    const cold = new Map();
    for (let w = 0; w < WARMUP; w++) {
      for (const p of programs) {
        const { ms } = await timed(rt, p.code);
        if (w === 0) cold.set(p, Math.max(0, ms - trip) / 1000);
      }
    }
    const runs = new Map();
    for (const p of programs) {
      const secs = [];
      let outcome = "";
      let fuel = 0;
      for (let i = 0; i < RUNS; i++) {
        const { ms, r } = await timed(rt, p.code);
        secs.push(Math.max(0, ms - trip) / 1000);
        outcome = r.error ? `${r.error.name}: ${r.error.message}` : "completed";
        fuel = r.usage?.fuelConsumed ?? 0;
      }
      runs.set(p, { secs, outcome, fuel });
    }
    return { probe, trip, cold, runs };
  } finally {
    await rt.dispose();
  }
}

const report = {};
for (const language of LANGUAGES) {
  const programs = CLASSES[language].map(([what, code]) => ({ what, code, kind: "class" }));
  if (ATTACKS) for (const [what, code] of await attackPrograms(language)) programs.push({ what, code, kind: "attack" });
  if (ONLY) programs.splice(0, programs.length, ...programs.filter((p) => p.what === "plain loop" || ONLY.test(p.what)));
  const measured = [];
  for (let n = 0; n < PROCESSES; n++) measured.push(await measureProcess(language, programs));
  const plainProgram = programs.find((p) => p.what === "plain loop");
  const inProcess = (m, p) => median(m.runs.get(p).secs);
  const rows = programs.map((p) => {
    const secs = measured.flatMap((m) => m.runs.get(p).secs);
    const perProcess = measured.map((m) => inProcess(m, p));
    const last = measured.at(-1).runs.get(p);
    return { ...p, median: median(secs), worst: Math.max(...secs), cold: measured[0].cold.get(p),
             ratio: median(measured.map((m) => inProcess(m, p) / inProcess(m, plainProgram))),
             low: Math.min(...perProcess), high: Math.max(...perProcess), outcome: last.outcome, fuel: last.fuel };
  });
  const trip = median(measured.map((m) => m.trip));
  report[language] = { trip, processes: PROCESSES, rows };
  const spread = PROCESSES > 1;
  console.log(`## ${language} (CPU of \`${measured[0].probe}\`: ${trip.toFixed(1)} ms, subtracted` +
    `${spread ? `; ${PROCESSES} workerd processes` : ""})\n`);
  console.log(`| kind | program | CPU s per budget (median) | worst | first run (cold) | x plain loop |` +
    `${spread ? " per process |" : ""} outcome |`);
  console.log(`| --- | --- | ---: | ---: | ---: | ---: |${spread ? " ---: |" : ""} --- |`);
  for (const row of rows) {
    const flag = row.outcome === "ExecutionLimitError: Execution fuel exhausted" &&
      (row.median < 0.5 || row.median > 2 || row.ratio > 2 || row.ratio < 0.5) ? " ⚠" : "";
    console.log(`| ${row.kind} | ${row.what} | ${row.median.toFixed(2)}${flag} | ${row.worst.toFixed(2)} | ` +
      `${row.cold === undefined ? "–" : row.cold.toFixed(2)} | ${row.ratio.toFixed(2)} |` +
      `${spread ? ` ${row.low.toFixed(2)}–${row.high.toFixed(2)} |` : ""} ${row.outcome} |`);
  }
  console.log();
}
if (JSON_OUT) fs.writeFileSync(JSON_OUT, JSON.stringify({ commit, runs: RUNS, report }, null, 2));
