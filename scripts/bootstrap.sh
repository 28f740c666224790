#!/usr/bin/env bash
# Installs everything the build and the tests need. Idempotent and cheap when nothing changed:
#   1. Debian packages (apt), only the ones missing;
#   2. pinned Debian source packages that ship sources the -dev packages omit (simdjson.cpp, nanopb's .c files),
#      fetched with a private apt state directory (nothing under /etc/apt changes) and verified by sha256;
#   3. npm ci (wrangler, miniflare, the pinned Node), only when package-lock.json changed.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

APT_PACKAGES=(
  ca-certificates cmake ninja-build g++ python3 dpkg-dev xz-utils patch
  emscripten clang-16 lld-16 wasi-libc libc++-16-dev-wasm32 libc++abi-16-dev-wasm32 libclang-rt-16-dev-wasm32
  libclang-rt-16-dev libsimdjson-dev nanopb libnanopb-dev protobuf-compiler catch2 libsqlite3-dev wabt binaryen
  icu-devtools  # icupkg, derb, genrb, genccode: the collator data filter (scripts/engines/icu.sh)
  ccache  # compiled objects cached outside the checkout by content (scripts/lib.sh SW_CC_LAUNCHER)
  chromium  # the Playground page test drives it headless with playwright-core (test/playground/page.test.mjs)
  ruby3.1  # /usr/bin/ruby3.1: its C bigdecimal is what our Ruby BigDecimal is compared with (ruby-bigdecimal.test.mjs)
)

# name=version sha256-of-orig-tarball tarball extracted-dir
DEB_SOURCES=(
  "simdjson=3.0.1-1 156b1bc5eb0561b2bd166b46d191fd3d95a3e709cc63761477d3b7aec2b6e9ed simdjson_3.0.1.orig.tar.gz simdjson-3.0.1"
  "nanopb=0.4.7-2 e1d89b166367a3c42d42311bdc2ed57ff78f86aede9a66828516e45490d48c81 nanopb_0.4.7.orig.tar.gz nanopb-0.4.7"
)

install_apt_packages() { sw_apt_install "${APT_PACKAGES[@]}"; }

fetch_debian_sources() {
  local dir="$SW_CACHE/debsrc"
  mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$SW_DEPS"
  local all_present=1 entry
  for entry in "${DEB_SOURCES[@]}"; do
    read -r _ _ _ out <<<"$entry"
    [ -f "$SW_DEPS/$out/.verified" ] || all_present=0
  done
  if [ $all_present -eq 1 ]; then echo "    cached in $SW_DEPS"; return 0; fi
  echo 'deb-src http://deb.debian.org/debian bookworm main' >"$dir/sources.list"
  local opts=(-o "Dir::Etc::SourceList=$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
              -o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache" -o APT::Sandbox::User=root)
  apt-get "${opts[@]}" update -qq
  for entry in "${DEB_SOURCES[@]}"; do
    read -r spec sum tarball out <<<"$entry"
    (cd "$dir" && { [ -f "$tarball" ] || apt-get "${opts[@]}" source --download-only -qq "$spec"; })
    echo "$sum  $dir/$tarball" | sha256sum -c --quiet - || { echo "sha256 mismatch for $tarball"; return 1; }
    rm -rf "${SW_DEPS:?}/$out" && tar -xzf "$dir/$tarball" -C "$SW_DEPS"
    touch "$SW_DEPS/$out/.verified"
    echo "    $spec -> $SW_DEPS/$out"
  done
}

npm_install() {
  local stamp="$SW_ROOT/node_modules/.sw-lock-sha256"
  local want; want=$(sha256sum "$SW_ROOT/package-lock.json" | cut -d' ' -f1)
  if [ -x "$SW_NODE" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    echo "    node_modules up to date ($("$SW_NODE" --version))"; return 0
  fi
  (cd "$SW_ROOT" && npm ci --no-audit --no-fund --loglevel=error)
  echo "$want" >"$stamp"
  echo "    node $("$SW_NODE" --version)"
}

step "Debian packages" install_apt_packages
step "Debian source packages (simdjson, nanopb)" fetch_debian_sources
step "npm ci" npm_install
