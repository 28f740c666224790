// The members of a ustar archive (compile_intl's /stdlib tars): 512-byte headers, name at 0 (100 bytes), size at 124
// (octal). For bench/intl-all-locales.mjs and bench/intl-lzma/run.mjs.
import { execFileSync } from "node:child_process";

export function readTar(buf) {
  const out = new Map();
  for (let off = 0; off + 512 <= buf.length; ) {
    const name = buf.toString("latin1", off, off + 100).replace(/\0.*$/s, "");
    if (!name) break;
    const size = parseInt(buf.toString("latin1", off + 124, off + 136).replace(/\0.*$/s, "").trim() || "0", 8);
    out.set(name, buf.subarray(off + 512, off + 512 + size));
    off += 512 + Math.ceil(size / 512) * 512;
  }
  return out;
}

// The Intl chunks of a /stdlib archive as "intl/<chunk>.qbc" -> bytes: the members themselves in an archive that stores
// each chunk as a member (before the groups), or, in one with intl/index (docs/intl.md, "How they are stored"), each
// chunk cut from its group, the LZMA2 groups decoded by the `xz` command. Other members are left out.
export function readChunks(buf) {
  const members = readTar(buf);
  const index = members.get("intl/index");
  if (!index) return new Map([...members].filter(([n]) => n.startsWith("intl/") && n.endsWith(".qbc")));
  if (index.toString("latin1", 0, 4) !== "SWI1") throw new Error("intl/index: not an SWI1 index");
  const [width, groups, chunks] = [4, 8, 12].map((o) => index.readUInt32LE(o));
  const name = (at) => index.toString("latin1", at, at + width).replace(/\0.*$/s, "");
  const raw = [];
  for (let g = 0, at = 16; g < groups; g++, at += width + 8) {
    const group = name(at), size = index.readUInt32LE(at + width), method = index.readUInt32LE(at + width + 4);
    if (method === 0) { raw.push(members.get(`intl/${group}.bin`)); continue; }
    const dict = Math.max(4096, 2 ** Math.ceil(Math.log2(Math.max(size, 1))));
    raw.push(execFileSync("xz", ["-d", "-c", "--format=raw", `--lzma2=dict=${dict}`],
      { input: members.get(`intl/${group}.xz`), maxBuffer: 1 << 30 }));
  }
  const out = new Map();
  for (let c = 0, at = 16 + groups * (width + 8); c < chunks; c++, at += width + 12) {
    const [g, offset, length] = [0, 4, 8].map((o) => index.readUInt32LE(at + width + o));
    out.set(`intl/${name(at)}.qbc`, raw[g].subarray(offset, offset + length));
  }
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
