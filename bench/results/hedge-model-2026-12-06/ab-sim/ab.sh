#!/usr/bin/env bash
# usage: ab.sh OUT ROUNDS INDEX LINK QS -- binaries...   beside 6 loops, in-process simulator
set -u
out=$1 rounds=$2 idx=$3 link=$4 qs=$5; shift 6
pids=()
for _ in 1 2 3 4 5 6; do python3 -c 'while True: pass' & pids+=($!); done
trap 'kill ${pids[@]} 2>/dev/null' EXIT
for r in $(seq 1 $rounds); do
  for b in "$@"; do
    /tmp/warp-$b bench --url $idx --simulate s3 --preload --sim-link-mib-s $link --nprobe 16 --concurrency $qs --queries 500 --repeat 3 --policies lance_rule,object_store_rule,warp --json > $out/$b-r$r.json 2>/dev/null
  done
done
