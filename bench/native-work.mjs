#!/usr/bin/env node
// Benchmark (not a test): adversarial JavaScript programs whose time goes into QuickJS's native builtins (issue 13
// part 2), through the real runtime in Node: worker-shim/core.js handleRequest (stateless POST /execute) with the
// real JavaScript engine (engines/javascript/engine.js) and the production fuel budget (50,000,000). Per program: wall
// seconds until the response (result or ExecutionLimitError), fuel consumed, and seconds per 50M fuel
// (= wall × 50M / fuel): how long a program that does only this could run on one budget. The first row, a plain
// `for (;;) {}`, is the baseline (the cheapest bytecode); "× base" is each row's seconds per 50M over the baseline's.
// The "ordinary" rows are everyday programs that complete: their fuel shows what metering the builtins costs them.
// The rows after `s.repeat` are per-call native work: promise jobs and await resumptions, generators, Proxy traps and
// getters (a function called from native code), callbacks from builtins, locale/case/normalization methods, Error
// backtraces, and compiling source (eval). A row that completes quickly carries the request's fixed cost (~15-20 ms:
// `fib(27)`, pure bytecode, shows it), which inflates its "× base"; a row that ends in ExecutionLimitError does not.
//
// Each program is a bounded loop (so that it ends even when the builtin is not metered) sized to run ~0.2–2 s
// unmetered on a 2-core EPYC; metered, most end earlier in ExecutionLimitError.
//
//   node bench/native-work.mjs [--only 'substring|substring...'] [--reps 3]
import { parseArgs } from "node:util";
import "../worker-shim/testing.js";

const { handleRequest } = await import("../worker-shim/core.js");
const { javascriptEngine } = await import("../engines/javascript/engine.js");
const { values: opts } = parseArgs({ options: { only: { type: "string" }, reps: { type: "string", default: "3" } } });

const S = 'const s = "x".repeat(1e7);';
const PROGRAMS = [
  ["for (;;) {} (baseline)", "for (;;) {}"],
  ["loop 1e7 i++", "let i = 0; while (i < 1e7) i++; i"],
  // Ordinary programs (they complete): how much fuel they take, and how fast they burn it.
  ["ordinary: fib(27)", "function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) } fib(27)"],
  ["ordinary: str += x 1e5", "let s = ''; for (let j = 0; j < 1e5; j++) s += String.fromCharCode(97 + j % 26); s.length"],
  ["ordinary: smoke.mjs mix", "function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) } let s = 0; for (let j = 0; j < 200000; j++) s += j % 7; let str = ''; for (let j = 0; j < 20000; j++) str += String.fromCharCode(97 + j % 26); const o = JSON.parse(JSON.stringify(Array.from({ length: 2000 }, (_, j) => ({ j, s: 'x' + j })))); [fib(20), s, str.length, o.length]"],
  ["ordinary: sort 1e4 with comparator", "const a = Array.from({ length: 1e4 }, (_, i) => (i * 7919) % 1e4); a.sort((x, y) => x - y)[5]"],
  ["Array(1e6).fill(0) x200", "for (let i = 0; i < 200; i++) new Array(1e6).fill(0); 1"],
  ["fill of a 1e6 array x500", "const a = new Array(1e6).fill(0); for (let i = 0; i < 500; i++) a.fill(i); 1"],
  ["Array.from({length:1e6}) x30", "for (let i = 0; i < 30; i++) Array.from({ length: 1e6 }); 1"],
  ["sort((a,b)=>a-b) 3e5 x5", "const a = Array.from({ length: 3e5 }, (_, i) => (i * 7919) % 3e5); for (let i = 0; i < 5; i++) a.slice().sort((x, y) => x - y); 1"],
  ["sort() of 2e5 strings x3", "const a = Array.from({ length: 2e5 }, (_, i) => 's' + ((i * 7919) % 2e5)); for (let i = 0; i < 3; i++) a.slice().sort(); 1"],
  ["sort() of 2e5 numbers x3", "const a = Array.from({ length: 2e5 }, (_, i) => (i * 7919) % 2e5); for (let i = 0; i < 3; i++) a.slice().sort(); 1"],
  ['"x".repeat(2e5).split("") x50', 'for (let i = 0; i < 50; i++) "x".repeat(2e5).split(""); 1'],
  ["indexOf miss, 1e7 chars x200", S + ' let n = 0; for (let i = 0; i < 200; i++) n += s.indexOf("y"); n'],
  ["includes miss, 1e7 chars x200", S + ' let n = 0; for (let i = 0; i < 200; i++) n += s.includes("xy"); n'],
  ["lastIndexOf miss, 1e7 chars x200", S + ' let n = 0; for (let i = 0; i < 200; i++) n += s.lastIndexOf("y"); n'],
  ["indexOf xxxxy (naive worst) x20", S + ' let n = 0; for (let i = 0; i < 20; i++) n += s.indexOf("x".repeat(100) + "y"); n'],
  ["JSON.stringify 1e5 array x30", "const a = Array.from({ length: 1e5 }, (_, i) => ({ i, s: 'v' + i })); let n = 0; for (let i = 0; i < 30; i++) n += JSON.stringify(a).length; n"],
  ["JSON.parse 3 MB x30", "const t = JSON.stringify(Array.from({ length: 1e5 }, (_, i) => ({ i, s: 'v' + i }))); let n = 0; for (let i = 0; i < 30; i++) n += JSON.parse(t).length; n"],
  ["/a*b/.test(a x1e5) x20", 'const s = "a".repeat(1e5); let n = 0; for (let i = 0; i < 20; i++) n += /a*b/.test(s); n'],
  ["/(a+)+$/ catastrophic", '/^(a+)+$/.test("a".repeat(100) + "!")'],
  ["regex global scan 1e7 x20", S + ' let n = 0; for (let i = 0; i < 20; i++) n += /y/g.test(s); n'],
  ["join 1e6 x50", "const a = new Array(1e6).fill('ab'); let n = 0; for (let i = 0; i < 50; i++) n += a.join(',').length; n"],
  ["concat 3e5 x300", "const a = new Array(3e5).fill(1); for (let i = 0; i < 300; i++) a.concat(a); 1"],
  ["slice 5e5 x300", "const a = new Array(5e5).fill(1); for (let i = 0; i < 300; i++) a.slice(); 1"],
  ["splice(0,1) of 1e6 x300", "const a = new Array(1e6).fill(1); for (let i = 0; i < 300; i++) { a.splice(0, 1); a.push(1); } 1"],
  ["copyWithin 1e6 x300", "const a = new Array(1e6).fill(1); for (let i = 0; i < 300; i++) a.copyWithin(0, 1); 1"],
  ["Uint8Array(1e7).fill x300", "const a = new Uint8Array(1e7); for (let i = 0; i < 300; i++) a.fill(i); 1"],
  ["Uint8Array.set 1e7 x300", "const a = new Uint8Array(1e7), b = new Uint8Array(1e7); for (let i = 0; i < 300; i++) a.set(b); 1"],
  ["Uint8Array.slice 1e7 x300", "const a = new Uint8Array(1e7); for (let i = 0; i < 300; i++) a.slice(); 1"],
  ["Float64Array(1e6).sort x20", "const a = Float64Array.from({ length: 1e6 }, (_, i) => (i * 7919) % 1e6); for (let i = 0; i < 20; i++) a.slice().sort(); 1"],
  ["replace in 1e7 chars x100", S + ' let n = 0; for (let i = 0; i < 100; i++) n += s.replace("y", "z").length; n'],
  ["replaceAll 1e6 chars x20", 'const s = "x".repeat(1e6); let n = 0; for (let i = 0; i < 20; i++) n += s.replaceAll("x", "yz").length; n'],
  ["Object.keys 2e5 keys x100", "const o = {}; for (let i = 0; i < 2e5; i++) o['k' + i] = i; let n = 0; for (let i = 0; i < 100; i++) n += Object.keys(o).length; n"],
  ["Array includes miss 1e6 x300", "const a = new Array(1e6).fill(1); let n = 0; for (let i = 0; i < 300; i++) n += a.includes(2); n"],
  ["Array indexOf miss 1e6 x300", "const a = new Array(1e6).fill(1); let n = 0; for (let i = 0; i < 300; i++) n += a.indexOf(2); n"],
  ["BigInt mul 2^1e6 x20", "const a = 3n ** 200000n; let n = 0n; for (let i = 0; i < 20; i++) n += (a * a) & 1n; n"],
  ["BigInt toString 3^2e5 x5", "const a = 3n ** 200000n; let n = 0; for (let i = 0; i < 5; i++) n += a.toString().length; n"],
  ["new Map(1e5 entries) x30", "const e = Array.from({ length: 1e5 }, (_, i) => [i, i]); let n = 0; for (let i = 0; i < 30; i++) n += new Map(e).size; n"],
  ["new Set(3e5) x30", "const e = Array.from({ length: 3e5 }, (_, i) => i); let n = 0; for (let i = 0; i < 30; i++) n += new Set(e).size; n"],
  ["s.repeat(1e7) x100", 'let n = 0; for (let i = 0; i < 100; i++) n += "ab".repeat(5e6).length; n'],
  // Per-call native work the bytecode counter does not see: promise jobs, resumptions, traps, callbacks from builtins.
  ["promise job chain 3e6", "let n = 0; function f() { if (++n < 3e6) Promise.resolve().then(f) } f(); 1"],
  ["promise jobs, 1e6 at once", "let n = 0; for (let i = 0; i < 1e6; i++) Promise.resolve(i).then((v) => { n += v }); 1"],
  ["await 0 loop 3e6", "(async () => { for (let i = 0; i < 3e6; i++) await 0 })(); 1"],
  ["async fn call+await 2e6", "async function g(i) { return i } (async () => { let n = 0; for (let i = 0; i < 2e6; i++) n += await g(i) })(); 1"],
  ["Promise.all of 2e5 x5", "(async () => { for (let r = 0; r < 5; r++) await Promise.all(Array.from({ length: 2e5 }, (_, i) => Promise.resolve(i))) })(); 1"],
  ["thenable resolve 1e6", "let n = 0; for (let i = 0; i < 1e6; i++) Promise.resolve({ then(r) { r(i) } }).then(() => { n++ }); 1"],
  ["generator yield 1e7", "function* g() { for (let i = 0; i < 1e7; i++) yield i } let n = 0; for (const x of g()) n += x; n"],
  ["async generator 1e6", "async function* g() { for (let i = 0; i < 1e6; i++) yield i } (async () => { let n = 0; for await (const x of g()) n += x })(); 1"],
  ["spread of a generator 1e6 x5", "function* g() { for (let i = 0; i < 1e6; i++) yield i } let n = 0; for (let r = 0; r < 5; r++) n += [...g()].length; n"],
  ["Proxy get trap 1e7", "const p = new Proxy({}, { get: () => 1 }); let n = 0; for (let i = 0; i < 1e7; i++) n += p.x; n"],
  ["Proxy has/set traps 5e6", "const p = new Proxy({}, { has: () => true, set: () => true }); let n = 0; for (let i = 0; i < 5e6; i++) { p.x = i; n += 'x' in p } n"],
  ["getter 1e7", "const o = { get x() { return 1 } }; let n = 0; for (let i = 0; i < 1e7; i++) n += o.x; n"],
  ["Array.from with a map 1e6 x20", "let n = 0; for (let i = 0; i < 20; i++) n += Array.from({ length: 1e6 }, (_, j) => j).length; n"],
  ["map/forEach/reduce 1e6 x10", "const a = new Array(1e6).fill(1); let n = 0; for (let i = 0; i < 10; i++) { a.forEach((v) => { n += v }); n += a.map((v) => v).reduce((x, y) => x + y) } n"],
  ["replace(/x/g, fn) 1e6 chars x10", 'const s = "x".repeat(1e6); let n = 0; for (let i = 0; i < 10; i++) n += s.replace(/x/g, () => "y").length; n'],
  ["toLocaleUpperCase 1e7 chars x50", 'const s = "x".repeat(1e7); let n = 0; for (let i = 0; i < 50; i++) n += s.toLocaleUpperCase().length; n'],
  ["localeCompare sort 2e5 x3", "const a = Array.from({ length: 2e5 }, (_, i) => 's' + ((i * 7919) % 2e5)); for (let i = 0; i < 3; i++) a.slice().sort((x, y) => x.localeCompare(y)); 1"],
  ["toLocaleString of numbers 1e6", "let n = 0; for (let i = 0; i < 1e6; i++) n += (i * 1.5).toLocaleString().length; n"],
  ["Date toLocaleString 3e5", "const d = new Date(0); let n = 0; for (let i = 0; i < 3e5; i++) n += d.toLocaleString().length; n"],
  ["normalize NFD 1e6 chars x20", 'const s = "\u00e9".repeat(1e6); let n = 0; for (let i = 0; i < 20; i++) n += s.normalize("NFD").length; n'],
  ["throw/catch new Error 1e6", "let n = 0; for (let i = 0; i < 1e6; i++) { try { throw new Error('e') } catch (e) { n++ } } n"],
  ["deep-stack new Error 1e5", "function d(k) { return k ? d(k - 1) : new Error('e') } let n = 0; for (let i = 0; i < 1e5; i++) n += d(200).stack.length; n"],
  ["eval of a fresh source 1e5", "let n = 0; for (let i = 0; i < 1e5; i++) n += eval('1 + ' + i); n"],
  ["eval of a 100 kB source x100", "const src = Array.from({ length: 5000 }, (_, i) => 'var v' + i + ' = ' + i + ' * 2;').join('\\n'); let n = 0; for (let i = 0; i < 100; i++) n += eval(src); n"],
  ["new RegExp of a fresh source 1e5", "let n = 0; for (let i = 0; i < 1e5; i++) n += new RegExp('a' + i + '(b|c)*d').source.length; n"],
  ["encodeURIComponent 1e7 chars x20", 'const s = "\u00e9 ".repeat(5e6); let n = 0; for (let i = 0; i < 20; i++) n += encodeURIComponent(s).length; n'],
  // Calls (every call into JS, from bytecode or from native code) and the remaining builtins (branch `fuelcalls`).
  // These run until the budget is spent where they can, so the request's fixed cost does not inflate their ratio.
  ["fib(35) (calls, until the budget)", "function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) } fib(35)"],
  ["empty function call 3e7", "function f() {} for (let i = 0; i < 3e7; i++) f(); 1"],
  ["native call Math.abs 3e7", "let n = 0; for (let i = 0; i < 3e7; i++) n = Math.abs(i); n"],
  ["new of a class 1e7", "class C { constructor(x) { this.x = x } } let n = 0; for (let i = 0; i < 1e7; i++) n += new C(i).x; n"],
  ["closure call with 6 args 2e7", "const f = (a, b, c, d, e, g) => a; let n = 0; for (let i = 0; i < 2e7; i++) n += f(i, 1, 2, 3, 4, 5); n"],
  ["getter 3e7", "const o = { get x() { return 1 } }; let n = 0; for (let i = 0; i < 3e7; i++) n += o.x; n"],
  ["setter 3e7", "const o = { set x(v) { } }; for (let i = 0; i < 3e7; i++) o.x = i; 1"],
  ["Proxy get trap 3e7", "const p = new Proxy({}, { get: () => 1 }); let n = 0; for (let i = 0; i < 3e7; i++) n += p.x; n"],
  ["Proxy has/set traps 2e7", "const p = new Proxy({}, { has: () => true, set: () => true }); let n = 0; for (let i = 0; i < 2e7; i++) { p.x = i; n += 'x' in p } n"],
  ["generator yield 3e7", "function* g() { for (let i = 0; i < 3e7; i++) yield i } let n = 0; for (const x of g()) n += x; n"],
  ["iterator protocol next() 2e7", "const it = { i: 0, next() { return { done: this.i++ > 2e7, value: 1 } }, [Symbol.iterator]() { return this } }; let n = 0; for (const x of it) n += x; n"],
  ["forEach 1e6 x50", "const a = new Array(1e6).fill(1); let n = 0; for (let i = 0; i < 50; i++) a.forEach((v) => { n += v }); n"],
  ["valueOf coercion 3e7", "const o = { valueOf() { return 1 } }; let n = 0; for (let i = 0; i < 3e7; i++) n += o * 1; n"],
  ["toString coercion 1e7", "const o = { toString() { return 'a' } }; let n = 0; for (let i = 0; i < 1e7; i++) n += ('' + o).length; n"],
  ["JSON.parse reviver 1e5 x20", "const t = JSON.stringify(Array.from({ length: 1e5 }, (_, i) => ({ i }))); let n = 0; for (let i = 0; i < 20; i++) n += JSON.parse(t, (k, v) => v).length; n"],
  ["toUpperCase 1e7 chars x50", 'const s = "x".repeat(1e7); let n = 0; for (let i = 0; i < 50; i++) n += s.toUpperCase().length; n'],
  ["toLowerCase of wide chars 1e7 x50", 'const s = "\u0100".repeat(1e7); let n = 0; for (let i = 0; i < 50; i++) n += s.toLowerCase().length; n'],
  ["encodeURIComponent 1e6 chars x200", 'const s = "\u00e9 ".repeat(5e5); let n = 0; for (let i = 0; i < 200; i++) n += encodeURIComponent(s).length; n'],
  ["decodeURIComponent 3e6 chars x100", 'const s = "%C3%A9".repeat(5e5); let n = 0; for (let i = 0; i < 100; i++) n += decodeURIComponent(s).length; n'],
  ["escape 1e6 chars x200", 'const s = "\u00e9 ".repeat(5e5); let n = 0; for (let i = 0; i < 200; i++) n += escape(s).length; n'],
  ["unescape 3e6 chars x100", 'const s = "%u00e9".repeat(5e5); let n = 0; for (let i = 0; i < 100; i++) n += unescape(s).length; n'],
  ["new RegExp of a fresh 1 kB source 1e4", "const b = 'a(b|c)*d'.repeat(125); let n = 0; for (let i = 0; i < 1e4; i++) n += new RegExp(b + i).source.length; n"],
  ["new RegExp (?:a{1000}){1000} 1e3 (compiles without expanding)", "let n = 0; for (let i = 0; i < 1e3; i++) { try { new RegExp('(?:a{1000}){1000}' + i) } catch (e) { n++ } } n"],
  ["new RegExp (?:a{1000}){1000} 3e4 (the same, long enough to be more than the fixed cost)", "let n = 0; for (let i = 0; i < 3e4; i++) { try { new RegExp('(?:a{1000}){1000}' + i) } catch (e) { n++ } } n"],
  ["regex exec of a short match 1e7", "const r = /b/; let n = 0; for (let i = 0; i < 1e7; i++) n += r.test('ab'); n"],
  ["split(/,/) of 1e6 chars x20", 'const s = "x,".repeat(5e5); let n = 0; for (let i = 0; i < 20; i++) n += s.split(/,/).length; n'],
  ["replace(/x/g, fn) 1e5 chars x100", 'const s = "x".repeat(1e5); let n = 0; for (let i = 0; i < 100; i++) n += s.replace(/x/g, () => "y").length; n'],
  ["matchAll 1e5 matches x50", 'const s = "x".repeat(1e5); let n = 0; for (let i = 0; i < 50; i++) for (const m of s.matchAll(/x/g)) n++; n'],
  ["deep prototype chain miss (1e4 deep) x1e5", "let o = {}; for (let i = 0; i < 1e4; i++) o = Object.create(o); let n = 0; for (let i = 0; i < 1e5; i++) n += o.x === undefined; n"],
  ["'in' over a deep prototype chain x1e5", "let o = {}; for (let i = 0; i < 1e4; i++) o = Object.create(o); let n = 0; for (let i = 0; i < 1e5; i++) n += 'x' in o; n"],
  ["with over a deep prototype chain x1e5", "let o = {}; for (let i = 0; i < 1e4; i++) o = Object.create(o); let n = 0; for (let i = 0; i < 1e5; i++) with (o) { n += typeof zz === 'undefined' } n"],
  ["set through a deep prototype chain x1e5", "let o = {}; for (let i = 0; i < 1e4; i++) o = Object.create(o); for (let i = 0; i < 1e5; i++) { const c = Object.create(o); c.x = i } 1"],
  ["Object.entries 5e4 keys x200", "const o = {}; for (let i = 0; i < 5e4; i++) o['k' + i] = i; let n = 0; for (let i = 0; i < 200; i++) n += Object.entries(o).length; n"],
  ["Reflect.ownKeys 2e5 keys x100", "const o = {}; for (let i = 0; i < 2e5; i++) o['k' + i] = i; let n = 0; for (let i = 0; i < 100; i++) n += Reflect.ownKeys(o).length; n"],
  ["Object.assign copy 1e5 keys x100", "const o = {}; for (let i = 0; i < 1e5; i++) o['k' + i] = i; let n = 0; for (let i = 0; i < 100; i++) n += Object.keys(Object.assign({}, o)).length; n"],
  ["object spread copy 1e5 keys x100", "const o = {}; for (let i = 0; i < 1e5; i++) o['k' + i] = i; let n = 0; for (let i = 0; i < 100; i++) n += ({ ...o }).k5; n"],
  ["f.apply of 6e4 args x1e3", "const a = new Array(6e4).fill(1); function f() { return arguments.length } let n = 0; for (let i = 0; i < 1e3; i++) n += f.apply(null, a); n"],
  ["Math.max(...6e4) x1e3", "const a = new Array(6e4).fill(1); let n = 0; for (let i = 0; i < 1e3; i++) n += Math.max(...a); n"],
  ["array spread [...a] 1e6 x50", "const a = new Array(1e6).fill(1); let n = 0; for (let i = 0; i < 50; i++) n += [...a].length; n"],
  ["flat of 1e6 x30", "const a = Array.from({ length: 1e3 }, () => new Array(1e3).fill(1)); let n = 0; for (let i = 0; i < 30; i++) n += a.flat().length; n"],
  ["Int32Array sort 1e6 x20", "const a = Int32Array.from({ length: 1e6 }, (_, i) => (i * 7919) % 1e6); for (let i = 0; i < 20; i++) a.slice().sort(); 1"],
  ["Float64Array set+slice 1e6 x300", "const a = new Float64Array(1e6), b = new Float64Array(1e6); for (let i = 0; i < 300; i++) { a.set(b); a.slice(1) } 1"],
  ["BigInt add 2^1e6 x1e4", "const a = (1n << 1000000n) - 1n; let n = 0n; for (let i = 0; i < 1e4; i++) n += (a + a) & 1n; n"],
  ["BigInt shift 2^1e6 x1e4", "const a = (1n << 1000000n) - 1n; let n = 0n; for (let i = 0; i < 1e4; i++) n += (a << 1n) & 1n; n"],
  ["BigInt divide 2^1e6 / 2^3e5 x20", "const a = (1n << 1000000n) - 1n, b = (1n << 300000n) - 3n; let n = 0n; for (let i = 0; i < 20; i++) n += (a / b) & 1n; n"],
  ["BigInt toString(16) 2^1e6 x100", "const a = (1n << 1000000n) - 1n; let n = 0; for (let i = 0; i < 100; i++) n += a.toString(16).length; n"],
  ["throw/catch a number 1e7", "let n = 0; for (let i = 0; i < 1e7; i++) { try { throw i } catch (e) { n++ } } n"],
  ["GC: allocate with a near-full heap", "const keep = []; try { for (;;) keep.push({ a: keep.length }) } catch (e) { } keep.length = keep.length * 0.9 | 0; let n = 0; for (let i = 0; i < 1e7; i++) n += [i].length; n"],
  ["Promise.all of 2e4 x50", "(async () => { for (let r = 0; r < 50; r++) await Promise.all(Array.from({ length: 2e4 }, (_, i) => Promise.resolve(i))) })(); 1"],
];

async function run(code) {
  const t0 = performance.now();
  const response = await handleRequest(javascriptEngine, new Request("https://runtime.internal/execute", {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ code }),
  }), {});
  const body = await response.json();
  const s = (performance.now() - t0) / 1000;
  const outcome = body.error ? `${body.error.name}: ${body.error.message}`.slice(0, 60)
    : body.results?.[0] ? JSON.stringify(body.results[0].text ?? body.results[0].json).slice(0, 30) : "(no result)";
  // An ExecutionLimitError response carries no usage: the whole budget was spent.
  const fuel = body.usage?.fuelConsumed ?? (body.error?.name === "ExecutionLimitError" ? 50_000_000 : NaN);
  return { s, fuel, outcome };
}

await run("1 + 1"); // warm-up (compiles the modules)
// The box is shared and its load moves within seconds, so every run of a program is paired with a run of the
// baseline right before it, and "× base" is the median over the pairs of (program s per 50M) / (baseline s per 50M).
const BASELINE = PROGRAMS[0][1];
const rows = [];
const baseRuns = [];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const perOf = (r) => (r.fuel > 0 ? (r.s * 50e6) / r.fuel : Infinity);
console.log("| program | wall s | fuel | s per 50M | × base | outcome |\n| --- | --- | --- | --- | --- | --- |");
for (const [name, code] of PROGRAMS) {
  if (opts.only && !opts.only.split("|").some((o) => name.includes(o)) && !name.includes("baseline")) continue;
  const runs = [], ratios = [];
  for (let r = 0; r < Number(opts.reps); r++) {
    const b = await run(BASELINE);
    baseRuns.push(perOf(b));
    const p = code === BASELINE ? b : await run(code);
    runs.push(p);
    ratios.push(perOf(p) / perOf(b));
  }
  runs.sort((a, b) => a.s - b.s);
  const { s, fuel, outcome } = runs[Math.floor(runs.length / 2)];
  const per = perOf({ s, fuel });
  const x = median(ratios);
  rows.push({ name, s, fuel, per, x, outcome });
  console.log(`| ${name} | ${s.toFixed(3)} | ${fuel.toLocaleString("en-US")} | ${per === Infinity ? "∞" : fmt(per)} | ${x === Infinity ? "∞" : fmt(x) + "x"} | ${outcome} |`);
}
const base = median(baseRuns);
// The worst adversarial row (the baseline and the "ordinary"/counting-loop rows are references, not adversaries).
const worst = rows.filter((r) => !r.name.startsWith("ordinary") && !r.name.startsWith("loop") && r !== rows[0])
  .reduce((w, r) => (r.x > w.x ? r : w), { x: 0 });
const show = (r) => `${r.name}: ${r.per === Infinity ? "∞" : fmt(r.per)} s per 50M (${r.x === Infinity ? "∞" : fmt(r.x) + "x"} the baseline)`;
const loop = rows.find((r) => r.name.startsWith("loop"));
console.log(`\nbaseline ${fmt(base)} s per 50M (median of ${baseRuns.length} runs); counting loop: ${loop ? show(loop) : "-"}; worst adversarial: ${worst.name ? show(worst) : "-"}`);
