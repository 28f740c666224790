// Builds every C (and C++) program in test/wasi/guests/ with clang-16 (wasm32-wasi) into build/wasi-guests/ and runs each one
// through OUR WASI host (scripts/wasi-run.mjs -> the C++ core), checking the exit code and the expectations written
// in the guest's header comments (see guests/guest.h). Run: bash test/wasi/run.sh
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { compile as compileCached } from './compile-cache.mjs';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const guestsDir = path.join(here, 'guests');
const outDir = path.join(root, 'build', 'wasi-guests');
const runner = path.join(root, 'scripts', 'wasi-run.mjs');
const clang = process.env.CLANG ?? 'clang-16';
const clangxx = process.env.CLANGXX ?? 'clang++-16';
// Debian's wasm32 libc++ has no exception support and its headers are not on clang's default path.
const cxxFlags = ['-std=c++17', '-fno-exceptions', '-nostdinc++', '-isystem', '/usr/lib/llvm-16/include/wasm32-wasi/c++/v1'];
const only = process.env.WASI_GUEST ? new RegExp(process.env.WASI_GUEST) : null;

const sources = fs.readdirSync(guestsDir).filter((f) => /\.(c|cpp)$/.test(f) && (!only || only.test(f))).sort();

// Header comments: // RUN: [...]   // EXIT: n   // STDOUT: "..."   // STDERR-HAS: "..."   // FILE: "rel" "content"|null
function expectations(source) {
  const e = { run: [], exit: 0, stdout: null, stderrHas: [], files: [] };
  for (const line of source.split('\n')) {
    const m = /^\/\/ (RUN|EXIT|STDOUT|STDERR-HAS|FILE): (.*)$/.exec(line);
    if (!m) continue;
    if (m[1] === 'RUN') e.run = JSON.parse(m[2]);
    else if (m[1] === 'EXIT') e.exit = Number(m[2]);
    else if (m[1] === 'STDOUT') e.stdout = JSON.parse(m[2]);
    else if (m[1] === 'STDERR-HAS') e.stderrHas.push(JSON.parse(m[2]));
    else if (m[1] === 'FILE') e.files.push(JSON.parse(`[${m[2].replace(/" (?=["n])/, '", ')}]`));
  }
  return e;
}

// A stored zip (no compression) for /stdlib.
function storedZip(entries) {
  const chunks = [], central = [];
  let offset = 0;
  for (const [name, text] of entries) {
    const n = Buffer.from(name), d = Buffer.from(text);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0); local.writeUInt16LE(20, 4);
    local.writeUInt32LE(d.length, 18); local.writeUInt32LE(d.length, 22); local.writeUInt16LE(n.length, 26);
    const cd = Buffer.alloc(46);
    cd.writeUInt32LE(0x02014b50, 0); cd.writeUInt16LE(20, 4); cd.writeUInt16LE(20, 6);
    cd.writeUInt32LE(d.length, 20); cd.writeUInt32LE(d.length, 24); cd.writeUInt16LE(n.length, 28);
    cd.writeUInt32LE(offset, 42);
    chunks.push(local, n, d);
    central.push(cd, n);
    offset += 30 + n.length + d.length;
  }
  const cdBuf = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0); end.writeUInt16LE(entries.length, 8); end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cdBuf.length, 12); end.writeUInt32LE(offset, 16);
  return Buffer.concat([...chunks, cdBuf, end]);
}

function seedWorkspace(dir) {
  fs.mkdirSync(path.join(dir, 'sub', 'deeper'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'hello.txt'), 'hello\n');
  fs.writeFileSync(path.join(dir, 'sub', 'nested.txt'), 'nested\n');
}

async function compile(file) {
  const src = path.join(guestsDir, file);
  const wasm = path.join(outDir, file.replace(/\.(c|cpp)$/, '.wasm'));
  try {
    const cxx = file.endsWith('.cpp');
    await compileCached(cxx ? clangxx : clang, ['--target=wasm32-wasi', '-O2', '-Wall', '-Werror', '-Wl,--strip-debug',
      ...(cxx ? cxxFlags : [])], src, [path.join(guestsDir, 'guest.h'), path.join(guestsDir, '..', 'check.h')], wasm);
  } catch (err) {
    compileErrors.set(file, err.stderr || String(err));
  }
}

const stdlibZip = path.join(outDir, 'stdlib.zip');
let scratch;
const compileErrors = new Map();

before(async () => {
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(stdlibZip, storedZip([
    ['lib/', ''], ['lib/mod.txt', 'stdlib module\n'], ['lib/pkg/init.txt', 'pkg\n'], ['README', 'readme\n'],
  ]));
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'wasi-guests-'));
  const queue = [...sources];
  const workers = Array.from({ length: Math.max(1, os.cpus().length) }, async () => {
    while (queue.length) await compile(queue.shift());
  });
  await Promise.all(workers);
});

describe('WASI guests under the C++ host', { concurrency: Math.max(2, os.cpus().length) }, () => {
  for (const file of sources) {
    const name = file.replace(/\.(c|cpp)$/, '');
    it(name, async () => {
      assert.ok(!compileErrors.has(file), `compile error:\n${compileErrors.get(file)}`);
      const e = expectations(fs.readFileSync(path.join(guestsDir, file), 'utf8'));
      const ws = fs.mkdtempSync(path.join(scratch, `${name}-`));
      seedWorkspace(ws);
      const extra = e.run.map((a) => a.replace('@tmp', fs.mkdtempSync(path.join(scratch, `${name}-extra-`))));
      const args = [runner, '--dir', `${ws}::/workspace`, '--stdlib', stdlibZip, ...extra,
        path.join(outDir, `${name}.wasm`)];
      let status = 0, stdout = '', stderr = '';
      try {
        ({ stdout, stderr } = await run(process.execPath, args, { maxBuffer: 1 << 24 }));
      } catch (err) {
        if (typeof err.code !== 'number') throw err;
        ({ code: status, stdout, stderr } = err);
      }
      const context = `\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`;
      assert.equal(status, e.exit, `exit code${context}`);
      if (e.stdout !== null) assert.equal(stdout, e.stdout, `stdout${context}`);
      for (const s of e.stderrHas) assert.ok(stderr.includes(s), `stderr should contain ${JSON.stringify(s)}${context}`);
      for (const [rel, content] of e.files) {
        const p = path.join(ws, rel);
        if (content === null) assert.ok(!fs.existsSync(p), `${rel} should be gone`);
        else assert.equal(fs.readFileSync(p, 'utf8'), content, rel);
      }
    });
  }
});
