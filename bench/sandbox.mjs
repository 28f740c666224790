// The caller side, measured (issue 11 "Measure"): `sandbox.interpreter.runCode` through the Sandbox Durable Object for
// a resident context and for the first execute after a restart, next to a direct `executeInContext` on the runtime
// binding in the same run; and the bytes the workspace sync moves for a 1 MiB workspace of 100 files with one file
// changed. workerd via Miniflare over on-disk storage (test/integration/sandbox-harness.mjs, with the caller's
// JAVASCRIPT bound to the runtime itself and the recording pass-through as JS_SPY). Latency is measured from Node
// around one dispatchFetch to the caller Worker, the same for both paths.
//
//   node bench/sandbox.mjs [--rounds N] [--restarts N] [--json out.json]
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, cpus } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { execFileSync } from "node:child_process";
import { startSandboxWorld } from "../test/integration/sandbox-harness.mjs";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const rounds = Number(arg("--rounds", 200));
const restarts = Number(arg("--restarts", 10));
const jsonOut = arg("--json", null);

const persist = mkdtempSync(path.join(tmpdir(), "sw-bench-sandbox-"));
let w = await startSandboxWorld(persist, { quickstart: false, direct: true });
const restart = async () => {
  await w.dispose();
  w = await startSandboxWorld(persist, { quickstart: false, direct: true });
};

function must(r, what) {
  if (!r.ok) throw new Error(`${what}: ${JSON.stringify(r).slice(0, 500)}`);
  return r.value ?? r;
}
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
async function timed(fn) {
  const t0 = performance.now();
  const r = await fn();
  return [performance.now() - t0, r];
}

// --- latency -------------------------------------------------------------------------------------------------------
const SANDBOX = "bench-latency";
const ctx = must(await w.call(SANDBOX, "interpreter.createCodeContext", [{ binding: "JAVASCRIPT" }]), "create");
const KEY = "bench-direct-key";
must(await w.direct({ key: KEY, contextId: "direct", code: "var n = 0; n", create: true }), "direct create");
must(await w.call(SANDBOX, "interpreter.runCode", ["var n = 0; n", { context: ctx.id }]), "define");

const viaSandbox = [];
const direct = [];
for (let i = 0; i < rounds; i++) {
  // Interleaved, so that load on the machine hits both alike.
  const [a, ra] = await timed(() => w.call(SANDBOX, "interpreter.runCode", ["n += 1; n", { context: ctx.id }]));
  if (must(ra, "sandbox run").results[0].text !== String(i + 1)) throw new Error(`sandbox: ${JSON.stringify(ra)}`);
  viaSandbox.push(a);
  const [b, rb] = await timed(() => w.direct({ key: KEY, contextId: "direct", code: "n += 1; n" }));
  if (must(rb, "direct run").results[0].text !== String(i + 1)) throw new Error(`direct: ${JSON.stringify(rb)}`);
  direct.push(b);
}

const coldSandbox = [];
const coldDirect = [];
let expected = rounds;
for (let i = 0; i < restarts; i++) {
  await restart();
  expected++;
  const runSandbox = () => timed(() => w.call(SANDBOX, "interpreter.runCode", ["n += 1; n", { context: ctx.id }]));
  const runDirect = () => timed(() => w.direct({ key: KEY, contextId: "direct", code: "n += 1; n" }));
  // Which path goes first after a restart alternates: the first request also starts the isolates.
  let a, ra, b, rb;
  if (i % 2 === 0) {
    [a, ra] = await runSandbox();
    [b, rb] = await runDirect();
  } else {
    [b, rb] = await runDirect();
    [a, ra] = await runSandbox();
  }
  if (must(ra, "cold sandbox").results[0].text !== String(expected)) throw new Error(`cold sandbox: ${JSON.stringify(ra)}`);
  if (must(rb, "cold direct").results[0].text !== String(expected)) throw new Error(`cold direct: ${JSON.stringify(rb)}`);
  coldSandbox.push(a);
  coldDirect.push(b);
}

// --- bytes moved by the workspace sync ---------------------------------------------------------------------------
const SYNC = "bench-sync";
const FILES = 100;
// 10,485 or 10,486 bytes each: 1 MiB in all.
const sizeOf = (i) => Math.floor(((i + 1) * 1048576) / FILES) - Math.floor((i * 1048576) / FILES);
for (let i = 0; i < FILES; i++) {
  must(await w.call(SYNC, "writeFile", [`/workspace/f${String(i).padStart(3, "0")}.txt`, { $repeat: String.fromCharCode(97 + (i % 26)), times: sizeOf(i) }]), "write");
}
const total = must(await w.call(SYNC, "getInfo"), "info").workspace.bytes;
const sctx = must(await w.call(SYNC, "interpreter.createCodeContext", [{ binding: "JS_SPY" }]), "create spy ctx");

async function measured(what, code, before) {
  await w.clearSpy("js");
  if (before) await before();
  must(await w.call(SYNC, "interpreter.runCode", [code, { context: sctx.id }]), what);
  const [e] = (await w.spy("js")).executes;
  const pulled = e.getFiles.flatMap((g) => g.answered);
  return {
    what,
    manifestBytes: JSON.stringify(e.args.workspace).length,
    pulledFiles: pulled.length,
    pulledBytes: pulled.reduce((n, f) => n + f.bytes, 0),
    returnedFiles: e.result.files.length,
    returnedBytes: e.result.files.reduce((n, f) => n + f.bytes, 0),
  };
}
const sync = [];
sync.push(await measured("first execute (empty mirror)", "1"));
sync.push(await measured("nothing changed", "2"));
sync.push(await measured("one file changed by the files API", "3", () => w.call(SYNC, "writeFile", ["/workspace/f050.txt", { $repeat: "Z", times: sizeOf(50) }])));
sync.push(await measured("one file changed by the guest", 'fs.writeFileSync("/workspace/f051.txt", "Y".repeat(' + sizeOf(51) + ')); 4'));
await restart();
sync.push(await measured("first execute after a restart", "5"));

await w.dispose();
rmSync(persist, { recursive: true, force: true });

// --- report --------------------------------------------------------------------------------------------------------
const row = (name, xs) => `| ${name} | ${xs.length} | ${pct(xs, 50).toFixed(2)} | ${pct(xs, 99).toFixed(2)} |`;
let commit = "unknown";
try {
  commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
} catch {}
const lines = [
  `machine: ${cpus().length} cores, ${cpus()[0]?.model}; node ${process.version}; commit ${commit}`,
  "",
  "| path | samples | p50 ms | p99 ms |",
  "| --- | --- | --- | --- |",
  row("sandbox.interpreter.runCode, resident context", viaSandbox),
  row("direct executeInContext, resident context", direct),
  row("sandbox.interpreter.runCode, first after a restart", coldSandbox),
  row("direct executeInContext, first after a restart", coldDirect),
  "",
  `workspace: ${FILES} files, ${total} bytes`,
  "",
  "| execute | manifest bytes | files pulled (getFiles) | bytes pulled | files returned | bytes returned |",
  "| --- | --- | --- | --- | --- | --- |",
  ...sync.map((s) => `| ${s.what} | ${s.manifestBytes} | ${s.pulledFiles} | ${s.pulledBytes} | ${s.returnedFiles} | ${s.returnedBytes} |`),
];
console.log(lines.join("\n"));
if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ viaSandbox, direct, coldSandbox, coldDirect, sync, total, commit }, null, 2));
