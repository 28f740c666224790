# Wasm-level fuel metering for every built-in engine (docs/fuel.md, docs/fuel-tool.md). Source it after
# scripts/lib.sh; do not run it.
# shellcheck shell=bash
#
# Every engine module is rewritten by our fuel tool (cpp/tools/wasm_fuel.cpp) in weighted mode: each straight-line
# run of code is charged its static cost, checked where a function is left and at loop heads, and memory.copy/fill
# are charged by their length. So every loop of every library function is metered, whichever builtin it sits in: no
# program depends on someone having patched a builtin to charge. No interpreter counts for itself; the few charges
# the QuickJS driver still makes are muted (--existing-charge mute). QuickJS still polls its interrupt handler, which
# is how a JavaScript fuel limit stays catchable by the driver.
#
# The scale is the engine's calibration, `meter.scale` in its manifest (engines/<id>/engine.json): Wasm-level weight
# per fuel unit, set so that the whole seed budget of the language takes about one second of CPU on the bench machine
# for its plain loop (bench/fuel-calibration.mjs; the table is in docs/fuel.md). The budgets themselves are the
# seed's and do not change here. Read once, when this file is sourced, so a failure stops the build instead of
# leaving an empty option in a command substitution.
declare -A SW_METER_SCALE=() SW_METER_INDIRECT=()
while IFS=$'\t' read -r id scale indirect; do
  [ -n "$id" ] || continue
  SW_METER_SCALE[$id]=$scale
  SW_METER_INDIRECT[$id]=$indirect
done < <("$( [ -x "$SW_NODE" ] && echo "$SW_NODE" || echo node)" "$SW_ROOT/scripts/languages.mjs" meter-scales)
if [ ${#SW_METER_SCALE[@]} -eq 0 ]; then
  echo "scripts/engines/meter.sh: no meter scales in the language manifests" >&2
  return 1 2>/dev/null || exit 1
fi

# meter_options ENGINE: the fuel tool's options for ENGINE (one line, for hashing and for the command).
# `meter.indirectCallWeight`, when the manifest sets one, replaces the tool's default weight of an indirect call (12).
# --stack-mark: every engine's stack comes first in its memory, and the core skips the stack below the mark when it
# takes a snapshot (docs/snapshots.md "The stack mark"); the tool refuses a module whose layout it cannot prove.
meter_options() {
  local scale="${SW_METER_SCALE[$1]:?no meter scale for engine $1}" indirect="${SW_METER_INDIRECT[$1]:-}"
  echo "--weighted --scale $scale --existing-charge mute${indirect:+ --indirect-call-weight $indirect} --stack-mark"
}

# meter_engine ENGINE IN.wasm: prints the path of IN.wasm metered for ENGINE, cached by the sha256 of the input,
# of the tool binary and of the options (a change of scale re-meters in a second, it never rebuilds the engine).
meter_engine() {
  local name="$1" in="$2" tool key dir
  tool=$(bash "$SW_ROOT/scripts/tools/wasm-fuel.sh") || return 1
  local -a opts
  read -r -a opts <<<"$(meter_options "$name")"
  key=$( { sha256sum <"$in"; sha256sum <"$tool"; echo "${opts[*]}"; } | sha256sum | cut -c1-16)
  dir="$SW_CACHE/metered/$name-$key"
  if [ ! -f "$dir/engine.wasm" ]; then
    mkdir -p "$dir"
    nice -n 10 "$tool" "$in" "$dir/engine.wasm" "${opts[@]}" >&2 || return 1
  fi
  echo "$dir/engine.wasm"
}
