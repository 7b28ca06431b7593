#!/usr/bin/env bash
# usage: simcell.sh INDEXDIR LINK HOGS -- warp bench flags (WARP= binary)
set -euo pipefail
# One cell of bench/load-grid.sh, for A/B of two binaries (WARP=…); run from the repo root.
idx=$1 link=$2 hogs=$3; shift 4
pids=(); trap 'kill ${pids[@]} 2>/dev/null' EXIT
for _ in $(seq 1 $hogs); do python3 -c 'while True: pass' & pids+=($!); done
"${WARP:-target/release/warp}" bench --url $idx --simulate s3 --preload --sim-link-mib-s $link "$@"
