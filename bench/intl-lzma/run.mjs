// bench/intl-lzma-decoder.sh: decodes chunks (raw LZMA2, xz -9e, dictionary the size of the input) in the metered
// decoder reactor and prints the fuel each costs (the JavaScript engine's scale: weight per unit, sw_fuel_scale).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { readChunks } from "./tar.mjs";

const [wasmPath, archive, ...names] = process.argv.slice(2);
const tar = fs.readFileSync(archive);
const members = readChunks(tar);
const groups = names.length ? names.map((n) => n.split("+")) : [["data-datetimeformat-fr"], ["data-numberformat-sv"], ["tz"],
  [...members.keys()].filter((n) => /^intl\/data-datetimeformat-(fr|ko|sv|yo|kk)(-|\.)/.test(n)).map((n) => n.slice(5, -4))];
let charged = 0;
const { instance } = await WebAssembly.instantiate(fs.readFileSync(wasmPath), {
  sandbox: { charge: (n) => { charged += n; } },
  wasi_snapshot_preview1: new Proxy({}, { get: () => () => 52 }),
});
const e = instance.exports;
const scale = e.sw_fuel_scale.value, batch = e.sw_fuel_batch.value;
const fuel = () => charged + Math.floor((batch - e.sw_fuel_left.value) / scale);
for (const g of groups) {
  const raw = Buffer.concat(g.map((n) => { const b = members.get(`intl/${n}.qbc`); if (!b) throw new Error(`no chunk ${n}`); return b; }));
  const dict = Math.max(4096, 2 ** Math.ceil(Math.log2(raw.length)));
  const xz = execFileSync("xz", ["-T1", "-c", "--format=raw", `--lzma2=preset=9e,dict=${dict}`], { input: raw, maxBuffer: 1 << 30 });
  const inp = e.buf(xz.length), out = e.buf(raw.length);
  new Uint8Array(e.memory.buffer, inp, xz.length).set(xz);
  const before = fuel();
  const n = e.dec(inp, xz.length, out, raw.length, dict);
  const spent = fuel() - before;
  const ok = n === raw.length && Buffer.from(new Uint8Array(e.memory.buffer, out, raw.length)).equals(raw);
  console.log(`${g.length === 1 ? g[0] : `${g.length} chunks (${g[0]}, ...)`}: ${raw.length} bytes from ${xz.length} (xz), ` +
    `${ok ? "decoded" : "DECODE FAILED"}, ${spent.toLocaleString("en-US")} fuel, ${(spent / raw.length * 1000).toFixed(1)} fuel per KB`);
  if (!ok) process.exitCode = 1;
}
