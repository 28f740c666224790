/* engines/lua/driver.c: a small C ABI over one lua_State for a JavaScript host (engines/lua/README.md "ABI").
 *
 * Every export takes and returns i32s except sw_lua_eval, which returns the outcome as one i64 (ptr << 32 | len).
 * Outcome JSON: the format of engines/common/engine.h (protocol §3.1-3.3), plus "cwd" for a session call. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wasi/api.h>

#include "lauxlib.h"
#include "lua.h"
#include "lualib.h"

#define EXPORT(name) __attribute__((export_name(#name))) name

enum {
  SW_LUA_HEAP_LIMIT = 48 << 20,   /* Lua heap; the module's memory is capped at 64 MiB by the linker */
  SW_MAX_OUTPUT_BYTES = 32768,    /* stdout + stderr, UTF-8 bytes (protocol §3.3) */
  SW_MAX_OUTPUT_ENTRIES = 200,    /* log lines, both streams */
  SW_MAX_RESULT_BYTES = 65536,    /* the serialized result (protocol §3.2) */
  SW_JSON_MAX_DEPTH = 64,         /* nesting beyond this is not serialized: the result falls back to text */
};
/* Fuel (docs/fuel.md, hard mode): the whole module is metered at the Wasm level by our fuel tool, which calls
 * `sandbox.charge`; the host traps the charge that overdraws the budget. Nothing here counts. */

/* ---- growable byte buffer ---- */

typedef struct {
  char *data;
  size_t len, cap;
  int failed; /* an allocation failed: the content is incomplete */
} Buf;

static void buf_reserve(Buf *b, size_t more) {
  if (b->failed || b->len + more <= b->cap) return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + more) cap *= 2;
  char *p = realloc(b->data, cap);
  if (!p) {
    b->failed = 1;
    return;
  }
  b->data = p;
  b->cap = cap;
}
static void buf_add(Buf *b, const char *s, size_t n) {
  buf_reserve(b, n);
  if (b->failed) return;
  memcpy(b->data + b->len, s, n);
  b->len += n;
}
static void buf_str(Buf *b, const char *s) { buf_add(b, s, strlen(s)); }
static void buf_char(Buf *b, char c) { buf_add(b, &c, 1); }
static void buf_free(Buf *b) {
  free(b->data);
  memset(b, 0, sizeof *b);
}

/* ---- JSON text ---- */

/* Length of the valid UTF-8 sequence at s (1-4), or 0 if the bytes there are not one. */
static size_t utf8_sequence(const unsigned char *s, size_t n) {
  unsigned c = s[0];
  if (c < 0x80) return 1;
  size_t len;
  unsigned min;
  if (c >= 0xc2 && c <= 0xdf) len = 2, min = 0x80;
  else if (c >= 0xe0 && c <= 0xef) len = 3, min = 0x800;
  else if (c >= 0xf0 && c <= 0xf4) len = 4, min = 0x10000;
  else return 0;
  if (n < len) return 0;
  unsigned cp = c & (0x7f >> len);
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (s[i] & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return len;
}

/* A JSON string literal of the bytes s[0..n): UTF-8 kept, invalid bytes become U+FFFD. */
static void json_string(Buf *b, const char *s, size_t n) {
  const unsigned char *u = (const unsigned char *)s;
  buf_reserve(b, n + 2);
  buf_char(b, '"');
  for (size_t i = 0; i < n;) {
    unsigned c = u[i];
    if (c == '"' || c == '\\') {
      buf_char(b, '\\');
      buf_char(b, (char)c);
      i++;
    } else if (c < 0x20) {
      char esc[8];
      const char *named = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : NULL;
      if (named) buf_str(b, named);
      else {
        snprintf(esc, sizeof esc, "\\u%04x", c);
        buf_str(b, esc);
      }
      i++;
    } else {
      size_t len = utf8_sequence(u + i, n - i);
      if (len) {
        buf_add(b, s + i, len);
        i += len;
      } else {
        buf_str(b, "\xef\xbf\xbd");
        i++;
      }
    }
  }
  buf_char(b, '"');
}

/* The shortest %.Ng (N = 15..17) that reads back as the same double. */
static void json_number(Buf *b, double d) {
  char tmp[40];
  for (int precision = 15; precision <= 17; precision++) {
    snprintf(tmp, sizeof tmp, "%.*g", precision, d);
    if (strtod(tmp, NULL) == d) break;
  }
  buf_str(b, tmp);
}

/* ---- the per-call capture (print, io.write, io.stdout/io.stderr, warn) ---- */

typedef struct {
  Buf stream[2];         /* stdout, stderr */
  size_t total;          /* UTF-8 bytes written by the program, both streams, dropped ones included */
  size_t entries;        /* log lines so far, both streams */
} Capture;

static Capture capture;
/* The output limit was exceeded: nothing more is stored, and every C function call from here on ends in the error
 * "Output limit exceeded" (patches/output-limit.patch), so a printing loop stops; pcall may catch it, the outcome
 * still reports the limit. */
int sw_lua_output_over;

static ssize_t capture_write(int fd, const char *data, size_t n) {
  if (n == 0 || sw_lua_output_over) return (ssize_t)n;
  Buf *b = &capture.stream[fd];
  size_t entries = capture.entries;
  int open_line = b->len > 0 && b->data[b->len - 1] != '\n';
  for (size_t i = 0; i < n; i++) {
    if (!open_line) entries++;
    open_line = data[i] != '\n';
  }
  capture.total += n;
  if (capture.total > SW_MAX_OUTPUT_BYTES || entries > SW_MAX_OUTPUT_ENTRIES) {
    sw_lua_output_over = 1;
    return (ssize_t)n;
  }
  capture.entries = entries;
  buf_add(b, data, n);
  return (ssize_t)n;
}
static ssize_t capture_stdout(void *cookie, const char *data, size_t n) {
  (void)cookie;
  return capture_write(0, data, n);
}
static ssize_t capture_stderr(void *cookie, const char *data, size_t n) {
  (void)cookie;
  return capture_write(1, data, n);
}

FILE *sw_lua_stdout;
FILE *sw_lua_stderr;

static int open_capture_streams(void) {
  if (sw_lua_stdout) return 0;
  cookie_io_functions_t out = {.write = capture_stdout}, err = {.write = capture_stderr};
  sw_lua_stdout = fopencookie(NULL, "w", out);
  sw_lua_stderr = fopencookie(NULL, "w", err);
  if (!sw_lua_stdout || !sw_lua_stderr) return -1;
  setvbuf(sw_lua_stdout, NULL, _IONBF, 0);
  setvbuf(sw_lua_stderr, NULL, _IONBF, 0);
  return 0;
}

/* The lines of one stream as a JSON array (a trailing newline ends the last line; it adds no empty entry). */
static void json_lines(Buf *out, const Buf *b) {
  buf_char(out, '[');
  size_t start = 0;
  for (size_t i = 0; i <= b->len; i++) {
    if (i == b->len && start == b->len) break;
    if (i == b->len || b->data[i] == '\n') {
      if (start > 0) buf_char(out, ',');
      json_string(out, b->data + start, i - start);
      start = i + 1;
    }
  }
  buf_char(out, ']');
}

/* ---- wasi-libc gaps (engines/lua/wasi_compat.h) ---- */

int sw_lua_system(const char *command) {
  if (!command) return 0; /* no shell: os.execute() is false */
  errno = ENOSYS;
  return -1;
}
FILE *sw_lua_tmpfile(void) {
  errno = ENOSYS;
  return NULL;
}

/* ---- the handle ---- */

typedef struct {
  lua_State *L;
  size_t heap_used;
  char cwd[1024];
  int warn_state; /* warn(): 0 off (Lua's default, "@on" switches on), 1 on, 2 inside a multi-part message */
} Handle;

/* lauxlib's warning function, which only luaL_newstate installs (we use lua_newstate for the heap cap): warn() writes
 * "Lua warning: <message>" lines to the captured stderr once "@on" was given; "@off" switches it off again. */
static void warn_function(void *ud, const char *msg, int tocont) {
  Handle *h = ud;
  if (h->warn_state != 2 && !tocont && msg[0] == '@') { /* a control message */
    if (strcmp(msg, "@on") == 0) h->warn_state = 1;
    else if (strcmp(msg, "@off") == 0) h->warn_state = 0;
    return;
  }
  if (h->warn_state == 0) return;
  if (h->warn_state == 1) fputs("Lua warning: ", stderr);
  fputs(msg, stderr);
  if (tocont) h->warn_state = 2;
  else {
    fputs("\n", stderr);
    h->warn_state = 1;
  }
}

/* What a block really takes from malloc (dlmalloc: a 4-byte header, 8-byte alignment, 16 bytes at least), so that
 * millions of small objects cannot exhaust linear memory while their requested sizes are still under the limit. */
static size_t block_size(size_t n) {
  size_t chunk = (n + 4 + 7) & ~(size_t)7;
  return chunk < 16 ? 16 : chunk;
}

static void *limited_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  Handle *h = ud;
  size_t old = ptr ? block_size(osize) : 0;
  if (nsize == 0) {
    free(ptr);
    h->heap_used -= old;
    return NULL;
  }
  size_t now = block_size(nsize);
  if (now > old && now - old > SW_LUA_HEAP_LIMIT - h->heap_used) return NULL; /* "not enough memory" */
  void *p = realloc(ptr, nsize);
  if (!p) return NULL;
  h->heap_used = h->heap_used - old + now;
  return p;
}

/* Registry keys of the driver's own values. */
static const char ENV_KEY[] = "sandbox.env";

/* os.getenv(name): the request's envVars only (protocol §6.1). */
static int os_getenv(lua_State *L) {
  luaL_checkstring(L, 1);
  lua_getfield(L, LUA_REGISTRYINDEX, ENV_KEY);
  if (!lua_istable(L, -1)) {
    lua_pushnil(L);
    return 1;
  }
  lua_pushvalue(L, 1);
  lua_rawget(L, -2);
  return 1;
}

static int os_exit(lua_State *L) { return luaL_error(L, "os.exit is not available in the sandbox"); }

/* The safe subset of the debug library: no sethook (a program needs no hooks; fewer ways in), no registry, no setters. */
static void restrict_debug(lua_State *L) {
  static const char *const keep[] = {"traceback", "getinfo", NULL};
  lua_getglobal(L, "debug");
  lua_newtable(L);
  for (int i = 0; keep[i]; i++) {
    lua_getfield(L, -2, keep[i]);
    lua_setfield(L, -2, keep[i]);
  }
  lua_setglobal(L, "debug");
  lua_pop(L, 1);
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "loaded");
  lua_getglobal(L, "debug");
  lua_setfield(L, -2, "debug");
  lua_pop(L, 2);
}

static void set_function(lua_State *L, const char *table, const char *name, lua_CFunction f) {
  lua_getglobal(L, table);
  if (f) lua_pushcfunction(L, f);
  else lua_pushnil(L);
  lua_setfield(L, -2, name);
  lua_pop(L, 1);
}

static int seed_random(lua_State *L) {
  uint64_t seed[2];
  if (__wasi_random_get((uint8_t *)seed, sizeof seed) != 0) return -1;
  lua_getglobal(L, "math");
  lua_getfield(L, -1, "randomseed");
  lua_pushinteger(L, (lua_Integer)seed[0]);
  lua_pushinteger(L, (lua_Integer)seed[1]);
  int status = lua_pcall(L, 2, 0, 0);
  lua_pop(L, status == LUA_OK ? 1 : 2);
  return status == LUA_OK ? 0 : -1;
}

static int open_sandbox(lua_State *L) {
  luaL_openlibs(L);
  set_function(L, "os", "getenv", os_getenv);
  set_function(L, "os", "exit", os_exit);
  restrict_debug(L);
  /* C modules cannot load here (no dlopen); Lua modules load from the file system, text only (ldo.c patch). */
  lua_getglobal(L, "package");
  lua_pushnil(L);
  lua_setfield(L, -2, "loadlib");
  lua_pushstring(L, "/workspace/?.lua;/workspace/?/init.lua;./?.lua;./?/init.lua");
  lua_setfield(L, -2, "path");
  lua_pushstring(L, "");
  lua_setfield(L, -2, "cpath");
  lua_pop(L, 1);
  return 0;
}

/* ---- exports ---- */

void *EXPORT(sw_lua_alloc)(uint32_t size) { return malloc(size ? size : 1); }
/* The outcome when there was no memory left to write the real one (sw_lua_free ignores it). */
static const char OUT_OF_MEMORY_OUTCOME[] =
    "{\"logs\":{\"stdout\":[],\"stderr\":[]},\"results\":[],"
    "\"error\":{\"name\":\"LuaError\",\"message\":\"not enough memory\",\"traceback\":[]}}";

void EXPORT(sw_lua_free)(void *ptr) {
  if (ptr != (void *)OUT_OF_MEMORY_OUTCOME) free(ptr);
}

Handle *EXPORT(sw_lua_new)(void) {
  if (open_capture_streams() != 0) return NULL;
  Handle *h = calloc(1, sizeof *h);
  if (!h) return NULL;
  h->L = lua_newstate(limited_alloc, h);
  if (!h->L) {
    free(h);
    return NULL;
  }
  lua_State *L = h->L;
  lua_setwarnf(L, warn_function, h);
  lua_pushcfunction(L, open_sandbox);
  if (lua_pcall(L, 0, 0, 0) != LUA_OK) {
    lua_close(L);
    free(h);
    return NULL;
  }
  /* Relative paths resolve under /workspace (a stateless request's /workspace may be disabled: chdir then fails and
   * the handle still reports /workspace). */
  (void)chdir("/workspace");
  strcpy(h->cwd, "/workspace");
  seed_random(L);
  return h;
}

void EXPORT(sw_lua_close)(Handle *h) {
  if (!h) return;
  lua_close(h->L);
  free(h);
}

const char *EXPORT(sw_lua_cwd)(Handle *h) { return h ? h->cwd : NULL; }

int32_t EXPORT(sw_lua_after_restore)(Handle *h, int32_t boot_image) {
  if (!h) return -1;
  if (boot_image && seed_random(h->L) != 0) return -1;
  return 0;
}

/* ---- env JSON: a flat object of strings ---- */

typedef struct {
  const char *p, *end;
} Json;

static void json_ws(Json *j) {
  while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')) j->p++;
}
static int hex4(const char *p, unsigned *out) {
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    char c = p[i];
    v <<= 4;
    if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
    else return -1;
  }
  *out = v;
  return 0;
}
static void utf8_put(luaL_Buffer *b, unsigned cp) {
  char tmp[4];
  int n;
  if (cp < 0x80) tmp[0] = (char)cp, n = 1;
  else if (cp < 0x800) tmp[0] = (char)(0xc0 | cp >> 6), tmp[1] = (char)(0x80 | (cp & 0x3f)), n = 2;
  else if (cp < 0x10000)
    tmp[0] = (char)(0xe0 | cp >> 12), tmp[1] = (char)(0x80 | ((cp >> 6) & 0x3f)), tmp[2] = (char)(0x80 | (cp & 0x3f)),
    n = 3;
  else
    tmp[0] = (char)(0xf0 | cp >> 18), tmp[1] = (char)(0x80 | ((cp >> 12) & 0x3f)),
    tmp[2] = (char)(0x80 | ((cp >> 6) & 0x3f)), tmp[3] = (char)(0x80 | (cp & 0x3f)), n = 4;
  luaL_addlstring(b, tmp, (size_t)n);
}
/* Pushes the JSON string at j->p (which is at the opening quote); 0 = ok. */
static int json_read_string(lua_State *L, Json *j) {
  if (j->p >= j->end || *j->p != '"') return -1;
  j->p++;
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  while (j->p < j->end && *j->p != '"') {
    char c = *j->p++;
    if (c != '\\') {
      luaL_addchar(&b, c);
      continue;
    }
    if (j->p >= j->end) return -1;
    c = *j->p++;
    switch (c) {
      case '"': case '\\': case '/': luaL_addchar(&b, c); break;
      case 'b': luaL_addchar(&b, '\b'); break;
      case 'f': luaL_addchar(&b, '\f'); break;
      case 'n': luaL_addchar(&b, '\n'); break;
      case 'r': luaL_addchar(&b, '\r'); break;
      case 't': luaL_addchar(&b, '\t'); break;
      case 'u': {
        unsigned cp, lo;
        if (j->end - j->p < 4 || hex4(j->p, &cp)) return -1;
        j->p += 4;
        if (cp >= 0xd800 && cp <= 0xdbff && j->end - j->p >= 6 && j->p[0] == '\\' && j->p[1] == 'u' &&
            hex4(j->p + 2, &lo) == 0 && lo >= 0xdc00 && lo <= 0xdfff) {
          cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          j->p += 6;
        } else if (cp >= 0xd800 && cp <= 0xdfff) {
          cp = 0xfffd;
        }
        utf8_put(&b, cp);
        break;
      }
      default: return -1;
    }
  }
  if (j->p >= j->end) return -1;
  j->p++;
  luaL_pushresult(&b);
  return 0;
}
/* Parses env JSON (an object of strings, or empty) into a new table at the top of the stack; 0 = ok. */
static int parse_env(lua_State *L, const char *s, size_t n) {
  lua_newtable(L);
  Json j = {s, s + n};
  json_ws(&j);
  if (j.p == j.end) return 0;
  if (*j.p++ != '{') return -1;
  json_ws(&j);
  if (j.p < j.end && *j.p == '}') return j.p++, 0;
  for (;;) {
    json_ws(&j);
    if (json_read_string(L, &j)) return -1;
    json_ws(&j);
    if (j.p >= j.end || *j.p++ != ':') return -1;
    json_ws(&j);
    if (json_read_string(L, &j)) return -1;
    lua_rawset(L, -3);
    json_ws(&j);
    if (j.p < j.end && *j.p == ',') {
      j.p++;
      continue;
    }
    if (j.p < j.end && *j.p == '}') return 0;
    return -1;
  }
}

/* ---- results and errors (protocol §3.2, §3.5) ---- */

typedef struct {
  lua_State *L;
  Buf *out;
  int visiting; /* absolute stack index of a table: the set of tables on the current path */
} JsonWriter;

typedef struct {
  const char *s;
  size_t n;
} Key;

static int key_order(const void *a, const void *b) {
  const Key *x = a, *y = b;
  int c = memcmp(x->s, y->s, x->n < y->n ? x->n : y->n);
  return c ? c : (x->n > y->n) - (x->n < y->n);
}

/* Appends the value at stack index idx as JSON; 0 = ok, -1 = not representable (the caller falls back to text). */
static int json_value(JsonWriter *w, int idx, int depth) {
  lua_State *L = w->L;
  Buf *out = w->out;
  if (out->len > SW_MAX_RESULT_BYTES || out->failed) return 0; /* the caller reports the result limit */
  switch (lua_type(L, idx)) {
    case LUA_TBOOLEAN: buf_str(out, lua_toboolean(L, idx) ? "true" : "false"); return 0;
    case LUA_TNUMBER:
      if (lua_isinteger(L, idx)) {
        char tmp[32];
        snprintf(tmp, sizeof tmp, "%lld", (long long)lua_tointeger(L, idx));
        buf_str(out, tmp);
        return 0;
      } else {
        double d = lua_tonumber(L, idx);
        if (!isfinite(d)) return -1;
        json_number(out, d);
        return 0;
      }
    case LUA_TSTRING: {
      size_t n;
      const char *s = lua_tolstring(L, idx, &n);
      json_string(out, s, n);
      return 0;
    }
    case LUA_TTABLE: break;
    default: return -1;
  }
  if (depth >= SW_JSON_MAX_DEPTH || luaL_getmetafield(L, idx, "__tostring") != LUA_TNIL) return -1;
  if (!lua_checkstack(L, 8)) return -1;
  idx = lua_absindex(L, idx);
  lua_pushvalue(L, idx);
  if (lua_rawget(L, w->visiting) != LUA_TNIL) return -1; /* a cycle */
  lua_pop(L, 1);
  lua_pushvalue(L, idx);
  lua_pushboolean(L, 1);
  lua_rawset(L, w->visiting);
  /* Classify the keys: 1..n integers (an array) or all strings (an object). */
  lua_Integer count = 0, strings = 0, ints = 0;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    count++;
    lua_pop(L, 1);
    if (lua_type(L, -1) == LUA_TSTRING) strings++;
    else if (lua_isinteger(L, -1) && lua_tointeger(L, -1) >= 1) ints++;
    else {
      lua_pop(L, 1);
      return -1;
    }
  }
  int rc = 0;
  if (count > 0 && ints == count) {
    if ((lua_Integer)lua_rawlen(L, idx) != count) return -1; /* holes */
    buf_char(out, '[');
    for (lua_Integer i = 1; i <= count && rc == 0 && out->len <= SW_MAX_RESULT_BYTES; i++) {
      if (i > 1) buf_char(out, ',');
      lua_rawgeti(L, idx, i);
      rc = json_value(w, -1, depth + 1);
      lua_pop(L, 1);
    }
    buf_char(out, ']');
  } else if (strings == count) {
    /* Object keys in byte order (Lua's own order depends on its per-state hash seed). The key array is a userdata:
     * the collector frees it if an allocation error unwinds from here. */
    Key *sorted = lua_newuserdatauv(L, sizeof(Key) * (size_t)(count ? count : 1), 0);
    lua_Integer k = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
      lua_pop(L, 1);
      sorted[k].s = lua_tolstring(L, -1, &sorted[k].n); /* anchored by the table, which nothing modifies meanwhile */
      k++;
    }
    qsort(sorted, (size_t)count, sizeof(Key), key_order);
    buf_char(out, '{');
    for (lua_Integer i = 0; i < count && rc == 0 && out->len <= SW_MAX_RESULT_BYTES; i++) {
      if (i > 0) buf_char(out, ',');
      json_string(out, sorted[i].s, sorted[i].n);
      buf_char(out, ':');
      lua_pushlstring(L, sorted[i].s, sorted[i].n);
      lua_rawget(L, idx);
      rc = json_value(w, -1, depth + 1);
      lua_pop(L, 1);
    }
    lua_pop(L, 1); /* the key array */
    buf_char(out, '}');
  } else {
    return -1;
  }
  lua_pushvalue(L, idx);
  lua_pushnil(L);
  lua_rawset(L, w->visiting);
  return rc;
}

/* The result entry of value 1 (run protected: __tostring and allocations may raise): pushes 0 none, 1 text or
 * 2 json; the payload goes to the Buf at lightuserdata 2. */
static int result_entry(lua_State *L) {
  Buf *payload = lua_touserdata(L, 2);
  int t = lua_type(L, 1);
  if (t == LUA_TNIL || t == LUA_TNONE) {
    lua_pushinteger(L, 0);
    return 1;
  }
  if (t == LUA_TTABLE) {
    lua_newtable(L);
    JsonWriter w = {L, payload, lua_gettop(L)};
    int rc = json_value(&w, 1, 0);
    lua_pop(L, 1);
    if (rc == 0 && !payload->failed) {
      lua_pushinteger(L, 2);
      return 1;
    }
    buf_free(payload);
  }
  size_t n;
  const char *s = luaL_tolstring(L, 1, &n);
  buf_add(payload, s, n > SW_MAX_RESULT_BYTES ? SW_MAX_RESULT_BYTES + 1 : n); /* enough to see the limit */
  lua_pushinteger(L, 1);
  return 1;
}

/* Message handler: the error's message and luaL_traceback's lines, as {message, traceback} in a table. */
static int message_handler(lua_State *L) {
  const char *message;
  if (lua_type(L, 1) == LUA_TSTRING || lua_type(L, 1) == LUA_TNUMBER) {
    message = lua_tostring(L, 1);
  } else if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) {
    message = lua_tostring(L, -1);
  } else if (lua_type(L, 1) == LUA_TTABLE) {
    Buf json = {0};
    lua_newtable(L);
    JsonWriter w = {L, &json, lua_gettop(L)};
    int rc = json_value(&w, 1, 0);
    lua_pop(L, 1);
    if (rc == 0 && !json.failed && json.len <= SW_MAX_RESULT_BYTES) lua_pushlstring(L, json.data, json.len);
    else lua_pushliteral(L, "(error object is a table value)");
    buf_free(&json);
    message = lua_tostring(L, -1);
  } else {
    message = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  }
  lua_createtable(L, 0, 2);
  lua_pushstring(L, message);
  lua_setfield(L, -2, "message");
  luaL_traceback(L, L, NULL, 1);
  lua_setfield(L, -2, "traceback");
  return 1;
}

static void error_json(Buf *out, const char *name, const char *message, size_t message_len, const char *traceback) {
  buf_str(out, ",\"error\":{\"name\":");
  json_string(out, name, strlen(name));
  buf_str(out, ",\"message\":");
  json_string(out, message, message_len);
  buf_str(out, ",\"traceback\":[");
  int first = 1;
  if (traceback) {
    /* luaL_traceback: "stack traceback:\n\t<frame>\n\t<frame>..." -> one entry per frame, without the tab */
    const char *p = strchr(traceback, '\n');
    while (p) {
      const char *line = p + 1;
      p = strchr(line, '\n');
      size_t n = p ? (size_t)(p - line) : strlen(line);
      while (n && (*line == '\t' || *line == ' ')) line++, n--;
      if (n == 0) continue;
      if (!first) buf_char(out, ',');
      json_string(out, line, n);
      first = 0;
    }
  }
  buf_str(out, "]}");
}

/* Loads the code as `return <code>` when that parses (the last expression is the result, like Lua's REPL), else as
 * statements. Chunk name "input": messages read "input:1: ...". */
static int load_code(lua_State *L, const char *code, size_t len) {
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  luaL_addstring(&b, "return ");
  luaL_addlstring(&b, code, len);
  luaL_pushresult(&b);
  size_t n;
  const char *expr = lua_tolstring(L, -1, &n);
  int status = luaL_loadbufferx(L, expr, n, "=input", "t");
  lua_remove(L, -2);
  if (status == LUA_OK) return LUA_OK;
  lua_pop(L, 1);
  return luaL_loadbufferx(L, code, len, "=input", "t");
}

static int64_t pack(Buf *out) {
  if (out->failed) {
    buf_free(out);
    return (int64_t)((uint64_t)(uintptr_t)OUT_OF_MEMORY_OUTCOME << 32 | (uint32_t)(sizeof OUT_OF_MEMORY_OUTCOME - 1));
  }
  return (int64_t)((uint64_t)(uintptr_t)out->data << 32 | (uint32_t)out->len);
}

/* One evaluation. The outcome buffer is the caller's (sw_lua_free); 0 = driver failure. */
int64_t EXPORT(sw_lua_eval)(Handle *h, const char *code, uint32_t code_len, const char *env, uint32_t env_len,
                            int32_t session) {
  if (!h) return 0;
  lua_State *L = h->L;
  int base = lua_gettop(L);
  memset(&capture, 0, sizeof capture);
  sw_lua_output_over = 0;
  if (!lua_checkstack(L, 16)) return 0;
  if (parse_env(L, env ? env : "", env ? env_len : 0) != 0) {
    lua_settop(L, base);
    return 0;
  }
  lua_setfield(L, LUA_REGISTRYINDEX, ENV_KEY);

  lua_pushcfunction(L, message_handler);
  int handler = lua_gettop(L);
  int status = load_code(L, code ? code : "", code ? code_len : 0);
  if (status == LUA_OK) status = lua_pcall(L, 0, 1, handler);
  fflush(sw_lua_stdout);
  fflush(sw_lua_stderr);

  /* After a memory error the garbage may be all of the heap, and the collector may be stopped (collectgarbage
   * "stop"): collect now, so that the outcome and the next call have memory. */
  if (status == LUA_ERRMEM) {
    lua_gc(L, LUA_GCCOLLECT);
  }

  Buf payload = {0};
  int kind = 0;
  const char *err_message = NULL, *traceback = NULL;
  size_t err_len = 0;
  if (status == LUA_OK) {
    lua_pushcfunction(L, result_entry);
    lua_insert(L, -2);
    lua_pushlightuserdata(L, &payload);
    status = lua_pcall(L, 2, 1, handler);
    if (status == LUA_OK) kind = (int)lua_tointeger(L, -1);
    else buf_free(&payload);
  }
  if (status == LUA_OK) {
    /* the result entry is in payload, unless there was no memory to copy it */
    if (kind && payload.failed) err_message = "not enough memory", err_len = strlen(err_message);
  } else if (lua_istable(L, -1)) {
    lua_getfield(L, -1, "message");
    lua_getfield(L, -2, "traceback");
    err_message = lua_tolstring(L, -2, &err_len);
    traceback = lua_tostring(L, -1);
  } else {
    /* a syntax error (a string), a memory error, or an error in the message handler */
    err_message = lua_tolstring(L, -1, &err_len);
    if (!err_message) err_message = "(error object is not a string)", err_len = strlen(err_message);
  }

  const char *limit = NULL;
  if (sw_lua_output_over) limit = "Output limit exceeded";
  else if (kind && !err_message && payload.len > SW_MAX_RESULT_BYTES) limit = "Result limit exceeded";

  Buf out = {0};
  buf_str(&out, "{\"logs\":{\"stdout\":");
  static const Buf empty;
  int drop_logs = limit && !session; /* protocol §11 item 7: a stateless limit keeps no logs */
  json_lines(&out, drop_logs ? &empty : &capture.stream[0]);
  buf_str(&out, ",\"stderr\":");
  json_lines(&out, drop_logs ? &empty : &capture.stream[1]);
  buf_str(&out, "},\"results\":[");
  if (kind && !limit && !err_message) {
    if (kind == 2) {
      buf_str(&out, "{\"json\":");
      buf_add(&out, payload.data, payload.len);
    } else {
      buf_str(&out, "{\"text\":");
      json_string(&out, payload.data, payload.len);
    }
    buf_char(&out, '}');
  }
  buf_char(&out, ']');
  if (limit) error_json(&out, "ExecutionLimitError", limit, strlen(limit), NULL);
  else if (err_message) {
    /* error(string.rep("x", 1e7)) must not make a 10 MB outcome: messages are cut at the result limit */
    if (err_len > SW_MAX_RESULT_BYTES) err_len = SW_MAX_RESULT_BYTES;
    error_json(&out, "LuaError", err_message, err_len, traceback);
  }
  if (session) {
    char now[sizeof h->cwd];
    if (getcwd(now, sizeof now) && (strcmp(now, "/workspace") == 0 || strncmp(now, "/workspace/", 11) == 0))
      strcpy(h->cwd, now);
    else strcpy(h->cwd, "/workspace");
    buf_str(&out, ",\"cwd\":");
    json_string(&out, h->cwd, strlen(h->cwd));
  }
  buf_char(&out, '}');

  buf_free(&payload);
  buf_free(&capture.stream[0]);
  buf_free(&capture.stream[1]);
  lua_settop(L, base);
  lua_pushnil(L);
  lua_setfield(L, LUA_REGISTRYINDEX, ENV_KEY);
  return pack(&out);
}
