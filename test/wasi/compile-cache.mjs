// Compiles a C/C++ test guest with clang-16 for wasm32-wasi, cached outside the checkout by content: the key is the
// compiler's command line, the source, the local headers it includes and the Debian changelogs of the toolchain
// packages (a package update recompiles). A fresh clone whose guests match an earlier run compiles nothing; the
// WASI suites compile ~140 programs, about a minute of both cores (issue 25: a faster npm test).
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const cacheDir = path.join(process.env.SW_CACHE ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'sandbox-workers'), 'wasi-guests');
const toolchainDocs = ['clang-16', 'lld-16', 'wasi-libc', 'libc++-16-dev-wasm32', 'libc++abi-16-dev-wasm32', 'libclang-rt-16-dev-wasm32']
  .map((p) => `/usr/share/doc/${p}/changelog.Debian.gz`);
let toolchainHash;

function toolchain() {
  if (!toolchainHash) {
    const h = crypto.createHash('sha256');
    for (const f of toolchainDocs) h.update(`${f}\0`).update(fs.existsSync(f) ? fs.readFileSync(f) : Buffer.alloc(0));
    toolchainHash = h.digest('hex');
  }
  return toolchainHash;
}

/**
 * compile(compiler, args, src, headers, out): `compiler ...args src -o out`, from the cache when the same inputs were
 * compiled before. `headers` are the local headers the source may include (their content joins the key). Throws
 * what execFile throws on a compile error (err.stderr holds the diagnostics).
 */
export async function compile(compiler, args, src, headers, out) {
  const h = crypto.createHash('sha256').update(toolchain()).update(`${compiler}\0${args.join('\0')}\0`);
  for (const f of [src, ...headers]) h.update(`${path.basename(f)}\0`).update(fs.readFileSync(f));
  const cached = path.join(cacheDir, `${h.digest('hex').slice(0, 32)}.wasm`);
  if (fs.existsSync(cached)) {
    fs.copyFileSync(cached, out);
    return;
  }
  await run(compiler, [...args, src, '-o', out]);
  fs.mkdirSync(cacheDir, { recursive: true });
  const tmp = `${cached}.tmp.${process.pid}`;  // rename: a concurrent or interrupted run never leaves half a file
  fs.copyFileSync(out, tmp);
  fs.renameSync(tmp, cached);
}
