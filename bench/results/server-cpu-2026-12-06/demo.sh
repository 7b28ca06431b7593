#!/usr/bin/env bash
# Six rounds of `warp demo --json`, quiet then beside six busy loops, interleaved.
set -euo pipefail
warp=${WARP:?}
out=${1:?out dir}
mkdir -p "$out"
for i in 1 2 3 4 5 6; do
  "$warp" demo --json > "$out/quiet-$i.json"
  pids=()
  for _ in 1 2 3 4 5 6; do python3 -c 'while True: pass' & pids+=($!); done
  "$warp" demo --json > "$out/hogs-$i.json" || { kill "${pids[@]}"; exit 1; }
  kill "${pids[@]}"; wait "${pids[@]}" 2>/dev/null || true
done
