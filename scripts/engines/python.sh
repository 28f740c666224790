#!/usr/bin/env bash
# Builds the Python engine: CPython 3.13.15 + our driver as a wasm32-wasi reactor, engines/python/build/engine.wasm,
# its standard library archive engines/python/build/stdlib.tar (mounted read-only at /stdlib), engine-build.json and
# engine-build.js (the Worker imports the identity next to engine.wasm).
#
#   bash scripts/engines/python.sh            fetch (pinned, sha256-verified) + build, cached by source hash
#   bash scripts/engines/python.sh --src-dir  print the patched CPython source directory (for test builds)
#
# Sources: Debian forky source package `python3.13` (the upstream tarball) and bookworm `zlib`, fetched with a private
# apt state directory (nothing under /etc/apt changes). Third-party sources are patched at build time on an extracted
# copy (engines/python/patches/*.patch, patch_cpython), never committed. Toolchain: Debian clang-16 + wasi-libc
# behind a fake "WASI SDK" directory of wrappers, so CPython's own Tools/wasm recipe (config.site, wasi-env) drives the
# cross build.
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

# forky (testing): trixie carries 3.13.5; python3.14 and newer python3.13 files 404 on the mirror (issue 28).
PY_SUITE=forky
PY_SPEC="python3.13=3.13.15-1"
PY_TARBALL="python3.13_3.13.15.orig.tar.xz"
PY_SHA256="1e66a7945a48390ee4c2a4268a0e4185884059a13c4aab6d148aa208deea4a76"
PY_DIR="Python-3.13.15"
PY_ENGINE_NAME="CPython 3.13.15"
ZLIB_SPEC="zlib=1:1.2.13.dfsg-1"
ZLIB_TARBALL="zlib_1.2.13.dfsg.orig.tar.bz2"
ZLIB_SHA256="71feb7947e3c00ef125f83b79a4e529bde31171e5babe48b391f06758d1ab0a1"
ZLIB_DIR="zlib-1.2.13.dfsg"
ZLIB_SOURCES=(adler32 compress crc32 deflate infback inffast inflate inftrees trees uncompr zutil)
# sqlite3: SQLite from Debian's source package (its debian/patches applied, then engines/python/patches/sqlite/),
# its amalgamation generated natively (tclsh), compiled for wasm32-wasi into libsqlite3.a, which CPython's _sqlite3
# module links.
SQLITE_SPEC="sqlite3=3.40.1-2+deb12u2"
SQLITE_TARBALL="sqlite3_3.40.1.orig.tar.xz"
SQLITE_SHA256="aaa776260ab4dc976db34aa7891819484c8676b5b2783123ebc6301e2ca5d655"
SQLITE_DEBIAN_TARBALL="sqlite3_3.40.1-2+deb12u2.debian.tar.xz"
SQLITE_DEBIAN_SHA256="0843bc12e4364076477935ce313a6d0796fd899a989ff18ebb6545540e10e4ca"
SQLITE_DIR="sqlite3-3.40.1"
# One process, one sandbox: no threads, no extension loading, no locks ("unix-none": WASI has no advisory locks),
# no WAL or mmap (no shared memory), temporary tables and sorts in memory (a stateless call has no writable
# directory); the patch says why the unix VFS needs a few definitions on WASI. -Os (after WASM_CFLAGS' -O2): 842 KB
# instead of 1,159 KB of code linked alone, 344 instead of 431 KB gzip.
SQLITE_CFLAGS=(-Os -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_OMIT_WAL -DSQLITE_MAX_MMAP_SIZE=0
               -DSQLITE_TEMP_STORE=3 '-DSQLITE_DEFAULT_UNIX_VFS="unix-none"' -DSQLITE_OMIT_SHARED_CACHE
               -DSQLITE_DEFAULT_MEMSTATUS=0 -D_WASI_EMULATED_GETPID)
# zoneinfo's IANA database: the compiled zone files of Debian's tzdata binary package (architecture all), copied
# into stdlib.tar under share/zoneinfo (/stdlib/share/zoneinfo: configure's --with-tzpath, which zoneinfo reads from
# the shipped _sysconfigdata), links resolved; without right/ and posix/ (leap-second and duplicate trees).
TZDATA_SPEC="tzdata=2026b-0+deb12u1"
TZDATA_DEB="tzdata_2026b-0+deb12u1_all.deb"
TZDATA_SHA256="0edb49f4dffe0d5608069f7e4ba4d69544d3b9e86fc314dd8b75e9958d8e5e98"
PY_TZPATH="/stdlib/share/zoneinfo"

# Debian packages this script needs (bootstrap.sh installs most of them; llvm gives llvm-ar/llvm-ranlib, bzip2
# unpacks the zlib tarball, tcl generates SQLite's amalgamation).
PY_APT_PACKAGES=(clang-16 lld-16 wasi-libc libclang-rt-16-dev-wasm32 llvm gcc make bzip2 xz-utils dpkg-dev python3
                 nanopb tcl patch)

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
WASI_CONFIG=(--host=wasm32-unknown-wasi --without-ensurepip --disable-test-modules --with-pymalloc --without-mimalloc
             "--with-tzpath=$PY_TZPATH")
for m in "${WASI_DISABLED_MODULES[@]}"; do WASI_CONFIG+=("py_cv_module_$m=n/a"); done
# -O2 (upstream: -O3) keeps the module smaller; no -g (the link strips everything anyway).
WASI_OPT="-DNDEBUG -O2 -Wall"
WASM_CFLAGS=(--target=wasm32-wasi -O2)
# Linear memory: the stack first (an overflow runs off address 0 and traps instead of overwriting data), the manifest's
# limits.memoryBytes at most (protocol §6.1). clang-16 runs /usr/bin/wasm-opt by itself when linking at -O1+ and binaryen 108 rejects the module
# (docs/adding-an-engine.md "Toolchain facts"): compile at -O2, link at -O0. The stack size: engines/python/README.md
# "Recursion".
PY_STACK_SIZE=1048576
PY_MEMORY_BYTES=$(sw_memory_bytes python)
WASM_LDFLAGS=(--target=wasm32-wasi -O0 -mexec-model=reactor -Wl,--stack-first "-Wl,-z,stack-size=$PY_STACK_SIZE"
              "-Wl,--max-memory=$PY_MEMORY_BYTES" -Wl,--strip-all -Wl,--export=__stack_pointer)
for e in "${WASMIFY_EXPORTS[@]}"; do WASM_LDFLAGS+=("-Wl,--export=$e"); done
PY_LIBS=(-lm -lwasi-emulated-signal -lwasi-emulated-getpid -lwasi-emulated-process-clocks)

# Every change to CPython, one concern a file, in the order of patches/series (each says why at its top). Fuel is not
# patched in: the linked module is metered at the Wasm level by our fuel tool (meter_engine, docs/fuel.md).
mapfile -t PY_PATCHES < <(engine_patches "$PY_ENGINE_DIR/patches")
[ ${#PY_PATCHES[@]} -gt 0 ] || exit 1
patch_cpython() {
  apply_patches "$1" "${PY_PATCHES[@]}"
}

install_packages() { sw_apt_install "${PY_APT_PACKAGES[@]}"; }

fetch_sources() {
  fetch_debsrc "$PY_CACHE" "$PY_SUITE" "$PY_SPEC" "$PY_TARBALL" "$PY_SHA256" &&
    fetch_debsrc "$PY_CACHE" bookworm "$ZLIB_SPEC" "$ZLIB_TARBALL" "$ZLIB_SHA256" &&
    fetch_debsrc "$PY_CACHE" bookworm "$SQLITE_SPEC" "$SQLITE_TARBALL" "$SQLITE_SHA256" &&
    echo "$SQLITE_DEBIAN_SHA256  $PY_CACHE/apt-bookworm/$SQLITE_DEBIAN_TARBALL" | sha256sum -c --quiet - &&
    fetch_debbin "$PY_CACHE" bookworm "$TZDATA_SPEC" "$TZDATA_DEB" "$TZDATA_SHA256" &&
    echo "    $PY_TARBALL, $ZLIB_TARBALL, $SQLITE_TARBALL, $SQLITE_DEBIAN_TARBALL, $TZDATA_DEB: sha256 ok"
}

# The patched source tree (also what --src-dir prints), keyed by the tarball, the patches in order and how they are
# applied.
PY_PATCH_HASH=$( { printf '%s\n' "$PY_SHA256"; declare -f patch_cpython apply_patches; cat "${PY_PATCHES[@]}"; } | hash_of)
PY_SRC="$SW_DEPS/$PY_DIR-patched-$PY_PATCH_HASH"
patched_source() {
  if [ -f "$PY_SRC/.verified" ]; then echo "    cached in $PY_SRC"; return 0; fi
  local tmp="$PY_SRC.tmp.$$"
  rm -rf "$tmp" && mkdir -p "$tmp"
  tar -xJf "$PY_CACHE/apt-$PY_SUITE/$PY_TARBALL" -C "$tmp"
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
  tar -xJf "$PY_CACHE/apt-$PY_SUITE/$PY_TARBALL" -C "$NATIVE_DIR"
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

mapfile -t SQLITE_PATCHES < <(engine_patches "$PY_ENGINE_DIR/patches/sqlite")
[ ${#SQLITE_PATCHES[@]} -gt 0 ] || exit 1
build_sqlite() {
  local key; key=$( { printf '%s\n' "$SQLITE_SHA256" "$SQLITE_DEBIAN_SHA256" "${SQLITE_CFLAGS[*]}" "${WASM_CFLAGS[*]}" \
                       "$(clang-16 --version | head -1)" "$(dpkg-query -W -f='${Version}' wasi-libc)" \
                       "$(declare -f build_sqlite apply_patches)"; cat "${SQLITE_PATCHES[@]}"; } | hash_of)
  SQLITE_OUT="$PY_CACHE/sqlite-$key"
  if [ -f "$SQLITE_OUT/lib/libsqlite3.a" ]; then echo "    cached $SQLITE_OUT"; return 0; fi
  local work="$SQLITE_OUT.work.$$" src p
  src="$work/$SQLITE_DIR"
  rm -rf "$work" && mkdir -p "$work/include" "$work/lib" "$work/bld"
  tar -xJf "$PY_CACHE/apt-bookworm/$SQLITE_TARBALL" -C "$work" &&
    tar -xJf "$PY_CACHE/apt-bookworm/$SQLITE_DEBIAN_TARBALL" -C "$src" || { rm -rf "$work"; return 1; }
  # Debian's series as dpkg-source applies it (no fuzz; its patches carry line offsets), then ours exactly.
  while read -r p; do
    case "$p" in ''|'#'*) continue ;; esac
    patch -d "$src" -p1 -s -t -F 0 -N <"$src/debian/patches/$p" || { echo "debian patch failed: $p"; rm -rf "$work"; return 1; }
  done <"$src/debian/patches/series"
  apply_patches "$src" "${SQLITE_PATCHES[@]}" || { rm -rf "$work"; return 1; }
  (cd "$work/bld" && "../$SQLITE_DIR/configure" -q >configure.log 2>&1 && make -s sqlite3.c >make.log 2>&1) ||
    { tail -20 "$work/bld/"*.log; rm -rf "$work"; return 1; }
  clang-16 "${WASM_CFLAGS[@]}" "${SQLITE_CFLAGS[@]}" "-ffile-prefix-map=$work=sqlite" -c "$work/bld/sqlite3.c" \
    -o "$work/sqlite3.o" && llvm-ar rcsD "$work/lib/libsqlite3.a" "$work/sqlite3.o" &&
    cp "$work/bld/sqlite3.h" "$src/src/sqlite3ext.h" "$work/include/" || { rm -rf "$work"; return 1; }
  rm -rf "$src" "$work/bld" "$work/sqlite3.o" && rm -rf "$SQLITE_OUT" && mv "$work" "$SQLITE_OUT"
  echo "    $SQLITE_SPEC -> $SQLITE_OUT/lib/libsqlite3.a ($(stat -c %s "$SQLITE_OUT/lib/libsqlite3.a") bytes)"
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
  local key; key=$(printf '%s\n' "$PY_PATCH_HASH" "$ZLIB_OUT" "$SQLITE_OUT" "${WASI_CONFIG[*]}" "$WASI_OPT" \
                     "$(clang-16 --version | head -1)" "$(dpkg-query -W -f='${Version}' wasi-libc)" \
                     "$(declare -f build_libpython make_wasi_sdk)" "${WASI_LIB_FILES[*]}" | hash_of)
  WASI_OUT="$PY_CACHE/wasi-$key"
  if [ -f "$WASI_OUT/.done" ]; then echo "    cached $WASI_OUT"; return 0; fi
  make_wasi_sdk
  local work="$PY_CACHE/wasi-work" src build
  src="$work/src" build="$work/build"
  rm -rf "$work" && mkdir -p "$build"
  cp -a "$PY_SRC" "$src"
  # wasi-env prefixes CC with ccache when there is one, and configure refuses a cache made under another CC.
  local ckey; ckey=$(printf '%s\n' "$PY_SHA256" "$ZLIB_OUT" "$SQLITE_OUT" "${WASI_CONFIG[*]}" "$(clang-16 --version | head -1)" \
                       "$(dpkg-query -W -f='${Version}' wasi-libc)" "ccache: $(command -v ccache || true)" | hash_of)
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
    LIBSQLITE3_CFLAGS="-I$SQLITE_OUT/include" LIBSQLITE3_LIBS="-L$SQLITE_OUT/lib -lsqlite3 -lwasi-emulated-getpid" \
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
  # The build variables module (for /stdlib), with the cache paths it records replaced by neutral ones, and without
  # the ccache that wasi-env puts before the compilers when there is one (stdlib.tar must not depend on it).
  sed -e "s|$WASI_SDK|/wasi-sdk|g" -e "s|$ZLIB_OUT|/zlib|g" -e "s|$SQLITE_OUT|/sqlite|g" -e "s|$work/build-python|python3.13|g" -e "s|$work|/build|g" \
    -e "s|$SW_CACHE|/cache|g" -e "s|ccache /wasi-sdk/|/wasi-sdk/|g" "$build/$(cat "$build/pybuilddir.txt")/$WASI_SYSCONFIGDATA" >"$WASI_OUT.tmp/$WASI_SYSCONFIGDATA" ||
    return 1
  ! grep -q "$SW_CACHE\|$SW_ROOT" "$WASI_OUT.tmp/$WASI_SYSCONFIGDATA" || { echo "$WASI_SYSCONFIGDATA still names a local path"; return 1; }
  cp -a "$src/Include/." "$WASI_OUT.tmp/include/"
  rm -rf "$WASI_OUT" && mv "$WASI_OUT.tmp" "$WASI_OUT" && touch "$WASI_OUT/.done"
  rm -rf "$work"
  echo "    $WASI_OUT/libpython3.13.a ($(stat -c %s "$WASI_OUT/libpython3.13.a") bytes)"
}

# stdlib.tar: sourceless unchecked-hash .pyc files (legacy layout) from the native build python, as a ustar archive
# with sorted names, mtime 0, uid/gid 0, read-only modes, regular files only (the zone files' links are copies: the
# core's tar reader, like /stdlib, knows no links).
# Lib/ comes from the patched tree (patches/asyncio-wasi-loop.patch); the zone files from the tzdata package.
build_stdlib() {
  local key; key=$(printf '%s\n' "$PY_PATCH_HASH" "$TZDATA_SHA256" "$NATIVE_DIR" "$(sha256sum <"$PY_ENGINE_DIR/buildtool.py")" \
                     "$(sha256sum <"$WASI_OUT/$WASI_SYSCONFIGDATA")" "$(tar --version | head -1)" \
                     "$(declare -f build_stdlib)" | hash_of)
  STDLIB_OUT="$PY_CACHE/stdlib-$key"
  if [ -f "$STDLIB_OUT/stdlib.tar" ]; then echo "    cached $STDLIB_OUT/stdlib.tar"; return 0; fi
  wait_native_python || return 1
  local work="$STDLIB_OUT.work.$$"
  rm -rf "$work" && mkdir -p "$work/root"
  PYTHONHASHSEED=0 "$BUILD_PYTHON" -I -S "$PY_ENGINE_DIR/buildtool.py" stdlib "$PY_SRC/Lib" "$work/root" \
    "$WASI_OUT/$WASI_SYSCONFIGDATA" || { rm -rf "$work"; return 1; }
  dpkg-deb -x "$PY_CACHE/apt-bookworm-bin/$TZDATA_DEB" "$work/tzdata" &&
    (cd "$work/tzdata/usr/share/zoneinfo" && find . -mindepth 1 -path ./right -prune -o -path ./posix -prune -o \
       \( -type f -o -type l \) -print | grep -v -E '^\./(localtime|posixrules|leapseconds|leap-seconds\.list|.*\.(tab|zi))$' |
       LC_ALL=C sort >"$work/zones" && mkdir -p "$work/root/share/zoneinfo" &&
       tar -ch -T "$work/zones" | tar -x -C "$work/root/share/zoneinfo") &&
    echo "    $(wc -l <"$work/zones") zone files from $TZDATA_DEB" || { rm -rf "$work"; return 1; }
  (cd "$work/root" && find . -type f | LC_ALL=C sort >../files &&
    tar --no-recursion --format=ustar --owner=0 --group=0 --numeric-owner --mtime=@0 --mode=a=r --hard-dereference \
      -cf ../stdlib.tar -T ../files) || { rm -rf "$work"; return 1; }
  mkdir -p "$STDLIB_OUT" && mv "$work/stdlib.tar" "$STDLIB_OUT/stdlib.tar" && rm -rf "$work"
  echo "    $(stat -c %s "$STDLIB_OUT/stdlib.tar") bytes ($(gzip -9 -c "$STDLIB_OUT/stdlib.tar" | wc -c) gzip -9)"
}

link_engine() {
  local key; key=$(
    {
      echo "$WASI_OUT $NATIVE_DIR $ZLIB_OUT $SQLITE_OUT ${WASM_CFLAGS[*]} ${WASM_LDFLAGS[*]} ${PY_LIBS[*]}"
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
    "$WASI_OUT/libHacl_Hash_SHA2.a" "$ZLIB_OUT/lib/libz.a" "$SQLITE_OUT/lib/libsqlite3.a" "${PY_LIBS[@]}" -o "$work/engine.wasm" ||
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
step "SQLite (wasm32-wasi)" build_sqlite
step "libpython3.13 (wasm32-wasi)" build_libpython
step "stdlib.tar (precompiled, trimmed)" build_stdlib
step "Python engine (CPython -> wasm32-wasi reactor)" link_engine
step "engines/python/build" write_outputs
wait_native_python
