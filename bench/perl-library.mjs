// Benchmark (not a test): what loading a Perl module costs a stateless request, in fuel (deterministic) and time,
// through worker-shim/core.js handleRequest on the instance pool (in-isolate, no transport). Written for issue 26
// item 2 (Perl's library out of the module, engines/perl/README.md "The Perl library"): run it once per checkout
// (--root) and compare, since fuel does not depend on the machine's load; the times do (read them as ratios within a
// run). Fuel is the median and the range over the repetitions (a few programs vary by some units: Perl's hash order).
//
//   node bench/perl-library.mjs [--reps 9] [--root <checkout>]
import path from "node:path";
import { cpus } from "node:os";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";

const { values: opts } = parseArgs({ options: { reps: { type: "string", default: "9" }, root: { type: "string" } } });
const ROOT = path.resolve(opts.root ?? path.join(path.dirname(new URL(import.meta.url).pathname), ".."));
const load = (file) => import(pathToFileURL(path.join(ROOT, file)).href);
await load("worker-shim/testing.js"); // the hooks that load the Worker's modules as workerd would
const { handleRequest } = await load("worker-shim/core.js");
const { perlEngine } = await load("engines/perl/engine.js");
const REPS = Number(opts.reps);

// Loaded at boot (into the image): POSIX, JSON::PP, Data::Dumper (sandbox_driver.pl). The rest is read per request.
const programs = [
  ["1 + 1", "1 + 1"],
  ["use POSIX", "use POSIX qw(floor); floor(2.5)"],
  ["use JSON::PP", "use JSON::PP; encode_json([1])"],
  ["use Data::Dumper", "use Data::Dumper; $Data::Dumper::Terse = 1; $Data::Dumper::Indent = 0; Dumper(1)"],
  ["use Text::Wrap", "use Text::Wrap qw(wrap); wrap('', '', 'a b')"],
  ["use Math::BigInt", "use Math::BigInt; Math::BigInt->new(2) ** 100"],
  ["use Time::Local", "use Time::Local qw(timegm); timegm(0, 0, 0, 1, 0, 2000)"],
  ["use Module::CoreList (1.5 MB)", "use Module::CoreList; Module::CoreList->first_release('strict')"],
];

async function run(code) {
  const t0 = performance.now();
  const response = await handleRequest(perlEngine, new Request("https://runtime.internal/execute", {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ code }),
  }));
  const body = await response.json();
  const ms = performance.now() - t0;
  if (body.error) throw new Error(`${code}: ${JSON.stringify(body.error).slice(0, 300)}`);
  return { ms, fuel: body.usage.fuelConsumed, memory: body.usage.memoryBytes, text: body.results?.[0]?.text };
}

const p50 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`machine: ${cpus()[0]?.model} x${cpus().length}, node ${process.version}; root ${ROOT}; build ${perlEngine.build.slice(0, 12)}; ${REPS} repetitions, interleaved`);
await run("1"); // the isolate's first instance: the image applied, the pristine memory captured
const samples = programs.map(() => []);
for (let rep = 0; rep < REPS; rep++) {
  for (const [i, [, code]] of programs.entries()) samples[i].push(await run(code));
}
console.log("| program | result | fuel p50 (min–max) | ms p50 (pooled instance) | linear memory after |");
console.log("| --- | --- | --- | --- | --- |");
for (const [i, [label]] of programs.entries()) {
  const s = samples[i];
  const fuel = s.map((x) => x.fuel), n = (x) => x.toLocaleString("en-US");
  console.log(`| ${label} | ${s[0].text} | ${n(p50(fuel))} (${n(Math.min(...fuel))}–${n(Math.max(...fuel))}) | ` +
    `${p50(s.map((x) => x.ms)).toFixed(2)} | ${n(s.at(-1).memory)} |`);
}
