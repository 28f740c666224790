/* engines/javascript/driver_internal.h: what the JavaScript engine's driver files share (driver.c: the handle,
 * evaluation, results, logs, Intl, TypeScript; fs.c: a session's Node `fs` subset and process.chdir; modules.c: its
 * import() from /workspace and require). Not part of the driver's API (driver.h).
 */
#ifndef SW_JS_DRIVER_INTERNAL_H
#define SW_JS_DRIVER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "driver.h"
#include "quickjs.h"

/* --- driver.c ---------------------------------------------------------------------------------------------------- */

/* A growable byte buffer; `failed` once an allocation failed (the content is then incomplete). */
typedef struct {
  char *data;
  size_t len, cap;
  int failed; /* an allocation failed; the content is incomplete */
} Buf;

void buf_put(Buf *b, const char *s, size_t n);
void buf_puts(Buf *b, const char *s);
void buf_putc(Buf *b, char c);
void buf_release(Buf *b);

/* Charges `units` of fuel (protocol §5.5): the `sandbox.charge` import in the guest, a counter natively. */
void sw_charge(uint32_t units);

/* A .json module between its loader (parsed) and its module init (exported as `default`). */
typedef struct JsonModule {
  struct JsonModule *next;
  JSModuleDef *m;
  JSValue value;
} JsonModule;

struct SwJs {
  JSRuntime *rt;
  JSContext *ctx;
  JSValue string_fn;  /* the original String, for display forms that JSON cannot give */
  JSValue replacer;   /* JSON.stringify replacer: BigInt -> "<digits>n" */
  JSValue process;    /* the process object; env is replaced per eval */
  JSValue strip_ts;   /* the TypeScript stripper, loaded on first use (JS_UNDEFINED until then) */
  JSValue intl;       /* the Intl namespace, built on first use (JS_UNDEFINED until then; see "Intl") */
  JSValue intl_methods; /* its locale methods (Number/BigInt/Date.prototype.toLocale*String), same order as INTL_METHODS */
  uint32_t evaluations; /* evaluations started on this handle (Intl's runtime tells a stale load from a live one) */
  JSValue error_ctor; /* the original Error constructor (fs and process.chdir errors) */
  JSValue fs;         /* sessions: the fs object (JS_UNDEFINED until the first session eval) */
  char *cwd;          /* "/workspace[/...]", malloc'd: lives in linear memory, so a memory snapshot keeps it */
  int session;        /* set by the first sw_js_session_eval: fs, require, import(), process.chdir */
  JsonModule *json_modules;
  /* per-eval state */
  Buf logs[2];        /* comma-separated JSON string literals: stdout, stderr */
  int log_count[2];
  int log_entries;
  size_t log_units;
  int output_limited; /* sticky for the eval: the guest cannot catch its way out of the output limit */
  int fuel_interrupted;
};

/* Drops the pending exception (used where a failure has a fallback). Never drops the fuel interrupt: -1 then. */
int clear_exception(SwJs *js);
/* Defines the function property `name` of `obj`; < 0 on failure. */
int define_fn(JSContext *ctx, JSValueConst obj, const char *name, JSCFunction *fn, int length);

/* --- fs.c -------------------------------------------------------------------------------------------------------- */

/* Fuel for the host's side of filesystem work (docs/fuel.md, "Filesystem work in sessions"): each call that reaches the
 * host, and every 4 bytes copied in or out. Muted in the shipped module, like every charge of the driver. */
#define SW_JS_FS_CALL_UNITS 1000u
#define SW_JS_FS_BYTES_PER_UNIT 4u
/* Hard cap on what one readFileSync (or a module's source) buffers (workspace files are at most 1 MiB; linear memory
 * is 64 MiB). */
#define SW_JS_FS_MAX_READ (48u * 1024u * 1024u)

/* Charges the fuel of copying n bytes. */
void sw_js_fs_charge_bytes(size_t n);
/* protocol §7.11: p (n bytes) against cwd. 0 with *out = "/workspace" or "/workspace/<segments>" (malloc'd), or an
 * errno: ENOENT (empty), EACCES (escapes /workspace), EINVAL (a NUL byte), ENOMEM. */
int sw_js_normalize_path(const char *cwd, const char *p, size_t n, char **out);
/* The path handed to POSIX calls for a normalized guest path (malloc'd; NULL when out of memory). */
char *sw_js_host_path(const char *guest);
/* The session's `fs` object: the synchronous subset of protocol §6.2 (JS_EXCEPTION when it could not be built). */
JSValue sw_js_fs_new(SwJs *js);
/* process.chdir(path) in a session. */
JSValue sw_js_chdir(SwJs *js, JSValueConst path);

/* --- modules.c --------------------------------------------------------------------------------------------------- */

/* Throws the Error "module not registered: <specifier>"; returns NULL (a module normalizer's failure). */
char *sw_js_module_not_registered(JSContext *ctx, const char *specifier);
/* A session's require and import(): the global `require` and QuickJS's module loader; -1 on failure. */
int sw_js_modules_install(SwJs *js, JSValueConst global);

#endif
