#!/usr/bin/env bash
# Builds the Lua engine: Lua 5.4.7 + our driver (engines/lua/driver.c) as a wasm32-wasi reactor,
# engines/lua/build/engine.wasm, engine-build.json and engine-build.js (engines/lua/README.md).
#
#   bash scripts/engines/lua.sh     fetch (pinned, sha256-verified) + build, cached by source hash
#
# Source: Debian trixie's `lua5.4` source package, its orig tarball only (= upstream lua-5.4.7.tar.gz; trixie rather
# than bookworm's 5.4.4 because the fixes bookworm carries as Debian patches are upstream in 5.4.7), fetched with a
# private apt state directory. Patched at build time on an extracted copy (engines/lua/patches/*.patch), never
# committed. setjmp/longjmp: LLVM's Wasm exception-handling lowering with our runtime (engines/lua/sjlj/: Debian's
# wasi-libc has no setjmp.h; docs/adding-an-engine.md "Toolchain facts"). Cached under $SW_CACHE/engines/lua/<source
# hash>/: a warm run only hashes and copies. Reproducible: no path, date or random value reaches engine.wasm
# (-ffile-prefix-map, no __DATE__).
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
source "$(dirname "${BASH_SOURCE[0]}")/meter.sh"

LUA_SPEC="lua5.4=5.4.7-1"
LUA_TARBALL="lua5.4_5.4.7.orig.tar.gz"
LUA_SHA256="9fbf5e28ef86c69858f6d3d34eccc32e911c1a28b4120ff3e84aaa70cfbf1e30"
LUA_DIR="lua-5.4.7"
LUA_ENGINE_NAME="Lua 5.4.7"
LUA_APT_PACKAGES=(clang-16 lld-16 wasi-libc libclang-rt-16-dev-wasm32 dpkg-dev python3)
LUA_CACHE="$SW_CACHE/engines/lua"
LUA_ENGINE_DIR="$SW_ROOT/engines/lua"
# Every library source but the two programs (lua.c, luac.c).
LUA_SOURCES=(lapi lauxlib lbaselib lcode lcorolib lctype ldblib ldebug ldo ldump lfunc lgc linit liolib llex lmathlib
             lmem loadlib lobject lopcodes loslib lparser lstate lstring lstrlib ltable ltablib ltm lundump lutf8lib
             lvm lzio)

# -O2 compile, -O0 link (clang-16 would run binaryen 108's wasm-opt at -O1+ and fail: docs/adding-an-engine.md). SjLj
# through Wasm exception handling. LUAI_MAXCCALLS: nested C calls and parser levels (engines/lua/README.md "Recursion").
LUA_CFLAGS=(--target=wasm32-wasi -O2 -mexception-handling -mllvm -wasm-enable-sjlj -D_WASI_EMULATED_PROCESS_CLOCKS
            -DLUAI_MAXCCALLS=200 -isystem "$LUA_ENGINE_DIR/sjlj/include" -include "$LUA_ENGINE_DIR/wasi_compat.h")
# The stack first, 1 MiB (an overflow traps at address 0 instead of overwriting data); the manifest's limits.memoryBytes
# of memory at most.
LUA_EXPORTS=(sw_lua_alloc sw_lua_free sw_lua_new sw_lua_close sw_lua_eval sw_lua_cwd sw_lua_after_restore)
LUA_MEMORY_BYTES=$(sw_memory_bytes lua)
LUA_LDFLAGS=(--target=wasm32-wasi -O0 -mexec-model=reactor -Wl,--stack-first -Wl,-z,stack-size=1048576
             "-Wl,--max-memory=$LUA_MEMORY_BYTES" -Wl,--strip-all -Wl,--export=__stack_pointer)
for e in "${LUA_EXPORTS[@]}"; do LUA_LDFLAGS+=("-Wl,--export=$e"); done
LUA_LIBS=(-lm -lwasi-emulated-process-clocks)

# Every change to Lua, one concern a file, in the order of patches/series (each says why at its top).
mapfile -t LUA_PATCHES < <(engine_patches "$LUA_ENGINE_DIR/patches")
[ ${#LUA_PATCHES[@]} -gt 0 ] || exit 1

install_packages() { sw_apt_install "${LUA_APT_PACKAGES[@]}"; }

fetch_sources() {
  fetch_debsrc "$LUA_CACHE" trixie "$LUA_SPEC" "$LUA_TARBALL" "$LUA_SHA256" && echo "    $LUA_TARBALL: sha256 ok"
}

build() {
  local key; key=$(
    {
      echo "$LUA_SHA256 ${LUA_SOURCES[*]} ${LUA_CFLAGS[*]} ${LUA_LDFLAGS[*]} ${LUA_LIBS[*]}"
      declare -f apply_patches build
      cat "${LUA_PATCHES[@]}"
      clang-16 --version | head -1
      dpkg-query -W -f='${Version}\n' wasi-libc
      (cd "$LUA_ENGINE_DIR" && sha256sum driver.c wasi_compat.h sjlj/sjlj_rt.c sjlj/c_longjmp.S sjlj/include/setjmp.h)
    } | sed "s|$SW_ROOT/||g" | hash_of)
  LUA_KEY="$key"
  LUA_OUT="$LUA_CACHE/$key"
  if [ -f "$LUA_OUT/engine.wasm" ]; then echo "    cached $LUA_OUT/engine.wasm"; return 0; fi
  local work="$LUA_OUT.work.$$"
  rm -rf "$work" && mkdir -p "$work/obj"
  tar -xzf "$LUA_CACHE/apt-trixie/$LUA_TARBALL" -C "$work"
  apply_patches "$work/$LUA_DIR" "${LUA_PATCHES[@]}" || { rm -rf "$work"; return 1; }
  local src="$work/$LUA_DIR/src"
  local flags=("${LUA_CFLAGS[@]}" "-ffile-prefix-map=$src=lua" "-ffile-prefix-map=$LUA_ENGINE_DIR=engines/lua")
  # Two compilers at a time (2 shared cores).
  printf '%s\n' "${LUA_SOURCES[@]}" | nice -n 10 xargs -P2 -I{} \
    clang-16 "${flags[@]}" -c "$src/{}.c" -o "$work/obj/{}.o" || { rm -rf "$work"; return 1; }
  nice -n 10 clang-16 "${flags[@]}" -Wall -Wextra -Werror -D_GNU_SOURCE -I "$src" -c "$LUA_ENGINE_DIR/driver.c" -o "$work/obj/driver.o" &&
    nice -n 10 clang-16 "${flags[@]}" -Wall -Wextra -Werror -c "$LUA_ENGINE_DIR/sjlj/sjlj_rt.c" -o "$work/obj/sjlj_rt.o" &&
    clang-16 --target=wasm32-wasi -mexception-handling -c "$LUA_ENGINE_DIR/sjlj/c_longjmp.S" -o "$work/obj/c_longjmp.o" ||
    { rm -rf "$work"; return 1; }
  (cd "$work/obj" && clang-16 "${LUA_LDFLAGS[@]}" $(printf '%s.o ' "${LUA_SOURCES[@]}") driver.o sjlj_rt.o \
    c_longjmp.o "${LUA_LIBS[@]}" -o "$work/engine.wasm") || { rm -rf "$work"; return 1; }
  mkdir -p "$LUA_OUT" && mv "$work/engine.wasm" "$LUA_OUT/engine.wasm" && rm -rf "$work"
  echo "    built $LUA_OUT/engine.wasm"
}

write_outputs() {
  local metered; metered=$(meter_engine lua "$LUA_OUT/engine.wasm") || return 1
  write_engine_build lua "$LUA_ENGINE_NAME" "$LUA_KEY-$(meter_options lua | hash_of)" "$metered"
  echo "    engine.wasm (metered) $(stat -c %s "$metered") bytes ($(gzip -9 -c "$metered" | wc -c) gzip -9)"
}

mkdir -p "$LUA_CACHE"
exec 9>"$LUA_CACHE/.lock"
flock 9

step "Debian packages for the Lua engine" install_packages
step "Lua sources ($LUA_SPEC; sha256-pinned)" fetch_sources
step "Lua engine (Lua 5.4.7 -> wasm32-wasi reactor)" build
step "engines/lua/build" write_outputs
