// Benchmark (not a test): what loading a Perl module costs a stateless request, for two builds of the Perl engine side
// by side in one run (issue 26 item 2: Perl's library out of the module, engines/perl/README.md "The Perl library").
// Each program is sent as POST /execute through worker-shim/core.js handleRequest (in-isolate, no transport) to an
// instance from the build's boot image (a pool of one slot, as sequential requests to one isolate see it); builds and
// programs interleaved, request by request. Prints fuel (usage.fuelConsumed: p50 and range; a few programs vary by a
// unit, Perl's hash order), ms p50 and the linear memory after, per program and build.
//
//   node bench/perl-library.mjs --base /path/to/old/engines/perl/build [--reps 9]
//
// --base: a copy of another build's engines/perl/build (bench/build-copy.mjs); the other build is this checkout's.
import { cpus } from "node:os";
import { parseArgs } from "node:util";

const { values: opts } = parseArgs({ options: { base: { type: "string" }, reps: { type: "string", default: "9" } } });
if (!opts.base) throw new Error("--base DIR is required");
const REPS = Number(opts.reps);

await import("../worker-shim/testing.js"); // registers the hooks that load .wasm/.tar/.bin as workerd does
const { perlEngine } = await import("../engines/perl/engine.js");
const { twoBuilds, timedExecute } = await import("./build-copy.mjs");
const builds = await twoBuilds(perlEngine, opts.base);

// Loaded at boot (into the image): POSIX, JSON::PP (sandbox_driver.pl). The rest is read per request.
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

async function run(engine, code) {
  const { ms, body } = await timedExecute(engine, code);
  if (body.error) throw new Error(`${code}: ${JSON.stringify(body.error).slice(0, 300)}`);
  return { ms, fuel: body.usage.fuelConsumed, memory: body.usage.memoryBytes, text: body.results?.[0]?.text };
}

const p50 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const n = (x) => x.toLocaleString("en-US");
console.log(`machine: ${cpus()[0]?.model} x${cpus().length}, node ${process.version}; base ${builds.base.build.slice(0, 12)}, ` +
  `new ${builds.new.build.slice(0, 12)}; ${REPS} repetitions, interleaved`);
const samples = {};
for (const [name, engine] of Object.entries(builds)) {
  await run(engine, "1"); // the isolate's first instance: the image applied, the pristine memory captured
  samples[name] = programs.map(() => []);
}
for (let rep = 0; rep < REPS; rep++) {
  for (const [i, [, code]] of programs.entries()) {
    for (const name of Object.keys(builds)) samples[name][i].push(await run(builds[name], code));
  }
}
console.log("| program | result | fuel p50 (min–max): base → new | ms p50: base → new | linear memory after: base → new |");
console.log("| --- | --- | --- | --- | --- |");
for (const [i, [label]] of programs.entries()) {
  const [b, c] = [samples.base[i], samples.new[i]];
  const fuel = (s) => { const f = s.map((x) => x.fuel); return `${n(p50(f))} (${n(Math.min(...f))}–${n(Math.max(...f))})`; };
  const ms = (s) => p50(s.map((x) => x.ms)).toFixed(2);
  if (b[0].text !== c[0].text) throw new Error(`${label}: the builds answer ${b[0].text} and ${c[0].text}`);
  console.log(`| ${label} | ${c[0].text} | ${fuel(b)} → ${fuel(c)} | ${ms(b)} → ${ms(c)} | ${n(b.at(-1).memory)} → ${n(c.at(-1).memory)} |`);
}
