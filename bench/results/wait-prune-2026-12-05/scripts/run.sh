#!/bin/bash
# One traced `warp bench` of `warp` alone, beside HOGS busy loops; the trace feeds an.py,
# pr.py, pr2.py and un.py. WARP picks the executable (default: the repo's release build).
# usage: run.sh TAG HOGS URL LINK Q
set -u
tag=$1 hogs=$2 url=$3 link=$4 q=$5
warp=${WARP:-$(cd "$(dirname "$0")/../../../.." && pwd)/target/release/warp}
pids=()
for _ in $(seq 1 "$hogs"); do python3 -c 'while True: pass' & pids+=($!); done
trap '[ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null' EXIT
sleep 1
cat /proc/loadavg > "$tag.load"
WARP_LOG=trace "$warp" bench --url "$url" --simulate s3 --preload --sim-link-mib-s "$link" --nprobe 10 --concurrency "$q" --queries 2000 --repeat 1 --policies warp --json > "$tag.json" 2> "$tag.trace"
cat /proc/loadavg >> "$tag.load"
