#!/usr/bin/env bash
# Builds the Python engine: CPython 3.13.5 + our driver as a wasm32-wasi reactor, engines/python/build/engine.wasm,
# its standard library archive engines/python/build/stdlib.tar (mounted read-only at /stdlib), engine-build.json and
# engine-build.js (the Worker imports the identity next to engine.wasm).
#
#   bash scripts/engines/python.sh            fetch (pinned, sha256-verified) + build, cached by source hash
#   bash scripts/engines/python.sh --src-dir  print the patched CPython source directory (for test builds)
#
# Sources: Debian trixie source package `python3.13` (the upstream tarball) and bookworm `zlib`, fetched with a private
# apt state directory (nothing under /etc/apt changes). Third-party sources are patched at build time on an extracted
# copy (patch_cpython), never committed. Toolchain: Debian clang-16 + wasi-libc behind a fake "WASI SDK" directory of
# wrappers, so CPython's own Tools/wasm recipe (config.site, wasi-env) drives the cross build (ENGINES.md appendix).
#
# Stages, each cached under $SW_CACHE/engines/python by a hash of everything that determines it:
#   native-<h>    the native build python (pristine source: runs CPython's build scripts, compiles the bytecode)
#   zlib-<h>      libz.a for wasm32-wasi                       (import zlib)
#   wasi-<h>      libpython3.13.a + the module libraries     (patched source, flags, zlib)
#   stdlib-<h>    stdlib.tar: precompiled, trimmed             (engines/python/buildtool.py)
#   engine-<h>    engine.wasm: libpython + driver + wasmify glue + nanopb
# A warm run (nothing changed) only hashes and copies: a few seconds. Reproducible: the same inputs give the same
# engine.wasm and stdlib.tar bytes (no paths, dates or hash seeds reach the outputs).
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
source "$(dirname "${BASH_SOURCE[0]}")/meter.sh"

PY_SPEC="python3.13=3.13.5-2+deb13u5"
PY_TARBALL="python3.13_3.13.5.orig.tar.xz"
PY_SHA256="93e583f243454e6e9e4588ca2c2662206ad961659863277afcdb96801647d640"
PY_DIR="Python-3.13.5"
PY_ENGINE_NAME="CPython 3.13.5"
ZLIB_SPEC="zlib=1:1.2.13.dfsg-1"
ZLIB_TARBALL="zlib_1.2.13.dfsg.orig.tar.bz2"
ZLIB_SHA256="71feb7947e3c00ef125f83b79a4e529bde31171e5babe48b391f06758d1ab0a1"
ZLIB_DIR="zlib-1.2.13.dfsg"
ZLIB_SOURCES=(adler32 compress crc32 deflate infback inffast inflate inftrees trees uncompr zutil)

# Debian packages this script needs (bootstrap.sh installs most of them; llvm gives llvm-ar/llvm-ranlib, bzip2
# unpacks the zlib tarball).
PY_APT_PACKAGES=(clang-16 lld-16 wasi-libc libclang-rt-16-dev-wasm32 llvm gcc make bzip2 xz-utils dpkg-dev python3
                 nanopb)

PY_CACHE="$SW_CACHE/engines/python"
PY_ENGINE_DIR="$SW_ROOT/engines/python"

# The native build python: only the interpreter and its sysconfig data, no extension modules (none is needed), at
# -O0 (it only runs build scripts and compiles bytecode).
NATIVE_CONFIG=(--without-ensurepip --disable-test-modules)
NATIVE_MAKE=(OPT="-O0 -DNDEBUG" python platform)

# The cross build. pymalloc is off upstream on WASI; on here it is up to ~2x faster for object-heavy code (measured:
# an object-creation/method-call loop 224 -> 117 ms; arenas come from malloc: there is no mmap). Test modules and
# ensurepip are not built, nor (the Worker's 5 MiB upload, engines/python/README.md "Size") the CJK codecs (~330 KB
# gzip of mapping tables; 'shift_jis', 'gbk', 'big5', ... are then unknown encodings) and _asyncio (the C half of
# asyncio, which cannot run an event loop here; the pure-Python one still imports).
WASI_DISABLED_MODULES=(_codecs_cn _codecs_hk _codecs_iso2022 _codecs_jp _codecs_kr _codecs_tw _multibytecodec _asyncio)
# mimalloc is only an alternative allocator here (PYTHONMALLOC=mimalloc; free-threaded builds need it): without it,
# 57 KB less code, and boot no longer seeds mimalloc's heap keys from random_get (the boot image was not reproducible).
WASI_CONFIG=(--host=wasm32-unknown-wasi --without-ensurepip --disable-test-modules --with-pymalloc --without-mimalloc)
for m in "${WASI_DISABLED_MODULES[@]}"; do WASI_CONFIG+=("py_cv_module_$m=n/a"); done
# -O2 (upstream: -O3) keeps the module smaller; no -g (the link strips everything anyway).
WASI_OPT="-DNDEBUG -O2 -Wall"
WASM_CFLAGS=(--target=wasm32-wasi -O2)
# Linear memory: the stack first (an overflow runs off address 0 and traps instead of overwriting data), 64 MiB at
# most (protocol §6.1). clang-16 runs /usr/bin/wasm-opt by itself when linking at -O1+ and binaryen 108 rejects the module
# (TOOLCHAIN.md §2): compile at -O2, link at -O0. The stack size: engines/python/README.md "Recursion".
PY_STACK_SIZE=1048576
WASM_LDFLAGS=(--target=wasm32-wasi -O0 -mexec-model=reactor -Wl,--stack-first "-Wl,-z,stack-size=$PY_STACK_SIZE"
              -Wl,--max-memory=67108864 -Wl,--strip-all -Wl,--export=__stack_pointer)
for e in "${WASMIFY_EXPORTS[@]}"; do WASM_LDFLAGS+=("-Wl,--export=$e"); done
PY_LIBS=(-lm -lwasi-emulated-signal -lwasi-emulated-getpid -lwasi-emulated-process-clocks)

# Patches applied to the extracted copy (python: every pattern must match exactly once).
# Fuel (protocol §5.5, engines/python/README.md): Include/swfuel.h defines SW_FUEL(units), a countdown in linear memory
# that calls the `sandbox.charge` import with the units consumed every SW_FUEL_BATCH units (hard mode: the host traps
# inside that call when the budget is overdrawn). The eval loop charges per bytecode instruction; C builtins that can
# do unbounded work in one call charge in proportion to that work. Natively (the --src-dir test builds) it is a no-op.
patch_cpython() {
  python3 - "$1" <<'PY'
import sys, pathlib
root = pathlib.Path(sys.argv[1])
def sub(name, old, new):
    p = root / name
    s = p.read_text()
    if s.count(old) != 1:
        sys.exit(f"patch failed: {name}: pattern found {s.count(old)} times: {old!r}")
    p.write_text(s.replace(old, new))
def charge_entry(name, head, units):
    sub(name, head + "\n{\n", head + "\n{\n    SW_FUEL(" + units + ");\n")

(root / "Include/swfuel.h").write_text(r'''/* sandbox-workers fuel metering (scripts/engines/python.sh, engines/python/README.md). */
#ifndef Py_SWFUEL_H
#define Py_SWFUEL_H
#if defined(__wasi__)
#include <stdint.h>
#define SW_FUEL_BATCH 10000
/* Units left before the next sandbox.charge call; may go negative by one charge. */
PyAPI_DATA(int64_t) _Py_sw_fuel_countdown;
/* Charges everything consumed since the last call (0 is fine) and restarts the countdown. */
PyAPI_FUNC(void) _Py_sw_fuel_flush(void);
#define SW_FUEL(n) ((void)((_Py_sw_fuel_countdown -= (int64_t)(n)) < 0 ? (_Py_sw_fuel_flush(), 0) : 0))
#else
#define SW_FUEL(n) ((void)0)
#endif
/* Weights (engines/python/README.md "Fuel"). One unit ~ one simple bytecode instruction (~2.5 ns of optimized wasm
   on the reference machine); bytecode weights are per instruction (Python/swfuel_ops.h). */
#define SW_FUEL_ALLOC 4                                         /* an allocation or a reallocation */
#define SW_FUEL_FREE 2                                          /* a deallocation */
#define SW_FUEL_BYTES(bytes) ((int64_t)(bytes) >> 5)            /* bytes allocated, grown, or written by repeat/join */
#define SW_FUEL_ITEMS(n) ((int64_t)(n))                         /* elements copied or moved */
#define SW_FUEL_DIGITS(n) ((int64_t)(n) >> 1)                   /* 30-bit digit multiply-adds of int arithmetic */
#define SW_FUEL_CMP 2                                           /* a comparison (sort, contains, index, min/max) */
#define SW_FUEL_ITER 2                                          /* one step of a builtin iterator */
#define SW_FUEL_CALLITER 12                                     /* one step of iter(callable, sentinel): a call */
#define SW_FUEL_SRE 4                                           /* one step of the regex matcher */
#define SW_FUEL_JSON 20                                         /* one value encoded or decoded by _json */
#endif
''')
sub("Include/Python.h", '#include "cpython/tracemalloc.h"\n', '#include "cpython/tracemalloc.h"\n#include "swfuel.h"\n')
sub("Python/ceval.c", "int Py_EnterRecursiveCall(const char *where)\n", r'''#if defined(__wasi__)
__attribute__((import_module("sandbox"), import_name("charge"))) int32_t sw_sandbox_charge(uint32_t units);
int64_t _Py_sw_fuel_countdown = SW_FUEL_BATCH;
void _Py_sw_fuel_flush(void)
{
    int64_t used = SW_FUEL_BATCH - _Py_sw_fuel_countdown;
    _Py_sw_fuel_countdown = SW_FUEL_BATCH;   /* first: the host may trap inside the charge */
    while (used > 0) {
        uint32_t units = used > 0x40000000 ? 0x40000000 : (uint32_t)used;
        used -= units;
        (void)sw_sandbox_charge(units);
    }
}
#endif

int Py_EnterRecursiveCall(const char *where)
''')
# The eval loop: every instruction (generated_cases.c.h starts each one with INSTRUCTION_STATS), weighted by kind
# (measured costs: engines/python/README.md); the weights become compile-time constants (Python/swfuel_ops.h).
import re
OP_WEIGHTS = [  # first matching prefix wins
    ("CALL_PY", 12), ("CALL_BOUND_METHOD", 12), ("CALL_ALLOC_AND_ENTER_INIT", 16), ("CALL_LIST_APPEND", 3),
    ("CALL_LEN", 3), ("CALL_ISINSTANCE", 3), ("CALL_TYPE_1", 3), ("CALL", 8), ("INSTRUMENTED_CALL", 8),
    ("RETURN_GENERATOR", 8), ("MAKE_FUNCTION", 6), ("LOAD_BUILD_CLASS", 6), ("IMPORT_", 8),
    ("BUILD_", 4), ("FORMAT_", 6), ("CONVERT_VALUE", 6), ("LIST_", 2), ("SET_UPDATE", 4), ("SET_ADD", 3),
    ("DICT_", 4), ("MAP_ADD", 3), ("UNPACK_EX", 4), ("UNPACK_", 2),
    ("LOAD_NAME", 3), ("STORE_NAME", 3), ("DELETE_NAME", 3), ("LOAD_GLOBAL", 2), ("STORE_GLOBAL", 3),
    ("LOAD_ATTR_INSTANCE_VALUE", 2), ("LOAD_ATTR_SLOT", 2), ("LOAD_ATTR_MODULE", 2), ("LOAD_ATTR_METHOD", 2),
    ("LOAD_ATTR", 4), ("STORE_ATTR_INSTANCE_VALUE", 2), ("STORE_ATTR", 4), ("LOAD_SUPER_ATTR", 6),
    ("DELETE_", 3), ("BINARY_SUBSCR_GETITEM", 12), ("BINARY_SUBSCR", 2), ("STORE_SUBSCR", 3), ("BINARY_SLICE", 4),
    ("STORE_SLICE", 4), ("BINARY_OP_ADD_INT", 2), ("BINARY_OP_SUBTRACT_INT", 2), ("BINARY_OP_MULTIPLY_INT", 2),
    ("BINARY_OP_INPLACE_ADD_UNICODE", 3), ("BINARY_OP", 3), ("COMPARE_OP_INT", 1), ("COMPARE_OP_FLOAT", 1),
    ("COMPARE_OP", 2), ("CONTAINS_OP", 3), ("FOR_ITER", 2), ("GET_ITER", 3), ("SEND", 3), ("YIELD_VALUE", 3),
    ("RETURN_", 2), ("RAISE_VARARGS", 8), ("RERAISE", 4), ("PUSH_EXC_INFO", 2), ("CHECK_EXC_MATCH", 2),
    ("BEFORE_", 6), ("WITH_EXCEPT_START", 6), ("MATCH_", 4), ("GET_", 4), ("END_ASYNC_FOR", 4),
]
def op_weight(name):
    for prefix, weight in OP_WEIGHTS:
        if name.startswith(prefix):
            return weight
    return 1
ops = sorted(set(re.findall(r"INSTRUCTION_STATS\(([A-Z0-9_]+)\)", (root / "Python/generated_cases.c.h").read_text())))
(root / "Python/swfuel_ops.h").write_text("/* Fuel weight of each bytecode instruction (scripts/engines/python.sh). */\n" +
    "".join(f"#define SW_W_{op} {op_weight(op)}\n" for op in ops))
sub("Python/ceval_macros.h", "#define INSTRUCTION_STATS(op) ((void)0)",
    '#include "swfuel_ops.h"\n#define INSTRUCTION_STATS(op) SW_FUEL(SW_W_##op)')
# Allocations: a flat charge per call of the public allocators (pymalloc serves small blocks without the raw
# allocator), bytes charged where memory really comes from (the raw allocator: large blocks, and only the growth of a
# realloc, so that building a string in place stays linear).
for fn in ("PyMem_Malloc(size_t size)", "PyMem_Calloc(size_t nelem, size_t elsize)",
           "PyMem_Realloc(void *ptr, size_t new_size)", "PyObject_Malloc(size_t size)",
           "PyObject_Calloc(size_t nelem, size_t elsize)", "PyObject_Realloc(void *ptr, size_t new_size)"):
    charge_entry("Objects/obmalloc.c", "void *\n" + fn, "SW_FUEL_ALLOC")
for fn in ("PyMem_Free(void *ptr)", "PyObject_Free(void *ptr)"):
    charge_entry("Objects/obmalloc.c", "void\n" + fn, "SW_FUEL_FREE")
sub("Objects/obmalloc.c", "    if (size == 0)\n        size = 1;\n    return malloc(size);",
    "    SW_FUEL(SW_FUEL_BYTES(size));\n    if (size == 0)\n        size = 1;\n    return malloc(size);")
sub("Objects/obmalloc.c", "    return calloc(nelem, elsize);",
    "    SW_FUEL(SW_FUEL_BYTES((uint64_t)nelem * elsize));\n    return calloc(nelem, elsize);")
sub("Objects/obmalloc.c", "    if (size == 0)\n        size = 1;\n    return realloc(ptr, size);",
    "#ifdef __wasi__\n    {\n        size_t old = ptr ? malloc_usable_size(ptr) : 0;\n"
    "        SW_FUEL(SW_FUEL_BYTES(size > old ? size - old : 0));\n    }\n#endif\n"
    "    if (size == 0)\n        size = 1;\n    return realloc(ptr, size);")
sub("Objects/obmalloc.c", '#include <stdlib.h>               // malloc()\n',
    '#include <stdlib.h>               // malloc()\n#ifdef __wasi__\n#include <malloc.h>               // malloc_usable_size()\n#endif\n')
# Comparisons: per call (contains/index/count/remove/min/max/== of containers), and per sort comparison (the
# specialised sort compares bypass PyObject_RichCompare).
charge_entry("Objects/object.c", "int\nPyObject_RichCompareBool(PyObject *v, PyObject *w, int op)", "SW_FUEL_CMP")
sub("Objects/listobject.c", "#define ISLT(X, Y) (*(ms->key_compare))(X, Y, ms)",
    "#define ISLT(X, Y) (SW_FUEL(SW_FUEL_CMP), (*(ms->key_compare))(X, Y, ms))")
# Repeat and join: per byte / element written.
charge_entry("Objects/bytesobject.c", "void\n_PyBytes_Repeat(char* dest, Py_ssize_t len_dest,\n    const char* src, Py_ssize_t len_src)", "SW_FUEL_BYTES(len_dest)")
# (charged once the result is allocated: a size that cannot be allocated is a MemoryError, not a fuel trap)
sub("Objects/listobject.c", "    PyListObject *np = (PyListObject *) list_new_prealloc(output_size);\n    if (np == NULL)\n        return NULL;\n",
    "    PyListObject *np = (PyListObject *) list_new_prealloc(output_size);\n    if (np == NULL)\n        return NULL;\n    SW_FUEL(SW_FUEL_ITEMS(output_size));\n")
sub("Objects/tupleobject.c", "    PyTupleObject *np = tuple_alloc(output_size);\n    if (np == NULL)\n        return NULL;\n",
    "    PyTupleObject *np = tuple_alloc(output_size);\n    if (np == NULL)\n        return NULL;\n    SW_FUEL(SW_FUEL_ITEMS(output_size));\n")
sub("Objects/listobject.c", "    if (list_resize(self, output_size) < 0) {\n        return -1;\n    }\n",
    "    if (list_resize(self, output_size) < 0) {\n        return -1;\n    }\n    SW_FUEL(SW_FUEL_ITEMS(output_size));\n")
sub("Objects/unicodeobject.c", "    res = PyUnicode_New(sz, maxchar);\n    if (res == NULL)\n        goto onError;\n",
    "    res = PyUnicode_New(sz, maxchar);\n    if (res == NULL)\n        goto onError;\n    SW_FUEL(SW_FUEL_ITEMS(seqlen) + SW_FUEL_BYTES(sz));\n")
sub("Objects/stringlib/join.h", "    res = STRINGLIB_NEW(NULL, sz);\n",
    "    res = STRINGLIB_NEW(NULL, sz);\n    if (res != NULL)\n        SW_FUEL(SW_FUEL_ITEMS(seqlen) + SW_FUEL_BYTES(sz));\n")
# List insert/delete move the tail.
sub("Objects/listobject.c", "    for (i = n; --i >= where; )\n", "    SW_FUEL(SW_FUEL_ITEMS(n - where));\n    for (i = n; --i >= where; )\n")
sub("Objects/listobject.c", "        memmove(&item[ihigh+d], &item[ihigh], tail);\n",
    "        SW_FUEL(SW_FUEL_ITEMS(tail / sizeof(PyObject *)));\n        memmove(&item[ihigh+d], &item[ihigh], tail);\n")
# int: schoolbook multiplication (Karatsuba and pow end up here), division, and the quadratic str<->int conversions.
sub("Objects/longobject.c", "    z = _PyLong_New(size_a + size_b);\n    if (z == NULL)\n        return NULL;\n\n    memset(z->long_value.ob_digit, 0, _PyLong_DigitCount(z) * sizeof(digit));\n",
    "    z = _PyLong_New(size_a + size_b);\n    if (z == NULL)\n        return NULL;\n    SW_FUEL(SW_FUEL_DIGITS((int64_t)size_a * size_b));\n\n    memset(z->long_value.ob_digit, 0, _PyLong_DigitCount(z) * sizeof(digit));\n")
sub("Objects/longobject.c", "    size_w = _PyLong_DigitCount(w1);\n    assert(size_v >= size_w && size_w >= 2); /* Assert checks by div() */\n",
    "    size_w = _PyLong_DigitCount(w1);\n    assert(size_v >= size_w && size_w >= 2); /* Assert checks by div() */\n    SW_FUEL(SW_FUEL_DIGITS((int64_t)(size_v - size_w + 1) * size_w));\n")
sub("Objects/longobject.c", "        digit hi = pin[i];\n", "        digit hi = pin[i];\n        SW_FUEL(SW_FUEL_DIGITS(size));\n")
sub("Objects/longobject.c", "        /* Multiply z by convmult, and add c. */\n        pz = z->long_value.ob_digit;\n        pzstop = pz + _PyLong_DigitCount(z);\n",
    "        /* Multiply z by convmult, and add c. */\n        pz = z->long_value.ob_digit;\n        pzstop = pz + _PyLong_DigitCount(z);\n        SW_FUEL(SW_FUEL_DIGITS(_PyLong_DigitCount(z)));\n")
# The regex matcher: every opcode dispatch (the place upstream polls for signals).
sub("Modules/_sre/sre_lib.h", "#define _MAYBE_CHECK_SIGNALS                                       \\\n    do {                                                           \\\n",
    "#define _MAYBE_CHECK_SIGNALS                                       \\\n    do {                                                           \\\n        SW_FUEL(SW_FUEL_SRE);                                      \\\n")
# Builtin iterators (sum/any/max/deque/list(...) drive them from C, without bytecode); the infinite ones first.
for name, head in [
    ("Objects/abstract.c", "PyObject *\nPyIter_Next(PyObject *iter)"),
    ("Objects/rangeobject.c", "static PyObject *\nrangeiter_next(_PyRangeIterObject *r)"),
    ("Objects/rangeobject.c", "static PyObject *\nlongrangeiter_next(longrangeiterobject *r)"),
    ("Modules/itertoolsmodule.c", "static PyObject *\ncycle_next(cycleobject *lz)"),
    ("Modules/itertoolsmodule.c", "static PyObject *\ncount_next(countobject *lz)"),
    ("Modules/itertoolsmodule.c", "static PyObject *\nrepeat_next(repeatobject *ro)"),
    ("Objects/listobject.c", "static PyObject *\nlistiter_next(PyObject *self)"),
    ("Objects/tupleobject.c", "static PyObject *\ntupleiter_next(_PyTupleIterObject *it)"),
    ("Objects/dictobject.c", "static PyObject*\ndictiter_iternextkey(PyObject *self)"),
    ("Objects/dictobject.c", "static PyObject *\ndictiter_iternextvalue(PyObject *self)"),
    ("Objects/dictobject.c", "static PyObject *\ndictiter_iternextitem(PyObject *self)"),
    ("Objects/unicodeobject.c", "static PyObject *\nunicodeiter_next(unicodeiterobject *it)"),
    ("Objects/unicodeobject.c", "static PyObject *\nunicode_ascii_iter_next(unicodeiterobject *it)"),
    ("Objects/bytesobject.c", "static PyObject *\nstriter_next(striterobject *it)"),
    ("Objects/bytearrayobject.c", "static PyObject *\nbytearrayiter_next(bytesiterobject *it)"),
]:
    charge_entry(name, head, "SW_FUEL_ITER")
charge_entry("Objects/iterobject.c", "static PyObject *\ncalliter_iternext(calliterobject *it)", "SW_FUEL_CALLITER")
# Raising inside an except block walks the whole __context__ chain (quadratic when code keeps re-raising).
sub("Python/errors.c", "            while ((context = PyException_GetContext(o))) {\n",
    "            while ((context = PyException_GetContext(o))) {\n                SW_FUEL(SW_FUEL_ITER);\n")
# The C JSON encoder and scanner: per value.
sub("Modules/_json.c", "{\n    /* Encode Python object obj to a JSON term */\n", "{\n    /* Encode Python object obj to a JSON term */\n    SW_FUEL(SW_FUEL_JSON);\n")
sub("Modules/_json.c", "{\n    /* Read one JSON term (of any kind) from PyUnicode pystr.\n", "{\n    SW_FUEL(SW_FUEL_JSON);\n    /* Read one JSON term (of any kind) from PyUnicode pystr.\n")

# Recursion (engines/python/README.md "Recursion"): V8's native stack (~1 MB) is the real limit under workerd. Python
# calls Python without C recursion, but an eval loop re-entered through C (a slot such as __hash__/__call__, a builtin
# calling back) takes ~3 KB of it per level once optimized. The C recursion limit counts those re-entries 10 units each
# (upstream: 2), so they stop at ~120 levels while C-only recursion (repr/json/== of nested data) still reaches ~1,200;
# the parser's nesting limit is lowered too. The driver sets sys.setrecursionlimit for pure Python recursion.
sub("Include/cpython/pystate.h", "#elif defined(__wasi__)\n   // Based on wasmtime 16.\n#  define Py_C_RECURSION_LIMIT 5000\n",
    "#elif defined(__wasi__)\n   // sandbox-workers: V8's native stack (engines/python/README.md).\n#  define Py_C_RECURSION_LIMIT 1200\n")
sub("Parser/parser.c", "#  else\n#    define MAXSTACK 4000\n#  endif\n", "#  else\n#    define MAXSTACK 3000\n#  endif\n")
sub("Python/ceval.c", "#define PY_EVAL_C_STACK_UNITS 2\n", "#define PY_EVAL_C_STACK_UNITS 10\n")
# time.sleep returns at once: the reference import policy refuses poll_oneoff, so wasi-libc's clock_nanosleep fails
# (ENOTSUP) and a synchronous host could not wait anyway. time.sleep stays the builtin that checks its argument.
sub("Modules/timemodule.c", "pysleep(PyTime_t timeout)\n{\n    assert(timeout >= 0);\n",
    "pysleep(PyTime_t timeout)\n{\n    assert(timeout >= 0);\n#ifdef __wasi__\n    return 0;   /* sandbox-workers: nothing to wait for */\n#endif\n")
# Paths outside every preopen: Debian's 2022 wasi-libc fails them with ENOTCAPABLE (a PermissionError, so
# Path('/x').exists() raises); wasi-libc since WebAssembly/wasi-libc#370 says ENOENT, as if they did not exist, which
# they do not here. Mapped where every OSError with a filename is made; '..' out of a preopen (the host's
# ENOTCAPABLE) stays a PermissionError.
sub("Python/errors.c", "PyObject *\nPyErr_SetFromErrnoWithFilenameObjects(PyObject *exc, PyObject *filenameObject, PyObject *filenameObject2)\n{\n",
    r"""#if defined(__wasi__)
#include <wasi/libc-find-relpath.h>
/* 1 if `filename` (str, bytes or path-like) is an absolute path under no preopen. */
static int
sw_outside_preopens(PyObject *filename)
{
    if (filename == NULL || filename == Py_None) {
        return 0;
    }
    PyObject *raised = PyErr_GetRaisedException();
    PyObject *bytes = NULL;
    int outside = 0;
    if (PyUnicode_FSConverter(filename, &bytes)) {
        const char *path = PyBytes_AS_STRING(bytes), *prefix, *relative;
        outside = path[0] == '/' && __wasilibc_find_abspath(path, &prefix, &relative) == -1;
        Py_DECREF(bytes);
    }
    PyErr_Clear();
    PyErr_SetRaisedException(raised);
    return outside;
}
#endif

PyObject *
PyErr_SetFromErrnoWithFilenameObjects(PyObject *exc, PyObject *filenameObject, PyObject *filenameObject2)
{
""")
sub("Python/errors.c", "    PyObject *v, *args;\n    int i = errno;\n#ifdef MS_WINDOWS\n    WCHAR *s_buf = NULL;\n#endif /* Unix/Windows */\n",
    "    PyObject *v, *args;\n    int i = errno;\n#if defined(__wasi__)\n"
    "    if (i == ENOTCAPABLE && (sw_outside_preopens(filenameObject) || sw_outside_preopens(filenameObject2))) {\n"
    "        i = ENOENT;\n    }\n#endif\n#ifdef MS_WINDOWS\n    WCHAR *s_buf = NULL;\n#endif /* Unix/Windows */\n")
# Frozen modules: only the import system's own (bootstrap). The "stdlib" ones (os, codecs, io, abc, site, ...: 114 KB
# gzip, docstrings included) load from stdlib.tar, which has them anyway; boot imports them once, into the boot image.
frozen = (root / "Python/frozen.c").read_text()
head = "static const struct _frozen stdlib_modules[] = {\n"
tail = "    {0, 0, 0} /* stdlib sentinel */\n"
assert frozen.count(head) == 1 and frozen.count(tail) == 1, "frozen.c: stdlib_modules not found"
start, end = frozen.index(head) + len(head), frozen.index(tail)
(root / "Python/frozen.c").write_text(frozen[:start] + frozen[end:])
# Reproducible builds: no build date in sys.version (upstream's release date instead).
sub("Modules/getbuildinfo.c", "#ifndef DATE\n", '#ifdef __wasi__\n#define DATE "Jun 11 2025"\n#define TIME "00:00:00"\n#endif\n#ifndef DATE\n')
PY
}

install_packages() { sw_apt_install "${PY_APT_PACKAGES[@]}"; }

fetch_sources() {
  fetch_debsrc "$PY_CACHE" trixie "$PY_SPEC" "$PY_TARBALL" "$PY_SHA256" &&
    fetch_debsrc "$PY_CACHE" bookworm "$ZLIB_SPEC" "$ZLIB_TARBALL" "$ZLIB_SHA256" &&
    echo "    $PY_TARBALL, $ZLIB_TARBALL: sha256 ok"
}

# The patched source tree (also what --src-dir prints), keyed by the tarball and the patch function.
PY_PATCH_HASH=$(printf '%s\n%s\n' "$PY_SHA256" "$(declare -f patch_cpython)" | hash_of)
PY_SRC="$SW_DEPS/$PY_DIR-patched-$PY_PATCH_HASH"
patched_source() {
  if [ -f "$PY_SRC/.verified" ]; then echo "    cached in $PY_SRC"; return 0; fi
  local tmp="$PY_SRC.tmp.$$"
  rm -rf "$tmp" && mkdir -p "$tmp"
  tar -xJf "$PY_CACHE/apt-trixie/$PY_TARBALL" -C "$tmp"
  patch_cpython "$tmp/$PY_DIR" || { rm -rf "$tmp"; return 1; }
  rm -rf "$PY_SRC" && mv "$tmp/$PY_DIR" "$PY_SRC" && rm -rf "$tmp"
  touch "$PY_SRC/.verified"
  echo "    $PY_SPEC -> $PY_SRC (patched)"
}

# Every stage's key includes the text of the function that builds it (declare -f): a changed recipe rebuilds.
native_paths() {
  local key; key=$(printf '%s\n' "$PY_SHA256" "${NATIVE_CONFIG[*]}" "${NATIVE_MAKE[*]}" "$(gcc --version | head -1)" \
                     "$(declare -f build_native_python)" | hash_of)
  NATIVE_DIR="$PY_CACHE/native-$key"
  BUILD_PYTHON="$NATIVE_DIR/build/python"
}

build_native_python() {
  native_paths
  if [ -f "$NATIVE_DIR/.done" ]; then echo "    cached $BUILD_PYTHON"; return 0; fi
  rm -rf "$NATIVE_DIR" && mkdir -p "$NATIVE_DIR/build"
  tar -xJf "$PY_CACHE/apt-trixie/$PY_TARBALL" -C "$NATIVE_DIR"
  (cd "$NATIVE_DIR/build" && "../$PY_DIR/configure" -q "${NATIVE_CONFIG[@]}" >configure.log 2>&1 &&
    nice -n 10 make -j2 -s "${NATIVE_MAKE[@]}" >make.log 2>&1) || { tail -30 "$NATIVE_DIR/build/"*.log; return 1; }
  touch "$NATIVE_DIR/.done"
  echo "    $("$BUILD_PYTHON" -c 'import sys; print(sys.version.split()[0])') at $BUILD_PYTHON"
}

# A cold native build runs in the background while zlib builds and the cross build configures (configure is one
# long chain of clang processes: one core); the first step that runs the build python waits for it.
NATIVE_PID=""
start_native_python() {
  native_paths
  if [ -f "$NATIVE_DIR/.done" ]; then echo "    cached $BUILD_PYTHON"; return 0; fi
  NATIVE_T0=$(sw_now_ms)
  build_native_python >"$PY_CACHE/native-build.log" 2>&1 &
  NATIVE_PID=$!
  echo "    building in the background (log: $PY_CACHE/native-build.log)"
}
wait_native_python() {
  [ -n "$NATIVE_PID" ] || return 0
  local rc=0
  wait "$NATIVE_PID" || rc=$?
  NATIVE_PID=""
  cat "$PY_CACHE/native-build.log"
  [ $rc -eq 0 ] || { echo "    native build python FAILED"; return 1; }
  echo "    native build python: done in $(sw_fmt_ms $(( $(sw_now_ms) - NATIVE_T0 ))) (in the background)"
}

build_zlib() {
  local key; key=$(printf '%s\n' "$ZLIB_SHA256" "${ZLIB_SOURCES[*]}" "${WASM_CFLAGS[*]}" "$(clang-16 --version | head -1)" \
                     "$(declare -f build_zlib)" | hash_of)
  ZLIB_OUT="$PY_CACHE/zlib-$key"
  if [ -f "$ZLIB_OUT/lib/libz.a" ]; then echo "    cached $ZLIB_OUT"; return 0; fi
  local work="$ZLIB_OUT.work.$$" f
  rm -rf "$work" && mkdir -p "$work/include" "$work/lib" "$work/obj"
  tar -xjf "$PY_CACHE/apt-bookworm/$ZLIB_TARBALL" -C "$work"
  for f in "${ZLIB_SOURCES[@]}"; do
    clang-16 "${WASM_CFLAGS[@]}" -DHAVE_UNISTD_H -Wno-deprecated-non-prototype "-ffile-prefix-map=$work=zlib" \
      -c "$work/$ZLIB_DIR/$f.c" -o "$work/obj/$f.o" || { rm -rf "$work"; return 1; }
  done
  (cd "$work/obj" && llvm-ar rcsD ../lib/libz.a "${ZLIB_SOURCES[@]/%/.o}") &&
    cp "$work/$ZLIB_DIR/zlib.h" "$work/$ZLIB_DIR/zconf.h" "$work/include/" || { rm -rf "$work"; return 1; }
  rm -rf "$work/obj" "$work/$ZLIB_DIR" && rm -rf "$ZLIB_OUT" && mv "$work" "$ZLIB_OUT"
  echo "    $ZLIB_SPEC -> $ZLIB_OUT/lib/libz.a"
}

# The fake WASI SDK (Tools/wasm/wasi-env expects $WASI_SDK_PATH/bin/clang etc. and a sysroot): wrappers around
# Debian's clang-16 and wasi-libc.
make_wasi_sdk() {
  WASI_SDK="$PY_CACHE/wasi-sdk"
  local s="$WASI_SDK"
  mkdir -p "$s/bin" "$s/share/wasi-sysroot/include" "$s/share/wasi-sysroot/lib"
  ln -sfn /usr/include/wasm32-wasi "$s/share/wasi-sysroot/include/wasm32-wasi"
  ln -sfn /usr/lib/wasm32-wasi "$s/share/wasi-sysroot/lib/wasm32-wasi"
  printf '#!/bin/sh\nexec clang-16 --target=wasm32-wasi "$@"\n' >"$s/bin/clang"
  printf '#!/bin/sh\nexec clang++-16 --target=wasm32-wasi "$@"\n' >"$s/bin/clang++"
  printf '#!/bin/sh\nexec clang-16 --target=wasm32-wasi -E "$@"\n' >"$s/bin/clang-cpp"
  ln -sf /usr/bin/wasm-ld-16 "$s/bin/wasm-ld"
  ln -sf "$(command -v llvm-ar)" "$s/bin/llvm-ar"
  ln -sf "$(command -v llvm-ranlib)" "$s/bin/ranlib"
  chmod +x "$s/bin/clang" "$s/bin/clang++" "$s/bin/clang-cpp"
}

# libpython3.13.a (all stdlib C modules built in: the static wasm build) and the libraries its modules need.
# The build runs in one fixed directory ($PY_CACHE/wasi-work: src + build) so that the compiler flags, which name
# those paths, and with them configure's cache, stay the same from one patch to the next; configure's answers are
# cached by what determines them (a cold configure takes minutes: every test spawns clang).
WASI_LIB_FILES=(libpython3.13.a Modules/_decimal/libmpdec/libmpdec.a Modules/expat/libexpat.a
                Modules/_hacl/libHacl_Hash_SHA2.a pyconfig.h)
WASI_SYSCONFIGDATA="_sysconfigdata__wasi_wasm32-wasi.py"   # sysconfig's build variables (and zoneinfo needs them)
build_libpython() {
  local key; key=$(printf '%s\n' "$PY_PATCH_HASH" "$ZLIB_OUT" "${WASI_CONFIG[*]}" "$WASI_OPT" \
                     "$(clang-16 --version | head -1)" "$(dpkg-query -W -f='${Version}' wasi-libc)" \
                     "$(declare -f build_libpython make_wasi_sdk)" "${WASI_LIB_FILES[*]}" | hash_of)
  WASI_OUT="$PY_CACHE/wasi-$key"
  if [ -f "$WASI_OUT/.done" ]; then echo "    cached $WASI_OUT"; return 0; fi
  make_wasi_sdk
  local work="$PY_CACHE/wasi-work" src build
  src="$work/src" build="$work/build"
  rm -rf "$work" && mkdir -p "$build"
  cp -a "$PY_SRC" "$src"
  local ckey; ckey=$(printf '%s\n' "$PY_SHA256" "$ZLIB_OUT" "${WASI_CONFIG[*]}" "$(clang-16 --version | head -1)" \
                       "$(dpkg-query -W -f='${Version}' wasi-libc)" | hash_of)
  local ccache="$PY_CACHE/config-cache-$ckey"
  [ -f "$ccache" ] && cp "$ccache" "$build/config.cache"
  local maps="-ffile-prefix-map=$src=$PY_DIR -ffile-prefix-map=$build=build"
  # The build python through a fixed-path wrapper: configure only asks it for its version (the native build may
  # still be running then); make runs the real one.
  printf '#!/bin/sh\nif [ -x "%s" ]; then exec "%s" "$@"; fi\necho 3.13\n' "$BUILD_PYTHON" "$BUILD_PYTHON" >"$work/build-python"
  chmod +x "$work/build-python"
  # configure by a relative path: srcdir (which reaches getpath.c as VPATH) is then "../src", not a cache path.
  (cd "$build" && CONFIG_SITE="$src/Tools/wasm/config.site-wasm32-wasi" WASI_SDK_PATH="$WASI_SDK" \
    ZLIB_CFLAGS="-I$ZLIB_OUT/include" ZLIB_LIBS="-L$ZLIB_OUT/lib -lz" \
    nice -n 10 "$src/Tools/wasm/wasi-env" ../src/configure -C "${WASI_CONFIG[@]}" --build="$("$src/config.guess")" \
    --with-build-python="$work/build-python" >configure.log 2>&1) || { tail -30 "$build/configure.log"; return 1; }
  cp "$build/config.cache" "$ccache"
  # Debian's 2022 wasi-libc has no pthread.h, so configure leaves SIZEOF_PTHREAD_T undefined (thread_pthread.h
  # #errors); wasm32 has 4-byte pointers.
  sed -i 's|^/\* #undef SIZEOF_PTHREAD_T \*/|#define SIZEOF_PTHREAD_T 4|' "$build/pyconfig.h"
  grep -q '^#define SIZEOF_PTHREAD_T 4' "$build/pyconfig.h" || { echo "pyconfig.h: SIZEOF_PTHREAD_T fix failed"; return 1; }
  wait_native_python || return 1
  (cd "$build" && WASI_SDK_PATH="$WASI_SDK" nice -n 10 "$src/Tools/wasm/wasi-env" make -j2 -s OPT="$WASI_OPT" \
    CONFIGURE_CFLAGS="$maps" libpython3.13.a Modules/_decimal/libmpdec/libmpdec.a Modules/expat/libexpat.a \
    Modules/_hacl/libHacl_Hash_SHA2.a pybuilddir.txt >make.log 2>&1) || { grep -E "error" "$build/make.log" | head -20; tail -20 "$build/make.log"; return 1; }
  rm -rf "$WASI_OUT.tmp" && mkdir -p "$WASI_OUT.tmp/include"
  local f
  for f in "${WASI_LIB_FILES[@]}"; do cp "$build/$f" "$WASI_OUT.tmp/"; done
  # The build variables module (for /stdlib), with the cache paths it records replaced by neutral ones.
  sed -e "s|$WASI_SDK|/wasi-sdk|g" -e "s|$ZLIB_OUT|/zlib|g" -e "s|$work/build-python|python3.13|g" -e "s|$work|/build|g" \
    -e "s|$SW_CACHE|/cache|g" "$build/$(cat "$build/pybuilddir.txt")/$WASI_SYSCONFIGDATA" >"$WASI_OUT.tmp/$WASI_SYSCONFIGDATA" ||
    return 1
  ! grep -q "$SW_CACHE\|$SW_ROOT" "$WASI_OUT.tmp/$WASI_SYSCONFIGDATA" || { echo "$WASI_SYSCONFIGDATA still names a local path"; return 1; }
  cp -a "$src/Include/." "$WASI_OUT.tmp/include/"
  rm -rf "$WASI_OUT" && mv "$WASI_OUT.tmp" "$WASI_OUT" && touch "$WASI_OUT/.done"
  rm -rf "$work"
  echo "    $WASI_OUT/libpython3.13.a ($(stat -c %s "$WASI_OUT/libpython3.13.a") bytes)"
}

# stdlib.tar: sourceless unchecked-hash .pyc files (legacy layout) from the native build python, as a ustar archive
# with sorted names, mtime 0, uid/gid 0, read-only modes.
build_stdlib() {
  local key; key=$(printf '%s\n' "$PY_SHA256" "$NATIVE_DIR" "$(sha256sum <"$PY_ENGINE_DIR/buildtool.py")" \
                     "$(sha256sum <"$WASI_OUT/$WASI_SYSCONFIGDATA")" "$(tar --version | head -1)" \
                     "$(declare -f build_stdlib)" | hash_of)
  STDLIB_OUT="$PY_CACHE/stdlib-$key"
  if [ -f "$STDLIB_OUT/stdlib.tar" ]; then echo "    cached $STDLIB_OUT/stdlib.tar"; return 0; fi
  wait_native_python || return 1
  local work="$STDLIB_OUT.work.$$"
  rm -rf "$work" && mkdir -p "$work/root"
  PYTHONHASHSEED=0 "$BUILD_PYTHON" -I -S "$PY_ENGINE_DIR/buildtool.py" stdlib "$NATIVE_DIR/$PY_DIR/Lib" "$work/root" \
    "$WASI_OUT/$WASI_SYSCONFIGDATA" || { rm -rf "$work"; return 1; }
  (cd "$work/root" && find . -type f | LC_ALL=C sort >../files &&
    tar --no-recursion --format=ustar --owner=0 --group=0 --numeric-owner --mtime=@0 --mode=a=r \
      -cf ../stdlib.tar -T ../files) || { rm -rf "$work"; return 1; }
  mkdir -p "$STDLIB_OUT" && mv "$work/stdlib.tar" "$STDLIB_OUT/stdlib.tar" && rm -rf "$work"
  echo "    $(stat -c %s "$STDLIB_OUT/stdlib.tar") bytes ($(gzip -9 -c "$STDLIB_OUT/stdlib.tar" | wc -c) gzip -9)"
}

link_engine() {
  local key; key=$(
    {
      echo "$WASI_OUT $NATIVE_DIR $ZLIB_OUT ${WASM_CFLAGS[*]} ${WASM_LDFLAGS[*]} ${PY_LIBS[*]}"
      declare -f link_engine
      (cd "$PY_ENGINE_DIR" && sha256sum driver.c sandbox_driver.py buildtool.py)
      wasmify_guest_hash_inputs
    } | sed "s|$SW_ROOT/||" | hash_of)
  ENGINE_KEY="$key"
  ENGINE_OUT="$PY_CACHE/engine-$key"
  if [ -f "$ENGINE_OUT/engine.wasm" ]; then echo "    cached $ENGINE_OUT/engine.wasm"; return 0; fi
  wait_native_python || return 1
  local work="$ENGINE_OUT.work.$$" pids=() p rc=0
  rm -rf "$work" && mkdir -p "$work"
  local maps=("-ffile-prefix-map=$PY_ENGINE_DIR=engines/python" "-ffile-prefix-map=$WASI_OUT=python"
              "-ffile-prefix-map=$work=gen")
  # The driver's Python half as marshalled bytecode (the same CPython version reads it).
  PYTHONHASHSEED=0 "$BUILD_PYTHON" -I -S "$PY_ENGINE_DIR/buildtool.py" driver-code "$PY_ENGINE_DIR/sandbox_driver.py" \
    "$work/driver_code.c" || { rm -rf "$work"; return 1; }
  clang-16 "${WASM_CFLAGS[@]}" "${maps[@]}" -Wall -Wextra -Werror -isystem "$WASI_OUT/include" -isystem "$WASI_OUT" \
    -I "$ENGINE_COMMON_DIR" -c "$PY_ENGINE_DIR/driver.c" -o "$work/driver.o" & pids+=($!)
  clang-16 "${WASM_CFLAGS[@]}" "${maps[@]}" -c "$work/driver_code.c" -o "$work/driver_code.o" & pids+=($!)
  compile_wasmify_guest "$work" "${WASM_CFLAGS[@]}" || rc=1
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  [ $rc -eq 0 ] || { rm -rf "$work"; return 1; }
  clang-16 "${WASM_LDFLAGS[@]}" "$work"/*.o "$WASI_OUT/libpython3.13.a" "$WASI_OUT/libmpdec.a" "$WASI_OUT/libexpat.a" \
    "$WASI_OUT/libHacl_Hash_SHA2.a" "$ZLIB_OUT/lib/libz.a" "${PY_LIBS[@]}" -o "$work/engine.wasm" ||
    { rm -rf "$work"; return 1; }
  mkdir -p "$ENGINE_OUT" && mv "$work/engine.wasm" "$ENGINE_OUT/engine.wasm" && rm -rf "$work"
  echo "    built $ENGINE_OUT/engine.wasm"
}

# engines/python/build: engine.wasm, stdlib.tar and the identity (engine-build.json/.js, scripts/engines/common.sh):
# `build` covers both files, so a snapshot is only ever restored into the same engine and the same stdlib.
write_outputs() {
  local metered; metered=$(meter_engine python "$ENGINE_OUT/engine.wasm") || return 1
  write_engine_build python "$PY_ENGINE_NAME" "$(printf '%s %s %s\n' "$ENGINE_KEY" "$STDLIB_OUT" "$(meter_options python)" | sed "s|$SW_CACHE/||" | sha256sum | cut -d' ' -f1)" \
    "$metered" "$STDLIB_OUT/stdlib.tar"
  echo "    engine.wasm (metered) $(stat -c %s "$metered") bytes ($(gzip -9 -c "$metered" | wc -c) gzip -9)," \
    "stdlib.tar $(stat -c %s "$STDLIB_OUT/stdlib.tar") bytes ($(gzip -9 -c "$STDLIB_OUT/stdlib.tar" | wc -c) gzip -9)"
}

mkdir -p "$PY_CACHE" "$SW_DEPS"
# One build at a time (the cross build uses a fixed work directory).
exec 9>"$PY_CACHE/.lock"
flock 9

if [ "${1:-}" = "--src-dir" ]; then
  { install_packages && fetch_sources && patched_source; } >/dev/null && echo "$PY_SRC"
  exit 0
fi

step "Debian packages for the Python engine" install_packages
step "Python sources ($PY_SPEC, $ZLIB_SPEC; sha256-pinned)" fetch_sources
step "CPython source, patched" patched_source
step "native build python" start_native_python
step "zlib (wasm32-wasi)" build_zlib
step "libpython3.13 (wasm32-wasi)" build_libpython
step "stdlib.tar (precompiled, trimmed)" build_stdlib
step "Python engine (CPython -> wasm32-wasi reactor)" link_engine
step "engines/python/build" write_outputs
wait_native_python
