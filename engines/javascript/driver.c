/* engines/javascript/driver.c: see driver.h. */
#include "driver.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quickjs.h"

/* QuickJS polls for interrupts once every JS_INTERRUPT_COUNTER_INIT "operations" (calls, jumps and conditional
 * branches of the bytecode interpreter), and libregexp once every INTERRUPT_COUNTER_INIT backtracking steps; both
 * polls end in interrupt_handler. scripts/build-engines.sh passes both as -D flags to every file (quickjs.c, libregexp.c
 * and this one), so the value here is the one QuickJS counts down from. The defaults are upstream's. */
#ifndef JS_INTERRUPT_COUNTER_INIT
#define JS_INTERRUPT_COUNTER_INIT 10000
#endif

#define SW_JS_FILENAME "<input>"

/* ---------------------------------------------------------------------------------------------------------------
 * Fuel
 * ------------------------------------------------------------------------------------------------------------- */

/* Set (to a non-zero value) by the host's meter when the budget is spent; cleared by the host's fuel reset. */
static volatile uint32_t g_interrupt_word;

uint32_t *sw_js_interrupt_word(void) { return (uint32_t *)&g_interrupt_word; }
uint32_t sw_js_interrupt_address(void) { return (uint32_t)(uintptr_t)&g_interrupt_word; }

/* One unit of fuel = one QuickJS interpreter operation (docs/fuel.md). Each poll charges the operations counted since
 * the previous one; a regex poll charges the same amount, so one backtracking step weighs
 * JS_INTERRUPT_COUNTER_INIT / INTERRUPT_COUNTER_INIT units (chosen so both burn fuel at a similar wall-clock rate). */
#define SW_JS_FUEL_PER_POLL ((uint32_t)JS_INTERRUPT_COUNTER_INIT)

#ifdef __wasi__
/* cpp/wasi/syscalls.def: SW_WASI(sandbox, charge, (uint32_t units)) -> i32 errno (0). In interrupt mode the host
 * writes 1 to the interrupt word when the budget is spent; past a second budget (or without interrupt mode) the
 * call traps, which unwinds the guest (the instance is then poisoned). */
__attribute__((import_module("sandbox"), import_name("charge"))) int32_t sw_sandbox_charge(uint32_t units);
static void sw_charge(uint32_t units) { (void)sw_sandbox_charge(units); }
#else
static int g_fuel_metered;
static int64_t g_fuel_budget, g_fuel_remaining;

void sw_js_native_fuel_reset(int64_t budget) {
  g_fuel_metered = budget >= 0;
  g_fuel_budget = g_fuel_metered ? budget : 0;
  g_fuel_remaining = g_fuel_budget;
  g_interrupt_word = 0;
}

int64_t sw_js_native_fuel_consumed(void) {
  if (!g_fuel_metered) return 0;
  int64_t used = g_fuel_budget - g_fuel_remaining;
  return used > g_fuel_budget ? g_fuel_budget : used;
}

uint32_t sw_js_fuel_per_poll(void) { return SW_JS_FUEL_PER_POLL; }

static void sw_charge(uint32_t units) {
  if (!g_fuel_metered) return;
  g_fuel_remaining -= units;
  if (g_fuel_remaining < 0) g_interrupt_word = 1;
}
#endif

/* ---------------------------------------------------------------------------------------------------------------
 * A growable byte buffer and JSON text helpers
 * ------------------------------------------------------------------------------------------------------------- */

typedef struct {
  char *data;
  size_t len, cap;
  int failed; /* an allocation failed; the content is incomplete */
} Buf;

static void buf_reserve(Buf *b, size_t extra) {
  if (b->failed) return;
  if (b->len + extra + 1 <= b->cap) return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + extra + 1) cap *= 2;
  char *p = realloc(b->data, cap);
  if (!p) { b->failed = 1; return; }
  b->data = p;
  b->cap = cap;
}

static void buf_put(Buf *b, const char *s, size_t n) {
  buf_reserve(b, n);
  if (b->failed) return;
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = 0;
}

static void buf_puts(Buf *b, const char *s) { buf_put(b, s, strlen(s)); }
static void buf_putc(Buf *b, char c) { buf_put(b, &c, 1); }
static void buf_reset(Buf *b) { b->len = 0; b->failed = 0; if (b->data) b->data[0] = 0; }
static void buf_release(Buf *b) { free(b->data); memset(b, 0, sizeof *b); }

static const char hexdigits[] = "0123456789abcdef";

static void buf_put_u16_escape(Buf *b, unsigned c) {
  char e[6] = {'\\', 'u', hexdigits[(c >> 12) & 15], hexdigits[(c >> 8) & 15], hexdigits[(c >> 4) & 15],
               hexdigits[c & 15]};
  buf_put(b, e, 6);
}

/* Appends s (UTF-8 as produced by JS_ToCStringLen: lone surrogates appear as 3-byte WTF-8 sequences) as a JSON
 * string literal. Lone surrogates become \uXXXX escapes; bytes that are not UTF-8 become U+FFFD. */
static void buf_json_string(Buf *b, const char *s, size_t n) {
  const unsigned char *p = (const unsigned char *)s, *end = p + n;
  buf_putc(b, '"');
  while (p < end) {
    unsigned c = *p;
    const unsigned char *run = p;
    while (p < end && *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\') p++;
    if (p > run) { buf_put(b, (const char *)run, (size_t)(p - run)); continue; }
    if (c < 0x80) {
      p++;
      switch (c) {
        case '"': buf_put(b, "\\\"", 2); break;
        case '\\': buf_put(b, "\\\\", 2); break;
        case '\n': buf_put(b, "\\n", 2); break;
        case '\r': buf_put(b, "\\r", 2); break;
        case '\t': buf_put(b, "\\t", 2); break;
        case '\b': buf_put(b, "\\b", 2); break;
        case '\f': buf_put(b, "\\f", 2); break;
        default: buf_put_u16_escape(b, c);
      }
      continue;
    }
    size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
    int ok = len > 0 && c < 0xF5 && (size_t)(end - p) >= len;
    for (size_t i = 1; ok && i < len; i++) ok = (p[i] & 0xC0) == 0x80;
    if (ok && len == 3 && c == 0xED && p[1] >= 0xA0) { /* surrogate code point (WTF-8) */
      buf_put_u16_escape(b, ((c & 0x0F) << 12) | ((p[1] & 0x3Fu) << 6) | (p[2] & 0x3Fu));
      p += 3;
      continue;
    }
    if (ok && ((len == 2 && c < 0xC2) || (len == 3 && c == 0xE0 && p[1] < 0xA0) ||
               (len == 4 && c == 0xF0 && p[1] < 0x90) || (len == 4 && c == 0xF4 && p[1] >= 0x90)))
      ok = 0; /* overlong or out of range */
    if (!ok) { buf_put(b, "\\ufffd", 6); p++; continue; }
    buf_put(b, (const char *)p, len);
    p += len;
  }
  buf_putc(b, '"');
}

/* UTF-16 code units of a UTF-8/WTF-8 string. */
static size_t utf16_units(const char *s, size_t n) {
  size_t units = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if ((c & 0xC0) != 0x80) units += c >= 0xF0 ? 2 : 1;
  }
  return units;
}

/* ---------------------------------------------------------------------------------------------------------------
 * The handle
 * ------------------------------------------------------------------------------------------------------------- */

struct SwJs {
  JSRuntime *rt;
  JSContext *ctx;
  JSValue string_fn;  /* the original String, for display forms that JSON cannot give */
  JSValue replacer;   /* JSON.stringify replacer: BigInt -> "<digits>n" */
  JSValue process;    /* the process object; env is replaced per eval */
  char *cwd;
  /* per-eval state */
  Buf logs[2];        /* comma-separated JSON string literals: stdout, stderr */
  int log_count[2];
  int log_entries;
  size_t log_units;
  int output_limited; /* sticky for the eval: the guest cannot catch its way out of the output limit */
  int fuel_interrupted;
};

static int interrupt_handler(JSRuntime *rt, void *opaque) {
  (void)rt;
  SwJs *js = opaque;
  sw_charge(SW_JS_FUEL_PER_POLL);
  if (g_interrupt_word) {
    js->fuel_interrupted = 1;
    return 1;
  }
  return 0;
}

/* Drops the pending exception (used where a failure has a fallback). Never drops the fuel interrupt. */
static int clear_exception(SwJs *js) {
  JSValue e = JS_GetException(js->ctx);
  JS_FreeValue(js->ctx, e);
  return js->fuel_interrupted ? -1 : 0;
}

static JSValue bigint_replacer(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv) {
  (void)this_val;
  if (argc < 2) return JS_UNDEFINED;
  if (!JS_IsBigInt(ctx, argv[1])) return JS_DupValue(ctx, argv[1]);
  size_t n;
  const char *s = JS_ToCStringLen(ctx, &n, argv[1]);
  if (!s) return JS_EXCEPTION;
  char *t = malloc(n + 2);
  if (!t) { JS_FreeCString(ctx, s); return JS_ThrowOutOfMemory(ctx); }
  memcpy(t, s, n);
  t[n] = 'n';
  t[n + 1] = 0;
  JS_FreeCString(ctx, s);
  JSValue r = JS_NewStringLen(ctx, t, n + 1);
  free(t);
  return r;
}

/* Appends the C string form of a JS value (ToString). Returns -1 with an exception pending. */
static int put_tostring(JSContext *ctx, Buf *b, JSValueConst v) {
  size_t n;
  const char *s = JS_ToCStringLen(ctx, &n, v);
  if (!s) return -1;
  buf_put(b, s, n);
  JS_FreeCString(ctx, s);
  return 0;
}

/* String(v): works for symbols too. */
static int put_string_fn(SwJs *js, Buf *b, JSValueConst v) {
  JSValue s = JS_Call(js->ctx, js->string_fn, JS_UNDEFINED, 1, &v);
  if (JS_IsException(s)) return -1;
  int r = put_tostring(js->ctx, b, s);
  JS_FreeValue(js->ctx, s);
  return r;
}

/* console argument display form: strings raw, BigInt "<digits>n", numbers/booleans String(v), anything else JSON
 * text (BigInt members as "<digits>n") falling back to String(v). Returns -1 with an exception pending. */
static int put_console_arg(SwJs *js, Buf *b, JSValueConst v) {
  JSContext *ctx = js->ctx;
  if (JS_IsString(v) || JS_IsNumber(v) || JS_IsBool(v)) return put_tostring(ctx, b, v);
  if (JS_IsBigInt(ctx, v)) {
    if (put_tostring(ctx, b, v)) return -1;
    buf_putc(b, 'n');
    return 0;
  }
  if (!JS_IsUndefined(v) && !JS_IsSymbol(v)) {
    JSValue j = JS_JSONStringify(ctx, v, js->replacer, JS_UNDEFINED);
    if (JS_IsException(j)) {
      if (clear_exception(js)) return -1;
    } else if (JS_IsString(j)) {
      int r = put_tostring(ctx, b, j);
      JS_FreeValue(ctx, j);
      return r;
    } else {
      JS_FreeValue(ctx, j);
    }
  }
  return put_string_fn(js, b, v);
}

static JSValue throw_limit(JSContext *ctx, const char *message) {
  JSValue e = JS_NewError(ctx);
  if (JS_IsException(e)) return e;
  JS_DefinePropertyValueStr(ctx, e, "name", JS_NewString(ctx, "ExecutionLimitError"),
                            JS_PROP_WRITABLE | JS_PROP_CONFIGURABLE);
  JS_DefinePropertyValueStr(ctx, e, "message", JS_NewString(ctx, message), JS_PROP_WRITABLE | JS_PROP_CONFIGURABLE);
  return JS_Throw(ctx, e);
}

/* console.log/info/debug (magic 0, stdout) and console.warn/error (magic 1, stderr). */
static JSValue js_console_write(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv, int magic) {
  (void)this_val;
  SwJs *js = JS_GetContextOpaque(ctx);
  if (js->output_limited) return throw_limit(ctx, "Output limit exceeded");
  Buf line = {0};
  for (int i = 0; i < argc; i++) {
    if (i) buf_putc(&line, ' ');
    if (put_console_arg(js, &line, argv[i])) { buf_release(&line); return JS_EXCEPTION; }
  }
  if (line.failed) { buf_release(&line); return JS_ThrowOutOfMemory(ctx); }
  if (line.len && line.data[line.len - 1] == '\n') line.len--;
  size_t units = utf16_units(line.data ? line.data : "", line.len);
  if (js->log_entries >= SW_JS_MAX_LOG_ENTRIES || js->log_units + units > SW_JS_MAX_LOG_UNITS) {
    buf_release(&line);
    js->output_limited = 1;
    return throw_limit(ctx, "Output limit exceeded");
  }
  Buf *out = &js->logs[magic ? 1 : 0];
  if (js->log_count[magic ? 1 : 0]++) buf_putc(out, ',');
  buf_json_string(out, line.data ? line.data : "", line.len);
  buf_release(&line);
  js->log_entries++;
  js->log_units += units;
  return JS_UNDEFINED;
}

static JSValue js_process_cwd(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv) {
  (void)this_val; (void)argc; (void)argv;
  SwJs *js = JS_GetContextOpaque(ctx);
  return JS_NewString(ctx, js->cwd);
}

static JSValue js_process_chdir(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv) {
  (void)this_val; (void)argc; (void)argv;
  /* Stub until the session API (SPEC §6.2): sessions implement it over /workspace. */
  return JS_ThrowTypeError(ctx, "process.chdir() is not supported in stateless execution");
}

static int define_fn(JSContext *ctx, JSValueConst obj, const char *name, JSCFunction *fn, int length) {
  return JS_DefinePropertyValueStr(ctx, obj, name, JS_NewCFunction(ctx, fn, name, length),
                                   JS_PROP_WRITABLE | JS_PROP_CONFIGURABLE);
}

static int define_magic(JSContext *ctx, JSValueConst obj, const char *name, int magic) {
  return JS_DefinePropertyValueStr(ctx, obj, name,
                                   JS_NewCFunctionMagic(ctx, js_console_write, name, 0, JS_CFUNC_generic_magic, magic),
                                   JS_PROP_WRITABLE | JS_PROP_CONFIGURABLE);
}

static int install_globals(SwJs *js) {
  JSContext *ctx = js->ctx;
  JSValue global = JS_GetGlobalObject(ctx);
  int ok = 1;
  js->string_fn = JS_GetPropertyStr(ctx, global, "String");
  js->replacer = JS_NewCFunction(ctx, bigint_replacer, "replacer", 2);
  ok &= JS_IsFunction(ctx, js->string_fn) && JS_IsFunction(ctx, js->replacer);

  /* SPEC §6.2: SharedArrayBuffer and Atomics are removed before user code (Atomics is not even compiled in). */
  const char *removed[] = {"SharedArrayBuffer", "Atomics"};
  for (size_t i = 0; i < sizeof removed / sizeof *removed; i++) {
    JSAtom a = JS_NewAtom(ctx, removed[i]);
    ok &= JS_DeleteProperty(ctx, global, a, 0) >= 0;
    JS_FreeAtom(ctx, a);
  }

  JSValue console = JS_NewObject(ctx);
  ok &= define_magic(ctx, console, "log", 0) >= 0;
  ok &= define_magic(ctx, console, "info", 0) >= 0;
  ok &= define_magic(ctx, console, "debug", 0) >= 0;
  ok &= define_magic(ctx, console, "warn", 1) >= 0;
  ok &= define_magic(ctx, console, "error", 1) >= 0;
  ok &= JS_DefinePropertyValueStr(ctx, global, "console", console, JS_PROP_WRITABLE | JS_PROP_CONFIGURABLE) >= 0;

  js->process = JS_NewObject(ctx);
  ok &= JS_DefinePropertyValueStr(ctx, js->process, "env", JS_NewObject(ctx), JS_PROP_C_W_E) >= 0;
  ok &= define_fn(ctx, js->process, "cwd", js_process_cwd, 0) >= 0;
  ok &= define_fn(ctx, js->process, "chdir", js_process_chdir, 1) >= 0;
  ok &= JS_DefinePropertyValueStr(ctx, global, "process", JS_DupValue(ctx, js->process),
                                  JS_PROP_WRITABLE | JS_PROP_CONFIGURABLE) >= 0;
  JS_FreeValue(ctx, global);
  if (!ok) clear_exception(js);
  return ok ? 0 : -1;
}

SwJs *sw_js_new(uint32_t heap_limit, uint32_t stack_limit) {
  if (!heap_limit) heap_limit = SW_JS_DEFAULT_HEAP_LIMIT;
  if (!stack_limit) stack_limit = SW_JS_DEFAULT_STACK_LIMIT;
  if (stack_limit > SW_JS_MAX_STACK_LIMIT) stack_limit = SW_JS_MAX_STACK_LIMIT;
  SwJs *js = calloc(1, sizeof *js);
  if (!js) return NULL;
  js->string_fn = js->replacer = js->process = JS_UNDEFINED;
  js->cwd = strdup("/workspace");
  js->rt = JS_NewRuntime();
  if (!js->cwd || !js->rt) goto fail;
  JS_SetMemoryLimit(js->rt, heap_limit);
  JS_SetMaxStackSize(js->rt, stack_limit);
  JS_SetInterruptHandler(js->rt, interrupt_handler, js);
  js->ctx = JS_NewContext(js->rt);
  if (!js->ctx) goto fail;
  JS_SetContextOpaque(js->ctx, js);
  if (install_globals(js)) goto fail;
  return js;
fail:
  sw_js_free(js);
  return NULL;
}

void sw_js_free(SwJs *js) {
  if (!js) return;
  if (js->ctx) {
    JS_FreeValue(js->ctx, js->string_fn);
    JS_FreeValue(js->ctx, js->replacer);
    JS_FreeValue(js->ctx, js->process);
    JS_FreeContext(js->ctx);
  }
  if (js->rt) JS_FreeRuntime(js->rt);
  buf_release(&js->logs[0]);
  buf_release(&js->logs[1]);
  free(js->cwd);
  free(js);
}

void *sw_alloc(uint32_t size) { return malloc(size ? size : 1); }
void sw_free(void *ptr) { free(ptr); }

/* ---------------------------------------------------------------------------------------------------------------
 * Evaluation
 * ------------------------------------------------------------------------------------------------------------- */

/* process.env = a fresh object holding the string-valued own properties of env_json. */
static int set_env(SwJs *js, const char *env_json, uint32_t env_len) {
  JSContext *ctx = js->ctx;
  JSValue env = JS_NewObject(ctx);
  if (JS_IsException(env)) return -1;
  if (env_json && env_len) {
    char *text = malloc((size_t)env_len + 1);
    if (!text) { JS_FreeValue(ctx, env); return -1; }
    memcpy(text, env_json, env_len);
    text[env_len] = 0;
    JSValue parsed = JS_ParseJSON(ctx, text, env_len, "<env>");
    free(text);
    if (JS_IsException(parsed)) { JS_FreeValue(ctx, env); return -1; }
    JSPropertyEnum *tab = NULL;
    uint32_t n = 0;
    if (JS_IsObject(parsed) &&
        JS_GetOwnPropertyNames(ctx, &tab, &n, parsed, JS_GPN_STRING_MASK | JS_GPN_ENUM_ONLY) == 0) {
      for (uint32_t i = 0; i < n; i++) {
        JSValue v = JS_GetProperty(ctx, parsed, tab[i].atom);
        if (JS_IsString(v)) JS_SetProperty(ctx, env, tab[i].atom, v);
        else JS_FreeValue(ctx, v);
        JS_FreeAtom(ctx, tab[i].atom);
      }
      js_free(ctx, tab);
    }
    JS_FreeValue(ctx, parsed);
  }
  return JS_DefinePropertyValueStr(ctx, js->process, "env", env, JS_PROP_C_W_E) < 0 ? -1 : 0;
}

typedef struct {
  Buf results; /* "" or {"text":..} or {"json":..} */
  Buf error;   /* "" or {"name":..,"message":..,"traceback":[..]} */
} Outcome;

static void set_error(Outcome *o, const char *name, size_t name_len, const char *message, size_t message_len,
                      const char *stack, size_t stack_len) {
  buf_reset(&o->results);
  buf_reset(&o->error);
  buf_puts(&o->error, "{\"name\":");
  buf_json_string(&o->error, name, name_len);
  buf_puts(&o->error, ",\"message\":");
  buf_json_string(&o->error, message, message_len);
  buf_puts(&o->error, ",\"traceback\":[");
  int first = 1;
  for (size_t i = 0; stack && i < stack_len;) {
    size_t j = i;
    while (j < stack_len && stack[j] != '\n') j++;
    size_t e = j;
    if (e > i && stack[e - 1] == '\r') e--;
    int blank = 1;
    for (size_t k = i; k < e; k++) if (stack[k] != ' ' && stack[k] != '\t') blank = 0;
    if (!blank) {
      if (!first) buf_putc(&o->error, ',');
      buf_json_string(&o->error, stack + i, e - i);
      first = 0;
    }
    i = j + 1;
  }
  buf_puts(&o->error, "]}");
}

static void set_error_c(Outcome *o, const char *name, const char *message) {
  set_error(o, name, strlen(name), message, strlen(message), NULL, 0);
}

/* A property as a C string, or NULL (exceptions dropped unless the fuel interrupt is pending). */
static const char *get_str_prop(SwJs *js, JSValueConst obj, const char *prop, size_t *len) {
  JSValue v = JS_GetPropertyStr(js->ctx, obj, prop);
  if (JS_IsException(v)) { clear_exception(js); return NULL; }
  if (JS_IsUndefined(v)) return NULL;
  const char *s = JS_ToCStringLen(js->ctx, len, v);
  JS_FreeValue(js->ctx, v);
  if (!s) clear_exception(js);
  return s;
}

/* The guest error for a thrown value (consumed). */
static void set_error_from_value(SwJs *js, Outcome *o, JSValue exc) {
  JSContext *ctx = js->ctx;
  if (JS_IsError(ctx, exc)) {
    size_t nl = 0, ml = 0, sl = 0;
    const char *name = get_str_prop(js, exc, "name", &nl);
    const char *message = get_str_prop(js, exc, "message", &ml);
    const char *stack = get_str_prop(js, exc, "stack", &sl);
    set_error(o, name ? name : "Error", name ? nl : 5, message ? message : "", message ? ml : 0, stack, sl);
    if (name) JS_FreeCString(ctx, name);
    if (message) JS_FreeCString(ctx, message);
    if (stack) JS_FreeCString(ctx, stack);
  } else {
    Buf m = {0};
    if (put_string_fn(js, &m, exc)) { clear_exception(js); buf_reset(&m); buf_puts(&m, "uncaught exception"); }
    set_error(o, "Error", 5, m.data ? m.data : "", m.len, NULL, 0);
    buf_release(&m);
  }
  JS_FreeValue(ctx, exc);
}

static void set_pending_error(SwJs *js, Outcome *o) { set_error_from_value(js, o, JS_GetException(js->ctx)); }

static void result_text(Outcome *o, const char *s, size_t n) {
  if (n > SW_JS_MAX_RESULT_BYTES) { set_error_c(o, "ExecutionLimitError", "Result limit exceeded"); return; }
  buf_puts(&o->results, "{\"text\":");
  buf_json_string(&o->results, s, n);
  buf_putc(&o->results, '}');
}

/* Length in UTF-16 units of a JS string; a lower bound of its UTF-8 length. */
static int64_t js_string_units(JSContext *ctx, JSValueConst s) {
  int64_t len = 0;
  JSValue l = JS_GetPropertyStr(ctx, s, "length");
  if (JS_ToInt64(ctx, &len, l)) len = 0;
  JS_FreeValue(ctx, l);
  return len;
}

/* SPEC §3.2 / §6.2 result mapping of the last expression's value v (not consumed). */
static void map_result(SwJs *js, Outcome *o, JSValueConst v) {
  JSContext *ctx = js->ctx;
  if (JS_IsUndefined(v)) return;
  if (JS_IsNull(v)) { result_text(o, "null", 4); return; }
  if (JS_IsString(v)) {
    if (js_string_units(ctx, v) > SW_JS_MAX_RESULT_BYTES) {
      set_error_c(o, "ExecutionLimitError", "Result limit exceeded");
      return;
    }
    size_t n;
    const char *s = JS_ToCStringLen(ctx, &n, v);
    if (!s) { set_pending_error(js, o); return; }
    Buf q = {0};
    buf_putc(&q, '\'');
    for (size_t i = 0; i < n; i++) {
      if (s[i] == '\\' || s[i] == '\'') buf_putc(&q, '\\');
      buf_putc(&q, s[i]);
    }
    buf_putc(&q, '\'');
    JS_FreeCString(ctx, s);
    if (q.failed) set_error_c(o, "InternalError", "out of memory");
    else result_text(o, q.data, q.len);
    buf_release(&q);
    return;
  }
  Buf t = {0};
  int is_json = 0;
  if (JS_IsNumber(v) || JS_IsBool(v)) {
    if (put_tostring(ctx, &t, v)) goto error;
  } else if (JS_IsBigInt(ctx, v)) {
    if (put_tostring(ctx, &t, v)) goto error;
    buf_putc(&t, 'n');
  } else if (JS_IsObject(v)) {
    JSValue j = JS_JSONStringify(ctx, v, js->replacer, JS_UNDEFINED);
    if (JS_IsException(j)) {
      if (clear_exception(js)) goto error;
    } else if (JS_IsString(j)) {
      if (js_string_units(ctx, j) > SW_JS_MAX_RESULT_BYTES) {
        JS_FreeValue(ctx, j);
        buf_release(&t);
        set_error_c(o, "ExecutionLimitError", "Result limit exceeded");
        return;
      }
      int r = put_tostring(ctx, &t, j);
      JS_FreeValue(ctx, j);
      if (r) goto error;
      is_json = 1;
    } else {
      JS_FreeValue(ctx, j); /* e.g. a function: JSON.stringify gives undefined */
    }
    if (!is_json && put_string_fn(js, &t, v)) goto error;
  } else { /* symbol */
    if (put_string_fn(js, &t, v)) goto error;
  }
  if (t.failed) {
    set_error_c(o, "InternalError", "out of memory");
  } else if (is_json) {
    if (t.len > SW_JS_MAX_RESULT_BYTES) set_error_c(o, "ExecutionLimitError", "Result limit exceeded");
    else { buf_puts(&o->results, "{\"json\":"); buf_put(&o->results, t.data, t.len); buf_putc(&o->results, '}'); }
  } else {
    result_text(o, t.data ? t.data : "", t.len);
  }
  buf_release(&t);
  return;
error:
  buf_release(&t);
  set_pending_error(js, o);
}

static const char never_settled[] =
    "Execution did not complete: a promise never settled (timers and indefinitely pending promises are unsupported)";

int32_t sw_js_eval(SwJs *js, const char *code, uint32_t code_len, const char *env_json, uint32_t env_len,
                   char **out_ptr, uint32_t *out_len) {
  if (!js || !out_ptr || !out_len || (!code && code_len)) return -1;
  *out_ptr = NULL;
  *out_len = 0;
  JSContext *ctx = js->ctx;
  JSRuntime *rt = js->rt;
  buf_reset(&js->logs[0]);
  buf_reset(&js->logs[1]);
  js->log_count[0] = js->log_count[1] = 0;
  js->log_entries = 0;
  js->log_units = 0;
  js->output_limited = 0;
  js->fuel_interrupted = 0;
  JS_UpdateStackTop(rt);

  Outcome o = {{0}, {0}};
  if (set_env(js, env_json, env_len)) {
    set_pending_error(js, &o);
  } else {
    char *src = malloc((size_t)code_len + 1);
    if (!src) return -1;
    if (code_len) memcpy(src, code, code_len);
    src[code_len] = 0;
    /* JS_EVAL_FLAG_ASYNC: the script runs as an async function (top-level await); the value of the last expression
     * becomes {value} of the promise it returns. A top-level `return` stays a SyntaxError (eval code). */
    JSValue promise = JS_Eval(ctx, src, code_len, SW_JS_FILENAME, JS_EVAL_TYPE_GLOBAL | JS_EVAL_FLAG_ASYNC);
    free(src);
    if (JS_IsException(promise)) {
      set_pending_error(js, &o);
    } else {
      JSValue job_error = JS_UNDEFINED;
      int job_failed = 0;
      while (!js->fuel_interrupted) {
        JSContext *jctx;
        int r = JS_ExecutePendingJob(rt, &jctx);
        if (r == 0) break;
        if (r < 0) {
          JSValue e = JS_GetException(jctx);
          if (!job_failed) { job_error = e; job_failed = 1; } else JS_FreeValue(ctx, e);
        }
      }
      switch (JS_PromiseState(ctx, promise)) {
        case JS_PROMISE_FULFILLED: {
          JSValue wrapped = JS_PromiseResult(ctx, promise);
          JSValue v = JS_GetPropertyStr(ctx, wrapped, "value");
          JS_FreeValue(ctx, wrapped);
          if (JS_IsException(v)) set_pending_error(js, &o);
          else map_result(js, &o, v);
          JS_FreeValue(ctx, v);
          break;
        }
        case JS_PROMISE_REJECTED:
          set_error_from_value(js, &o, JS_PromiseResult(ctx, promise));
          break;
        default:
          if (job_failed) { set_error_from_value(js, &o, job_error); job_failed = 0; }
          else set_error_c(&o, "Error", never_settled);
      }
      if (job_failed) JS_FreeValue(ctx, job_error);
      JS_FreeValue(ctx, promise);
    }
  }

  Buf out = {0};
  if (js->fuel_interrupted) {
    /* SPEC §10.3 item 39: empty logs, no results, no traceback. */
    buf_puts(&out, "{\"logs\":{\"stdout\":[],\"stderr\":[]},\"results\":[],\"error\":{\"name\":\"ExecutionLimitError\","
                   "\"message\":\"Execution fuel exhausted\",\"traceback\":[]}}");
  } else {
    if (js->output_limited) set_error_c(&o, "ExecutionLimitError", "Output limit exceeded");
    buf_puts(&out, "{\"logs\":{\"stdout\":[");
    buf_put(&out, js->logs[0].data ? js->logs[0].data : "", js->logs[0].len);
    buf_puts(&out, "],\"stderr\":[");
    buf_put(&out, js->logs[1].data ? js->logs[1].data : "", js->logs[1].len);
    buf_puts(&out, "]},\"results\":[");
    if (!o.error.len) buf_put(&out, o.results.data ? o.results.data : "", o.results.len);
    buf_putc(&out, ']');
    if (o.error.len) {
      buf_puts(&out, ",\"error\":");
      buf_put(&out, o.error.data, o.error.len);
    }
    buf_putc(&out, '}');
  }
  int failed = out.failed || o.results.failed || o.error.failed || js->logs[0].failed || js->logs[1].failed;
  buf_release(&o.results);
  buf_release(&o.error);
  buf_reset(&js->logs[0]);
  buf_reset(&js->logs[1]);
  if (failed) { buf_release(&out); return -1; }
  *out_ptr = out.data;
  *out_len = (uint32_t)out.len;
  return 0;
}
