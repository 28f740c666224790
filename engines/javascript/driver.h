/* engines/javascript/driver.h: the JavaScript engine's C driver over QuickJS (protocol §6.1-6.2, §3.2-3.3).
 *
 * Plain C, no wasm-specific code except the `sandbox.charge` import (under __wasi__), so the same file builds natively
 * (gcc/clang, ASan+UBSan) for fast unit tests and as the wasm32-wasi reactor `engine.wasm`.
 *
 * One handle = one JSRuntime + one JSContext (one realm). Globals persist across calls on the same handle: sessions
 * (sw_js_session_eval) keep one handle per context; stateless execution uses a fresh handle (in production: a fresh
 * Wasm instance) with sw_js_eval.
 *
 * Buffers crossing the boundary are allocated with sw_alloc and released with sw_free (wasi-libc malloc in the
 * guest). All lengths are bytes; all text is UTF-8.
 */
#ifndef SW_JS_DRIVER_H
#define SW_JS_DRIVER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct SwJs SwJs;

/* Defaults and caps (bytes). heap_limit/stack_limit 0 mean the default; stack_limit is clamped to the maximum
 * because V8's native stack is the real recursion limit when the engine runs under workerd (docs/adding-an-engine.md,
 * "Toolchain facts"): one JS call costs ~290 bytes of this (linear-memory) stack but more of V8's ~1 MB native stack
 * while the code is still baseline-compiled, so 512 KiB (~1,800 calls) overflowed V8 first now and then. 256 KiB
 * (~900 calls) leaves a 2x margin; runaway recursion is then always a catchable InternalError. */
#define SW_JS_DEFAULT_HEAP_LIMIT (32u * 1024u * 1024u)
#define SW_JS_DEFAULT_STACK_LIMIT (256u * 1024u)
#define SW_JS_MAX_STACK_LIMIT (256u * 1024u)
/* Free heap reserved at boot (see sw_engine_new in driver.c); not part of the JavaScript heap limit. */
#define SW_JS_HEAP_HEADROOM (2u << 20)

/* Guest limits (protocol §3.2, §3.3). */
#define SW_JS_MAX_LOG_ENTRIES 200
#define SW_JS_MAX_LOG_UNITS 32768      /* UTF-16 code units across stdout + stderr */
#define SW_JS_MAX_RESULT_BYTES 65536   /* UTF-8 bytes of the text, or of the JSON text */

/* Creates a runtime + context with console/process installed and SharedArrayBuffer/Atomics removed.
 * Returns NULL on failure ("JavaScript engine initialization failed"). */
SwJs *sw_js_new(uint32_t heap_limit, uint32_t stack_limit);

/* Evaluates `code` (code_len bytes, need not be NUL-terminated) as a classic script with top-level await, the
 * environment being the JSON object `env_json` (env_len bytes; string values only; NULL/0 = empty), runs the job
 * queue until the script's promise settles, and writes the EngineOutcome JSON
 *   {"logs":{"stdout":[..],"stderr":[..]},"results":[] | [{"text":..}] | [{"json":..}],"error"?:{name,message,traceback}}
 * to a fresh buffer (*out_ptr, *out_len; release with sw_free). Returns 0, or -1 if the driver itself failed
 * (out of host memory, bad handle); guest errors and limits are outcomes, not failures. */
int32_t sw_js_eval(SwJs *js, const char *code, uint32_t code_len, const char *env_json, uint32_t env_len,
                   char **out_ptr, uint32_t *out_len);

/* Session evaluation (protocol §6.2 "Sessions (REPL)"), on a handle that lives across calls. The first call turns the
 * handle into a session: it adds the globals `fs` (the synchronous subset of protocol §6.2) and `require` ('fs',
 * 'node:fs', 'process', 'node:process'), makes process.chdir work, and serves import() of .js/.mjs/.json files
 * from /workspace (relative specifiers against the importing module's directory, or the cwd; anything else fails
 * "module not registered: <specifier>"). Otherwise exactly sw_js_eval: a classic script with top-level await whose
 * top-level declarations persist in the realm, process.env rebuilt from env_json, the same result mapping, errors
 * and limits. `cwd` (cwd_len bytes; 0 = keep the handle's) is the host's view of the working directory, applied
 * first when it normalizes under /workspace. The outcome JSON gains "cwd": the working directory after the call:
 *   {"logs":..,"results":..,"error"?:..,"cwd":"/workspace/sub"}
 * Filesystem access uses wasi-libc's POSIX calls on absolute /workspace paths (WASI syscalls into the host, which
 * enforces the workspace limits and its `disabled` flag). Returns 0, or -1 if the driver itself failed. */
int32_t sw_js_session_eval(SwJs *js, const char *code, uint32_t code_len, const char *env_json, uint32_t env_len,
                           const char *cwd, uint32_t cwd_len, char **out_ptr, uint32_t *out_len);

/* The handle's working directory ("/workspace" until a session changes it; owned by the handle). */
const char *sw_js_cwd(SwJs *js);

void sw_js_free(SwJs *js);

void *sw_alloc(uint32_t size);
void sw_free(void *ptr);

/* Fuel (protocol §5.5, docs/fuel.md). The shipped module is charged by the Wasm-level meter; the host sets the interrupt
 * word when the budget is spent: pass sw_js_interrupt_address() to sw_wasi_fuel_set_interrupt(host, address, 0, 0). The
 * word is cleared by the host's fuel reset. QuickJS reads it at every poll point (backward jumps, calls) and calls its
 * interrupt handler when it is set, and also every JS_INTERRUPT_COUNTER_INIT operations and every
 * INTERRUPT_COUNTER_INIT regex backtracking steps (build flags, engines/javascript/build-flags.sh); each handler call
 * charges JS_INTERRUPT_COUNTER_INIT units (the `sandbox.charge` import, muted in the shipped module; a counter
 * natively): the stand-in meter of the unmetered and native builds, one unit per interpreter operation. */
uint32_t *sw_js_interrupt_word(void);
uint32_t sw_js_interrupt_address(void); /* the same, as a guest address (wasm32) */

#ifndef __wasi__
/* Native builds only: a counter standing in for the host's meter. budget < 0 = unmetered. Clears the word. */
void sw_js_native_fuel_reset(int64_t budget);
int64_t sw_js_native_fuel_consumed(void);
/* Units charged per interrupt poll (JS_INTERRUPT_COUNTER_INIT as compiled). */
uint32_t sw_js_fuel_per_poll(void);
/* A host directory standing in for "/" in session filesystem calls ("/workspace/a" -> "<dir>/workspace/a"); NULL =
 * none (the real root). Tests only. */
void sw_js_native_set_root(const char *dir);
#endif

#ifdef __cplusplus
}
#endif

#endif
