/* Native tests of the JavaScript driver at its C API: protocol §10.3 items 24-50 (47: Intl, from the chunks run.sh
 * extracts from build/stdlib.tar into SW_JS_INTL_DIR), and sessions (protocol §6.2, §10.5 items 106-113 as far as they run natively). Outcomes are compared as exact EngineOutcome JSON text where the text is
 * fully determined, by substring otherwise. Built with ASan+UBSan by run.sh. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../driver.h"
#include "quickjs.h"

static int failures, checks;

static char *run_env(const char *code, const char *env) {
  SwJs *js = sw_js_new(0, 0);
  if (!js) { fprintf(stderr, "sw_js_new failed\n"); exit(1); }
  char *out = NULL;
  uint32_t len = 0;
  int rc = sw_js_eval(js, code, (uint32_t)strlen(code), env, env ? (uint32_t)strlen(env) : 0, &out, &len);
  sw_js_free(js);
  if (rc != 0 || !out || strlen(out) != len) { fprintf(stderr, "sw_js_eval failed for %s\n", code); exit(1); }
  return out;
}

static char *run(const char *code) { return run_env(code, NULL); }

static void expect_eq(const char *what, const char *code, char *got, const char *want) {
  checks++;
  if (strcmp(got, want) != 0) {
    failures++;
    printf("FAIL %s\n  code: %s\n  want: %s\n  got:  %s\n", what, code, want, got);
  } else {
    printf("ok   %s\n", what);
  }
  sw_free(got);
}

static void expect_has(const char *what, const char *code, char *got, const char **parts) {
  checks++;
  for (const char **p = parts; *p; p++) {
    if (!strstr(got, *p)) {
      failures++;
      printf("FAIL %s\n  code: %s\n  missing: %s\n  got:  %.400s\n", what, code, *p, got);
      sw_free(got);
      return;
    }
  }
  printf("ok   %s\n", what);
  sw_free(got);
}

#define EQ(what, code, want) expect_eq(what, code, run(code), want)
#define EQ_ENV(what, code, env, want) expect_eq(what, code, run_env(code, env), want)
#define HAS(what, code, ...)                                 \
  do {                                                       \
    const char *parts_[] = {__VA_ARGS__, NULL};              \
    expect_has(what, code, run(code), parts_);               \
  } while (0)

#define NOLOGS "{\"logs\":{\"stdout\":[],\"stderr\":[]},"
#define FUEL_OUT                                                                                  \
  NOLOGS "\"results\":[],\"error\":{\"name\":\"ExecutionLimitError\",\"message\":\"Execution fuel " \
         "exhausted\",\"traceback\":[]}}"

/* --- sessions (protocol §6.2 "Sessions (REPL)", §10.5 items 106-114 as far as they run natively) --------------------- */

static SwJs *g_session;

static char *session_run(const char *code, const char *env, const char *cwd) {
  char *out = NULL;
  uint32_t len = 0;
  int rc = sw_js_session_eval(g_session, code, (uint32_t)strlen(code), env, env ? (uint32_t)strlen(env) : 0, cwd,
                              cwd ? (uint32_t)strlen(cwd) : 0, &out, &len);
  if (rc != 0 || !out || strlen(out) != len) { fprintf(stderr, "sw_js_session_eval failed for %s\n", code); exit(1); }
  return out;
}

static char *srun(const char *code) { return session_run(code, NULL, NULL); }

#define SEQ(what, code, want) expect_eq(what, code, srun(code), want)
#define SHAS(what, code, ...)                                \
  do {                                                       \
    const char *parts_[] = {__VA_ARGS__, NULL};              \
    expect_has(what, code, srun(code), parts_);              \
  } while (0)
/* A session outcome without logs in the default cwd. */
#define SOUT(results) "{\"logs\":{\"stdout\":[],\"stderr\":[]},\"results\":[" results "],\"cwd\":\"/workspace\"}"
#define SOUT_IN(cwd, results) "{\"logs\":{\"stdout\":[],\"stderr\":[]},\"results\":[" results "],\"cwd\":\"" cwd "\"}"

static void session_tests(void) {
  char root[] = "/tmp/sw-js-session-XXXXXX";
  if (!mkdtemp(root)) { perror("mkdtemp"); exit(1); }
  char ws[sizeof root + 16];
  snprintf(ws, sizeof ws, "%s/workspace", root);
  if (mkdir(ws, 0777) != 0) { perror("mkdir"); exit(1); }
  sw_js_native_set_root(root);
  sw_js_native_fuel_reset(-1);
  g_session = sw_js_new(0, 0);

  /* 106, 107: top-level declarations persist, also in code with top-level await (no hoisting needed: QuickJS keeps a
   * global script's declarations global under JS_EVAL_FLAG_ASYNC). */
  SEQ("106 declarations", "var a = 1; let b = 2; const c = 3; class D { hi() { return 4; } }", SOUT(""));
  SEQ("106 ... persist", "a + b + c + new D().hi()", SOUT("{\"text\":\"10\"}"));
  SEQ("107 let with await", "let z = 5; await Promise.resolve(); z", SOUT("{\"text\":\"5\"}"));
  SEQ("107 ... persists", "z", SOUT("{\"text\":\"5\"}"));
  SEQ("await: const/function/class persist", "const q = await 7; function ff() { return q } class K {}", SOUT(""));
  SEQ("await: ... persist", "[q, ff(), typeof K]", SOUT("{\"json\":[7,7,\"function\"]}"));
  SHAS("redeclaring a let is a SyntaxError", "let z = 1", "\"name\":\"SyntaxError\"", "\"cwd\":\"/workspace\"");
  /* 113 */
  SEQ("113 var kept", "var kept = 1", SOUT(""));
  SHAS("113 TypeError", "null.x", "\"error\":{\"name\":\"TypeError\",\"message\":\"cannot read property 'x' of null\","
       "\"traceback\":[\"    at <eval> (<input>:1:", "\"cwd\":\"/workspace\"}");
  SEQ("113 kept after the error", "kept", SOUT("{\"text\":\"1\"}"));
  SHAS("sync throw: name, message, traceback", "function thrower() { throw new RangeError('deep') }\nthrower()",
       "\"error\":{\"name\":\"RangeError\",\"message\":\"deep\",\"traceback\":[\"    at thrower (<input>:1:",
       "at <eval> (<input>:2:");
  /* Logs and the result mapping as stateless. */
  expect_eq("logs + result", "console.log('o'); console.error('e'); 2n ** 64n",
            srun("console.log('o'); console.error('e'); 2n ** 64n"),
            "{\"logs\":{\"stdout\":[\"o\"],\"stderr\":[\"e\"]},\"results\":[{\"text\":\"18446744073709551616n\"}],"
            "\"cwd\":\"/workspace\"}");
  SEQ("never settles (as stateless)", "await new Promise(() => {})",
      "{\"logs\":{\"stdout\":[],\"stderr\":[]},\"results\":[],\"error\":{\"name\":\"Error\",\"message\":\"Execution did not "
      "complete: a promise never settled (timers and indefinitely pending promises are unsupported)\",\"traceback\":[]},"
      "\"cwd\":\"/workspace\"}");
  /* process.env rebuilt from envVars on every call. */
  expect_eq("env call 1", "process.env.A", session_run("process.env.A", "{\"A\":\"1\"}", NULL), SOUT("{\"text\":\"'1'\"}"));
  SEQ("env call 2: gone", "[typeof process.env.A, Object.keys(process.env).length]",
      SOUT("{\"json\":[\"undefined\",0]}"));
  /* 112 natively: a clean interrupt keeps the realm, with empty logs. */
  {
    SEQ("112 survivor", "var survivor = 42", SOUT(""));
    sw_js_native_fuel_reset(20 * (int64_t)sw_js_fuel_per_poll());
    SEQ("112 while (true) {} with logs", "console.log('lost'); while (true) {}",
        "{\"logs\":{\"stdout\":[],\"stderr\":[]},\"results\":[],\"error\":{\"name\":\"ExecutionLimitError\",\"message\":"
        "\"Execution fuel exhausted\",\"traceback\":[]},\"cwd\":\"/workspace\"}");
    sw_js_native_fuel_reset(-1);
    SEQ("112 survivor after the interrupt", "survivor", SOUT("{\"text\":\"42\"}"));
    /* A budget spent by filesystem work with no interrupt poll after it is still the limit. */
    sw_js_native_fuel_reset(500);
    SHAS("fs work is metered", "fs.existsSync('/workspace')", "\"message\":\"Execution fuel exhausted\"");
    sw_js_native_fuel_reset(-1);
  }
  /* 108/109 (the host side of 108 runs under the WASI host: session.test.mjs). */
  SEQ("108 write + read", "fs.writeFileSync('/workspace/a.txt', 'hi'); fs.readFileSync('/workspace/a.txt', 'utf8')",
      SOUT("{\"text\":\"'hi'\"}"));
  SEQ("109 ENOENT", "try { fs.readFileSync('/workspace/missing.txt') } catch (e) { e.code }",
      SOUT("{\"text\":\"'ENOENT'\"}"));
  SEQ("Node-style error fields", "try { fs.readFileSync('missing') } catch (e) { [e instanceof Error, e.message, e.errno, e.syscall, e.path] }",
      SOUT("{\"json\":[true,\"ENOENT: no such file or directory, open 'missing'\",-2,\"open\",\"missing\"]}"));
  /* 110 */
  SEQ("110 mkdir + chdir", "fs.mkdirSync('/workspace/sub'); process.chdir('sub')", SOUT_IN("/workspace/sub", ""));
  SEQ("110 cwd persists", "process.cwd()", SOUT_IN("/workspace/sub", "{\"text\":\"'/workspace/sub'\"}"));
  SEQ("relative paths resolve against the cwd", "fs.writeFileSync('rel.txt', 'r'); fs.existsSync('/workspace/sub/rel.txt')",
      SOUT_IN("/workspace/sub", "{\"text\":\"true\"}"));
  /* 111, with a module importing its sibling relative to its own directory. */
  SEQ("111 import()", "fs.writeFileSync('/workspace/lib.mjs', 'export const v = 7'); const m = await import('../lib.mjs'); m.v",
      SOUT_IN("/workspace/sub", "{\"text\":\"7\"}"));
  SEQ("static imports resolve against the module's directory",
      "fs.mkdirSync('/workspace/pkg'); fs.writeFileSync('/workspace/pkg/dep.js', 'export default 40');"
      "fs.writeFileSync('/workspace/pkg/main.mjs', 'import d from \"./dep.js\"; import c from \"./c.json\"; export const r = d + c.two; export const url = import.meta.url');"
      "fs.writeFileSync('/workspace/pkg/c.json', '{\"two\": 2, \"__proto__\": 0}');"
      "const mm = await import('/workspace/pkg/main.mjs'); [mm.r, mm.url, Object.keys((await import('/workspace/pkg/c.json')).default)]",
      SOUT_IN("/workspace/sub", "{\"json\":[42,\"file:///workspace/pkg/main.mjs\",[\"two\",\"__proto__\"]]}"));
  SEQ("module not registered", "const nr = []; for (const s of ['lodash', 'node:fs', './nope.mjs', '/workspace/a.txt', '../../../etc/x.js', './'])"
      " try { await import(s) } catch (e) { nr.push(e.message) } nr",
      SOUT_IN("/workspace/sub", "{\"json\":[\"module not registered: lodash\",\"module not registered: node:fs\","
              "\"module not registered: ./nope.mjs\",\"module not registered: /workspace/a.txt\","
              "\"module not registered: ../../../etc/x.js\",\"module not registered: ./\"]}"));
  SEQ("chdir errors", "const ce = []; for (const d of ['/workspace/a.txt', 'nope', '../..', '']) try { process.chdir(d) } catch (e) { ce.push(e.code) } [ce, process.cwd()]",
      SOUT_IN("/workspace/sub", "{\"json\":[[\"ENOTDIR\",\"ENOENT\",\"EACCES\",\"ENOENT\"],\"/workspace/sub\"]}"));
  SEQ("chdir back up", "process.chdir('..'); process.cwd()", SOUT("{\"text\":\"'/workspace'\"}"));
  /* The host's cwd (a restored or re-booted instance) is applied before the call; invalid ones are ignored. */
  expect_eq("host cwd applied", "process.cwd()", session_run("process.cwd()", NULL, "/workspace/sub"),
            SOUT_IN("/workspace/sub", "{\"text\":\"'/workspace/sub'\"}"));
  expect_eq("host cwd outside /workspace ignored", "process.cwd()", session_run("process.cwd()", NULL, "/etc"),
            SOUT_IN("/workspace/sub", "{\"text\":\"'/workspace/sub'\"}"));
  expect_eq("host cwd normalized", "process.cwd()", session_run("process.cwd()", NULL, "/workspace/sub/../."),
            SOUT("{\"text\":\"'/workspace'\"}"));
  /* The rest of the fs subset. */
  SEQ("readdirSync", "fs.readdirSync('/workspace')", SOUT("{\"json\":[\"a.txt\",\"lib.mjs\",\"pkg\",\"sub\"]}"));
  SEQ("readdirSync withFileTypes", "fs.readdirSync('.', { withFileTypes: true }).map(d => [d.name, d.isFile(), d.isDirectory(), d.parentPath])",
      SOUT("{\"json\":[[\"a.txt\",true,false,\"/workspace\"],[\"lib.mjs\",true,false,\"/workspace\"],"
           "[\"pkg\",false,true,\"/workspace\"],[\"sub\",false,true,\"/workspace\"]]}"));
  SEQ("statSync", "const st = fs.statSync('a.txt'); [st.size, st.isFile(), st.isDirectory(), st.mtimeMs > 0, fs.statSync('/workspace').isDirectory(), fs.statSync('nope', { throwIfNoEntry: false })]",
      SOUT("{\"json\":[2,true,false,true,true,null]}"));
  SEQ("mkdirSync recursive", "[fs.mkdirSync('m/n/o', { recursive: true }), fs.mkdirSync('m/n', { recursive: true }), fs.mkdirSync('/workspace')]",
      SOUT("{\"json\":[\"/workspace/m\",null,null]}"));
  SEQ("mkdirSync errors", "const me = []; for (const [p, o] of [['m'], ['q/r'], ['a.txt/x', { recursive: true }]]) try { fs.mkdirSync(p, o) } catch (e) { me.push(e.code) } me",
      SOUT("{\"json\":[\"EEXIST\",\"ENOENT\",\"ENOTDIR\"]}"));
  SEQ("rmSync", "const re = []; for (const [p, o] of [['/workspace'], ['m'], ['nope'], ['nope', { force: true }], ['m', { recursive: true }]]) try { fs.rmSync(p, o); re.push('ok') } catch (e) { re.push(e.code) } [re, fs.existsSync('m')]",
      SOUT("{\"json\":[[\"EACCES\",\"EISDIR\",\"ENOENT\",\"ok\",\"ok\"],false]}"));
  SEQ("renameSync", "fs.renameSync('a.txt', 'sub/b.txt'); const rn = []; for (const [x, y] of [['a.txt', 'c'], ['/workspace', 'c'], ['sub', '/workspace']]) try { fs.renameSync(x, y) } catch (e) { rn.push(e.code) } [fs.existsSync('a.txt'), fs.readFileSync('sub/b.txt', 'utf-8'), rn]",
      SOUT("{\"json\":[false,\"hi\",[\"ENOENT\",\"EACCES\",\"EACCES\"]]}"));
  SEQ("existsSync never throws", "[fs.existsSync('/workspace'), fs.existsSync('/'), fs.existsSync('../x'), fs.existsSync(7), fs.existsSync(''), fs.existsSync('sub')]",
      SOUT("{\"json\":[true,false,false,false,false,true]}"));
  SEQ("bytes round trip", "fs.writeFileSync('bin', new Uint8Array([0, 1, 255]).subarray(1)); const by = fs.readFileSync('bin'); [by instanceof Uint8Array, Array.from(by), Array.from(fs.readFileSync('bin', { encoding: 'latin1' }))]",
      SOUT("{\"json\":[true,[1,255],[1,255]]}"));
  SEQ("ArrayBuffer and UTF-8 (lone surrogate -> U+FFFD)", "fs.writeFileSync('ab', new Uint8Array([104, 105]).buffer); fs.writeFileSync('u', '\\u00e9\\ud800'); [fs.readFileSync('ab', 'UTF8'), Array.from(fs.readFileSync('u'))]",
      SOUT("{\"json\":[\"hi\",[195,169,239,191,189]]}"));
  SEQ("path validation", "const pv = []; for (const f of [() => fs.readFileSync('../etc/passwd'), () => fs.readFileSync(''), () => fs.readFileSync(1), () => fs.readFileSync('a\\0b'), () => fs.writeFileSync('x', 5), () => fs.readFileSync('sub'), () => fs.readdirSync('bin'), () => fs.writeFileSync('/workspace', '')]) try { f() } catch (e) { pv.push(e.code) } pv",
      SOUT("{\"json\":[\"EACCES\",\"ENOENT\",\"ENOENT\",\"ERR_INVALID_ARG_VALUE\",\"ERR_INVALID_ARG_TYPE\",\"EISDIR\",\"ENOTDIR\",\"EISDIR\"]}"));
  SEQ("require", "[require('fs') === fs, require('node:fs') === fs, require('process') === process, (() => { try { require('path') } catch (e) { return e.message } })()]",
      SOUT("{\"json\":[true,true,true,\"module not registered: path\"]}"));
  SEQ("only fs and require are added", "Object.getOwnPropertyNames(globalThis).filter(k => ['fs', 'require', 'process', 'console'].includes(k)).sort()",
      SOUT("{\"json\":[\"console\",\"fs\",\"process\",\"require\"]}"));
  /* A collection at a large live heap must not disable the cycle collector for the rest of the session (the
   * malloc_gc_threshold patch in scripts/build-engines.sh): a 29 MiB peak, then ~60 MB of cyclic garbage. */
  SEQ("GC after a large peak: the peak", "var peak = []; for (let i = 0; i < 29; i++) peak.push(new ArrayBuffer(1 << 20)); peak = null",
      SOUT("{\"text\":\"null\"}"));
  SEQ("GC after a large peak: cycles are still collected",
      "let cyc = 0; for (let i = 0; i < 300000; i++) { const a = {}; const b = { a }; a.b = b; a.pad = [i, i, i, i, i, i, i, i]; cyc++ } cyc",
      SOUT("{\"text\":\"300000\"}"));
  SEQ("TypeScript in a session", "const tsv: number = 3; interface I { x: number }\ntsv", SOUT("{\"text\":\"3\"}"));
  SEQ("TypeScript declarations persist", "tsv + 1", SOUT("{\"text\":\"4\"}"));
  SEQ("a TypeScript namespace in a session", "namespace Cfg { export const port: number = 80 }\nCfg.port", SOUT("{\"text\":\"80\"}"));
  SEQ("a namespace persists and merges", "namespace Cfg { export const host = 'h' }\n[Cfg.port, Cfg.host]",
      SOUT("{\"json\":[80,\"h\"]}"));
  SEQ("await as an identifier in a session", "var await = 9; await", SOUT("{\"text\":\"9\"}"));
  sw_js_free(g_session);

  /* Stateless handles are unchanged: no fs, no require, chdir unsupported. */
  EQ("stateless: no fs/require", "[typeof fs, typeof require]", NOLOGS "\"results\":[{\"json\":[\"undefined\",\"undefined\"]}]}");
  HAS("stateless: chdir unsupported", "process.chdir('/workspace')", "\"name\":\"TypeError\"",
      "process.chdir() is not supported in stateless execution");
  HAS("stateless: import() is a clean Error", "await import('./x.mjs')", "\"error\":{\"name\":\"Error\"",
      "module not registered: ./x.mjs");
  EQ("stateless: import() is catchable", "let r; try { await import('lodash') } catch (e) { r = [e instanceof Error, e.name, e.message] } r",
     NOLOGS "\"results\":[{\"json\":[true,\"Error\",\"module not registered: lodash\"]}]}");

  sw_js_native_set_root(NULL);
  char cmd[sizeof root + 16];
  snprintf(cmd, sizeof cmd, "rm -rf %s", root);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root);
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* --- Intl (docs/intl.md): the driver's lazy global, chunk loading and locale-method stubs ---------------------------- */

static void intl_tests(void) {
  const char *dir = getenv("SW_JS_INTL_DIR");
  checks++;
  if (!dir || !*dir) {
    failures++;
    printf("FAIL Intl: SW_JS_INTL_DIR is not set (run.sh extracts the chunks)\n");
    return;
  }
  printf("ok   Intl chunks in %s\n", dir);
  /* 47 */ EQ("47 Intl.NumberFormat ja-JP JPY", "new Intl.NumberFormat(\"ja-JP\", { style: \"currency\", currency: \"JPY\" }).format(1234)",
             NOLOGS "\"results\":[{\"text\":\"'\xef\xbf\xa5" "1,234'\"}]}"); /* U+FFE5 FULLWIDTH YEN SIGN */
  EQ("Intl: the locale methods load it", "[(1234.5).toLocaleString(\"de-DE\"), (12n).toLocaleString(\"en\"), new Date(0).toLocaleDateString(\"en-US\")].join(\" \")",
     NOLOGS "\"results\":[{\"text\":\"'1.234,5 12 1/1/1970'\"}]}");
  EQ("Intl: replaced before use", "Intl = 5; [Intl, (1234.5).toLocaleString(\"de\")].join()",
     NOLOGS "\"results\":[{\"text\":\"'5,1.234,5'\"}]}");
  HAS("Intl: a bad option is a guest RangeError", "new Intl.NumberFormat(\"en\", { style: \"bogus\" })",
      "\"results\":[]", "\"error\":{\"name\":\"RangeError\"");
  EQ("Intl: an unsupported locale falls back to en-US", "new Intl.NumberFormat(\"tlh\").resolvedOptions().locale",
     NOLOGS "\"results\":[{\"text\":\"'en-US'\"}]}");

  /* Out of fuel while Intl loads (at points from the namespace's build to a DateTimeFormat's data), then the same
   * session goes on using it. */
  for (int polls = 10; polls <= 320; polls *= 2) { /* 320 polls: under what the program needs (320-640) */
    g_session = sw_js_new(0, 0);
    if (!g_session) { fprintf(stderr, "sw_js_new failed\n"); exit(1); }
    char what[96];
    sw_js_native_fuel_reset(polls * (int64_t)sw_js_fuel_per_poll());
    snprintf(what, sizeof what, "Intl: the fuel limit (%d polls) stops its loading", polls);
    SEQ(what, "new Intl.DateTimeFormat(\"en\").format(0) + (1.5).toLocaleString(\"fr\")",
        "{\"logs\":{\"stdout\":[],\"stderr\":[]},\"results\":[],\"error\":{\"name\":\"ExecutionLimitError\",\"message\":\"Execution fuel "
        "exhausted\",\"traceback\":[]},\"cwd\":\"/workspace\"}");
    sw_js_native_fuel_reset(-1);
    snprintf(what, sizeof what, "Intl: usable after the load interrupted at %d polls", polls);
    SEQ(what, "var dtf = new Intl.DateTimeFormat(\"de-DE\", { timeZone: \"Asia/Tokyo\", timeStyle: \"short\" }); dtf.format(0) + \" \" + (1.5).toLocaleString(\"fr\")",
        SOUT("{\"text\":\"'09:00 1,5'\"}"));
    snprintf(what, sizeof what, "Intl: its objects persist across evals (%d polls)", polls);
    SEQ(what, "dtf.format(3600000)", SOUT("{\"text\":\"'10:00'\"}"));
    sw_js_free(g_session);
    g_session = NULL;
  }

  /* No chunks: no Intl, and QuickJS's own locale methods. */
  char *saved = strdup(dir);
  setenv("SW_JS_INTL_DIR", "/nonexistent-sw-intl", 1);
  EQ("Intl: absent without its chunks", "[typeof Intl, (1234.5).toLocaleString(\"de\")].join()",
     NOLOGS "\"results\":[{\"text\":\"'undefined,1234.5'\"}]}");
  setenv("SW_JS_INTL_DIR", saved, 1);
  free(saved);
}

/* --- out of memory while a backtrace is built (engines/javascript/patches/corebug-backtrace-oom.patch) -----------
 * QuickJS's build_backtrace decorates rt->current_exception in place; an allocation failing inside it threw "out of
 * memory" through JS_Throw, which freed the error being decorated (ASan: heap-use-after-free in JS_DefineProperty;
 * in engine.wasm a "memory access out of bounds" trap). Here a runtime whose allocator fails the n-th allocation of
 * a call (once, or that one and every later one) runs a function that throws a TypeError from bytecode and catches
 * it, for every n up to past the call's last allocation: every call must end cleanly (the caught TypeError, or an
 * exception), the TypeError must survive a failing backtrace, and the runtime must stay usable. */

static long g_fail_at = -1; /* index of the allocation that fails; -1: none */
static long g_alloc_index;
static int g_fail_sticky;

static int oom_fails(void) {
  return g_fail_at >= 0 && (g_alloc_index++ == g_fail_at || (g_fail_sticky && g_alloc_index > g_fail_at));
}
/* ES2025+ features added by patches/iterator-helpers, promise-all-keyed, array-from-async, regexp-modifiers, iterator-zip
 * and dynamic-import-options: values, under ASan. */
static void esnext_tests(void) {
  EQ("iterator helpers: map/filter/take/drop/reduce/flatMap/concat",
     "[[1, 2, 3, 4].values().map((x) => x * 2).filter((x) => x > 2).toArray(), Iterator.from({ i: 0, next() { return { done: this.i > 2, value: this.i++ } } }).take(2).toArray(), [5, 6, 7].values().drop(1).reduce((a, b) => a + b), [1, 2].values().flatMap((x) => [x, x * 10]).toArray(), [...Iterator.concat([1], new Set([2, 3]))]]",
     NOLOGS "\"results\":[{\"json\":[[4,6,8],[0,1],13,[1,10,2,20],[1,2,3]]}]}");
  EQ("iterator helpers: return() closes, a re-entrant next() throws",
     "const log = []; const src = { __proto__: Iterator.prototype, next() { try { m.next() } catch (e) { log.push(e.name) } return { done: false, value: 1 } }, return() { log.push('closed'); return {} } }; const m = src.map((x) => x); m.next(); m.return(); [log, m.next().done, Object.prototype.toString.call(m), typeof Iterator.prototype[Symbol.dispose]]",
     NOLOGS "\"results\":[{\"json\":[[\"TypeError\",\"closed\"],true,\"[object Iterator Helper]\",\"function\"]}]}");
  EQ("iterator helpers: chunks/windows/includes/join",
     "[[...[1, 2, 3, 4, 5].values().chunks(2)], [...[1, 2, 3, 4].values().windows(3)], [1, 2, 3].values().includes(2), [1, null, 3].values().join('-')]",
     NOLOGS "\"results\":[{\"json\":[[[1,2],[3,4],[5]],[[1,2,3],[2,3,4]],true,\"1--3\"]}]}");
  EQ("Promise.allKeyed/allSettledKeyed",
     "const a = await Promise.allKeyed({ a: Promise.resolve(1), b: 2 }); const s = await Promise.allSettledKeyed({ x: Promise.reject(new Error('no')), y: 1 }); [Object.getPrototypeOf(a), a, s.x.status, s.x.reason.message, s.y]",
     NOLOGS "\"results\":[{\"json\":[null,{\"a\":1,\"b\":2},\"rejected\",\"no\",{\"status\":\"fulfilled\",\"value\":1}]}]}");
  EQ("Array.fromAsync",
     "[await Array.fromAsync([Promise.resolve(1), 2]), await Array.fromAsync({ length: 2, 0: 'a', 1: Promise.resolve('b') }), await Array.fromAsync((async function* () { yield 1; yield 2 })(), async (x) => x * 10)]",
     NOLOGS "\"results\":[{\"json\":[[1,2],[\"a\",\"b\"],[10,20]]}]}");
  EQ("Array.fromAsync: a throwing mapper closes the iterator and rejects",
     "let closed = false; const it = { [Symbol.asyncIterator]() { return { next: async () => ({ done: false, value: 1 }), return: async () => { closed = true; return {} } } } }; let r; try { await Array.fromAsync(it, () => { throw new Error('m') }) } catch (e) { r = e.message } [r, closed]",
     NOLOGS "\"results\":[{\"json\":[\"m\",true]}]}");
  EQ("RegExp modifiers: (?i:) (?-i:) (?m:) (?s:)",
     "[/(?i:a)b/.test('Ab'), /(?i:a)b/.test('AB'), /a(?-i:b)/i.test('aB'), /^a\\n(?m:^b$)\\nc$/.test('a\\nb\\nc'), /(?s:.)/.test('\\n'), /(?i:(a))\\1/.test('Aa')]",
     NOLOGS "\"results\":[{\"json\":[true,false,false,true,true,false]}]}");
  EQ("RegExp /ui: \\p{Lu} canonicalized, \\b with U+017F",
     "[/\\p{Lu}/ui.test('a'), /(?i:\\p{Lu})/u.test('a'), /\\b/ui.test('\\u017f'), /\\b/i.test('\\u017f'), /\\W/ui.test('s')]",
     NOLOGS "\"results\":[{\"json\":[true,true,true,false,false]}]}");
  EQ("Iterator.zip/zipKeyed",
     "[Iterator.zip([[1, 2, 3], [4, 5]]).toArray(), Iterator.zip([[1], [2, 3]], { mode: 'longest', padding: [0, 0] }).toArray(), Iterator.zipKeyed({ a: [1], b: [2] }).toArray()]",
     NOLOGS "\"results\":[{\"json\":[[[1,4],[2,5]],[[1,2],[0,3]],[{\"a\":1,\"b\":2}]]}]}");
  EQ("import() options, import.source()",
     "await Promise.all([import('./x.mjs', 1), import('./x.mjs', { with: { type: 'json' } }), import.source('./x.mjs'), import('./x.mjs', {},)].map((p) => p.then(() => 'ok', (e) => e.name)))",
     NOLOGS "\"results\":[{\"json\":[\"TypeError\",\"SyntaxError\",\"SyntaxError\",\"Error\"]}]}");
}

static void *oom_malloc(JSMallocState *s, size_t n) {
  if (oom_fails()) return NULL;
  void *p = malloc(n);
  if (p) { s->malloc_count++; s->malloc_size += malloc_usable_size(p); }
  return p;
}
static void oom_free(JSMallocState *s, void *p) {
  if (!p) return;
  s->malloc_count--;
  s->malloc_size -= malloc_usable_size(p);
  free(p);
}
static void *oom_realloc(JSMallocState *s, void *p, size_t n) {
  if (!p) return oom_malloc(s, n);
  if (n == 0) { oom_free(s, p); return NULL; }
  if (oom_fails()) return NULL;
  size_t old = malloc_usable_size(p);
  void *q = realloc(p, n);
  if (q) { s->malloc_size += malloc_usable_size(q); s->malloc_size -= old; }
  return q;
}
static size_t oom_usable_size(const void *p) { return malloc_usable_size((void *)p); }

static void backtrace_oom_tests(void) {
  static const JSMallocFunctions mf = {oom_malloc, oom_free, oom_realloc, oom_usable_size};
  for (int sticky = 0; sticky <= 1; sticky++) {
    JSRuntime *rt = JS_NewRuntime2(&mf, NULL);
    JSContext *ctx = rt ? JS_NewContext(rt) : NULL;
    if (!ctx) { fprintf(stderr, "JS_NewContext failed\n"); exit(1); }
    const char *src = "(function f() { try { undefined.x } catch (e) { return e } })";
    JSValue fn = JS_Eval(ctx, src, strlen(src), "<backtrace-oom>", JS_EVAL_TYPE_GLOBAL);
    long caught = 0, lost = 0, thrown = 0, other = 0, last = 0;
    g_fail_sticky = sticky;
    for (long n = 0; n < 100; n++) {
      g_alloc_index = 0;
      g_fail_at = n;
      JSValue v = JS_Call(ctx, fn, JS_UNDEFINED, 0, NULL);
      g_fail_at = -1;
      if (g_alloc_index > n) last = n; /* the n-th allocation was reached (so it failed) */
      if (JS_IsException(v)) {
        JS_FreeValue(ctx, JS_GetException(ctx));
        thrown++;
      } else {
        const char *name = NULL;
        if (JS_IsError(ctx, v)) {
          JSValue nv = JS_GetPropertyStr(ctx, v, "name");
          name = JS_ToCString(ctx, nv);
          JS_FreeValue(ctx, nv);
        }
        if (name && strcmp(name, "TypeError") == 0) caught++;
        else if ((name && strcmp(name, "InternalError") == 0) || JS_IsNull(v)) lost++; /* the TypeError's own allocation */
        else other++;
        JS_FreeCString(ctx, name);
      }
      JS_FreeValue(ctx, v);
    }
    JSValue two = JS_Eval(ctx, "1 + 1", 5, "<after>", JS_EVAL_TYPE_GLOBAL);
    int32_t two_i = 0;
    JS_ToInt32(ctx, &two_i, two);
    JS_FreeValue(ctx, two);
    JS_FreeValue(ctx, fn);
    JS_FreeContext(ctx);
    JS_FreeRuntime(rt);
    checks++;
    /* Every allocation of the call failed once: last < 99 means the sweep went past the call's last allocation. */
    if (other != 0 || two_i != 2 || last >= 99 || caught < 1) {
      failures++;
      printf("FAIL backtrace out of memory (%s): caught %ld TypeErrors, %ld exceptions, %ld other values, last failing "
             "allocation %ld, %ld out of memory, 1 + 1 = %d\n", sticky ? "every allocation from n on" : "the n-th allocation",
             caught, thrown, other, last, lost, two_i);
    } else {
      printf("ok   backtrace out of memory (%s fails, n = 0..%ld): %ld TypeErrors caught, %ld out of memory, %ld threw\n",
             sticky ? "every allocation from the n-th on" : "the n-th allocation", last, caught, lost, thrown);
    }
  }
}

int main(void) {
  sw_js_native_fuel_reset(-1);

  /* 24 */ EQ("24 1 + 1", "1 + 1;", NOLOGS "\"results\":[{\"text\":\"2\"}]}");
  /* 25 */ EQ("25 array", "[1, 2, 3]", NOLOGS "\"results\":[{\"json\":[1,2,3]}]}");
  EQ("25 object", "({ a: 1 })", NOLOGS "\"results\":[{\"json\":{\"a\":1}}]}");
  /* 26 */ EQ("26 string", "'hi'", NOLOGS "\"results\":[{\"text\":\"'hi'\"}]}");
  EQ("26 quoting", "'it\\'s a \\\\ \"q\"'", NOLOGS "\"results\":[{\"text\":\"'it\\\\'s a \\\\\\\\ \\\"q\\\"'\"}]}");
  /* 27 */ EQ("27 bigint", "2n ** 64n", NOLOGS "\"results\":[{\"text\":\"18446744073709551616n\"}]}");
  /* 28 */ EQ("28 undefined", "undefined", NOLOGS "\"results\":[]}");
  EQ("28 no expression", "let x = 1;", NOLOGS "\"results\":[]}");
  EQ("null is text", "null", NOLOGS "\"results\":[{\"text\":\"null\"}]}");
  EQ("boolean", "1 < 2", NOLOGS "\"results\":[{\"text\":\"true\"}]}");
  /* 29 */ EQ("29 await + bigint member", "await Promise.resolve({ n: 1, big: 2n ** 64n })",
             NOLOGS "\"results\":[{\"json\":{\"n\":1,\"big\":\"18446744073709551616n\"}}]}");
  EQ("await a chain", "const f = async (x) => x * 2; await f(await f(1))", NOLOGS "\"results\":[{\"text\":\"4\"}]}");
  /* 30 */ HAS("30 return is a SyntaxError", "return 1", "\"results\":[]", "\"name\":\"SyntaxError\"");
  /* 31 */ EQ("31 function", "function f() { return 2 } f()", NOLOGS "\"results\":[{\"text\":\"2\"}]}");
  /* 32 */ HAS("32 TypeError", "throw new TypeError(\"oops\")", "\"results\":[]",
               "\"error\":{\"name\":\"TypeError\",\"message\":\"oops\",\"traceback\":[\"    at <eval> (<input>:1:");
  /* 33 */ EQ("33 console streams",
              "console.log(\"a\"); console.info(\"b\"); console.debug(\"c\"); console.warn(\"d\"); console.error(\"e\")",
              "{\"logs\":{\"stdout\":[\"a\",\"b\",\"c\"],\"stderr\":[\"d\",\"e\"]},\"results\":[]}");
  /* 34 */ EQ("34 one newline stripped", "console.log(\"x\\n\"); console.error(\"y\\n\"); console.log(\"z\\n\\n\")",
              "{\"logs\":{\"stdout\":[\"x\",\"z\\n\"],\"stderr\":[\"y\"]},\"results\":[]}");
  EQ("console display forms", "console.log('s', 1, 2n, null, undefined, {a: [1, 2n]}, true, NaN, Symbol('q'))",
     "{\"logs\":{\"stdout\":[\"s 1 2n null undefined {\\\"a\\\":[1,\\\"2n\\\"]} true NaN Symbol(q)\"],"
     "\"stderr\":[]},\"results\":[]}");
  /* 35 */ EQ_ENV("35 env", "console.log(\"hello\", process.env.NAME)", "{\"NAME\":\"world\"}",
                  "{\"logs\":{\"stdout\":[\"hello world\"],\"stderr\":[]},\"results\":[]}");
  /* 36 */ HAS("36 logs before a throw", "console.log(\"before\"); throw new Error(\"boom\")",
               "{\"logs\":{\"stdout\":[\"before\"],\"stderr\":[]},\"results\":[],\"error\":{\"name\":\"Error\","
               "\"message\":\"boom\"");
  /* 37 */ HAS("37 201 console.log", "for (let i = 0; i < 201; i++) console.log(i)", "\"199\"]",
               "\"error\":{\"name\":\"ExecutionLimitError\",\"message\":\"Output limit exceeded\",\"traceback\":[]}");
  HAS("37 limit sticks even if caught", "for (let i = 0; i < 300; i++) try { console.log(i) } catch {} 7",
      "\"results\":[],\"error\":{\"name\":\"ExecutionLimitError\",\"message\":\"Output limit exceeded\"");
  HAS("37 32,768 UTF-16 units", "console.log('x'.repeat(32768)); console.log('y')",
      "\"error\":{\"name\":\"ExecutionLimitError\",\"message\":\"Output limit exceeded\"");
  HAS("37 exactly 32,768 units fit", "console.log('\\u00e9'.repeat(32768)); 1", "\"results\":[{\"text\":\"1\"}]");
  /* 38 */ HAS("38 result limit", "\"a\".repeat(140000)",
               "\"results\":[],\"error\":{\"name\":\"ExecutionLimitError\",\"message\":\"Result limit exceeded\"");
  HAS("38 json result limit", "Array(70000).fill(1)", "\"message\":\"Result limit exceeded\"");

  /* 39, 40: fuel. The native meter charges sw_js_fuel_per_poll() units per interrupt poll (the stand-in for the
   * Wasm-level meter of engine.wasm, docs/fuel.md): one unit per interpreter operation (a backward jump, a conditional
   * branch, a call), a regex backtracking step weighing several. */
  {
    const uint32_t per_poll = sw_js_fuel_per_poll();
    checks++;
    if (per_poll != 1000) {
      failures++;
      printf("FAIL fuel per poll: want 1000 (QJS_FUEL_DEFINES in scripts/build-engines.sh), got %u\n", per_poll);
    } else {
      printf("ok   fuel per poll = %u (JS_INTERRUPT_COUNTER_INIT)\n", per_poll);
    }
    /* One unit per operation: a counted loop of n iterations costs 2n (a conditional branch and a jump), a top-level
     * `let` (a global variable) included: nothing else is counted. */
    {
      SwJs *js = sw_js_new(0, 0);
      char *out;
      uint32_t len;
      const char *warm = "0", *loop = "let i = 0; while (i < 1000000) i++; i";
      sw_js_native_fuel_reset(-1);
      sw_js_eval(js, warm, (uint32_t)strlen(warm), NULL, 0, &out, &len);
      sw_free(out);
      sw_js_native_fuel_reset(50000000);
      sw_js_eval(js, loop, (uint32_t)strlen(loop), NULL, 0, &out, &len);
      int64_t used = sw_js_native_fuel_consumed();
      printf("     (1e6 iterations: %lld units)\n", (long long)used);
      expect_eq("fuel: 1e6 loop iterations", loop, out, NOLOGS "\"results\":[{\"text\":\"1000000\"}]}");
      checks++;
      const int64_t want = 2000000;
      if (used < want - (int64_t)per_poll || used > want + (int64_t)per_poll || used % per_poll) {
        failures++;
        printf("FAIL fuel: 1e6 iterations should cost ~2,000,000 units in whole polls, got %lld\n", (long long)used);
      }
      /* A trivial script costs at most one poll's worth (the counter carries over between evaluations). */
      const char *tiny = "1 + 1";
      sw_js_native_fuel_reset(50000000);
      sw_js_eval(js, tiny, (uint32_t)strlen(tiny), NULL, 0, &out, &len);
      used = sw_js_native_fuel_consumed();
      expect_eq("fuel: 1 + 1", tiny, out, NOLOGS "\"results\":[{\"text\":\"2\"}]}");
      checks++;
      if (used > (int64_t)per_poll) {
        failures++;
        printf("FAIL fuel: 1 + 1 should cost at most %u units, got %lld\n", per_poll, (long long)used);
      }
      sw_js_free(js);
    }
    const char *loops[] = {"while (true) {}", "/^(a+)+$/.test(\"a\".repeat(100) + \"!\")",
                           "for (;;) { try { while (true) {} } catch (e) {} }",
                           "console.log('lost'); await new Promise(r => r()); while (true) {}", NULL};
    const char *names[] = {"39 while (true) {}", "40 catastrophic regex", "39 uncatchable by try/catch",
                           "39 after await, logs dropped"};
    for (int i = 0; loops[i]; i++) {
      sw_js_native_fuel_reset(20 * (int64_t)per_poll);
      double t0 = now_ms();
      char *got = run(loops[i]);
      printf("     (%.0f ms, %lld units)\n", now_ms() - t0, (long long)sw_js_native_fuel_consumed());
      expect_eq(names[i], loops[i], got, FUEL_OUT);
    }
    /* The same handle stays usable after an interrupt once the meter is reset. */
    SwJs *js = sw_js_new(0, 0);
    char *out;
    uint32_t len;
    sw_js_native_fuel_reset(4 * (int64_t)per_poll);
    const char *c1 = "globalThis.kept = 5; while (true) {}", *c2 = "kept + 1";
    sw_js_eval(js, c1, (uint32_t)strlen(c1), NULL, 0, &out, &len);
    expect_eq("39 interrupted", "while (true) {}", out, FUEL_OUT);
    sw_js_native_fuel_reset(per_poll);
    sw_js_eval(js, c2, (uint32_t)strlen(c2), NULL, 0, &out, &len);
    expect_eq("39 instance usable after interrupt", "kept + 1", out, NOLOGS "\"results\":[{\"text\":\"6\"}]}");
    sw_js_free(js);
    /* The headline budget: both runaway cases end as the limit error (timings printed; the wasm numbers are in
     * docs/fuel.md, this build is -O1 with sanitizers). */
    for (int i = 0; i < 2; i++) {
      sw_js_native_fuel_reset(50000000);
      double t0 = now_ms();
      char *got = run(loops[i]);
      printf("     (50,000,000 fuel: %.0f ms, %lld units)\n", now_ms() - t0, (long long)sw_js_native_fuel_consumed());
      expect_eq(i ? "40 catastrophic regex, 50,000,000 fuel" : "39 while (true) {}, 50,000,000 fuel", loops[i], got,
                FUEL_OUT);
    }
    sw_js_native_fuel_reset(-1);
  }

  /* 41 */ HAS("41 runaway recursion", "function f() { return 1 + f(); } f();",
               "\"error\":{\"name\":\"InternalError\",\"message\":\"stack overflow\"");
  HAS("41 catchable", "function f() { return 1 + f(); } try { f() } catch (e) { e.name }",
      "\"results\":[{\"text\":\"'InternalError'\"}]");
  /* 42 */ HAS("42 80 MiB allocation", "new Uint8Array(80 * 1024 * 1024).length", "\"results\":[],\"error\":{");
  HAS("42 heap cap", "const a = []; for (;;) a.push('x'.repeat(1e6) + a.length)", "\"error\":{\"name\":\"");
  /* 43 */ EQ("43 no fetch", "typeof fetch === \"undefined\" ? \"gone\" : \"present\"",
              NOLOGS "\"results\":[{\"text\":\"'gone'\"}]}");
  HAS("43 await fetch", "await fetch('https://example.com')", "\"name\":\"ReferenceError\"");
  EQ("43 no Web APIs", "[typeof URL, typeof setTimeout, typeof TextEncoder, typeof WebAssembly, typeof structuredClone]",
     NOLOGS "\"results\":[{\"json\":[\"undefined\",\"undefined\",\"undefined\",\"undefined\",\"undefined\"]}]}");
  /* 44 */ EQ("44 SAB/Atomics", "typeof SharedArrayBuffer + \",\" + typeof Atomics",
              NOLOGS "\"results\":[{\"text\":\"'undefined,undefined'\"}]}");
  /* 45 */ EQ_ENV("45 non-ASCII env", "process.env.NAME", "{\"NAME\":\"\xe4\xb8\x96\xe7\x95\x8c\"}",
                  NOLOGS "\"results\":[{\"text\":\"'\xe4\xb8\x96\xe7\x95\x8c'\"}]}");
  EQ("45 no HOME", "process.env.HOME", NOLOGS "\"results\":[]}");
  EQ_ENV("45 only string values", "Object.keys(process.env)", "{\"A\":\"1\",\"B\":2}",
         NOLOGS "\"results\":[{\"json\":[\"A\"]}]}");
  /* 46 */
  {
    char *a = run("globalThis.secret = 42;");
    expect_eq("46 first call", "globalThis.secret = 42;", a, NOLOGS "\"results\":[{\"text\":\"42\"}]}");
    EQ("46 fresh handle has no secret", "typeof secret", NOLOGS "\"results\":[{\"text\":\"'undefined'\"}]}");
  }
  /* 48 TypeScript: types stripped, never checked; enum lowered without changing the completion value. */
  EQ("48 enum", "enum Color { Red, Green }\nColor.Green", NOLOGS "\"results\":[{\"text\":\"1\"}]}");
  EQ("48 satisfies", "const s = \"x\" satisfies string; s", NOLOGS "\"results\":[{\"text\":\"'x'\"}]}");
  EQ("48 not type-checked", "const n: number = \"s\"; n", NOLOGS "\"results\":[{\"text\":\"'s'\"}]}");
  /* 49 */ EQ("49 interface", "interface P { n: number }\nconst p: P = { n: 2 }\np",
              NOLOGS "\"results\":[{\"json\":{\"n\":2}}]}");
  EQ("49 TS syntax error", "const x: = 1",
     NOLOGS "\"results\":[],\"error\":{\"name\":\"SyntaxError\",\"message\":\"Unexpected token (1:10)\","
            "\"traceback\":[\"    at <input>:1:11\"]}}");
  EQ("TS generics/as/namespace/parameter properties/type-only namespace",
     "namespace T { export type Id = number }\ninterface Box<V> { v: V }\n"
     "function wrap<V>(v: V): Box<V> { return { v } }\n"
     "class Pt { constructor(public x: number, private y: number = 2) {} sum(): number { return this.x + this.y } }\n"
     "const id: T.Id = wrap<number>(40).v as number;\n"
     "const cfg = { k: 'a' } satisfies Record<string, string>;\n"
     "await Promise.resolve(id + new Pt(1).sum() + (cfg.k as string).length - 2)",
     NOLOGS "\"results\":[{\"text\":\"42\"}]}");
  EQ("TS enum as the last statement: no result", "enum E { A }", NOLOGS "\"results\":[]}");
  /* Value namespaces (lowered by engines/javascript/ts/strip.js as TypeScript emits them), declare, abstract. */
  EQ("TS namespace with values, nested and merged with a function",
     "namespace A.B { export const x: number = 1; export function f() { return x + 1 } export namespace C { export let y = 3 } }\n"
     "function g() { return 0 }\nnamespace g { export const extra = 'e' }\n"
     "[A.B.x, A.B.f(), A.B.C.y, g.extra, g()]",
     NOLOGS "\"results\":[{\"json\":[1,2,3,\"e\",0]}]}");
  EQ("TS declare and abstract are erased",
     "declare const dc: number; declare function df(): void;\n"
     "abstract class Sh { abstract area(): number; twice() { return 2 * this.area() } }\n"
     "class Sq extends Sh { area() { return 4 } }\nnew Sq().twice()",
     NOLOGS "\"results\":[{\"text\":\"8\"}]}");
  /* Script code: `await` is an identifier where the async parse fails; top-level await is unchanged. */
  EQ("await as an identifier in a script", "var await = 5; function f(await) { return await * 2 } f(await)",
     NOLOGS "\"results\":[{\"text\":\"10\"}]}");
  EQ("await as a label and a function name", "function await() { return 3 } await: for (;;) { break await } await()",
     NOLOGS "\"results\":[{\"text\":\"3\"}]}");
  EQ("top-level await still awaits", "const await1 = await Promise.resolve(4); await1",
     NOLOGS "\"results\":[{\"text\":\"4\"}]}");
  HAS("a script that is neither reports the async parse's SyntaxError", "var await = 1; await Promise.resolve(2)",
      "\"name\":\"SyntaxError\"", "\"results\":[]");
  /* The RegExp v flag (engines/javascript/patches/unicode-sets.patch) and Unicode 17.0 property data. */
  EQ("RegExp v flag: set operations, strings, properties of strings",
     "[/[\\p{L}--[a-z]]/v.test('a'), /[[a-z]&&[aeiou]]/v.test('e'), 'xabcx'.match(/[\\q{abc|ab}]/v)[0],"
     " /^\\p{RGI_Emoji}$/v.test('\\u{1F468}\\u200D\\u{1F469}\\u200D\\u{1F467}'), /./v.flags, /./v.unicodeSets,"
     " new RegExp('\\\\p{Script=Beria_Erfe}', 'u').test('\\u{16EA0}')]",
     NOLOGS "\"results\":[{\"json\":[false,true,\"abc\",true,\"v\",true,true]}]}");
  HAS("TS runtime error keeps its line", "let a: number = 1;\nthrow new TypeError('t' + a)",
      "\"name\":\"TypeError\",\"message\":\"t1\"", "<input>:2");
  EQ("TS stripper is invisible to the guest", "const q: number = 1;\nObject.getOwnPropertyNames(globalThis).filter(k => /strip|sucrase|module|exports/i.test(k))",
     NOLOGS "\"results\":[{\"json\":[]}]}");
  HAS("a runtime SyntaxError is not a TypeScript retry", "JSON.parse('{')", "\"name\":\"SyntaxError\"",
      "\"message\":\"expecting property name\"", "at parse (native)");
  {
    /* The stripper is metered: a TS script under a small budget runs out of fuel inside sucrase. */
    sw_js_native_fuel_reset(1000);
    EQ("TS stripping is metered by fuel", "const n: number = 1; n", FUEL_OUT);
    sw_js_native_fuel_reset(-1);
    SwJs *js = sw_js_new(0, 0);
    const char *code = "const n: number = 1; n";
    char *out = NULL;
    uint32_t len = 0;
    double t0 = now_ms();
    sw_js_native_fuel_reset(1000000000);
    int rc = sw_js_eval(js, code, (uint32_t)strlen(code), NULL, 0, &out, &len);
    double t1 = now_ms();
    long long fuel1 = (long long)sw_js_native_fuel_consumed();
    expect_eq("TS first run (cold stripper)", code, rc == 0 ? out : strdup("rc"), NOLOGS "\"results\":[{\"text\":\"1\"}]}");
    sw_js_native_fuel_reset(1000000000);
    code = "const m: number = 1; m";
    rc = sw_js_eval(js, code, (uint32_t)strlen(code), NULL, 0, &out, &len);
    double t2 = now_ms();
    long long fuel2 = (long long)sw_js_native_fuel_consumed();
    expect_eq("TS second run (warm stripper)", code, rc == 0 ? out : strdup("rc"), NOLOGS "\"results\":[{\"text\":\"1\"}]}");
    printf("     (native ASan: TS cold %.1f ms / %lld fuel, warm %.1f ms / %lld fuel)\n", t1 - t0, fuel1, t2 - t1, fuel2);
    sw_js_free(js);
    sw_js_native_fuel_reset(-1);
  }
  /* 50 */ HAS("50 a < b > (c) is a comparison", "a < b > (c)", "\"name\":\"ReferenceError\"",
               "\"message\":\"'a' is not defined\"");

  /* The never-settling promise, and other edges. */
  EQ("never settles", "await new Promise(() => {})",
     NOLOGS "\"results\":[],\"error\":{\"name\":\"Error\",\"message\":\"Execution did not complete: a promise never "
            "settled (timers and indefinitely pending promises are unsupported)\",\"traceback\":[]}}");
  HAS("rejection", "await Promise.reject(new RangeError('r'))", "\"name\":\"RangeError\",\"message\":\"r\"");
  EQ("throw a non-Error", "throw 42", NOLOGS "\"results\":[],\"error\":{\"name\":\"Error\",\"message\":\"42\",\"traceback\":[]}}");
  EQ("promise result is awaited?", "Promise.resolve(1)", NOLOGS "\"results\":[{\"json\":{}}]}");
  EQ("cyclic falls back to text", "const o = {}; o.o = o; o", NOLOGS "\"results\":[{\"text\":\"[object Object]\"}]}");
  EQ("function is text", "(function f() {})", NOLOGS "\"results\":[{\"text\":\"function f() {}\"}]}");
  EQ("symbol is text", "Symbol('s')", NOLOGS "\"results\":[{\"text\":\"Symbol(s)\"}]}");
  EQ("lone surrogate stays valid JSON", "'\\ud800'", NOLOGS "\"results\":[{\"text\":\"'\\ud800'\"}]}");
  EQ("astral + control chars", "'\\u{1F600}\\n\\t'",
     NOLOGS "\"results\":[{\"text\":\"'\xf0\x9f\x98\x80\\n\\t'\"}]}");
  EQ("classes + private fields", "class A { #x = 3; get x() { return this.#x } } new A().x",
     NOLOGS "\"results\":[{\"text\":\"3\"}]}");
  HAS("process.cwd()", "process.cwd()", "\"results\":[{\"text\":\"'/workspace'\"}]");
  HAS("syntax error", "1 +", "\"name\":\"SyntaxError\"");
  EQ("empty code", "", NOLOGS "\"results\":[]}");

  session_tests();

  intl_tests();
  esnext_tests();

  backtrace_oom_tests();

  printf("\n%d/%d checks passed\n", checks - failures, checks);
  return failures ? 1 : 0;
}
