#!/bin/bash
# usage: ab.sh OUT ROUNDS URL LINK Q NPROBE QUERIES BIN...
out=$1 rounds=$2 url=$3 link=$4 q=$5 np=$6 nq=$7; shift 7
mkdir -p $out
pids=()
for _ in $(seq 1 ${H:-6}); do python3 -c 'while True: pass' & pids+=($!); done
trap "kill ${pids[*]} 2>/dev/null" EXIT
sleep 2
for r in $(seq 1 $rounds); do for b in "$@"; do
  n=$(basename $b)
  cat /proc/loadavg > $out/$n-$r.load
  $b bench --url $url --simulate s3 --preload --sim-link-mib-s $link --nprobe $np --concurrency $q --queries $nq --repeat 3 --policies object_store_rule,lance_rule,warp --json > $out/$n-$r.json 2>/dev/null
done; done
