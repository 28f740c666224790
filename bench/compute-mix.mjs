// Shared by bench/javascript.mjs (timing against quickjs-emscripten) and bench/fuel-programs.mjs (its fuel).
// The compute mix. A script whose completion value is a string, so both engines report the same thing. It stays well
// inside 50,000,000 fuel (one unit = one QuickJS operation, docs/fuel.md).
export const COMPUTE = `
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
let acc = 0;
for (let i = 0; i < 300000; i++) acc = (acc + i * i) % 1000003;
let s = "";
for (let i = 0; i < 30000; i++) s += String.fromCharCode(97 + (i % 26));
const words = s.split("a").map((w) => w.toUpperCase()).join("-").length;
const data = { items: Array.from({ length: 2000 }, (_, i) => ({ id: i, name: "item" + i, tags: ["x", "y", "z"], v: i / 3 })) };
let jsonLen = 0;
for (let k = 0; k < 5; k++) { const t = JSON.stringify(data); jsonLen += t.length + JSON.parse(t).items.length; }
const sorted = Array.from({ length: 20000 }, (_, i) => (i * 7919) % 20011).sort((a, b) => a - b)[100];
"fib=" + fib(24) + " acc=" + acc + " words=" + words + " json=" + jsonLen + " sorted=" + sorted
`;
