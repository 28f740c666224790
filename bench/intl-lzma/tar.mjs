// The members of a ustar archive (compile_intl's /stdlib tars): 512-byte headers, name at 0 (100 bytes), size at 124
// (octal). For bench/intl-all-locales.mjs and bench/intl-lzma/run.mjs.
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
