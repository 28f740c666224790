# Shared by scripts/engines/<name>.sh: the wasmify guest glue every built-in engine links, and the build identity
# files the Worker imports. Source it after scripts/lib.sh; do not run it.
# shellcheck shell=bash

# wasmify ABI (docs/abi.md): the guest side is engines/common/wasmify_guest.c over the language's driver
# (engines/common/engine.h), plus nanopb's runtime and the C that nanopb's generator writes from
# proto/wasmify/engine.proto at build time (never committed).
NANOPB_DIR="$SW_DEPS/nanopb-0.4.7"   # fetched by scripts/bootstrap.sh (pb_common.c, pb_encode.c, pb_decode.c)
WASMIFY_PROTO_DIR="$SW_ROOT/proto/wasmify"
ENGINE_COMMON_DIR="$SW_ROOT/engines/common"
WASMIFY_EXPORTS=(wasm_init wasm_alloc wasm_free w_0_14 w_0_21 w_0_24 w_0_25 w_0_26 w_0_27)

# A short cache key of stdin.
hash_of() { sha256sum | cut -c1-16; }

# fetch_debsrc CACHE SUITE SPEC TARBALL SHA256: the orig tarball of a Debian source package (SPEC = name=version)
# into CACHE/apt-SUITE, through a private apt state directory (nothing under /etc/apt changes); sha256-verified.
# Everything else of the source package (the debian tarball, the .dsc) lands next to it.
fetch_debsrc() { _fetch_debian deb-src "$@"; }

# fetch_debbin CACHE SUITE SPEC DEB SHA256: a Debian binary package (SPEC = name=version, DEB its file name) into
# CACHE/apt-SUITE-bin, the same way.
fetch_debbin() { _fetch_debian deb "$@"; }

_fetch_debian() {
  local kind="$1" cache="$2" suite="$3" spec="$4" file="$5" sum="$6" dir="$2/apt-$3"
  [ "$kind" = deb ] && dir="$dir-bin"
  if [ -f "$dir/$file" ] && echo "$sum  $dir/$file" | sha256sum -c --quiet - 2>/dev/null; then return 0; fi
  mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
  echo "$kind http://deb.debian.org/debian $suite main" >"$dir/sources.list"
  local opts=(-o "Dir::Etc::SourceList=$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
              -o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache" -o APT::Sandbox::User=root)
  rm -f "$dir/$file"
  apt-get "${opts[@]}" update -qq
  if [ "$kind" = deb ]; then (cd "$dir" && apt-get "${opts[@]}" download -qq "$spec")
  else (cd "$dir" && apt-get "${opts[@]}" source --download-only -qq "$spec"); fi
  echo "$sum  $dir/$file" | sha256sum -c --quiet - || { echo "sha256 mismatch for $file"; return 1; }
}

# Third-party changes are .patch files (unified diffs, -p1 against the extracted upstream tree) under
# engines/<name>/patches/, applied in the order of that folder's `series` file (one name a line, # comments).
# engine_patches DIR: the paths of DIR's patches in series order; fails when series names a missing file or a .patch
# in DIR is not in series (a patch nobody applies).
engine_patches() {
  local dir="$1" name listed=() f
  [ -f "$dir/series" ] || { echo "no series file in $dir" >&2; return 1; }
  while read -r name; do
    name="${name%%#*}"; name="${name//[[:space:]]/}"
    [ -n "$name" ] || continue
    [ -f "$dir/$name" ] || { echo "$dir/series names $name, which is missing" >&2; return 1; }
    listed+=("$dir/$name")
  done <"$dir/series"
  for f in "$dir"/*.patch; do
    [[ " ${listed[*]} " == *" $f "* ]] || { echo "$f is not in $dir/series" >&2; return 1; }
  done
  printf '%s\n' "${listed[@]}"
}

# apply_patches TREE PATCH...: applies each patch to TREE in order. A dry run first must apply it exactly (no fuzz,
# no offset, not already applied): a patch that no longer matches its upstream fails the build, naming the patch,
# rather than landing somewhere nearby.
apply_patches() {
  local tree="$1" p out; shift
  for p in "$@"; do
    if ! out=$(patch -d "$tree" -p1 --dry-run --forward --fuzz=0 --no-backup-if-mismatch <"$p" 2>&1) ||
       grep -q '^Hunk' <<<"$out"; then
      echo "patch does not apply exactly: $p"; sed 's/^/    /' <<<"$out"; return 1
    fi
    patch -d "$tree" -p1 --forward --fuzz=0 --no-backup-if-mismatch -s <"$p" || { echo "patch failed: $p"; return 1; }
  done
}

# Lines to hash into an engine's source hash: everything of the glue that reaches engine.wasm.
wasmify_guest_hash_inputs() {
  (cd "$WASMIFY_PROTO_DIR" && sha256sum engine.proto engine.options)
  (cd "$ENGINE_COMMON_DIR" && sha256sum engine.h wasmify_guest.c)
  declare -f compile_wasmify_guest   # the function, not this whole file: a change to another helper rebuilds nothing
  echo "nanopb $(basename "$NANOPB_DIR") $(nanopb_generator.py --version 2>&1 | head -1)"
}

# compile_wasmify_guest WORK CFLAG...: generates the message code into WORK and compiles the glue into
# WORK/{pb_common,pb_encode,pb_decode,engine_pb,wasmify_guest}.o (two at a time). CFLAGs: target, optimisation and
# -ffile-prefix-map flags (reproducible builds: no cache or checkout path may reach the binary).
compile_wasmify_guest() {
  local work="$1"; shift
  local flags=("$@" "-ffile-prefix-map=$NANOPB_DIR=nanopb-0.4.7" "-ffile-prefix-map=$work=gen"
               "-ffile-prefix-map=$ENGINE_COMMON_DIR=engines/common")
  nanopb_generator.py -q -D "$work" -I "$WASMIFY_PROTO_DIR" "$WASMIFY_PROTO_DIR/engine.proto" || return 1
  local f pids=() rc=0
  for f in pb_common pb_encode pb_decode; do
    clang-16 "${flags[@]}" -I "$NANOPB_DIR" -c "$NANOPB_DIR/$f.c" -o "$work/$f.o" & pids+=($!)
  done
  clang-16 "${flags[@]}" -I "$NANOPB_DIR" -c "$work/engine.pb.c" -o "$work/engine_pb.o" & pids+=($!)
  clang-16 "${flags[@]}" -Wall -Wextra -Werror -I "$NANOPB_DIR" -I "$work" -I "$ENGINE_COMMON_DIR" \
    -c "$ENGINE_COMMON_DIR/wasmify_guest.c" -o "$work/wasmify_guest.o" & pids+=($!)
  for f in "${pids[@]}"; do wait "$f" || rc=1; done
  return $rc
}

# install_file SRC DEST: puts SRC at DEST unless DEST already holds the same bytes, by a rename (atomic): a cache hit
# rewrites nothing, so a test reading engines/<id>/build/ while another suite re-runs a build script (npm test runs
# suites side by side) never sees a half-written file.
install_file() {
  cmp -s "$1" "$2" && return 0
  cp "$1" "$2.tmp.$$" && mv -f "$2.tmp.$$" "$2"
}

# write_engine_build NAME ENGINE_NAME SOURCE_HASH FILE...: copies the built files into engines/NAME/build/ and writes
# engine-build.json and engine-build.js (the identity the Worker imports next to engine.wasm). `build` is the sha256
# over the files' sha256s in order: a snapshot taken under another build boots fresh (protocol §5.1).
write_engine_build() {
  local name="$1" engine_name="$2" hash="$3"; shift 3
  local dir="$SW_ROOT/engines/$name/build" f sums="" bytes=0
  mkdir -p "$dir"
  for f in "$@"; do
    install_file "$f" "$dir/$(basename "$f")" || return 1
    sums+="$(sha256sum <"$f" | cut -d' ' -f1) $(basename "$f")"$'\n'
    bytes=$(( bytes + $(stat -c %s "$f") ))
  done
  local build
  if [ $# -eq 1 ]; then build=$(sha256sum <"$1" | cut -d' ' -f1); else build=$(printf '%s' "$sums" | sha256sum | cut -d' ' -f1); fi
  local tmp; tmp=$(mktemp -d) || return 1
  printf '{"engine":"%s","build":"%s","sourceHash":"%s","bytes":%d}\n' "$engine_name" "$build" "$hash" "$bytes" \
    >"$tmp/engine-build.json"
  printf '// Generated by scripts/engines/%s.sh.\nexport const engineName = "%s";\nexport const build = "%s";\n' \
    "$name" "$engine_name" "$build" >"$tmp/engine-build.js"
  install_file "$tmp/engine-build.json" "$dir/engine-build.json" && install_file "$tmp/engine-build.js" "$dir/engine-build.js"
  local rc=$?
  rm -rf "$tmp"
  [ $rc -eq 0 ] || return 1
  echo "    engines/$name/build: $bytes bytes, build $build"
}
