#!/usr/bin/env bash
# Builds the built-in language engines: one script per engine, scripts/engines/<name>.sh, each fetching its pinned,
# sha256-verified sources and building engines/<name>/build/ (engine.wasm, engine-build.json/.js, and its /stdlib
# archive where it has one), cached in $SW_CACHE by source hash so a warm run takes seconds.
#
#   bash scripts/build-engines.sh                    every engine
#   bash scripts/build-engines.sh javascript python  the named ones
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

dir="$SW_ROOT/scripts/engines"
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for f in "$dir"/*.sh; do
    n=$(basename "$f" .sh)
    [ "$n" = common ] || [ "$n" = meter ] || names+=("$n")
  done
fi
for n in "${names[@]}"; do
  [ -f "$dir/$n.sh" ] && [ "$n" != common ] && [ "$n" != meter ] || { echo "no engine build script: scripts/engines/$n.sh"; exit 1; }
  step "engine: $n" bash "$dir/$n.sh"
done
