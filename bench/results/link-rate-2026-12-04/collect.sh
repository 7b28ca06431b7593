#!/usr/bin/env bash
# usage: collect.sh COND(quiet|hogs) ; traces into /tmp/tr/COND/
cd /work/main
cond=$1; out=/tmp/tr/$cond; mkdir -p $out
pids=()
if [ $cond = hogs ]; then for i in 1 2 3 4 5 6; do python3 -c 'while True: pass' & pids+=($!); done; sleep 1; fi
for spec in "syn-pz 10 1000" "real-pz 16 500" "syn-id 10 1000" "real-id 16 500"; do
  set -- $spec
  for link in 1024 4096; do for q in 32 128; do for pol in object_store_rule warp; do
    WARP_LOG=trace target/release/warp bench --url /tmp/$1 --nprobe $2 --simulate s3 --preload --sim-link-mib-s $link --concurrency $q --queries $3 --repeat 1 --policies $pol --json > $out/$1-$link-$q-$pol.json 2> >(grep -E "GET observed|load refresh" > $out/$1-$link-$q-$pol.err)
  done; done; done
done
[ ${#pids[@]} -eq 0 ] || kill ${pids[@]}
