#!/usr/bin/env node
// Runs a wasm32-wasi command module under OUR WASI host (the C++ core in worker-shim/generated/core.wasm).
//
//   node scripts/wasi-run.mjs [--dir HOST::GUEST]... [--env K=V]... [--arg A]... [options] module.wasm [-- args...]
//
// --dir HOST::GUEST  copy the host directory into the in-memory tree at GUEST (absolute) and write the guest's
//                    changes back on exit; GUEST /workspace is the sandbox workspace (protocol §7.11 limits), any other path
//                    (`/` included: absolute guest paths then resolve in it) is an extra read-write preopen after the
//                    fixed ones. `--dir DIR` means DIR::/workspace. With --full-wasi, symlinks are copied both ways.
// --stdlib FILE      mount FILE (stored zip or tar) as /stdlib
// --fuel N           meter `sandbox.tick` with a budget of N
// --capture          capture stdout/stderr under the protocol §3.3 limits and print them at exit (default: pass through)
// --disable-workspace  start with /workspace disabled (every guest access fails with EACCES)
// --full-wasi        run the real implementations instead of the protocol §5.4 EPERM overrides (poll_oneoff, ftruncate…)
//
// The guest's stdout/stderr go to ours; our exit code is the guest's (134 after a trap or a limit, with a message).
import fs from 'node:fs';
import path from 'node:path';

function usage(message) {
  if (message) process.stderr.write(`wasi-run: ${message}\n`);
  process.stderr.write('usage: node scripts/wasi-run.mjs [--dir HOST::GUEST]... [--env K=V]... [--arg A]... ' +
    '[--stdlib FILE] [--fuel N] [--capture] [--disable-workspace] [--full-wasi] module.wasm [-- args...]\n');
  process.exit(2);
}

function parseArgs(argv) {
  const o = {
    dirs: [], env: [], args: [], stdlib: null, fuel: -1, capture: false, fullWasi: false, disableWorkspace: false,
    module: null,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => (i + 1 < argv.length ? argv[++i] : usage(`${a} needs a value`));
    if (a === '--dir') {
      const v = value();
      const sep = v.indexOf('::');
      const host = sep < 0 ? v : v.slice(0, sep);
      const guest = sep < 0 ? '/workspace' : v.slice(sep + 2);
      if (!guest.startsWith('/') || (guest !== '/' && guest.endsWith('/'))) usage(`bad guest path: ${guest}`);
      if (['/stdlib', '/dev'].includes(guest)) usage(`${guest} is reserved`);
      o.dirs.push({ host: path.resolve(host), guest });
    } else if (a === '--env') o.env.push(value());
    else if (a === '--arg') o.args.push(value());
    else if (a === '--stdlib') o.stdlib = value();
    else if (a === '--fuel') {
      o.fuel = Number(value());
      if (!Number.isSafeInteger(o.fuel) || o.fuel < 0) usage('--fuel needs a non-negative integer');
    }
    else if (a === '--capture') o.capture = true;
    else if (a === '--full-wasi') o.fullWasi = true;
    else if (a === '--disable-workspace') o.disableWorkspace = true;
    else if (a === '--help' || a === '-h') usage();
    else if (a === '--') { o.args.push(...argv.slice(i + 1)); break; }
    else if (a.startsWith('--')) usage(`unknown option ${a}`);
    else if (!o.module) o.module = a;
    else o.args.push(a);
  }
  if (!o.module) usage('no module');
  return o;
}

const cString = (core, p) => { let e = p; while (core.HEAPU8[e]) e++; return Buffer.from(core.HEAPU8.subarray(p, e)).toString(); };

// Host directory -> [{ rel, dir, link, data }] (pre-order; a symlink's data is its target, only with `links`).
function walkHost(dir, links, rel = '') {
  const out = [];
  for (const ent of fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const r = rel ? `${rel}/${ent.name}` : ent.name;
    if (ent.isDirectory()) { out.push({ rel: r, dir: true }); out.push(...walkHost(dir, links, r)); }
    else if (ent.isFile()) out.push({ rel: r, dir: false, data: fs.readFileSync(path.join(dir, r)) });
    else if (ent.isSymbolicLink() && links) out.push({ rel: r, link: true, data: Buffer.from(fs.readlinkSync(path.join(dir, r))) });
  }
  return out;
}

// A guest path below a preopen's guest path (`/` included).
const guestJoin = (guest, rel) => (guest === '/' ? `/${rel}` : `${guest}/${rel}`);

async function main() {
  const o = parseArgs(process.argv.slice(2));
  // The core as the engine tests and tools load it, with the sw_wasi_fs_dump decoder (core-harness.mjs).
  const { core, encoder, withBytes, fsDump, makeImportObject, bindGuestMemory, unbindGuestMemory, WasiTrap, TrapKind } =
    await import('../engines/javascript/test/core-harness.mjs');

  let archive = 0;
  if (o.stdlib) {
    archive = withBytes(fs.readFileSync(o.stdlib), (p, n) => core._sw_wasi_archive_new(p, n));
    if (!archive) { process.stderr.write(`wasi-run: ${o.stdlib}: ${cString(core, core._sw_wasi_error())}\n`); return 2; }
  }
  const config = {
    args: [path.basename(o.module), ...o.args],
    env: o.env,
    workspace: o.dirs.some((d) => d.guest === '/workspace'),
    preopens: o.dirs.filter((d) => d.guest !== '/workspace').map((d) => d.guest),
    stdio: o.capture ? 'capture' : 'passthrough',
    referencePolicy: !o.fullWasi,
  };
  const host = withBytes(encoder.encode(JSON.stringify(config)), (p, n) => core._sw_wasi_host_new(p, n, archive));
  if (!host) { process.stderr.write(`wasi-run: ${cString(core, core._sw_wasi_error())}\n`); return 2; }
  if (o.fuel >= 0) core._sw_wasi_fuel_reset(host, o.fuel);
  core.wasiStdio = (h, fd, bytes) => fs.writeSync(fd, bytes);

  const seeded = new Map();
  for (const d of o.dirs) {
    const entries = walkHost(d.host, o.fullWasi);
    seeded.set(d, entries);
    for (const e of entries) {
      const guestPath = encoder.encode(guestJoin(d.guest, e.rel));
      const err = e.dir
        ? withBytes(guestPath, (p, n) => core._sw_wasi_fs_mkdir(host, p, n))
        : withBytes(guestPath, (p, n) => withBytes(e.data, (dp, dn) => (e.link
          ? core._sw_wasi_fs_symlink(host, p, n, dp, dn)
          : core._sw_wasi_fs_write(host, p, n, dp, dn))));
      if (err) { process.stderr.write(`wasi-run: cannot copy ${path.join(d.host, e.rel)} (errno ${err})\n`); return 2; }
    }
  }

  if (o.disableWorkspace) core._sw_wasi_set_workspace_disabled(host, 1);

  let module;
  try {
    module = new WebAssembly.Module(fs.readFileSync(o.module));
  } catch (e) {
    process.stderr.write(`wasi-run: ${o.module}: ${e.message}\n`);
    return 2;
  }
  let code = 0;
  try {
    const instance = new WebAssembly.Instance(module, makeImportObject(core, host, module));
    bindGuestMemory(core, host, instance.exports.memory);
    if (typeof instance.exports._start !== 'function') throw new Error('not a WASI command module (no _start)');
    instance.exports._start();
  } catch (e) {
    if (e instanceof WasiTrap && e.kind === TrapKind.Exit) code = e.exitCode;
    else {
      process.stderr.write(`wasi-run: ${e instanceof WasiTrap ? `${e.name}: ${e.message}` : (e?.stack ?? e)}\n`);
      code = 134;
    }
  } finally {
    unbindGuestMemory(core, host);
  }

  if (o.capture) {
    for (const fd of [1, 2]) {
      const p = core._sw_wasi_output(host, fd);
      fs.writeSync(fd, core.HEAPU8.subarray(p, p + core._sw_wasi_scratch_len(host)));
    }
  }

  // Write the guest's changes back: every file and directory, and remove what the guest removed.
  for (const d of o.dirs) {
    const now = fsDump(host, d.guest) ?? [];
    const present = new Set(now.map((e) => e.rel));
    for (const e of now) {
      const target = path.join(d.host, e.rel);
      const old = fs.lstatSync(target, { throwIfNoEntry: false });
      // Whatever the guest replaced by another kind of entry goes first (a symlink is never written through).
      if (old && (old.isSymbolicLink() || old.isDirectory() !== e.dir)) fs.rmSync(target, { recursive: true, force: true });
      if (e.dir) fs.mkdirSync(target, { recursive: true });
      else if (e.link) fs.symlinkSync(Buffer.from(e.data).toString(), target);
      else fs.writeFileSync(target, e.data);
    }
    for (const e of [...seeded.get(d)].reverse()) {
      if (!present.has(e.rel)) fs.rmSync(path.join(d.host, e.rel), { recursive: true, force: true });
    }
  }
  core._sw_wasi_host_free(host);
  if (archive) core._sw_wasi_archive_free(archive);
  return code;
}

process.exitCode = await main();
