/* engines/common/engine.h: what every built-in engine's C driver implements, and what the shared wasmify guest glue
 * (engines/common/wasmify_guest.c, proto/wasmify/engine.proto, docs/abi.md) calls.
 *
 * One driver per language (engines/<language>/driver.c). The glue turns each wasmify method into one of these calls,
 * so a new language writes no protobuf code. All text is UTF-8; lengths are bytes; buffers handed out are released
 * with sw_free. Guest errors and limits are outcomes (JSON), never failures: a function returns -1 only when the
 * driver itself failed (bad handle, out of memory), and the host reports that as an EngineError.
 *
 * Outcome JSON (protocol §3.1-3.3, §6):
 *   {"logs":{"stdout":[..],"stderr":[..]},"results":[] | [{"text":..}] | [{"json":..}],
 *    "error"?:{"name":..,"message":..,"traceback":[..]}}
 * Session outcomes add "cwd": the working directory after the call.
 */
#ifndef SW_ENGINE_H
#define SW_ENGINE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct SwEngine SwEngine;

/* Creates the interpreter (wasmify method New). heap_limit/stack_limit are bytes; 0 = the engine's default; an
 * engine may ignore them. NULL = failure (the host answers the driver's "initialization failed" message). */
SwEngine *sw_engine_new(uint32_t heap_limit, uint32_t stack_limit);

/* Stateless evaluation (method Eval): `code` is the request's code; `env_json` the request's envVars as a JSON object
 * of strings (NULL/0 = none), which becomes the language's environment (process.env, os.environ, ...). Writes the
 * EngineOutcome JSON to a fresh buffer. */
int32_t sw_engine_eval(SwEngine *engine, const char *code, uint32_t code_len, const char *env_json, uint32_t env_len,
                       char **out_ptr, uint32_t *out_len);

/* One call of a session (method SessionEval) on a handle that lives across calls. `cwd` (0 = keep the handle's own) is
 * the context's working directory as the host knows it, applied first when it is an existing directory under
 * /workspace. Writes the SessionOutcome JSON (the EngineOutcome plus "cwd"). */
int32_t sw_engine_session_eval(SwEngine *engine, const char *code, uint32_t code_len, const char *env_json,
                               uint32_t env_len, const char *cwd, uint32_t cwd_len, char **out_ptr, uint32_t *out_len);

/* The handle's working directory ("/workspace" until a session changes it; owned by the handle). */
const char *sw_engine_cwd(SwEngine *engine);

/* After the instance's memory was restored from a snapshot or a boot image (method AfterRestore): re-seed whatever
 * must differ per instance (random generators) and drop caches that describe the outside world (directory listings
 * of /workspace, clocks). `boot_image` is 1 after the build-time boot image (a stateless request or a new context:
 * every generator must be re-seeded, or two requests would see the same sequence) and 0 after a context's own
 * snapshot (an engine may keep its generator state then; JavaScript does, protocol §6.2). 0 = done, -1 = failure. */
int32_t sw_engine_after_restore(SwEngine *engine, int boot_image);

void sw_engine_free(SwEngine *engine);

/* Fuel (protocol §5.5, docs/fuel.md). Non-zero: the guest address of a 32-bit interrupt word the host sets when the
 * budget is spent (interrupt mode: the engine unwinds cleanly and the instance survives). 0: hard mode, the host traps
 * the charge that overdraws the budget. Engines charge through the `sandbox.charge(units)` import. */
uint32_t sw_engine_interrupt_address(void);

void *sw_alloc(uint32_t size);
void sw_free(void *ptr);

#ifdef __cplusplus
}
#endif

#endif
