/* engines/javascript/fs.c: the session's synchronous Node `fs` subset and process.chdir (protocol §6.2 "Sessions
 * (REPL)"), part of the JavaScript engine's driver (driver.c; shared declarations in driver_internal.h).
 *
 * Every path goes through sw_js_normalize_path (protocol §7.11) and reaches the filesystem as an absolute
 * "/workspace/..." path through wasi-libc's POSIX calls, i.e. WASI syscalls into our host, which enforces the
 * workspace limits and the live `disabled` flag (EACCES). Natively (tests) a host directory stands in for "/"
 * (sw_js_native_set_root).
 */
#include "driver_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


void sw_js_fs_charge_bytes(size_t n) {
  size_t units = n / SW_JS_FS_BYTES_PER_UNIT;
  while (units > 0) {
    uint32_t u = units > 0x40000000u ? 0x40000000u : (uint32_t)units;
    sw_charge(u);
    units -= u;
  }
}

#ifndef __wasi__
static char *g_native_root;
void sw_js_native_set_root(const char *dir) {
  free(g_native_root);
  g_native_root = dir ? strdup(dir) : NULL;
}
#endif

/* The path handed to POSIX calls for a normalized guest path (malloc'd; NULL when out of memory). */
char *sw_js_host_path(const char *guest) {
#ifndef __wasi__
  if (g_native_root) {
    size_t r = strlen(g_native_root), g = strlen(guest);
    char *p = malloc(r + g + 1);
    if (!p) return NULL;
    memcpy(p, g_native_root, r);
    memcpy(p + r, guest, g + 1);
    return p;
  }
#endif
  return strdup(guest);
}

/* Appends the segments of s[0..n) to buf[0..*len) (an absolute path without a trailing slash, "" = "/"): empty and
 * "." segments are dropped, ".." pops. Returns 0, or EACCES when ".." pops above "/". */
static int push_segments(char *buf, size_t *len, const char *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    while (i < n && s[i] == '/') i++;
    size_t j = i;
    while (j < n && s[j] != '/') j++;
    size_t seg = j - i;
    if (seg == 0 || (seg == 1 && s[i] == '.')) {
      /* dropped */
    } else if (seg == 2 && s[i] == '.' && s[i + 1] == '.') {
      if (*len == 0) return EACCES;
      while (*len > 0 && buf[*len - 1] != '/') (*len)--;
      if (*len > 0) (*len)--; /* the slash */
    } else {
      buf[(*len)++] = '/';
      memcpy(buf + *len, s + i, seg);
      *len += seg;
    }
    i = j;
  }
  return 0;
}

/* protocol §7.11: p (n bytes) against cwd. 0 with *out = "/workspace" or "/workspace/<segments>" (malloc'd), or an errno:
 * ENOENT (empty), EACCES (escapes /workspace), EINVAL (a NUL byte), ENOMEM. */
int sw_js_normalize_path(const char *cwd, const char *p, size_t n, char **out) {
  *out = NULL;
  if (n == 0) return ENOENT;
  if (memchr(p, 0, n)) return EINVAL;
  size_t cl = p[0] == '/' ? 0 : strlen(cwd);
  char *buf = malloc(cl + n + 2);
  if (!buf) return ENOMEM;
  size_t len = 0;
  int r = push_segments(buf, &len, cwd, cl);
  if (!r) r = push_segments(buf, &len, p, n);
  buf[len] = 0;
  if (!r && !(strncmp(buf, "/workspace", 10) == 0 && (buf[10] == 0 || buf[10] == '/'))) r = EACCES;
  if (r) { free(buf); return r; }
  *out = buf;
  return 0;
}

static const struct {
  int err;
  const char *code;
  int node_errno; /* Node's (libuv's, Linux) errno number */
  const char *description;
} errno_table[] = {
    {ENOENT, "ENOENT", -2, "no such file or directory"},
    {EACCES, "EACCES", -13, "permission denied"},
    {EEXIST, "EEXIST", -17, "file already exists"},
    {ENOTDIR, "ENOTDIR", -20, "not a directory"},
    {EISDIR, "EISDIR", -21, "illegal operation on a directory"},
    {EINVAL, "EINVAL", -22, "invalid argument"},
    {EFBIG, "EFBIG", -27, "file too large"},
    {ENOSPC, "ENOSPC", -28, "no space left on device"},
    {ENOTEMPTY, "ENOTEMPTY", -39, "directory not empty"},
    {EPERM, "EPERM", -1, "operation not permitted"},
    {EXDEV, "EXDEV", -18, "cross-device link not permitted"},
    {ENAMETOOLONG, "ENAMETOOLONG", -36, "name too long"},
    {EBADF, "EBADF", -9, "bad file descriptor"},
    {EMFILE, "EMFILE", -24, "too many open files"},
    {ENOMEM, "ENOMEM", -12, "not enough memory"},
    {EROFS, "EROFS", -30, "read-only file system"},
    {EIO, "EIO", -5, "i/o error"},
};

/* Throws a Node-style filesystem Error: message "<CODE>: <description>, <syscall> '<path>'[ -> '<dest>']", with
 * .errno, .code, .syscall, .path (and .dest). `description` NULL = the errno's. Returns JS_EXCEPTION. */
static JSValue throw_fs_error(SwJs *js, int err, const char *description, const char *syscall, const char *path,
                              const char *dest) {
  JSContext *ctx = js->ctx;
#ifdef ENOTCAPABLE
  if (err == ENOTCAPABLE) err = EACCES; /* a path outside every preopen */
#endif
  size_t k = 0, n = sizeof errno_table / sizeof *errno_table;
  while (k < n && errno_table[k].err != err) k++;
  if (k == n) k = n - 1; /* EIO */
  if (!description) description = errno_table[k].description;
  Buf m = {0};
  buf_puts(&m, errno_table[k].code);
  buf_puts(&m, ": ");
  buf_puts(&m, description);
  buf_puts(&m, ", ");
  buf_puts(&m, syscall);
  buf_puts(&m, " '");
  buf_puts(&m, path ? path : "");
  buf_putc(&m, '\'');
  if (dest) {
    buf_puts(&m, " -> '");
    buf_puts(&m, dest);
    buf_putc(&m, '\'');
  }
  if (m.failed) { buf_release(&m); return JS_ThrowOutOfMemory(ctx); }
  JSValue msg = JS_NewStringLen(ctx, m.data, m.len);
  buf_release(&m);
  if (JS_IsException(msg)) return msg;
  JSValue e = JS_CallConstructor(ctx, js->error_ctor, 1, (JSValueConst *)&msg);
  JS_FreeValue(ctx, msg);
  if (JS_IsException(e)) return e;
  const int flags = JS_PROP_C_W_E;
  JS_DefinePropertyValueStr(ctx, e, "errno", JS_NewInt32(ctx, errno_table[k].node_errno), flags);
  JS_DefinePropertyValueStr(ctx, e, "code", JS_NewString(ctx, errno_table[k].code), flags);
  JS_DefinePropertyValueStr(ctx, e, "syscall", JS_NewString(ctx, syscall), flags);
  if (path) JS_DefinePropertyValueStr(ctx, e, "path", JS_NewString(ctx, path), flags);
  if (dest) JS_DefinePropertyValueStr(ctx, e, "dest", JS_NewString(ctx, dest), flags);
  return JS_Throw(ctx, e);
}

/* A TypeError with Node's .code (argument validation). */
static JSValue throw_arg_error(JSContext *ctx, const char *code, const char *message) {
  JSValue e = JS_ThrowTypeError(ctx, "%s", message);
  JSValue exc = JS_GetException(ctx);
  JS_DefinePropertyValueStr(ctx, exc, "code", JS_NewString(ctx, code), JS_PROP_C_W_E);
  JS_Throw(ctx, exc);
  return e;
}

typedef struct {
  char *raw;   /* the argument as given (for messages) */
  char *path;  /* normalized guest path, "/workspace[/...]" */
  char *host;  /* what POSIX calls receive */
} FsPath;

static void fs_path_free(FsPath *p) {
  free(p->raw);
  free(p->path);
  free(p->host);
  memset(p, 0, sizeof *p);
}

/* Normalizes the path argument v. 0 with *p filled, or -1 with an exception pending (a Node-style error for
 * `syscall`). With `quiet`, returns 1 without throwing for a path that is invalid or escapes /workspace. */
static int fs_path(SwJs *js, JSValueConst v, const char *syscall, int quiet, FsPath *p) {
  JSContext *ctx = js->ctx;
  memset(p, 0, sizeof *p);
  if (!JS_IsString(v)) {
    if (quiet) return 1;
    throw_fs_error(js, ENOENT, "path is required", syscall, "", NULL);
    return -1;
  }
  size_t n;
  const char *s = JS_ToCStringLen(ctx, &n, v);
  if (!s) return -1;
  p->raw = malloc(n + 1);
  if (!p->raw) { JS_FreeCString(ctx, s); JS_ThrowOutOfMemory(ctx); return -1; }
  memcpy(p->raw, s, n);
  p->raw[n] = 0;
  int r = sw_js_normalize_path(js->cwd, s, n, &p->path);
  JS_FreeCString(ctx, s);
  if (r == 0) {
    p->host = sw_js_host_path(p->path);
    if (!p->host) r = ENOMEM;
  }
  if (r == 0) return 0;
  if (quiet && r != ENOMEM) { fs_path_free(p); return 1; }
  if (r == ENOMEM) JS_ThrowOutOfMemory(ctx);
  else if (r == EINVAL) throw_arg_error(ctx, "ERR_INVALID_ARG_VALUE", "The argument 'path' must be a string without null bytes");
  else throw_fs_error(js, r, r == ENOENT ? "path is required" : r == EACCES ? "path escapes /workspace" : NULL, syscall,
                      p->raw, NULL);
  fs_path_free(p);
  return -1;
}

/* Throws the filesystem error `err` for p, releases p. */
static JSValue fs_fail(SwJs *js, FsPath *p, int err, const char *syscall) {
  throw_fs_error(js, err, NULL, syscall, p->raw, NULL);
  fs_path_free(p);
  return JS_EXCEPTION;
}

static int is_root(const FsPath *p) { return strcmp(p->path, "/workspace") == 0; }

/* An option of an options object (`undefined` when absent or when opts is not an object). */
static JSValue get_option(JSContext *ctx, JSValueConst opts, const char *name) {
  if (!JS_IsObject(opts)) return JS_UNDEFINED;
  return JS_GetPropertyStr(ctx, opts, name);
}

/* A boolean option: 1/0, or -1 with an exception pending. */
static int bool_option(JSContext *ctx, JSValueConst opts, const char *name) {
  JSValue v = get_option(ctx, opts, name);
  if (JS_IsException(v)) return -1;
  int r = JS_ToBool(ctx, v);
  JS_FreeValue(ctx, v);
  return r;
}

/* readFileSync's encoding (a string, or {encoding}): 1 = utf8 text, 0 = bytes, -1 exception. */
static int text_encoding(JSContext *ctx, JSValueConst arg) {
  JSValue v = JS_IsString(arg) ? JS_DupValue(ctx, arg) : get_option(ctx, arg, "encoding");
  if (JS_IsException(v)) return -1;
  int text = 0;
  if (JS_IsString(v)) {
    size_t n;
    const char *s = JS_ToCStringLen(ctx, &n, v);
    if (!s) { JS_FreeValue(ctx, v); return -1; }
    text = (n == 4 && strncasecmp(s, "utf8", 4) == 0) || (n == 5 && strncasecmp(s, "utf-8", 5) == 0);
    JS_FreeCString(ctx, s);
  }
  JS_FreeValue(ctx, v);
  return text;
}

/* fs.readFileSync(path, encoding?): 'utf8'/'utf-8' -> string, anything else -> Uint8Array. */
static JSValue js_fs_read_file(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv) {
  (void)this_val;
  SwJs *js = JS_GetContextOpaque(ctx);
  FsPath p;
  if (fs_path(js, argc > 0 ? argv[0] : JS_UNDEFINED, "open", 0, &p)) return JS_EXCEPTION;
  int text = text_encoding(ctx, argc > 1 ? argv[1] : JS_UNDEFINED);
  if (text < 0) { fs_path_free(&p); return JS_EXCEPTION; }
  sw_charge(SW_JS_FS_CALL_UNITS);
  int fd = open(p.host, O_RDONLY);
  if (fd < 0) return fs_fail(js, &p, errno, "open");
  struct stat st;
  int err = fstat(fd, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : 0;
  if (err) {
    close(fd);
    return fs_fail(js, &p, err, "read");
  }
  size_t cap = st.st_size > 0 && (uint64_t)st.st_size < SW_JS_FS_MAX_READ ? (size_t)st.st_size + 1 : 4096, len = 0;
  char *data = malloc(cap);
  err = data ? 0 : ENOMEM;
  while (!err) {
    if (len == cap) {
      if (cap >= SW_JS_FS_MAX_READ) { err = EFBIG; break; }
      size_t ncap = cap * 2 > SW_JS_FS_MAX_READ ? SW_JS_FS_MAX_READ : cap * 2;
      char *d = realloc(data, ncap);
      if (!d) { err = ENOMEM; break; }
      data = d;
      cap = ncap;
    }
    ssize_t r = read(fd, data + len, cap - len);
    if (r < 0) { if (errno != EINTR) err = errno; continue; }
    if (r == 0) break;
    len += (size_t)r;
  }
  close(fd);
  if (err) { free(data); return fs_fail(js, &p, err, "read"); }
  fs_path_free(&p);
  sw_js_fs_charge_bytes(len);
  JSValue result;
  if (text) {
    result = JS_NewStringLen(ctx, data, len);
  } else {
    JSValue args[3] = {JS_NewArrayBufferCopy(ctx, (const uint8_t *)data, len), JS_UNDEFINED, JS_UNDEFINED};
    /* (buffer, byteOffset, length): QuickJS reads all three */
    result = JS_IsException(args[0]) ? args[0] : JS_NewTypedArray(ctx, 3, (JSValueConst *)args, JS_TYPED_ARRAY_UINT8);
    JS_FreeValue(ctx, args[0]);
  }
  free(data);
  return result;
}

/* Writes all of data[0..n) to fd: 0 or an errno. */
static int write_all(int fd, const char *data, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, data, n);
    if (w < 0) { if (errno == EINTR) continue; return errno; }
    if (w == 0) return EIO;
    data += w;
    n -= (size_t)w;
  }
  return 0;
}

/* UTF-8 of a JS string with lone surrogates (WTF-8 from JS_ToCStringLen) replaced by U+FFFD, as Node writes it. */
static char *to_utf8(const char *s, size_t n, size_t *out_len) {
  char *o = malloc(n + 1);
  if (!o) return NULL;
  size_t j = 0;
  for (size_t i = 0; i < n;) {
    unsigned char c = (unsigned char)s[i];
    if (c == 0xED && i + 2 < n && ((unsigned char)s[i + 1] & 0xE0) == 0xA0) {
      memcpy(o + j, "\xEF\xBF\xBD", 3); /* a surrogate code point: 3 bytes in, 3 bytes out */
      j += 3;
      i += 3;
    } else {
      o[j++] = s[i++];
    }
  }
  o[j] = 0;
  *out_len = j;
  return o;
}

/* fs.writeFileSync(path, data): a string (UTF-8), a TypedArray or an ArrayBuffer. Creates or truncates. */
static JSValue js_fs_write_file(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv) {
  (void)this_val;
  SwJs *js = JS_GetContextOpaque(ctx);
  JSValueConst data = argc > 1 ? argv[1] : JS_UNDEFINED;
  FsPath p;
  if (fs_path(js, argc > 0 ? argv[0] : JS_UNDEFINED, "open", 0, &p)) return JS_EXCEPTION;
  char *owned = NULL;
  const char *bytes = NULL;
  size_t n = 0;
  JSValue buffer = JS_UNDEFINED;
  if (JS_IsString(data)) {
    size_t sn;
    const char *s = JS_ToCStringLen(ctx, &sn, data);
    if (!s) { fs_path_free(&p); return JS_EXCEPTION; }
    owned = to_utf8(s, sn, &n);
    JS_FreeCString(ctx, s);
    if (!owned) { fs_path_free(&p); return JS_ThrowOutOfMemory(ctx); }
    bytes = owned;
  } else if (JS_IsObject(data)) {
    size_t offset = 0, length = 0, size = 0, per = 0;
    uint8_t *base = NULL;
    buffer = JS_GetTypedArrayBuffer(ctx, data, &offset, &length, &per);
    if (JS_IsException(buffer)) {
      JS_FreeValue(ctx, JS_GetException(ctx)); /* not a typed array: maybe an ArrayBuffer */
      if (js->fuel_interrupted) { fs_path_free(&p); return JS_EXCEPTION; }
      buffer = JS_DupValue(ctx, data);
      base = JS_GetArrayBuffer(ctx, &size, buffer);
      offset = 0;
      length = size;
    } else {
      base = JS_GetArrayBuffer(ctx, &size, buffer);
    }
    if (!base) {
      JS_FreeValue(ctx, JS_GetException(ctx));
      JS_FreeValue(ctx, buffer);
      fs_path_free(&p);
      if (js->fuel_interrupted) return JS_EXCEPTION;
      return throw_arg_error(ctx, "ERR_INVALID_ARG_TYPE",
                             "The \"data\" argument must be of type string or an instance of Buffer, TypedArray, or DataView");
    }
    if (offset > size || length > size - offset) length = 0; /* a view past a shrunk buffer: nothing to write */
    bytes = (const char *)base + offset;
    n = length;
  } else {
    fs_path_free(&p);
    return throw_arg_error(ctx, "ERR_INVALID_ARG_TYPE",
                           "The \"data\" argument must be of type string or an instance of Buffer, TypedArray, or DataView");
  }
  int err = 0;
  if (is_root(&p)) {
    err = EISDIR;
  } else {
    sw_charge(SW_JS_FS_CALL_UNITS);
    sw_js_fs_charge_bytes(n);
    int fd = open(p.host, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0) {
      err = errno;
    } else {
      err = write_all(fd, bytes, n);
      close(fd);
    }
  }
  free(owned);
  JS_FreeValue(ctx, buffer);
  if (err) return fs_fail(js, &p, err, err == EISDIR || err == ENOENT || err == EACCES ? "open" : "write");
  fs_path_free(&p);
  return JS_UNDEFINED;
}

static JSValue js_return_magic_bool(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv, int magic) {
  (void)ctx; (void)this_val; (void)argc; (void)argv;
  return JS_NewBool(ctx, magic);
}

/* isFile()/isDirectory() methods fixed at creation. */
static int define_kind_methods(JSContext *ctx, JSValueConst obj, int is_dir) {
  int ok = 1;
  ok &= JS_DefinePropertyValueStr(ctx, obj, "isFile",
                                  JS_NewCFunctionMagic(ctx, js_return_magic_bool, "isFile", 0, JS_CFUNC_generic_magic, !is_dir),
                                  JS_PROP_WRITABLE | JS_PROP_CONFIGURABLE) >= 0;
  ok &= JS_DefinePropertyValueStr(ctx, obj, "isDirectory",
                                  JS_NewCFunctionMagic(ctx, js_return_magic_bool, "isDirectory", 0, JS_CFUNC_generic_magic,
                                                       is_dir),
                                  JS_PROP_WRITABLE | JS_PROP_CONFIGURABLE) >= 0;
  return ok ? 0 : -1;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The entry names of directory `host` (sorted, malloc'd array of malloc'd strings), kinds[i] = 1 for a directory.
 * 0 or an errno. */
static int list_dir(const char *host, char ***names_out, unsigned char **kinds_out, size_t *count_out) {
  *names_out = NULL;
  *kinds_out = NULL;
  *count_out = 0;
  DIR *d = opendir(host);
  if (!d) return errno;
  char **names = NULL;
  size_t count = 0, cap = 0;
  int err = 0;
  for (;;) {
    errno = 0;
    struct dirent *e = readdir(d);
    if (!e) { err = errno; break; }
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    if (count == cap) {
      size_t ncap = cap ? cap * 2 : 16;
      char **nn = realloc(names, ncap * sizeof *names);
      if (!nn) { err = ENOMEM; break; }
      names = nn;
      cap = ncap;
    }
    names[count] = strdup(e->d_name);
    if (!names[count]) { err = ENOMEM; break; }
    count++;
  }
  closedir(d);
  unsigned char *kinds = err ? NULL : calloc(count ? count : 1, 1);
  if (!err && !kinds) err = ENOMEM;
  if (!err) {
    if (count) qsort(names, count, sizeof *names, by_name);
    size_t hl = strlen(host);
    for (size_t i = 0; i < count && !err; i++) {
      size_t nl = strlen(names[i]);
      char *child = malloc(hl + nl + 2);
      if (!child) { err = ENOMEM; break; }
      memcpy(child, host, hl);
      child[hl] = '/';
      memcpy(child + hl + 1, names[i], nl + 1);
      struct stat st;
      kinds[i] = stat(child, &st) == 0 && S_ISDIR(st.st_mode);
      free(child);
    }
  }
  if (err) {
    for (size_t i = 0; i < count; i++) free(names[i]);
    free(names);
    free(kinds);
    return err;
  }
  *names_out = names;
  *kinds_out = kinds;
  *count_out = count;
  return 0;
}

static void free_names(char **names, size_t count) {
  for (size_t i = 0; i < count; i++) free(names[i]);
  free(names);
}

/* fs.readdirSync(path, {withFileTypes}?): sorted names, or {name, parentPath, isFile(), isDirectory()} objects. */
static JSValue js_fs_readdir(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv) {
  (void)this_val;
  SwJs *js = JS_GetContextOpaque(ctx);
  FsPath p;
  if (fs_path(js, argc > 0 ? argv[0] : JS_UNDEFINED, "scandir", 0, &p)) return JS_EXCEPTION;
  int typed = bool_option(ctx, argc > 1 ? argv[1] : JS_UNDEFINED, "withFileTypes");
  if (typed < 0) { fs_path_free(&p); return JS_EXCEPTION; }
  sw_charge(SW_JS_FS_CALL_UNITS);
  struct stat st;
  if (stat(p.host, &st) != 0) return fs_fail(js, &p, errno, "scandir");
  if (!S_ISDIR(st.st_mode)) return fs_fail(js, &p, ENOTDIR, "scandir");
  char **names;
  unsigned char *kinds;
  size_t count;
  int err = list_dir(p.host, &names, &kinds, &count);
  if (err) return fs_fail(js, &p, err, "scandir");
  sw_charge((uint32_t)(count > 4096 ? 4096 : count) * 100u);
  JSValue arr = JS_NewArray(ctx);
  for (size_t i = 0; i < count && !JS_IsException(arr); i++) {
    JSValue item;
    if (typed) {
      item = JS_NewObject(ctx);
      if (!JS_IsException(item) &&
          (JS_DefinePropertyValueStr(ctx, item, "name", JS_NewString(ctx, names[i]), JS_PROP_C_W_E) < 0 ||
           JS_DefinePropertyValueStr(ctx, item, "parentPath", JS_NewString(ctx, p.path), JS_PROP_C_W_E) < 0 ||
           define_kind_methods(ctx, item, kinds[i]) < 0)) {
        JS_FreeValue(ctx, item);
        item = JS_EXCEPTION;
      }
    } else {
      item = JS_NewString(ctx, names[i]);
    }
    if (JS_IsException(item) || JS_DefinePropertyValueUint32(ctx, arr, (uint32_t)i, item, JS_PROP_C_W_E) < 0) {
      JS_FreeValue(ctx, arr);
      arr = JS_EXCEPTION;
    }
  }
  free_names(names, count);
  free(kinds);
  fs_path_free(&p);
  return arr;
}

/* fs.mkdirSync(path, {recursive}?): the root is a no-op (protocol §7.11). Recursive: returns the first directory created
 * (or undefined), an existing file on the path is ENOTDIR. */
static JSValue js_fs_mkdir(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv) {
  (void)this_val;
  SwJs *js = JS_GetContextOpaque(ctx);
  FsPath p;
  if (fs_path(js, argc > 0 ? argv[0] : JS_UNDEFINED, "mkdir", 0, &p)) return JS_EXCEPTION;
  int recursive = bool_option(ctx, argc > 1 ? argv[1] : JS_UNDEFINED, "recursive");
  if (recursive < 0) { fs_path_free(&p); return JS_EXCEPTION; }
  if (is_root(&p)) { fs_path_free(&p); return JS_UNDEFINED; }
  if (!recursive) {
    sw_charge(SW_JS_FS_CALL_UNITS);
    if (mkdir(p.host, 0777) != 0) return fs_fail(js, &p, errno, "mkdir");
    fs_path_free(&p);
    return JS_UNDEFINED;
  }
  /* Each prefix below /workspace in turn: p.host ends with p.path, so prefixes of one are prefixes of the other. */
  size_t off = strlen(p.host) - strlen(p.path), first = 0;
  for (size_t i = off + 10; ; i++) {
    char c = p.host[i];
    if (c != '/' && c != 0) continue;
    if (i > off + 10) {
      p.host[i] = 0;
      sw_charge(SW_JS_FS_CALL_UNITS);
      int err = mkdir(p.host, 0777) == 0 ? 0 : errno;
      if (err == 0 && !first) first = i;
      if (err == EEXIST) {
        struct stat st;
        err = stat(p.host, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
      }
      p.host[i] = c;
      if (err) return fs_fail(js, &p, err, "mkdir");
    }
    if (c == 0) break;
  }
  JSValue r = first ? JS_NewStringLen(ctx, p.path, first - off) : JS_UNDEFINED;
  fs_path_free(&p);
  return r;
}

/* Removes host path `host` (a directory: its contents first). 0 or an errno. depth bounds the recursion. */
static int remove_tree(const char *host, int depth) {
  struct stat st;
  sw_charge(SW_JS_FS_CALL_UNITS);
  if (stat(host, &st) != 0) return errno;
  if (!S_ISDIR(st.st_mode)) return unlink(host) == 0 ? 0 : errno;
  if (depth > 512) return ENAMETOOLONG; /* bounds the C stack (each level is a frame); paths are <= 4096 bytes */
  char **names;
  unsigned char *kinds;
  size_t count;
  int err = list_dir(host, &names, &kinds, &count);
  if (err) return err;
  size_t hl = strlen(host);
  for (size_t i = 0; i < count && !err; i++) {
    size_t nl = strlen(names[i]);
    char *child = malloc(hl + nl + 2);
    if (!child) { err = ENOMEM; break; }
    memcpy(child, host, hl);
    child[hl] = '/';
    memcpy(child + hl + 1, names[i], nl + 1);
    err = remove_tree(child, depth + 1);
    free(child);
  }
  free_names(names, count);
  free(kinds);
  if (err) return err;
  sw_charge(SW_JS_FS_CALL_UNITS);
  return rmdir(host) == 0 ? 0 : errno;
}

/* fs.rmSync(path, {recursive, force}?): the root is EACCES, a missing path ENOENT unless force, a directory without
 * recursive EISDIR (protocol §7.11). */
static JSValue js_fs_rm(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv) {
  (void)this_val;
  SwJs *js = JS_GetContextOpaque(ctx);
  FsPath p;
  if (fs_path(js, argc > 0 ? argv[0] : JS_UNDEFINED, "rm", 0, &p)) return JS_EXCEPTION;
  JSValueConst opts = argc > 1 ? argv[1] : JS_UNDEFINED;
  int recursive = bool_option(ctx, opts, "recursive");
  int force = recursive < 0 ? -1 : bool_option(ctx, opts, "force");
  if (recursive < 0 || force < 0) { fs_path_free(&p); return JS_EXCEPTION; }
  if (is_root(&p)) return fs_fail(js, &p, EACCES, "rm");
  sw_charge(SW_JS_FS_CALL_UNITS);
  struct stat st;
  int err = stat(p.host, &st) == 0 ? 0 : errno;
  if (err == ENOENT && force) { fs_path_free(&p); return JS_UNDEFINED; }
  if (!err) {
    if (S_ISDIR(st.st_mode)) err = recursive ? remove_tree(p.host, 0) : EISDIR;
    else err = unlink(p.host) == 0 ? 0 : errno;
  }
  if (err) return fs_fail(js, &p, err, "rm");
  fs_path_free(&p);
  return JS_UNDEFINED;
}

/* fs.renameSync(from, to): either being the root is EACCES; everything else is the host's rename. */
static JSValue js_fs_rename(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv) {
  (void)this_val;
  SwJs *js = JS_GetContextOpaque(ctx);
  FsPath a, b;
  if (fs_path(js, argc > 0 ? argv[0] : JS_UNDEFINED, "rename", 0, &a)) return JS_EXCEPTION;
  if (fs_path(js, argc > 1 ? argv[1] : JS_UNDEFINED, "rename", 0, &b)) { fs_path_free(&a); return JS_EXCEPTION; }
  int err = 0;
  if (is_root(&a) || is_root(&b)) {
    err = EACCES;
  } else {
    sw_charge(SW_JS_FS_CALL_UNITS);
    if (rename(a.host, b.host) != 0) err = errno;
  }
  if (err) throw_fs_error(js, err, NULL, "rename", a.raw, b.raw);
  fs_path_free(&a);
  fs_path_free(&b);
  return err ? JS_EXCEPTION : JS_UNDEFINED;
}

/* fs.existsSync(path): never throws; false for an invalid or escaping path and while the workspace is disabled. */
static JSValue js_fs_exists(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv) {
  (void)this_val;
  SwJs *js = JS_GetContextOpaque(ctx);
  FsPath p;
  int r = fs_path(js, argc > 0 ? argv[0] : JS_UNDEFINED, "access", 1, &p);
  if (r < 0) return JS_EXCEPTION; /* out of memory */
  if (r > 0) return JS_FALSE;
  sw_charge(SW_JS_FS_CALL_UNITS);
  struct stat st;
  int exists = stat(p.host, &st) == 0;
  fs_path_free(&p);
  return JS_NewBool(ctx, exists);
}

/* fs.statSync(path, {throwIfNoEntry}?) -> {size, mtimeMs, isFile(), isDirectory()}. */
static JSValue js_fs_stat(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv) {
  (void)this_val;
  SwJs *js = JS_GetContextOpaque(ctx);
  FsPath p;
  if (fs_path(js, argc > 0 ? argv[0] : JS_UNDEFINED, "stat", 0, &p)) return JS_EXCEPTION;
  JSValue throw_opt = get_option(ctx, argc > 1 ? argv[1] : JS_UNDEFINED, "throwIfNoEntry");
  if (JS_IsException(throw_opt)) { fs_path_free(&p); return JS_EXCEPTION; }
  int quiet_missing = JS_IsBool(throw_opt) && !JS_ToBool(ctx, throw_opt);
  JS_FreeValue(ctx, throw_opt);
  sw_charge(SW_JS_FS_CALL_UNITS);
  struct stat st;
  if (stat(p.host, &st) != 0) {
    if (errno == ENOENT && quiet_missing) { fs_path_free(&p); return JS_UNDEFINED; }
    return fs_fail(js, &p, errno, "stat");
  }
  fs_path_free(&p);
  JSValue o = JS_NewObject(ctx);
  if (JS_IsException(o)) return o;
  double mtime_ms = (double)st.st_mtim.tv_sec * 1e3 + (double)st.st_mtim.tv_nsec / 1e6;
  if (JS_DefinePropertyValueStr(ctx, o, "size", JS_NewFloat64(ctx, (double)st.st_size), JS_PROP_C_W_E) < 0 ||
      JS_DefinePropertyValueStr(ctx, o, "mtimeMs", JS_NewFloat64(ctx, mtime_ms), JS_PROP_C_W_E) < 0 ||
      define_kind_methods(ctx, o, S_ISDIR(st.st_mode)) < 0) {
    JS_FreeValue(ctx, o);
    return JS_EXCEPTION;
  }
  return o;
}

/* process.chdir(path): an existing directory under /workspace (ENOENT, ENOTDIR, EACCES otherwise). */
JSValue sw_js_chdir(SwJs *js, JSValueConst path) {
  JSContext *ctx = js->ctx;
  FsPath p;
  if (!JS_IsString(path))
    return throw_arg_error(ctx, "ERR_INVALID_ARG_TYPE", "The \"directory\" argument must be of type string");
  if (fs_path(js, path, "chdir", 0, &p)) return JS_EXCEPTION;
  sw_charge(SW_JS_FS_CALL_UNITS);
  struct stat st;
  int err = stat(p.host, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
  if (err) {
    throw_fs_error(js, err, NULL, "chdir", js->cwd, p.raw);
    fs_path_free(&p);
    return JS_EXCEPTION;
  }
  free(js->cwd);
  js->cwd = p.path; /* adopted */
  p.path = NULL;
  fs_path_free(&p);
  return JS_UNDEFINED;
}

/* The session's `fs` object: the synchronous subset of protocol §6.2. JS_EXCEPTION when it could not be built. */
JSValue sw_js_fs_new(SwJs *js) {
  JSContext *ctx = js->ctx;
  static const struct { const char *name; JSCFunction *fn; int length; } fs_fns[] = {
      {"readFileSync", js_fs_read_file, 2}, {"writeFileSync", js_fs_write_file, 3}, {"readdirSync", js_fs_readdir, 2},
      {"mkdirSync", js_fs_mkdir, 2},        {"rmSync", js_fs_rm, 2},                {"renameSync", js_fs_rename, 2},
      {"existsSync", js_fs_exists, 1},      {"statSync", js_fs_stat, 2},
  };
  JSValue fs = JS_NewObject(ctx);
  if (JS_IsException(fs)) return fs;
  int ok = 1;
  for (size_t i = 0; i < sizeof fs_fns / sizeof *fs_fns; i++)
    ok &= define_fn(ctx, fs, fs_fns[i].name, fs_fns[i].fn, fs_fns[i].length) >= 0;
  if (!ok) { JS_FreeValue(ctx, fs); return JS_EXCEPTION; }
  return fs;
}
