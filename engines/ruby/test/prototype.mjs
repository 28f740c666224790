// Prototype of the host-side Ruby driver: engines/ruby/build/engine.wasm (the prebuilt ruby.wasm of
// @ruby/4.0-wasm-wasi 2.10.1) under node:wasi alone, with a stub for every non-WASI import, driven exactly as the C++
// driver will drive it (engines/ruby/README.md "Call sequence"): _initialize, ruby-init, ruby-init-loadpath, one eval
// of driver.rb at boot, then per request one rb-eval-string-protect of `Sandbox.run_hex("<code hex>","<env hex>")` and
// one rstring-ptr to read the outcome JSON.
//
//   node --no-turbo-fast-api-calls engines/ruby/test/prototype.mjs [--wasm F] [--stdlib DIR] [--measure] [--hostile]
//        [--json-stubs] [-e CODE] [--env JSON]
//
// --stdlib DIR is the extracted stdlib.tar, preopened at /stdlib (fd 3) as our host mounts it; omit it for
// ruby+stdlib.wasm (stdlib embedded with wasi-vfs). --measure prints boot/request times and memory sizes and writes
// the memory image after boot to /tmp/ruby-boot-memory.bin (gzip it to estimate the boot image). --hostile runs the
// hostile-code table of the README. --json-stubs answers the JS bridge with failures instead of throwing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WASI } from 'node:wasi';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ENGINE_DIR = path.resolve(HERE, '..');
const argv = process.argv.slice(2);
const opt = (name, dflt) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : dflt; };
const flag = (name) => argv.includes(name);

export const DISABLED = 'JavaScript host access is disabled';
export const RUBY_ARGS = ['ruby', '--disable-gems', '-EUTF-8', '-e_=0'];

const enc = new TextEncoder();
const dec = new TextDecoder();

// The export names carry their WIT signatures (legacy wit-bindgen); the driver looks them up by prefix.
function exportsByName(instance) {
  const byName = {};
  for (const [name, value] of Object.entries(instance.exports)) byName[name.split(':')[0]] = value;
  return byName;
}

// Every non-WASI import. Mode "throw" (what the C++ host will do, protocol §6.5): each rb-js-abi-host function throws
// DISABLED, which unwinds the whole export call (the instance is then unusable: asyncify/VM state is mid-call). The
// canonical_abi resource functions are the identity (a handle is the guest pointer itself) and the drop is a no-op.
function makeImports(module, state, mode) {
  const imports = {};
  for (const imp of WebAssembly.Module.imports(module)) {
    if (imp.module === 'wasi_snapshot_preview1') continue;
    const ns = (imports[imp.module] ??= {});
    const name = imp.name.split(':')[0];
    if (imp.module === 'sandbox' && name === 'charge') {
      // A module metered by our fuel tool (docs/fuel-tool.md): count what it charges.
      ns[imp.name] = (units) => { state.charged += units; };
      continue;
    }
    if (imp.module === 'canonical_abi') {
      ns[imp.name] = name === 'resource_drop_js-abi-value' ? () => {} : (x) => x;
      continue;
    }
    ns[imp.name] = (...args) => {
      state.jsCalls.push(name);
      if (mode === 'throw' || name === 'rb_wasm_throw_prohibit_rewind_exception') throw new Error(DISABLED);
      return failureStub(state, name, args);
    };
  }
  return imports;
}

// Mode "failure": answer so that Ruby raises instead of the call trapping. Variant-returning functions write
// failure(handle 0); js-value-to-string writes DISABLED (allocated with cabi_realloc, re-entering the guest);
// bool functions return 0; handle-returning functions return 0.
function failureStub(state, name, args) {
  const mem = () => new DataView(state.memory.buffer);
  const retArea = args[args.length - 1];
  switch (name) {
    case 'eval-js': case 'reflect-get': case 'reflect-set': case 'reflect-apply':
      mem().setUint8(retArea, 1); mem().setUint32(retArea + 4, 0, true); return;
    case 'js-value-to-string': case 'js-value-typeof': {
      const bytes = enc.encode(DISABLED);
      const p = state.realloc(0, 0, 1, bytes.length);
      new Uint8Array(state.memory.buffer, p, bytes.length).set(bytes);
      mem().setUint32(retArea, p, true); mem().setUint32(retArea + 4, bytes.length, true); return;
    }
    case 'js-value-to-integer': mem().setUint8(retArea, 0); mem().setFloat64(retArea + 8, 0, true); return;
    case 'export-js-value-to-host': return;
    default: return 0;
  }
}

export function loadModule(file) {
  return new WebAssembly.Module(fs.readFileSync(file));
}

// Writes `bytes` into fresh guest memory (cabi_realloc(0, 0, align 1, n)); returns the pointer.
function put(rt, bytes) {
  const p = rt.x.cabi_realloc(0, 0, 1, bytes.length);
  new Uint8Array(rt.memory.buffer, p, bytes.length).set(bytes);
  return p;
}
const u32 = (rt, p) => new DataView(rt.memory.buffer).getUint32(p, true);

// rb-eval-string-protect(ptr, len) -> retptr: [handle i32][state i32]. state 0 = the value's handle is valid.
export function evalString(rt, source) {
  const bytes = enc.encode(source);
  const ret = rt.x['rb-eval-string-protect'](put(rt, bytes), bytes.length);
  return { handle: u32(rt, ret), state: u32(rt, ret + 4) };
}

// rstring-ptr(handle) -> retptr: [ptr i32][len i32], a fresh copy (xmalloc) the host frees with
// cabi_post_rstring-ptr(retptr).
export function readRString(rt, handle) {
  const ret = rt.x['rstring-ptr'](handle);
  const p = u32(rt, ret), n = u32(rt, ret + 4);
  const s = dec.decode(new Uint8Array(rt.memory.buffer, p, n));
  rt.x['cabi_post_rstring-ptr'](ret);
  return s;
}

// Boot: instantiate, WASI _initialize, ruby-init(args), ruby-init-loadpath, eval driver.rb (must return true).
export function boot(module, { stdlibDir, mode = 'throw', rawOut, driver = true } = {}) {
  const t0 = performance.now();
  const state = { jsCalls: [], charged: 0 };
  const preopens = stdlibDir ? { '/stdlib': stdlibDir } : {};
  const wasi = new WASI({ version: 'preview1', args: ['sandbox'], env: {}, preopens,
    stdout: rawOut ?? 1, stderr: rawOut ?? 2, returnOnExit: true });
  const instance = new WebAssembly.Instance(module, { wasi_snapshot_preview1: wasi.wasiImport,
    ...makeImports(module, state, mode) });
  const rt = { instance, x: exportsByName(instance), memory: instance.exports.memory, state };
  state.memory = rt.memory;
  state.realloc = rt.x.cabi_realloc;
  const tInst = performance.now();
  wasi.initialize(instance);
  // ruby-init(list<string>): ptr to `len` (ptr, len) pairs; each string NUL-terminated (argv is read as C strings),
  // len without the NUL.
  const args = stdlibDir ? [...RUBY_ARGS.slice(0, 1), '-I/stdlib', ...RUBY_ARGS.slice(1)] : RUBY_ARGS;
  const list = rt.x.cabi_realloc(0, 0, 4, 8 * args.length);
  args.forEach((a, i) => {
    const b = enc.encode(a + '\0');
    const dv = new DataView(rt.memory.buffer);
    dv.setUint32(list + 8 * i, put(rt, b), true);
    dv.setUint32(list + 8 * i + 4, b.length - 1, true);
  });
  rt.x['ruby-init'](list, args.length);
  rt.x['ruby-init-loadpath']();
  const tInit = performance.now();
  if (!driver) return rt;
  const driverCode = fs.readFileSync(path.join(ENGINE_DIR, 'driver.rb'), 'utf8');
  const r = evalString(rt, driverCode);
  if (r.state !== 0) throw new Error(`driver.rb failed to load (state ${r.state})`);
  const tDriver = performance.now();
  rt.bootTimes = { instantiate: tInst - t0, init: tInit - tInst, driver: tDriver - tInit, total: tDriver - t0 };
  rt.bootMemory = rt.memory.buffer.byteLength;
  return rt;
}

const hex = (s) => Buffer.from(s, 'utf8').toString('hex');

// One request: one eval of the fixed call, one read of the returned String. A non-zero state means the driver
// itself failed (never for guest code: driver.rb rescues everything) -> the host's EngineError.
export function run(rt, code, env = {}) {
  const r = evalString(rt, `Sandbox.run_hex("${hex(code)}","${hex(JSON.stringify(env))}")`);
  if (r.state !== 0) return { engineError: `driver failed (state ${r.state})` };
  const text = readRString(rt, r.handle);
  rt.x['canonical_abi_drop_rb-abi-value'](r.handle);
  return JSON.parse(text);
}

// Hostile code: each entry must give a guest error or a result, never a trap; the next request must still work.
export const HOSTILE = [
  ['exit', 'puts "a"; exit'],
  ['exit 3', 'exit 3'],
  ['exit!', 'exit!'],
  ['abort', 'abort "bye"'],
  ['Process.kill', 'Process.kill(:TERM, Process.pid)'],
  ['backticks', '`ls`'],
  ['system', 'system("ls")'],
  ['fork', 'fork { }'],
  ['spawn', 'spawn("ls")'],
  ['require socket', 'require "socket"'],
  ['each_object', 'ObjectSpace.each_object(Module).count > 0'],
  ['each_object(IO) close', 'ObjectSpace.each_object(IO).each { |io| io.close rescue nil }; puts "x"; 1'],
  ['redefine Sandbox', 'module Sandbox; def self.run_hex(*) = "x"; def self.finish(*) = "x"; end; 7'],
  ['Sandbox = nil', 'Object.send(:remove_const, :Sandbox); 8'],
  ['redefine JSON', 'module JSON; def self.generate(*) = raise("no"); end; [1, 2]'],
  ['remove JSON', 'Object.send(:remove_const, :JSON); {a: 1}'],
  ['Object#inspect', 'class Object; def inspect = raise("bad"); end; Object.new'],
  ['Kernel#puts', 'module Kernel; def puts(*) = raise("no puts"); end; puts "hi"'],
  ['String#to_s', 'class String; def encode(*) = raise("x"); def force_encoding(*) = raise("x"); end; "s"'],
  ['$stdout = nil', '$stdout = nil'],
  ['$stdout = STDOUT', '$stdout = STDOUT; puts "via STDOUT"; STDOUT.write("w\\n"); 1'],
  ['STDOUT.syswrite', 'STDOUT.syswrite("sys\\n"); $stderr.syswrite("sys2\\n"); 1'],
  ['IO.new(1)', 'IO.new(1).write("raw\\n"); 1'],
  ['at_exit', 'at_exit { puts "late" }; 1'],
  ['throw uncaught', 'throw :x'],
  ['catch/throw', 'catch(:x) { throw :x, 5 }'],
  ['raise Exception', 'raise Exception, "base"'],
  ['SystemExit', 'raise SystemExit'],
  ['Interrupt', 'raise Interrupt'],
  ['NoMemoryError', 'raise NoMemoryError, "fake"'],
  ['SignalException', 'raise SignalException, "TERM"'],
  ['deep recursion', 'def f(n) = f(n + 1) + 1; f(0)'],
  ['recursion through C (each)', 'def g(n) = [1].each { g(n + 1) }; g(0)'],
  ['recursion through C (inspect)', 'a = []; 100_000.times { a = [a] }; a.inspect.size'],
  ['recursion through C (to_json)', 'a = []; 100_000.times { a = [a] }; a'],
  ['ENV.clear', 'ENV.clear; ENV.to_h'],
  ['ENV HOME', 'ENV["HOME"]'],
  ['return', 'puts "before"; return 1'],
  ['break', 'break'],
  ['next', 'next'],
  ['redo', 'redo'],
  ['retry', 'retry'],
  ['Thread', 'Thread.new { 1 }.join; 2'],
  ['Fiber', 'Fiber.new { Fiber.yield 1; 2 }.resume'],
  ['File.read /etc/passwd', 'File.read("/etc/passwd")'],
  ['Dir /', 'Dir.entries("/")'],
  ['require js', 'require "js"; JS.global[:process].to_s'],
  ['require js.so', 'require "js.so"; JS.global[:process].to_s'],
  ['binding locals', 'ObjectSpace.each_object(Proc).count'],
  ['GC.start', 'GC.start; 1'],
  ['trap', 'trap("INT") { }; 1'],
  ['set_trace_func', 'set_trace_func(proc { }); 1'],
  ['freeze $stdout', '$stdout.freeze; puts "x"'],
];

function summarize(o) {
  if (o.engineError) return `ENGINE ERROR ${o.engineError}`;
  const parts = [];
  if (o.error) parts.push(`error ${o.error.name}: ${String(o.error.message).slice(0, 70).replace(/\n/g, ' ')}`);
  if (o.results?.length) parts.push(`result ${JSON.stringify(o.results[0]).slice(0, 60)}`);
  if (o.logs?.stdout.length || o.logs?.stderr.length) parts.push(`logs ${JSON.stringify(o.logs).slice(0, 80)}`);
  return parts.join('; ') || 'no result';
}

async function main() {
  const wasmFile = opt('--wasm', path.join(ENGINE_DIR, 'build/engine.wasm'));
  let stdlibDir = opt('--stdlib');
  if (!stdlibDir && !argv.includes('--no-stdlib') && fs.existsSync(path.join(ENGINE_DIR, 'build/stdlib.tar'))) {
    stdlibDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ruby-stdlib-'));
    (await import('node:child_process')).execFileSync('tar', ['-xf', path.join(ENGINE_DIR, 'build/stdlib.tar'), '-C', stdlibDir]);
  }
  const mode = flag('--json-stubs') ? 'failure' : 'throw';
  const rawOutFile = path.join(os.tmpdir(), `ruby-raw-${process.pid}.txt`);
  const rawOut = flag('--raw-to-terminal') ? undefined : fs.openSync(rawOutFile, 'w');
  const t0 = performance.now();
  const module = loadModule(wasmFile);
  const compileMs = performance.now() - t0;
  const fresh = () => boot(module, { stdlibDir, mode, rawOut });
  let rt = fresh();
  if (flag('--measure')) {
    fs.writeFileSync('/tmp/ruby-boot-memory.bin', new Uint8Array(rt.memory.buffer));
    // What a boot image stores: the 4 KiB blocks boot changed relative to a freshly instantiated module.
    const pristine = new Uint8Array(new WebAssembly.Instance(module, { wasi_snapshot_preview1: new WASI({ version: 'preview1' }).wasiImport,
      ...makeImports(module, { jsCalls: [] }, 'throw') }).exports.memory.buffer);
    const booted = new Uint8Array(rt.memory.buffer);
    const changed = [];
    for (let at = 0; at < booted.length; at += 4096) {
      const a = booted.subarray(at, at + 4096), b = at < pristine.length ? pristine.subarray(at, at + 4096) : null;
      if (b ? !Buffer.from(a).equals(Buffer.from(b)) : a.some((x) => x !== 0)) changed.push(a);
    }
    fs.writeFileSync('/tmp/ruby-boot-delta.bin', Buffer.concat(changed));
    console.log(`boot changed ${changed.length} non-trivial 4 KiB blocks (${changed.length * 4096} bytes; /tmp/ruby-boot-delta.bin); ` +
      `fresh instance memory ${pristine.length}`);
    const b = rt.bootTimes;
    console.log(`compile ${compileMs.toFixed(1)} ms; boot: instantiate ${b.instantiate.toFixed(1)} + _initialize/ruby-init/loadpath ` +
      `${b.init.toFixed(1)} + driver.rb ${b.driver.toFixed(1)} = ${b.total.toFixed(1)} ms; memory after boot ${rt.bootMemory}`);
    const times = [];
    for (let i = 0; i < 20; i++) {
      const s = performance.now();
      const o = run(rt, '1 + 1');
      times.push(performance.now() - s);
      if (JSON.stringify(o.results) !== '[{"text":"2"}]') throw new Error(JSON.stringify(o));
    }
    times.sort((a, b) => a - b);
    console.log(`request "1 + 1" x20: min ${times[0].toFixed(2)}, p50 ${times[10].toFixed(2)} ms; memory after 20 requests ` +
      `${rt.memory.buffer.byteLength}; memory image /tmp/ruby-boot-memory.bin`);
  }
  if (opt('-e')) console.log(JSON.stringify(run(rt, opt('-e'), JSON.parse(opt('--env', '{}')))));
  if (flag('--hostile')) {
    for (const [name, code] of HOSTILE) {
      let line;
      try {
        const o = run(rt, code);
        const after = run(rt, '1 + 1');
        line = `${summarize(o)}${JSON.stringify(after.results) === '[{"text":"2"}]' ? '' : ` | NEXT CALL BROKEN: ${summarize(after)}`}`;
      } catch (e) {
        line = `TRAP ${String(e?.message ?? e).slice(0, 90)} (js calls: ${rt.state.jsCalls.join(',')})`;
        rt = fresh();
      }
      rt = fresh(); // stateless: every request starts from a fresh instance (the boot image)
      console.log(`| ${name} | \`${code.replace(/\|/g, '\\|')}\` | ${line.replace(/\|/g, '\\|')} |`);
    }
    const raw = fs.readFileSync(rawOutFile, 'utf8');
    console.log(`raw fd 1/2 writes that reached the host: ${JSON.stringify(raw)}`);
  }
  if (rawOut !== undefined) fs.closeSync(rawOut);
  fs.rmSync(rawOutFile, { force: true });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
