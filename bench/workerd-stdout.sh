#!/bin/bash
# For bench/p99.mjs --trace-gc: runs workerd ($SW_WORKERD_REAL) with its stdout, where V8's --trace-gc lines go, also
# appended to $SW_WORKERD_STDOUT; only the other lines (Miniflare's structured logs) go on to Miniflare. stdbuf: V8
# prints with stdio, which a pipe would buffer until exit.
exec stdbuf -o0 "$SW_WORKERD_REAL" "$@" > >(tee -a "$SW_WORKERD_STDOUT" | grep --line-buffered -v '^\[[0-9]*:0x')
