/* engines/javascript/intl_collator.c: see intl_collator.h. ECMA-402 (2024) §10 Intl.Collator, §19.1 the String
 * methods, over ICU4C 72.1 (CLDR 42) built by scripts/engines/icu.sh. docs/intl.md says what differs from V8.
 *
 * Locale handling is done here, in C, not by ICU: language tags are validated and canonicalized as ECMA-402 §6.2
 * asks (UTS 35 syntax; the alias table is a small one, see canonical_language), and resolved with the Lookup matcher
 * (BestAvailableLocale, also for "best fit") against the collation tree's locales (sw_icu_locales, generated from the
 * data). ICU only opens collators and compares.
 *
 * Fuel (docs/fuel.md): ICU is compiled into engine.wasm, so the Wasm-level meter charges its work like any other code's
 * (a comparison, a collator opened, a case mapping: every loop of ICU's and ours). Memory: ICU allocates through
 * counting wrappers capped at SW_ICU_HEAP_LIMIT, outside the 32 MiB JS heap, so a program holding many collators gets
 * an out-of-memory error instead of filling linear memory. */
#include "intl_collator.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unicode/uchar.h>
#include <unicode/ucol.h>
#include <unicode/uclean.h>
#include <unicode/putil.h>

#include "icu-locales.h" /* sw_icu_locales: generated into the ICU data directory */

/* engines/javascript/patches/intl-exports.patch */
JSValue JS_SwToObject(JSContext *ctx, JSValueConst val);
int JS_SwToLength(JSContext *ctx, int64_t *plen, JSValueConst val);

#define SW_ICU_HEAP_LIMIT (8u * 1024u * 1024u)
#ifndef SW_ICU_DATA_DIR
#define SW_ICU_DATA_DIR "/stdlib/icu"
#endif
#define SW_TAG_MAX 256               /* longer language tags are a RangeError (ECMA-402 sets no limit) */

static const char default_locale[] = "en-US";

/* --- ICU's memory ---------------------------------------------------------------------------------------------- */

static size_t g_icu_bytes;

static void *U_CALLCONV icu_alloc(const void *context, size_t size) {
  (void)context;
  if (size > SW_ICU_HEAP_LIMIT || g_icu_bytes + size > SW_ICU_HEAP_LIMIT) return NULL;
  size_t *p = malloc(size + sizeof(size_t) * 2);
  if (!p) return NULL;
  p[0] = size;
  g_icu_bytes += size;
  return p + 2; /* 8-byte aligned on wasm32 and natively (16 bytes of header on 64-bit) */
}

static void U_CALLCONV icu_free(const void *context, void *mem) {
  (void)context;
  if (!mem) return;
  size_t *p = (size_t *)mem - 2;
  g_icu_bytes -= p[0];
  free(p);
}

static void *U_CALLCONV icu_realloc(const void *context, void *mem, size_t size) {
  if (!mem) return icu_alloc(context, size);
  size_t *p = (size_t *)mem - 2, old = p[0];
  if (size > old && (size - old > SW_ICU_HEAP_LIMIT || g_icu_bytes + (size - old) > SW_ICU_HEAP_LIMIT)) return NULL;
  size_t *q = realloc(p, size + sizeof(size_t) * 2);
  if (!q) return NULL;
  g_icu_bytes = g_icu_bytes - old + size;
  q[0] = size;
  return q + 2;
}

static int icu_ready(JSContext *ctx) {
  static int ready;
  if (ready) return 0;
  UErrorCode e = U_ZERO_ERROR;
  u_setMemoryFunctions(NULL, icu_alloc, icu_realloc, icu_free, &e);
  /* The data: build/stdlib.tar, mounted read-only at /stdlib; ICU reads each item there when it first needs it. */
  u_setDataDirectory(SW_ICU_DATA_DIR);
  if (U_FAILURE(e)) { JS_ThrowInternalError(ctx, "ICU error %d", (int)e); return -1; }
  ready = 1;
  return 0;
}

/* --- language tags (ECMA-402 §6.2, UTS 35 unicode_locale_id) --------------------------------------------------- */

static int is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_alnum(char c) { return is_alpha(c) || is_digit(c); }
static char lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c; }
static char upper(char c) { return c >= 'a' && c <= 'z' ? (char)(c - 32) : c; }

static int all_of(const char *s, size_t n, int (*pred)(char)) {
  for (size_t i = 0; i < n; i++)
    if (!pred(s[i])) return 0;
  return 1;
}

typedef struct { const char *s; size_t n; } Sub;

static int sub_cmp(const void *a, const void *b) {
  const Sub *x = a, *y = b;
  size_t n = x->n < y->n ? x->n : y->n;
  int c = memcmp(x->s, y->s, n);
  return c ? c : (x->n < y->n ? -1 : x->n > y->n);
}

static int sub_eq(Sub a, const char *lit) { return a.n == strlen(lit) && memcmp(a.s, lit, a.n) == 0; }

static int is_language(Sub t) { return ((t.n >= 2 && t.n <= 3) || (t.n >= 5 && t.n <= 8)) && all_of(t.s, t.n, is_alpha); }
static int is_script(Sub t) { return t.n == 4 && all_of(t.s, t.n, is_alpha); }
static int is_region(Sub t) { return (t.n == 2 && all_of(t.s, 2, is_alpha)) || (t.n == 3 && all_of(t.s, 3, is_digit)); }
static int is_variant(Sub t) {
  return ((t.n >= 5 && t.n <= 8) && all_of(t.s, t.n, is_alnum)) || (t.n == 4 && is_digit(t.s[0]) && all_of(t.s, 4, is_alnum));
}

/* Deprecated language subtags CLDR 42 replaces by one other subtag (the ones a user is likely to type). */
static const char *canonical_language(Sub l) {
  static const char *const map[][2] = {
    {"iw", "he"}, {"in", "id"}, {"ji", "yi"}, {"jw", "jv"}, {"mo", "ro"}, {"tl", "fil"}, {"cmn", "zh"},
    {"arb", "ar"}, {"zsm", "ms"}, {"swh", "sw"}, {"aar", "aa"}, {"deu", "de"}, {"eng", "en"}, {"fra", "fr"},
    {"spa", "es"}, {"jpn", "ja"}, {"zho", "zh"}, {"ara", "ar"}, {"hin", "hi"}, {"rus", "ru"}, {"por", "pt"},
  };
  for (size_t i = 0; i < sizeof map / sizeof *map; i++)
    if (sub_eq(l, map[i][0])) return map[i][1];
  return NULL;
}

typedef struct {
  char text[SW_TAG_MAX + 1];  /* the canonical tag */
  size_t base_len;            /* language[-script][-region](-variant)*: the part locale matching looks at */
  size_t u_start, u_len;      /* the "-u-..." extension inside text (u_len 0: none) */
} Tag;

typedef struct { char *p; size_t n, cap; int overflow; } Out;

static void out_put(Out *o, const char *s, size_t n) {
  if (o->n + n > o->cap) { o->overflow = 1; return; }
  memcpy(o->p + o->n, s, n);
  o->n += n;
}
static void out_sub(Out *o, Sub s) { out_put(o, "-", 1); out_put(o, s.s, s.n); }

/* Canonicalizes a unicode_locale_id. `in` is lowercased in place first. 0, or -1 if it is not structurally valid. */
static int parse_tag(char *in, size_t n, Tag *tag) {
  if (n == 0 || n > SW_TAG_MAX) return -1;
  Sub subs[SW_TAG_MAX / 2 + 1];
  size_t count = 0, start = 0;
  for (size_t i = 0; i <= n; i++) {
    if (i == n || in[i] == '-') {
      if (i == start || i - start > 8) return -1;
      subs[count++] = (Sub){in + start, i - start};
      start = i + 1;
    } else if (!is_alnum(in[i])) {
      return -1;
    } else {
      in[i] = lower(in[i]);
    }
  }
  size_t i = 0;
  Out o = {tag->text, 0, SW_TAG_MAX, 0};
  if (!is_language(subs[i])) return -1;
  const char *alias = canonical_language(subs[i]);
  if (alias) out_put(&o, alias, strlen(alias)); else out_put(&o, subs[i].s, subs[i].n);
  i++;
  if (i < count && is_script(subs[i])) {
    char s[4] = {upper(subs[i].s[0]), subs[i].s[1], subs[i].s[2], subs[i].s[3]};
    out_put(&o, "-", 1);
    out_put(&o, s, 4);
    i++;
  }
  if (i < count && is_region(subs[i])) {
    char r[3];
    for (size_t k = 0; k < subs[i].n; k++) r[k] = upper(subs[i].s[k]);
    out_put(&o, "-", 1);
    out_put(&o, r, subs[i].n);
    i++;
  }
  size_t v0 = i;
  while (i < count && is_variant(subs[i])) i++;
  qsort(subs + v0, i - v0, sizeof(Sub), sub_cmp);
  for (size_t k = v0; k < i; k++) {
    if (k > v0 && sub_cmp(&subs[k - 1], &subs[k]) == 0) return -1; /* duplicate variant */
    out_sub(&o, subs[k]);
  }
  tag->base_len = o.n;
  tag->u_start = tag->u_len = 0;

  /* Extensions: each a run of subtags after a singleton; sorted by singleton in the output. */
  struct { char singleton; size_t first, end; } ext[36];
  size_t next = 0;
  size_t private_at = count;
  while (i < count) {
    if (subs[i].n != 1) return -1;
    char s = subs[i].s[0];
    if (s == 'x') { private_at = i; break; }
    for (size_t k = 0; k < next; k++)
      if (ext[k].singleton == s) return -1; /* duplicate singleton */
    size_t first = ++i;
    while (i < count && subs[i].n > 1) i++;
    if (i == first) return -1; /* empty extension */
    if (s == 'u') {
      /* attribute* (key type*)*: attributes 3-8, keys alphanum + alpha, types 3-8 */
      size_t k = first;
      while (k < i && subs[k].n >= 3) k++;
      while (k < i) {
        if (subs[k].n != 2 || !is_alpha(subs[k].s[1])) return -1;
        k++;
        while (k < i && subs[k].n >= 3) k++;
      }
    } else if (s == 't') {
      size_t k = first;
      if (is_language(subs[k])) {
        k++;
        if (k < i && is_script(subs[k])) k++;
        if (k < i && is_region(subs[k])) k++;
        size_t tv = k;
        while (k < i && is_variant(subs[k])) k++;
        for (size_t a = tv; a < k; a++)
          for (size_t b = a + 1; b < k; b++)
            if (sub_cmp(&subs[a], &subs[b]) == 0) return -1;
      }
      while (k < i) {
        if (subs[k].n != 2 || !is_alpha(subs[k].s[0]) || !is_digit(subs[k].s[1])) return -1;
        size_t v = ++k;
        while (k < i && subs[k].n >= 3) k++;
        if (k == v) return -1;
      }
    }
    if (next >= sizeof ext / sizeof *ext) return -1;
    ext[next].singleton = s;
    ext[next].first = first;
    ext[next].end = i;
    next++;
  }
  if (private_at < count) {
    if (private_at + 1 == count) return -1;
    for (size_t k = private_at + 1; k < count; k++)
      if (subs[k].n < 1 || subs[k].n > 8) return -1;
  }
  /* insertion sort of the few extensions by singleton */
  for (size_t a = 1; a < next; a++)
    for (size_t b = a; b > 0 && ext[b - 1].singleton > ext[b].singleton; b--) {
      __typeof__(ext[0]) t = ext[b]; ext[b] = ext[b - 1]; ext[b - 1] = t;
    }
  for (size_t e = 0; e < next; e++) {
    size_t first = ext[e].first, end = ext[e].end;
    char singleton[2] = {'-', ext[e].singleton};
    size_t at = o.n;
    out_put(&o, singleton, 2);
    if (ext[e].singleton == 'u') {
      size_t k = first;
      while (k < end && subs[k].n >= 3) k++;
      qsort(subs + first, k - first, sizeof(Sub), sub_cmp); /* attributes: sorted, duplicates dropped */
      for (size_t a = first; a < k; a++)
        if (a == first || sub_cmp(&subs[a - 1], &subs[a])) out_sub(&o, subs[a]);
      /* keywords: sorted by key (stable for duplicate keys: the first one wins), "true" dropped */
      struct { Sub key; size_t first, end; } kw[SW_TAG_MAX / 3 + 1];
      size_t nk = 0;
      while (k < end) {
        kw[nk].key = subs[k];
        kw[nk].first = ++k;
        while (k < end && subs[k].n >= 3) k++;
        kw[nk].end = k;
        nk++;
      }
      for (size_t a = 1; a < nk; a++)
        for (size_t b = a; b > 0 && sub_cmp(&kw[b - 1].key, &kw[b].key) > 0; b--) {
          __typeof__(kw[0]) t = kw[b]; kw[b] = kw[b - 1]; kw[b - 1] = t;
        }
      for (size_t a = 0; a < nk; a++) {
        if (a > 0 && sub_cmp(&kw[a - 1].key, &kw[a].key) == 0) continue;
        out_sub(&o, kw[a].key);
        size_t nv = kw[a].end - kw[a].first;
        Sub v0s = nv ? subs[kw[a].first] : (Sub){"", 0};
        /* CLDR's boolean aliases: yes -> true (then dropped), no -> false */
        if (nv == 1 && (sub_eq(v0s, "true") || sub_eq(v0s, "yes"))) continue;
        if (nv == 1 && sub_eq(v0s, "no")) { out_put(&o, "-false", 6); continue; }
        for (size_t v = kw[a].first; v < kw[a].end; v++) out_sub(&o, subs[v]);
      }
      tag->u_start = at;
      tag->u_len = o.n - at;
    } else if (ext[e].singleton == 't') {
      size_t k = first;
      while (k < end && !(subs[k].n == 2 && is_digit(subs[k].s[1]))) out_sub(&o, subs[k++]);
      struct { Sub key; size_t first, end; } tf[SW_TAG_MAX / 3 + 1];
      size_t nt = 0;
      while (k < end) {
        tf[nt].key = subs[k];
        tf[nt].first = ++k;
        while (k < end && subs[k].n >= 3) k++;
        tf[nt].end = k;
        nt++;
      }
      for (size_t a = 1; a < nt; a++)
        for (size_t b = a; b > 0 && sub_cmp(&tf[b - 1].key, &tf[b].key) > 0; b--) {
          __typeof__(tf[0]) t = tf[b]; tf[b] = tf[b - 1]; tf[b - 1] = t;
        }
      for (size_t a = 0; a < nt; a++) {
        if (a > 0 && sub_cmp(&tf[a - 1].key, &tf[a].key) == 0) return -1; /* duplicate tfield */
        out_sub(&o, tf[a].key);
        for (size_t v = tf[a].first; v < tf[a].end; v++) out_sub(&o, subs[v]);
      }
    } else {
      for (size_t k = first; k < end; k++) out_sub(&o, subs[k]);
    }
  }
  for (size_t k = private_at; k < count; k++) out_sub(&o, subs[k]);
  if (o.overflow) return -1;
  tag->text[o.n] = 0;
  return 0;
}

/* The value of -u-<key> in tag ("" for a key without a value, which means "true"); NULL if absent. */
static const char *u_keyword(const Tag *tag, const char *key, char *buf, size_t cap) {
  if (!tag->u_len) return NULL;
  const char *p = tag->text + tag->u_start + 2, *end = tag->text + tag->u_start + tag->u_len;
  while (p < end) {
    const char *s = p + 1, *e = s;
    while (e < end && *e != '-') e++;
    p = e;
    if (e - s == 2 && s[0] == key[0] && s[1] == key[1]) {
      const char *v = p, *ve = p;
      while (ve < end) {
        const char *t = ve + 1, *te = t;
        while (te < end && *te != '-') te++;
        if (te - t == 2) break;
        ve = te;
      }
      size_t n = (size_t)(ve - v);
      if (n) { v++; n--; }
      if (n >= cap) n = cap - 1;
      memcpy(buf, v, n);
      buf[n] = 0;
      return buf;
    }
  }
  return NULL;
}

/* --- locale lists and options ---------------------------------------------------------------------------------- */

typedef struct { Tag *tags; size_t count, cap; } TagList;

static void tags_free(JSContext *ctx, TagList *l) { js_free(ctx, l->tags); l->tags = NULL; l->count = l->cap = 0; }

static JSValue throw_bad_tag(JSContext *ctx, const char *s) {
  return JS_ThrowRangeError(ctx, "Incorrect locale information provided: %.64s", s ? s : "");
}

/* Appends the canonical form of string value v (if new). 0 or -1 (exception pending). */
static int tags_add(JSContext *ctx, TagList *l, JSValueConst v) {
  size_t n;
  const char *s = JS_ToCStringLen(ctx, &n, v);
  if (!s) return -1;
  char buf[SW_TAG_MAX + 1];
  Tag t;
  if (n > SW_TAG_MAX || (memcpy(buf, s, n), parse_tag(buf, n, &t))) {
    throw_bad_tag(ctx, s);
    JS_FreeCString(ctx, s);
    return -1;
  }
  JS_FreeCString(ctx, s);
  for (size_t i = 0; i < l->count; i++)
    if (strcmp(l->tags[i].text, t.text) == 0) return 0;
  if (l->count == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 4;
    Tag *p = js_realloc(ctx, l->tags, cap * sizeof(Tag));
    if (!p) return -1;
    l->tags = p;
    l->cap = cap;
  }
  l->tags[l->count++] = t;
  return 0;
}

/* Is v an Intl.Locale (the namespace's own constructor, if there is one)? Its tag is then String(v). */
static int is_intl_locale(JSContext *ctx, JSValueConst v) {
  JSValue global = JS_GetGlobalObject(ctx);
  JSValue intl = JS_GetPropertyStr(ctx, global, "Intl");
  JS_FreeValue(ctx, global);
  if (JS_IsException(intl)) return -1;
  int r = 0;
  if (JS_IsObject(intl)) {
    JSValue loc = JS_GetPropertyStr(ctx, intl, "Locale");
    if (JS_IsException(loc)) r = -1;
    else if (JS_IsFunction(ctx, loc)) r = JS_IsInstanceOf(ctx, v, loc);
    JS_FreeValue(ctx, loc);
  }
  JS_FreeValue(ctx, intl);
  return r;
}

/* ECMA-402 §9.2.1 CanonicalizeLocaleList. 0 or -1 (exception pending; the list is freed). */
static int canonicalize_locale_list(JSContext *ctx, JSValueConst locales, TagList *l) {
  memset(l, 0, sizeof *l);
  if (JS_IsUndefined(locales)) return 0;
  if (JS_IsString(locales)) return tags_add(ctx, l, locales);
  if (JS_IsObject(locales)) {
    int is_loc = is_intl_locale(ctx, locales);
    if (is_loc < 0) return -1;
    if (is_loc) return tags_add(ctx, l, locales);
  }
  JSValue o = JS_SwToObject(ctx, locales);
  if (JS_IsException(o)) return -1;
  int64_t len;
  JSValue lv = JS_GetPropertyStr(ctx, o, "length");
  if (JS_IsException(lv)) goto fail;
  int bad_len = JS_SwToLength(ctx, &len, lv);
  JS_FreeValue(ctx, lv);
  if (bad_len) goto fail;
  for (int64_t k = 0; k < len; k++) {
    JSAtom a;
    if (k <= 0xffffffffLL) {
      a = JS_NewAtomUInt32(ctx, (uint32_t)k);
    } else {
      char num[24];
      snprintf(num, sizeof num, "%lld", (long long)k);
      a = JS_NewAtom(ctx, num);
    }
    if (a == JS_ATOM_NULL) goto fail;
    int has = JS_HasProperty(ctx, o, a);
    if (has <= 0) { JS_FreeAtom(ctx, a); if (has < 0) goto fail; continue; }
    JSValue v = JS_GetProperty(ctx, o, a);
    JS_FreeAtom(ctx, a);
    if (JS_IsException(v)) goto fail;
    if (!JS_IsString(v) && !JS_IsObject(v)) {
      JS_FreeValue(ctx, v);
      JS_ThrowTypeError(ctx, "locale must be a string or an object");
      goto fail;
    }
    int r = tags_add(ctx, l, v);
    JS_FreeValue(ctx, v);
    if (r) goto fail;
  }
  JS_FreeValue(ctx, o);
  return 0;
fail:
  JS_FreeValue(ctx, o);
  tags_free(ctx, l);
  return -1;
}

/* Lowercased ASCII equality of the base of an available locale and a candidate prefix. */
static int available(const char *cand, size_t n) {
  for (size_t i = 0; i < sizeof sw_icu_locales / sizeof *sw_icu_locales; i++) {
    const char *a = sw_icu_locales[i];
    if (strlen(a) != n) continue;
    size_t k = 0;
    while (k < n && lower(a[k]) == lower(cand[k])) k++;
    if (k == n) return 1;
  }
  return 0;
}

/* ECMA-402 §9.2.2 BestAvailableLocale over the base of tag: the length of the matching prefix, or 0. */
static size_t best_available(const Tag *tag) {
  size_t n = tag->base_len;
  while (n > 0) {
    if (available(tag->text, n)) return n;
    size_t pos = n;
    while (pos > 0 && tag->text[pos - 1] != '-') pos--;
    if (pos == 0) return 0;
    pos--; /* at the '-' */
    if (pos >= 2 && tag->text[pos - 2] == '-') pos -= 2;
    n = pos;
  }
  return 0;
}

/* ECMA-402 §9.2.13 GetOption for a string option with an optional list of values. *out is a static or owned C
 * string (caller frees with JS_FreeCString when *owned); NULL when the option is undefined. 0 or -1. */
static int get_string_option(JSContext *ctx, JSValueConst opts, const char *name, const char *const *values,
                             const char **out, char *buf, size_t cap) {
  *out = NULL;
  JSValue v = JS_GetPropertyStr(ctx, opts, name);
  if (JS_IsException(v)) return -1;
  if (JS_IsUndefined(v)) return 0;
  size_t n;
  const char *s = JS_ToCStringLen(ctx, &n, v);
  JS_FreeValue(ctx, v);
  if (!s) return -1;
  if (values) {
    for (size_t i = 0; values[i]; i++)
      if (strlen(values[i]) == n && memcmp(values[i], s, n) == 0) { *out = values[i]; JS_FreeCString(ctx, s); return 0; }
    JS_ThrowRangeError(ctx, "Value %.32s out of range for Intl.Collator options property %s", s, name);
    JS_FreeCString(ctx, s);
    return -1;
  }
  if (n >= cap) n = cap - 1;
  memcpy(buf, s, n);
  buf[n] = 0;
  /* an embedded NUL or an over-long value cannot match anything: keep it invalid */
  if (strlen(buf) != n || strlen(s) != n) buf[0] = '!';
  JS_FreeCString(ctx, s);
  *out = buf;
  return 0;
}

/* GetOption for a boolean option: 1/0, or 2 when undefined, -1 on exception. */
static int get_bool_option(JSContext *ctx, JSValueConst opts, const char *name) {
  JSValue v = JS_GetPropertyStr(ctx, opts, name);
  if (JS_IsException(v)) return -1;
  if (JS_IsUndefined(v)) return 2;
  int b = JS_ToBool(ctx, v);
  JS_FreeValue(ctx, v);
  return b;
}

/* ECMA-402 §9.2.11 CoerceOptionsToObject. */
static JSValue coerce_options(JSContext *ctx, JSValueConst options) {
  if (JS_IsUndefined(options)) return JS_NewObjectProto(ctx, JS_NULL);
  return JS_SwToObject(ctx, options);
}

/* --- Intl.Collator --------------------------------------------------------------------------------------------- */

enum { USAGE_SORT, USAGE_SEARCH };
enum { SENS_BASE, SENS_ACCENT, SENS_CASE, SENS_VARIANT };
static const char *const usage_values[] = {"sort", "search", NULL};
static const char *const matcher_values[] = {"lookup", "best fit", NULL};
static const char *const case_first_values[] = {"upper", "lower", "false", NULL};
static const char *const sensitivity_values[] = {"base", "accent", "case", "variant", NULL};

typedef struct {
  UCollator *coll;
  JSValue bound_compare; /* [[BoundCompare]], JS_UNDEFINED until the getter runs */
  char locale[SW_TAG_MAX + 1];
  char collation[9];     /* "default" or a -u-co value */
  const char *case_first;
  uint8_t usage, sensitivity, ignore_punctuation, numeric;
} Collator;

static JSClassID collator_class_id;

static void collator_finalizer(JSRuntime *rt, JSValue val) {
  Collator *c = JS_GetOpaque(val, collator_class_id);
  if (!c) return;
  if (c->coll) ucol_close(c->coll);
  JS_FreeValueRT(rt, c->bound_compare);
  js_free_rt(rt, c);
}

static void collator_mark(JSRuntime *rt, JSValueConst val, JS_MarkFunc *mark) {
  Collator *c = JS_GetOpaque(val, collator_class_id);
  if (c) JS_MarkValue(rt, c->bound_compare, mark);
}

static const JSClassDef collator_class = {"Collator", .finalizer = collator_finalizer, .gc_mark = collator_mark};

/* The -u-co values the collation data holds for a language (ECMA-402: never "standard" or "search"; BCP 47 names,
 * ICU's in icu_collation_name). zh's unihan, big5han and gb2312han are not in our data (scripts/engines/icu.sh). */
static int collation_supported(const char *lang, size_t lang_len, const char *co) {
  static const char *const all[] = {"emoji", "eor", NULL};
  static const struct { const char *lang; const char *co[4]; } per[] = {
    {"de", {"phonebk", NULL}}, {"es", {"trad", NULL}}, {"ar", {"compat", NULL}},
    {"zh", {"pinyin", "stroke", "zhuyin", NULL}}, {"ja", {"unihan", NULL}},
  };
  for (size_t i = 0; all[i]; i++)
    if (strcmp(all[i], co) == 0) return 1;
  for (size_t i = 0; i < sizeof per / sizeof *per; i++)
    if (strlen(per[i].lang) == lang_len && memcmp(per[i].lang, lang, lang_len) == 0)
      for (size_t k = 0; per[i].co[k]; k++)
        if (strcmp(per[i].co[k], co) == 0) return 1;
  return 0;
}

static const char *icu_collation_name(const char *co) {
  if (strcmp(co, "phonebk") == 0) return "phonebook";
  if (strcmp(co, "trad") == 0) return "traditional";
  return co;
}

/* ECMA-402's `type` production: (3*8alphanum) *("-" (3*8alphanum)). */
static int is_type_sequence(const char *s) {
  size_t run = 0;
  for (const char *p = s;; p++) {
    if (*p == '-' || *p == 0) {
      if (run < 3 || run > 8) return 0;
      if (*p == 0) return 1;
      run = 0;
    } else if (is_alnum(*p)) {
      run++;
    } else {
      return 0;
    }
  }
}

static JSValue throw_icu(JSContext *ctx, UErrorCode e) {
  if (e == U_MEMORY_ALLOCATION_ERROR) return JS_ThrowOutOfMemory(ctx);
  return JS_ThrowInternalError(ctx, "ICU collator error %d", (int)e); /* utypes.h: UErrorCode */
}

typedef struct {
  int usage;            /* USAGE_* */
  int sensitivity;      /* SENS_*, -1 = the default */
  int ignore_punctuation;
  const char *collation; /* option value or NULL */
  int numeric;          /* 0/1, 2 = not given */
  const char *case_first; /* option value or NULL */
} CollatorOptions;

/* Opens the ICU collator for the resolved locale and settings. 0 or -1 (exception pending). */
static int open_collator(JSContext *ctx, Collator *c, const char *base, size_t base_len, const char *kf, int numeric) {
  if (icu_ready(ctx)) return -1;
  char id[SW_TAG_MAX + 40];
  size_t n = base_len < SW_TAG_MAX ? base_len : SW_TAG_MAX;
  for (size_t i = 0; i < n; i++) id[i] = base[i] == '-' ? '_' : base[i];
  id[n] = 0;
  const char *co = c->usage == USAGE_SEARCH ? "search" : strcmp(c->collation, "default") ? icu_collation_name(c->collation) : NULL;
  if (co) { strcat(id, "@collation="); strcat(id, co); }
  UErrorCode e = U_ZERO_ERROR;
  c->coll = ucol_open(id, &e);
  if (U_FAILURE(e)) { c->coll = NULL; throw_icu(ctx, e); return -1; }
  UColAttributeValue strength = UCOL_TERTIARY;
  switch (c->sensitivity) {
    case SENS_BASE: strength = UCOL_PRIMARY; break;
    case SENS_ACCENT: strength = UCOL_SECONDARY; break;
    case SENS_CASE: strength = UCOL_PRIMARY; ucol_setAttribute(c->coll, UCOL_CASE_LEVEL, UCOL_ON, &e); break;
    default: break;
  }
  ucol_setAttribute(c->coll, UCOL_STRENGTH, strength, &e);
  if (c->ignore_punctuation) ucol_setAttribute(c->coll, UCOL_ALTERNATE_HANDLING, UCOL_SHIFTED, &e);
  if (numeric) ucol_setAttribute(c->coll, UCOL_NUMERIC_COLLATION, c->numeric ? UCOL_ON : UCOL_OFF, &e);
  if (kf) {
    UColAttributeValue v = strcmp(kf, "upper") == 0 ? UCOL_UPPER_FIRST : strcmp(kf, "lower") == 0 ? UCOL_LOWER_FIRST : UCOL_OFF;
    ucol_setAttribute(c->coll, UCOL_CASE_FIRST, v, &e);
  }
  if (U_FAILURE(e)) { ucol_close(c->coll); c->coll = NULL; throw_icu(ctx, e); return -1; }
  return 0;
}

/* ECMA-402 §10.1.2 InitializeCollator, with §9.2.7 ResolveLocale for the keys co, kf, kn. */
static int initialize_collator(JSContext *ctx, Collator *c, JSValueConst locales, JSValueConst options) {
  TagList req;
  if (canonicalize_locale_list(ctx, locales, &req)) return -1;
  JSValue opts = coerce_options(ctx, options);
  if (JS_IsException(opts)) { tags_free(ctx, &req); return -1; }
  const char *usage, *matcher, *collation, *case_first, *sensitivity;
  char co_buf[64];
  int numeric, ignore, rc = -1;
  if (get_string_option(ctx, opts, "usage", usage_values, &usage, NULL, 0) ||
      get_string_option(ctx, opts, "localeMatcher", matcher_values, &matcher, NULL, 0) ||
      get_string_option(ctx, opts, "collation", NULL, &collation, co_buf, sizeof co_buf))
    goto done;
  if (collation && !is_type_sequence(collation)) {
    JS_ThrowRangeError(ctx, "Invalid collation: %.32s", collation);
    goto done;
  }
  if ((numeric = get_bool_option(ctx, opts, "numeric")) < 0 ||
      get_string_option(ctx, opts, "caseFirst", case_first_values, &case_first, NULL, 0))
    goto done;

  c->usage = usage && strcmp(usage, "search") == 0 ? USAGE_SEARCH : USAGE_SORT;
  /* ResolveLocale (Lookup): the first requested locale with an available prefix, else the default locale. */
  Tag found;
  size_t found_len = 0;
  const Tag *req_tag = NULL;
  for (size_t i = 0; i < req.count && !found_len; i++)
    if ((found_len = best_available(&req.tags[i]))) req_tag = &req.tags[i];
  if (!found_len) {
    char d[sizeof default_locale];
    memcpy(d, default_locale, sizeof d);
    parse_tag(d, strlen(d), &found);
    found_len = best_available(&found);
  } else {
    found = *req_tag;
  }
  const char *lang = found.text;
  size_t lang_len = 0;
  while (lang_len < found_len && found.text[lang_len] != '-') lang_len++;

  /* ResolveLocale's keys, in key order (co < kf < kn): a -u- keyword counts if the data supports its value; an option
     that differs from it and is supported wins and drops the keyword from the locale. */
  char kw[16], ext_co[16] = "", ext_kf[16] = "", ext_kn[16] = "";
  /* co: [null, the language's collations] */
  strcpy(c->collation, "default");
  const char *v = req_tag ? u_keyword(req_tag, "co", kw, sizeof kw) : NULL;
  if (v && *v && collation_supported(lang, lang_len, v)) { strcpy(c->collation, v); strcpy(ext_co, v); }
  if (collation) {
    for (char *q = co_buf; *q; q++) *q = lower(*q);
    if (strcmp(collation, c->collation) != 0 && collation_supported(lang, lang_len, collation)) {
      strcpy(c->collation, collation);
      ext_co[0] = 0;
    }
  }
  /* kf: ["false", "lower", "upper"] */
  const char *kf = NULL;
  v = req_tag ? u_keyword(req_tag, "kf", kw, sizeof kw) : NULL;
  for (size_t i = 0; v && case_first_values[i]; i++)
    if (strcmp(v, case_first_values[i]) == 0) { kf = case_first_values[i]; strcpy(ext_kf, kf); }
  if (case_first && strcmp(case_first, kf ? kf : "false") != 0) { kf = case_first; ext_kf[0] = 0; }
  c->case_first = kf ? kf : "false";
  /* kn: ["false", "true"]; a keyword without a value means "true" */
  int kn = -1;
  v = req_tag ? u_keyword(req_tag, "kn", kw, sizeof kw) : NULL;
  if (v && (*v == 0 || strcmp(v, "false") == 0)) { kn = *v == 0; strcpy(ext_kn, *v ? "kn-false" : "kn"); }
  if (numeric != 2 && numeric != (kn == 1)) { kn = numeric; ext_kn[0] = 0; }
  c->numeric = kn == 1;
  char addition[64] = "";
  if (ext_co[0]) { strcat(addition, "-co-"); strcat(addition, ext_co); }
  if (ext_kf[0]) { strcat(addition, "-kf-"); strcat(addition, ext_kf); }
  if (ext_kn[0]) { strcat(addition, "-"); strcat(addition, ext_kn); }

  /* [[Locale]]: the available prefix plus the supported keywords, before any private use (never kept here) */
  Out o = {c->locale, 0, SW_TAG_MAX, 0};
  out_put(&o, found.text, found_len);
  if (addition[0]) { out_put(&o, "-u", 2); out_put(&o, addition, strlen(addition)); }
  c->locale[o.overflow ? found_len : o.n] = 0;

  if (get_string_option(ctx, opts, "sensitivity", sensitivity_values, &sensitivity, NULL, 0)) goto done;
  c->sensitivity = SENS_VARIANT;
  if (sensitivity)
    for (int i = 0; sensitivity_values[i]; i++)
      if (strcmp(sensitivity, sensitivity_values[i]) == 0) c->sensitivity = (uint8_t)i;
  if ((ignore = get_bool_option(ctx, opts, "ignorePunctuation")) < 0) goto done;
  c->ignore_punctuation = ignore == 1; /* the default (false) for all our locales; only th differs in CLDR */
  rc = open_collator(ctx, c, found.text, found_len, kf, kn >= 0);
done:
  JS_FreeValue(ctx, opts);
  tags_free(ctx, &req);
  return rc;
}

static JSValue collator_constructor(JSContext *ctx, JSValueConst new_target, int argc, JSValueConst *argv) {
  JSValue proto;
  if (JS_IsUndefined(new_target)) {
    /* called as a function: newTarget is the active function object, i.e. %Collator.prototype% */
    proto = JS_GetClassProto(ctx, collator_class_id);
  } else {
    proto = JS_GetPropertyStr(ctx, new_target, "prototype");
    if (JS_IsException(proto)) return proto;
    if (!JS_IsObject(proto)) { JS_FreeValue(ctx, proto); proto = JS_GetClassProto(ctx, collator_class_id); }
  }
  JSValue obj = JS_NewObjectProtoClass(ctx, proto, collator_class_id);
  JS_FreeValue(ctx, proto);
  if (JS_IsException(obj)) return obj;
  Collator *c = js_mallocz(ctx, sizeof *c);
  if (!c) { JS_FreeValue(ctx, obj); return JS_EXCEPTION; }
  c->bound_compare = JS_UNDEFINED;
  JS_SetOpaque(obj, c);
  if (initialize_collator(ctx, c, argc > 0 ? argv[0] : JS_UNDEFINED, argc > 1 ? argv[1] : JS_UNDEFINED)) {
    JS_FreeValue(ctx, obj);
    return JS_EXCEPTION;
  }
  return obj;
}

static uint32_t wtf8_next(const unsigned char *s, size_t n, size_t *len);

/* UTF-16 of WTF-8 text (lone surrogates stay lone, as in the JS string) into buf (cap units) or a js_malloc'd array
 * (*heap). NULL on allocation failure. */
static UChar *to_utf16(JSContext *ctx, const char *s, size_t n, UChar *buf, size_t cap, size_t *out_len, UChar **heap) {
  *heap = NULL;
  UChar *u = buf;
  if (n > cap) { /* at most one unit per byte */
    u = *heap = js_malloc(ctx, n * sizeof(UChar));
    if (!u) return NULL;
  }
  size_t m = 0;
  for (size_t i = 0, len; i < n; i += len) {
    uint32_t c = wtf8_next((const unsigned char *)s + i, n - i, &len);
    if (c >= 0x10000) { u[m++] = (UChar)(0xd7c0 + (c >> 10)); u[m++] = (UChar)(0xdc00 | (c & 0x3ff)); }
    else u[m++] = (UChar)c;
  }
  *out_len = m;
  return u;
}

/* Compares two JS values (ToString) with coll: -1/0/1 in *out. 0 or -1 (exception pending). UTF-16, as V8 passes
 * it: ICU weighs an unpaired surrogate as a code point of its own (UTF-8 input would make it U+FFFD). */
static int compare_values(JSContext *ctx, UCollator *coll, JSValueConst x, JSValueConst y, int *out) {
  size_t nx, ny;
  const char *sx = JS_ToCStringLen(ctx, &nx, x);
  if (!sx) return -1;
  const char *sy = JS_ToCStringLen(ctx, &ny, y);
  if (!sy) { JS_FreeCString(ctx, sx); return -1; }
  int rc = -1;
  UChar bx[128], by[128], *hx = NULL, *hy = NULL;
  size_t ux, uy;
  const UChar *px = to_utf16(ctx, sx, nx, bx, 128, &ux, &hx), *py = px ? to_utf16(ctx, sy, ny, by, 128, &uy, &hy) : NULL;
  if (px && py) {
    UCollationResult r = ucol_strcoll(coll, px, (int32_t)ux, py, (int32_t)uy);
    *out = r == UCOL_LESS ? -1 : r == UCOL_GREATER ? 1 : 0;
    rc = 0;
  }
  js_free(ctx, hx);
  js_free(ctx, hy);
  JS_FreeCString(ctx, sx);
  JS_FreeCString(ctx, sy);
  return rc;
}

static JSValue collator_bound_compare(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv, int magic,
                                      JSValue *data) {
  (void)this_val; (void)magic;
  Collator *c = JS_GetOpaque(data[0], collator_class_id);
  if (!c || !c->coll) return JS_ThrowTypeError(ctx, "not an Intl.Collator");
  int r;
  if (compare_values(ctx, c->coll, argc > 0 ? argv[0] : JS_UNDEFINED, argc > 1 ? argv[1] : JS_UNDEFINED, &r))
    return JS_EXCEPTION;
  return JS_NewInt32(ctx, r);
}

static Collator *this_collator(JSContext *ctx, JSValueConst this_val, const char *method) {
  Collator *c = JS_GetOpaque(this_val, collator_class_id);
  if (!c || !c->coll) JS_ThrowTypeError(ctx, "Method Intl.Collator.prototype.%s called on incompatible receiver", method);
  return c && c->coll ? c : NULL;
}

static JSValue collator_get_compare(JSContext *ctx, JSValueConst this_val) {
  Collator *c = this_collator(ctx, this_val, "compare");
  if (!c) return JS_EXCEPTION;
  if (JS_IsUndefined(c->bound_compare)) {
    JSValue f = JS_NewCFunctionData(ctx, collator_bound_compare, 2, 0, 1, &this_val);
    if (JS_IsException(f)) return f;
    c->bound_compare = f;
  }
  return JS_DupValue(ctx, c->bound_compare);
}

static JSValue collator_resolved_options(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv) {
  (void)argc; (void)argv;
  Collator *c = this_collator(ctx, this_val, "resolvedOptions");
  if (!c) return JS_EXCEPTION;
  JSValue o = JS_NewObject(ctx);
  if (JS_IsException(o)) return o;
  int ok = 1;
  ok &= JS_DefinePropertyValueStr(ctx, o, "locale", JS_NewString(ctx, c->locale), JS_PROP_C_W_E) >= 0;
  ok &= JS_DefinePropertyValueStr(ctx, o, "usage", JS_NewString(ctx, usage_values[c->usage]), JS_PROP_C_W_E) >= 0;
  ok &= JS_DefinePropertyValueStr(ctx, o, "sensitivity", JS_NewString(ctx, sensitivity_values[c->sensitivity]),
                                  JS_PROP_C_W_E) >= 0;
  ok &= JS_DefinePropertyValueStr(ctx, o, "ignorePunctuation", JS_NewBool(ctx, c->ignore_punctuation), JS_PROP_C_W_E) >= 0;
  ok &= JS_DefinePropertyValueStr(ctx, o, "collation", JS_NewString(ctx, c->collation), JS_PROP_C_W_E) >= 0;
  ok &= JS_DefinePropertyValueStr(ctx, o, "numeric", JS_NewBool(ctx, c->numeric), JS_PROP_C_W_E) >= 0;
  ok &= JS_DefinePropertyValueStr(ctx, o, "caseFirst", JS_NewString(ctx, c->case_first), JS_PROP_C_W_E) >= 0;
  if (!ok) { JS_FreeValue(ctx, o); return JS_EXCEPTION; }
  return o;
}

/* ECMA-402 §9.2.10 SupportedLocales (Lookup for both matchers). */
static JSValue collator_supported_locales_of(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv) {
  (void)this_val;
  TagList req;
  if (canonicalize_locale_list(ctx, argc > 0 ? argv[0] : JS_UNDEFINED, &req)) return JS_EXCEPTION;
  JSValue opts = coerce_options(ctx, argc > 1 ? argv[1] : JS_UNDEFINED);
  const char *matcher;
  if (JS_IsException(opts) || get_string_option(ctx, opts, "localeMatcher", matcher_values, &matcher, NULL, 0)) {
    JS_FreeValue(ctx, opts);
    tags_free(ctx, &req);
    return JS_EXCEPTION;
  }
  JS_FreeValue(ctx, opts);
  JSValue arr = JS_NewArray(ctx);
  uint32_t n = 0;
  for (size_t i = 0; i < req.count && !JS_IsException(arr); i++) {
    if (!best_available(&req.tags[i])) continue;
    if (JS_DefinePropertyValueUint32(ctx, arr, n++, JS_NewString(ctx, req.tags[i].text), JS_PROP_C_W_E) < 0) {
      JS_FreeValue(ctx, arr);
      arr = JS_EXCEPTION;
    }
  }
  tags_free(ctx, &req);
  return arr;
}

static const JSCFunctionListEntry collator_proto_funcs[] = {
  JS_CGETSET_DEF("compare", collator_get_compare, NULL),
  JS_CFUNC_DEF("resolvedOptions", 0, collator_resolved_options),
  JS_PROP_STRING_DEF("[Symbol.toStringTag]", "Intl.Collator", JS_PROP_CONFIGURABLE),
};

static const JSCFunctionListEntry collator_funcs[] = {
  JS_CFUNC_DEF("supportedLocalesOf", 1, collator_supported_locales_of),
};

static int ensure_class(JSContext *ctx) {
  JSRuntime *rt = JS_GetRuntime(ctx);
  if (!collator_class_id) JS_NewClassID(&collator_class_id);
  if (!JS_IsRegisteredClass(rt, collator_class_id) && JS_NewClass(rt, collator_class_id, &collator_class) < 0) return -1;
  return 0;
}

int sw_js_intl_install_native(JSContext *ctx, JSValueConst intl) {
  if (ensure_class(ctx)) return -1;
  JSValue proto = JS_NewObject(ctx);
  if (JS_IsException(proto)) return -1;
  JS_SetPropertyFunctionList(ctx, proto, collator_proto_funcs, sizeof collator_proto_funcs / sizeof *collator_proto_funcs);
  JSValue ctor = JS_NewCFunction2(ctx, collator_constructor, "Collator", 0, JS_CFUNC_constructor_or_func, 0);
  if (JS_IsException(ctor)) { JS_FreeValue(ctx, proto); return -1; }
  JS_SetConstructor(ctx, ctor, proto);
  JS_SetPropertyFunctionList(ctx, ctor, collator_funcs, sizeof collator_funcs / sizeof *collator_funcs);
  JS_SetClassProto(ctx, collator_class_id, proto); /* takes proto */
  return JS_DefinePropertyValueStr(ctx, intl, "Collator", ctor, JS_PROP_WRITABLE | JS_PROP_CONFIGURABLE) < 0 ? -1 : 0;
}

/* --- String.prototype.localeCompare ---------------------------------------------------------------------------- */

/* The default collator (en-US, no options), opened on the first localeCompare without locales and options. It lives
 * in linear memory, so a snapshot keeps it; a fresh instance starts without it. */
static UCollator *g_default_collator;

/* ToString(RequireObjectCoercible(this)). */
static JSValue this_string(JSContext *ctx, JSValueConst this_val, const char *method) {
  if (JS_IsUndefined(this_val) || JS_IsNull(this_val))
    return JS_ThrowTypeError(ctx, "String.prototype.%s called on null or undefined", method);
  return JS_ToString(ctx, this_val);
}

static JSValue js_locale_compare(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv) {
  JSValue s = this_string(ctx, this_val, "localeCompare");
  if (JS_IsException(s)) return s;
  JSValue that = JS_ToString(ctx, argc > 0 ? argv[0] : JS_UNDEFINED);
  if (JS_IsException(that)) { JS_FreeValue(ctx, s); return that; }
  JSValueConst locales = argc > 1 ? argv[1] : JS_UNDEFINED, options = argc > 2 ? argv[2] : JS_UNDEFINED;
  int r = 0, rc;
  if (JS_IsUndefined(locales) && JS_IsUndefined(options)) {
    rc = 0;
    if (!g_default_collator) {
      Collator c = {0};
      c.bound_compare = JS_UNDEFINED;
      rc = initialize_collator(ctx, &c, JS_UNDEFINED, JS_UNDEFINED);
      g_default_collator = c.coll;
    }
    if (rc == 0) rc = compare_values(ctx, g_default_collator, s, that, &r);
  } else {
    Collator c = {0};
    c.bound_compare = JS_UNDEFINED;
    rc = initialize_collator(ctx, &c, locales, options);
    if (rc == 0) rc = compare_values(ctx, c.coll, s, that, &r);
    if (c.coll) ucol_close(c.coll);
  }
  JS_FreeValue(ctx, s);
  JS_FreeValue(ctx, that);
  return rc ? JS_EXCEPTION : JS_NewInt32(ctx, r);
}

/* --- toLocaleUpperCase / toLocaleLowerCase --------------------------------------------------------------------- */

/* ECMA-402 §19.1.2.1 TransformCase: the language-sensitive mappings of SpecialCasing.txt (tr, az, lt) are applied here
 * as a pre-pass whose output the language-independent mapping (QuickJS's own toUpperCase/toLowerCase, Unicode 17.0)
 * leaves as it is; every other character is mapped by that. */

enum { CASE_NONE, CASE_TURKIC, CASE_LITHUANIAN };

/* Decodes one code point of WTF-8 (QuickJS's JS_ToCStringLen: lone surrogates as 3 bytes); *len its bytes. */
static uint32_t wtf8_next(const unsigned char *s, size_t n, size_t *len) {
  unsigned c = s[0];
  if (c < 0x80 || n < 2) { *len = 1; return c; }
  if (c < 0xe0) { *len = 2; return ((c & 0x1f) << 6) | (s[1] & 0x3f); }
  if (c < 0xf0 || n < 4) { *len = n < 3 ? n : 3; return ((c & 0x0f) << 12) | ((s[1] & 0x3f) << 6) | (n > 2 ? (s[2] & 0x3f) : 0); }
  *len = 4;
  return ((c & 0x07) << 18) | ((s[1] & 0x3f) << 12) | ((s[2] & 0x3f) << 6) | (s[3] & 0x3f);
}

static size_t wtf8_put(char *o, uint32_t c) {
  if (c < 0x80) { o[0] = (char)c; return 1; }
  if (c < 0x800) { o[0] = (char)(0xc0 | (c >> 6)); o[1] = (char)(0x80 | (c & 0x3f)); return 2; }
  if (c < 0x10000) {
    o[0] = (char)(0xe0 | (c >> 12)); o[1] = (char)(0x80 | ((c >> 6) & 0x3f)); o[2] = (char)(0x80 | (c & 0x3f));
    return 3;
  }
  o[0] = (char)(0xf0 | (c >> 18)); o[1] = (char)(0x80 | ((c >> 12) & 0x3f));
  o[2] = (char)(0x80 | ((c >> 6) & 0x3f)); o[3] = (char)(0x80 | (c & 0x3f));
  return 4;
}

/* Canonical combining class (ICU's normalization data, linked for the collator anyway). */
static int ccc(uint32_t c) { return c < 0x300 ? 0 : u_getCombiningClass((UChar32)c); }

/* Soft_Dotted (PropList.txt, Unicode 17.0). */
static int soft_dotted(uint32_t c) {
  static const uint32_t ranges[][2] = {
    {0x69, 0x6a}, {0x12f, 0x12f}, {0x249, 0x249}, {0x268, 0x268}, {0x29d, 0x29d}, {0x2b2, 0x2b2}, {0x3f3, 0x3f3},
    {0x456, 0x456}, {0x458, 0x458}, {0x1d62, 0x1d62}, {0x1d96, 0x1d96}, {0x1da4, 0x1da4}, {0x1da8, 0x1da8},
    {0x1e2d, 0x1e2d}, {0x1ecb, 0x1ecb}, {0x2071, 0x2071}, {0x2148, 0x2149}, {0x2c7c, 0x2c7c}, {0x1d422, 0x1d423},
    {0x1d456, 0x1d457}, {0x1d48a, 0x1d48b}, {0x1d4be, 0x1d4bf}, {0x1d4f2, 0x1d4f3}, {0x1d526, 0x1d527},
    {0x1d55a, 0x1d55b}, {0x1d58e, 0x1d58f}, {0x1d5c2, 0x1d5c3}, {0x1d5f6, 0x1d5f7}, {0x1d62a, 0x1d62b},
    {0x1d65e, 0x1d65f}, {0x1d692, 0x1d693}, {0x1df1a, 0x1df1a}, {0x1e04c, 0x1e04d}, {0x1e068, 0x1e068},
  };
  for (size_t i = 0; i < sizeof ranges / sizeof *ranges; i++)
    if (c >= ranges[i][0] && c <= ranges[i][1]) return 1;
  return 0;
}

/* SpecialCasing's contexts, over code points cp[0..n). */
static int before_dot(const uint32_t *cp, size_t n, size_t i) { /* followed by U+0307, no ccc 0/230 between */
  for (size_t k = i + 1; k < n; k++) {
    if (cp[k] == 0x307) return 1;
    int cc = ccc(cp[k]);
    if (cc == 0 || cc == 230) return 0;
  }
  return 0;
}
static int more_above(const uint32_t *cp, size_t n, size_t i) { /* followed by ccc 230, no ccc 0 between */
  for (size_t k = i + 1; k < n; k++) {
    int cc = ccc(cp[k]);
    if (cc == 230) return 1;
    if (cc == 0) return 0;
  }
  return 0;
}
static int after(const uint32_t *cp, size_t i, int (*pred)(uint32_t)) { /* preceded by pred, no ccc 0/230 between */
  while (i-- > 0) {
    if (pred(cp[i])) return 1;
    int cc = ccc(cp[i]);
    if (cc == 0 || cc == 230) return 0;
  }
  return 0;
}
static int is_capital_i(uint32_t c) { return c == 'I'; }

static JSValue transform_case(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv, int upper_case,
                              JSValue *data) {
  JSValue s = this_string(ctx, this_val, upper_case ? "toLocaleUpperCase" : "toLocaleLowerCase");
  if (JS_IsException(s)) return s;
  TagList req;
  if (canonicalize_locale_list(ctx, argc > 0 ? argv[0] : JS_UNDEFINED, &req)) { JS_FreeValue(ctx, s); return JS_EXCEPTION; }
  int mode = CASE_NONE;
  if (req.count) {
    const char *t = req.tags[0].text;
    size_t l = 0;
    while (t[l] && t[l] != '-') l++;
    if ((l == 2 && (memcmp(t, "tr", 2) == 0 || memcmp(t, "az", 2) == 0))) mode = CASE_TURKIC;
    else if (l == 2 && memcmp(t, "lt", 2) == 0) mode = CASE_LITHUANIAN;
  }
  tags_free(ctx, &req);
  /* u_getCombiningClass allocates ICU's NFC singleton: ICU's allocator must be in place first */
  if (mode != CASE_NONE && icu_ready(ctx)) { JS_FreeValue(ctx, s); return JS_EXCEPTION; }
  if (mode != CASE_NONE) {
    size_t n;
    const char *str = JS_ToCStringLen(ctx, &n, s);
    if (!str) { JS_FreeValue(ctx, s); return JS_EXCEPTION; }
    uint32_t *cp = NULL;
    char *out = NULL;
    size_t m = 0, o = 0, changed = 0;
    cp = js_malloc(ctx, (n + 1) * sizeof *cp);
    out = js_malloc(ctx, n * 3 + 4); /* each code point becomes at most 3 of at most 3 bytes per input byte */
    if (!cp || !out) goto case_fail;
    for (size_t i = 0, len; i < n; i += len) cp[m++] = wtf8_next((const unsigned char *)str + i, n - i, &len);
    for (size_t i = 0; i < m; i++) {
      uint32_t c = cp[i];
      if (mode == CASE_TURKIC && upper_case) {
        if (c == 'i') { o += wtf8_put(out + o, 0x130); changed++; continue; }
      } else if (mode == CASE_TURKIC) {
        if (c == 0x130) { o += wtf8_put(out + o, 'i'); changed++; continue; }
        if (c == 0x307 && after(cp, i, is_capital_i)) { changed++; continue; }
        if (c == 'I') { o += wtf8_put(out + o, before_dot(cp, m, i) ? 'i' : 0x131); changed++; continue; }
      } else if (upper_case) { /* Lithuanian: U+0307 after a soft-dotted letter is removed */
        if (c == 0x307 && after(cp, i, soft_dotted)) { changed++; continue; }
      } else {
        const uint32_t *rep = NULL;
        static const uint32_t i_dot[] = {'i', 0x307, 0}, j_dot[] = {'j', 0x307, 0}, ogonek_dot[] = {0x12f, 0x307, 0},
                              grave[] = {'i', 0x307, 0x300, 0}, acute[] = {'i', 0x307, 0x301, 0},
                              tilde[] = {'i', 0x307, 0x303, 0};
        if (c == 'I' && more_above(cp, m, i)) rep = i_dot;
        else if (c == 'J' && more_above(cp, m, i)) rep = j_dot;
        else if (c == 0x12e && more_above(cp, m, i)) rep = ogonek_dot;
        else if (c == 0xcc) rep = grave;
        else if (c == 0xcd) rep = acute;
        else if (c == 0x128) rep = tilde;
        if (rep) { for (; *rep; rep++) o += wtf8_put(out + o, *rep); changed++; continue; }
      }
      o += wtf8_put(out + o, c);
    }
    if (changed) {
      JSValue t = JS_NewStringLen(ctx, out, o);
      if (JS_IsException(t)) goto case_fail;
      JS_FreeValue(ctx, s);
      s = t;
    }
    js_free(ctx, cp);
    js_free(ctx, out);
    JS_FreeCString(ctx, str);
    goto mapped;
  case_fail:
    js_free(ctx, cp);
    js_free(ctx, out);
    JS_FreeCString(ctx, str);
    JS_FreeValue(ctx, s);
    return JS_EXCEPTION;
  }
mapped:;
  /* the language-independent mapping: the original String.prototype.toUpperCase / toLowerCase */
  JSValue r = JS_Call(ctx, data[0], s, 0, NULL);
  JS_FreeValue(ctx, s);
  return r;
}

int sw_js_intl_install_string_methods(JSContext *ctx) {
  JSValue global = JS_GetGlobalObject(ctx);
  JSValue string_ctor = JS_GetPropertyStr(ctx, global, "String");
  JS_FreeValue(ctx, global);
  JSValue proto = JS_GetPropertyStr(ctx, string_ctor, "prototype");
  JS_FreeValue(ctx, string_ctor);
  if (!JS_IsObject(proto)) { JS_FreeValue(ctx, proto); return -1; }
  int ok = JS_DefinePropertyValueStr(ctx, proto, "localeCompare", JS_NewCFunction(ctx, js_locale_compare, "localeCompare", 1),
                                     JS_PROP_WRITABLE | JS_PROP_CONFIGURABLE) >= 0;
  static const char *const names[2][2] = {{"toLocaleLowerCase", "toLowerCase"}, {"toLocaleUpperCase", "toUpperCase"}};
  for (int up = 0; up < 2 && ok; up++) {
    JSValue orig = JS_GetPropertyStr(ctx, proto, names[up][1]);
    if (!JS_IsFunction(ctx, orig)) { JS_FreeValue(ctx, orig); ok = 0; break; }
    JSValue f = JS_NewCFunctionData(ctx, transform_case, 0, up, 1, &orig);
    JS_FreeValue(ctx, orig);
    /* JS_NewCFunctionData gives the function no name: ECMA-262 wants "toLocaleUpperCase" etc. */
    ok = !JS_IsException(f) &&
         JS_DefinePropertyValueStr(ctx, f, "name", JS_NewString(ctx, names[up][0]), JS_PROP_CONFIGURABLE) >= 0 &&
         JS_DefinePropertyValueStr(ctx, proto, names[up][0], f, JS_PROP_WRITABLE | JS_PROP_CONFIGURABLE) >= 0;
  }
  JS_FreeValue(ctx, proto);
  return ok ? 0 : -1;
}
