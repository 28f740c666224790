/* engines/javascript/modules.c: a session's import() of .js/.mjs/.json files from /workspace and its require('fs' |
 * 'process') (protocol §6.2 "Sessions (REPL)"), part of the JavaScript engine's driver (driver.c; shared declarations
 * in driver_internal.h).
 */
#include "driver_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int has_suffix(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

char *sw_js_module_not_registered(JSContext *ctx, const char *specifier) {
  SwJs *js = JS_GetContextOpaque(ctx);
  Buf m = {0};
  buf_puts(&m, "module not registered: ");
  buf_puts(&m, specifier);
  if (m.failed) { buf_release(&m); JS_ThrowOutOfMemory(ctx); return NULL; }
  JSValue msg = JS_NewStringLen(ctx, m.data, m.len);
  buf_release(&m);
  if (JS_IsException(msg)) return NULL;
  JSValue e = JS_CallConstructor(ctx, js->error_ctor, 1, (JSValueConst *)&msg);
  JS_FreeValue(ctx, msg);
  if (!JS_IsException(e)) JS_Throw(ctx, e);
  return NULL;
}

/* Module specifier -> "/workspace/..." path of an existing .js/.mjs/.json file. Relative specifiers resolve against the
 * importing module's directory, or the cwd for the session's script; bare specifiers are not registered. */
static char *module_normalize(JSContext *ctx, const char *base, const char *name, void *opaque) {
  (void)opaque;
  SwJs *js = JS_GetContextOpaque(ctx);
  int relative = name[0] == '.' && (name[1] == '/' || name[1] == 0 || (name[1] == '.' && (name[2] == '/' || name[2] == 0)));
  if (!relative && name[0] != '/') return sw_js_module_not_registered(ctx, name);
  char *dir = NULL;
  if (relative && base && strncmp(base, "/workspace", 10) == 0 && (base[10] == '/' || base[10] == 0)) {
    dir = strdup(base);
    if (dir) *strrchr(dir, '/') = 0; /* base is "/workspace..." so it has a slash */
  } else {
    dir = strdup(js->cwd);
  }
  if (!dir) { JS_ThrowOutOfMemory(ctx); return NULL; }
  char *path = NULL;
  int r = sw_js_normalize_path(dir[0] ? dir : "/", name, strlen(name), &path);
  free(dir);
  if (r == ENOMEM) { JS_ThrowOutOfMemory(ctx); return NULL; }
  if (r || !(has_suffix(path, ".js") || has_suffix(path, ".mjs") || has_suffix(path, ".json"))) {
    free(path);
    return sw_js_module_not_registered(ctx, name);
  }
  char *host = sw_js_host_path(path);
  struct stat st;
  sw_charge(SW_JS_FS_CALL_UNITS);
  int ok = host && stat(host, &st) == 0 && S_ISREG(st.st_mode);
  free(host);
  if (!ok) { free(path); return sw_js_module_not_registered(ctx, name); }
  char *out = js_strdup(ctx, path);
  free(path);
  return out;
}

static int json_module_init(JSContext *ctx, JSModuleDef *m) {
  SwJs *js = JS_GetContextOpaque(ctx);
  for (JsonModule **pp = &js->json_modules; *pp; pp = &(*pp)->next) {
    if ((*pp)->m != m) continue;
    JsonModule *j = *pp;
    *pp = j->next;
    JSValue v = j->value;
    free(j);
    return JS_SetModuleExport(ctx, m, "default", v);
  }
  JS_ThrowInternalError(ctx, "JSON module state lost");
  return -1;
}

/* Loads a normalized module name: .json -> a module whose default export is the parsed value; .js/.mjs -> an ES
 * module with import.meta.url = "file://<path>". */
static JSModuleDef *module_loader(JSContext *ctx, const char *name, void *opaque) {
  (void)opaque;
  SwJs *js = JS_GetContextOpaque(ctx);
  char *host = sw_js_host_path(name);
  if (!host) { JS_ThrowOutOfMemory(ctx); return NULL; }
  sw_charge(SW_JS_FS_CALL_UNITS);
  int fd = open(host, O_RDONLY);
  free(host);
  if (fd < 0) { sw_js_module_not_registered(ctx, name); return NULL; }
  size_t cap = 4096, len = 0;
  char *src = malloc(cap);
  int err = src ? 0 : ENOMEM;
  while (!err) {
    if (len + 1 >= cap) {
      if (cap >= SW_JS_FS_MAX_READ) { err = EFBIG; break; }
      char *d = realloc(src, cap * 2);
      if (!d) { err = ENOMEM; break; }
      src = d;
      cap *= 2;
    }
    ssize_t r = read(fd, src + len, cap - 1 - len);
    if (r < 0) { if (errno != EINTR) err = errno; continue; }
    if (r == 0) break;
    len += (size_t)r;
  }
  close(fd);
  if (err) {
    free(src);
    if (err == ENOMEM) JS_ThrowOutOfMemory(ctx);
    else sw_js_module_not_registered(ctx, name);
    return NULL;
  }
  src[len] = 0;
  sw_js_fs_charge_bytes(len);
  JSModuleDef *m = NULL;
  if (has_suffix(name, ".json")) {
    JSValue v = JS_ParseJSON(ctx, src, len, name);
    free(src);
    if (JS_IsException(v)) return NULL;
    JsonModule *j = malloc(sizeof *j);
    m = j ? JS_NewCModule(ctx, name, json_module_init) : NULL;
    if (!m || JS_AddModuleExport(ctx, m, "default") < 0) {
      free(j);
      JS_FreeValue(ctx, v);
      if (!m) JS_ThrowOutOfMemory(ctx);
      return NULL;
    }
    j->m = m;
    j->value = v;
    j->next = js->json_modules;
    js->json_modules = j;
    return m;
  }
  JSValue fn = JS_Eval(ctx, src, len, name, JS_EVAL_TYPE_MODULE | JS_EVAL_FLAG_COMPILE_ONLY);
  free(src);
  if (JS_IsException(fn)) return NULL;
  m = JS_VALUE_GET_PTR(fn);
  JSValue meta = JS_GetImportMeta(ctx, m);
  if (!JS_IsException(meta)) {
    Buf url = {0};
    buf_puts(&url, "file://");
    buf_puts(&url, name);
    if (!url.failed) JS_DefinePropertyValueStr(ctx, meta, "url", JS_NewStringLen(ctx, url.data, url.len), JS_PROP_C_W_E);
    buf_release(&url);
    JS_FreeValue(ctx, meta);
  } else {
    clear_exception(js);
  }
  JS_FreeValue(ctx, fn); /* the module stays referenced by the context */
  return m;
}

/* require('fs' | 'node:fs' | 'process' | 'node:process'); anything else is not registered. */
static JSValue js_require(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv) {
  (void)this_val;
  SwJs *js = JS_GetContextOpaque(ctx);
  const char *name = argc > 0 ? JS_ToCString(ctx, argv[0]) : JS_ToCString(ctx, JS_UNDEFINED);
  if (!name) return JS_EXCEPTION;
  JSValue r;
  if (strcmp(name, "fs") == 0 || strcmp(name, "node:fs") == 0) r = JS_DupValue(ctx, js->fs);
  else if (strcmp(name, "process") == 0 || strcmp(name, "node:process") == 0) r = JS_DupValue(ctx, js->process);
  else { sw_js_module_not_registered(ctx, name); r = JS_EXCEPTION; }
  JS_FreeCString(ctx, name);
  return r;
}

/* A session's require and import(): the global `require` and QuickJS's module loader. -1 when they could not be set. */
int sw_js_modules_install(SwJs *js, JSValueConst global) {
  if (define_fn(js->ctx, global, "require", js_require, 1) < 0) return -1;
  JS_SetModuleLoaderFunc(js->rt, module_normalize, module_loader, NULL);
  return 0;
}
