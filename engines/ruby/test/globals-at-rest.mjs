// What ruby.wasm keeps outside its linear memory between two calls (docs/code-contexts.md "Ruby"): its unexported
// mutable globals, made visible by exporting them from a copy of engines/ruby/build/engine.wasm, read after every call
// of a session-like sequence (locals, a Fiber left suspended, GC, an exception, a chdir). A code context's snapshot
// holds the memory only; a restore starts a fresh instance, whose globals are the initial values. So every such global
// must be back at its initial value after every call, or be one that is never read before it is written. ruby.wasm
// has three: 0 `__stack_pointer`, 1 asyncify's state (0 = normal) and 2 asyncify's data pointer, which binaryen's
// asyncify reads only while unwinding or rewinding (state != 0), and asyncify_start_unwind/start_rewind write it
// first (`wasm-objdump -d`: the only two `global.set 2` follow `global.set 1` of 1 and 2). The script checks 0 and 1
// and prints every value; it exits 1 if either is not at its initial value after a call.
//
//   node --no-turbo-fast-api-calls engines/ruby/test/globals-at-rest.mjs
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { boot, evalString, readRString } from "./prototype.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const bytes = fs.readFileSync(path.join(HERE, "../build/engine.wasm"));

const leb = (buf, at) => {
  let value = 0, shift = 0, b;
  do { b = buf[at++]; value |= (b & 0x7f) << shift; shift += 7; } while (b & 0x80);
  return [value >>> 0, at];
};
const sleb = (buf, at) => {
  let value = 0, shift = 0, b;
  do { b = buf[at++]; value |= (b & 0x7f) << shift; shift += 7; } while (b & 0x80);
  if (shift < 32 && (b & 0x40)) value |= -1 << shift;
  return [value, at];
};
const uleb = (n) => { const out = []; do { let b = n & 0x7f; n >>>= 7; if (n) b |= 0x80; out.push(b); } while (n); return out; };

// The sections, the mutable globals (index, initial i32) and the exported global indexes.
const sections = [];
for (let at = 8; at < bytes.length;) {
  const id = bytes[at];
  const [size, body] = leb(bytes, at + 1);
  sections.push({ id, start: at, body, end: body + size });
  at = body + size;
}
const globalSection = sections.find((s) => s.id === 6);
const exportSection = sections.find((s) => s.id === 7);
const globals = [];
{
  let [n, at] = leb(bytes, globalSection.body);
  for (let i = 0; i < n; i++) {
    const type = bytes[at], mutable = bytes[at + 1];
    at += 2;
    if (bytes[at] !== 0x41 || type !== 0x7f) throw new Error(`global ${i}: not an i32.const initializer`);
    const [init, next] = sleb(bytes, at + 1);
    at = next + 1; // the end opcode
    globals.push({ index: i, mutable: mutable === 1, init });
  }
}
const exported = new Set();
let [exportCount, entries] = leb(bytes, exportSection.body);
for (let i = 0, at = entries; i < exportCount; i++) {
  const [len, name] = leb(bytes, at);
  const kind = bytes[name + len];
  const [index, next] = leb(bytes, name + len + 1);
  if (kind === 3) exported.add(index);
  at = next;
}
const hidden = globals.filter((g) => g.mutable && !exported.has(g.index));
// The copy: the same module with `sw_global_<i>` exports for the hidden ones.
const extra = hidden.flatMap((g) => {
  const name = Buffer.from(`sw_global_${g.index}`);
  return [...uleb(name.length), ...name, 3, ...uleb(g.index)]; // kind 3: a global
});
const body = Buffer.concat([
  Buffer.from(uleb(exportCount + hidden.length)), bytes.subarray(entries, exportSection.end), Buffer.from(extra),
]);
const patched = Buffer.concat([
  bytes.subarray(0, exportSection.start), Buffer.from([7, ...uleb(body.length)]), body, bytes.subarray(exportSection.end),
]);
const module = new WebAssembly.Module(patched);

const stdlib = fs.mkdtempSync(path.join(os.tmpdir(), "ruby-stdlib-"));
execFileSync("tar", ["-xf", path.join(HERE, "../build/stdlib.tar"), "-C", stdlib]);
const rt = boot(module, { stdlibDir: stdlib, driver: false });
const hex = (s) => Buffer.from(s, "utf8").toString("hex");
const call = (source) => {
  const r = evalString(rt, source);
  if (r.state !== 0) throw new Error(`${source.slice(0, 60)}: state ${r.state}`);
  return readRString(rt, r.handle);
};
call("begin; load '/stdlib/sandbox_driver.rb'; 'ok'; rescue Exception; \"#{$!.class}: #{$!.message}\"; end");
const session = (code) => JSON.parse(call(`Sandbox.run_hex("${hex(code)}","${hex("{}")}","${hex("")}")`));
const steps = [
  "x = 1; $g = [x]; def m = 2; class K; end; K.name",
  "$f = Fiber.new { Fiber.yield 1; 2 }; $f.resume",
  'raise "boom"',
  "GC.start; GC.compact rescue nil; x + m",
  "a = []; 10_000.times { |i| a << i.to_s * 10 }; a.size",
  "begin; def deep(n) = deep(n + 1); deep(0); rescue SystemStackError; :deep; end",
  '(Dir.chdir("/") rescue nil); Dir.pwd',
  "$f.resume",
];
let worst = hidden.map((g) => g.index).join() === "0,1,2" ? 0 : 1; // the three named above, no more
const report = [];
for (const code of steps) {
  const outcome = session(code);
  const values = hidden.map((g) => rt.instance.exports[`sw_global_${g.index}`].value);
  report.push({ code, error: outcome.error?.name, result: outcome.results[0], globals: values });
  hidden.forEach((g, i) => { if (g.index <= 1 && values[i] !== g.init) worst = 1; });
}
console.log(JSON.stringify({ hidden: hidden.map((g) => ({ index: g.index, init: g.init })), steps: report }, null, 1));
fs.rmSync(stdlib, { recursive: true, force: true });
process.exitCode = worst;
