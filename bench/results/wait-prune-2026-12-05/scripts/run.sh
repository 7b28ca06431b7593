#!/bin/bash
# usage: run.sh TAG HOGS URL LINK Q
tag=$1 hogs=$2 url=$3 link=$4 q=$5
pids=()
for _ in $(seq 1 $hogs); do python3 -c 'while True: pass' & pids+=($!); done
sleep 1
cat /proc/loadavg > $tag.load
WARP_LOG=trace /tmp/warp-wait bench --url $url --simulate s3 --preload --sim-link-mib-s $link --nprobe 10 --concurrency $q --queries 2000 --repeat 1 --policies warp --json > $tag.json 2> $tag.trace
cat /proc/loadavg >> $tag.load
for p in "${pids[@]}"; do kill $p; done
