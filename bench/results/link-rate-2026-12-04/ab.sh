#!/usr/bin/env bash
# usage: ab.sh TAG HOGS BIN... ; runs cells for each binary (interleaved by cell)
cd /work/main
tag=$1 hogs=$2; shift 2
pids=(); for i in $(seq 1 $hogs); do python3 -c 'while True: pass' & pids+=($!); done; [ $hogs = 0 ] || sleep 1
trap '[ ${#pids[@]} -eq 0 ] || kill ${pids[@]} 2>/dev/null' EXIT
echo "$tag $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
for cell in ${CELLS:-"syn-pz:1024:128" "syn-id:1024:128" "real-id:1024:128" "syn-pz:4096:128" "real-pz:1024:32"}; do
  IFS=: read idx link q <<<"$cell"
  nprobe=10; n=1000; case $idx in real*) nprobe=16; n=500;; esac
  for bin in "$@"; do
    b=$(basename $bin)
    $bin bench --url /tmp/$idx --nprobe $nprobe --simulate s3 --preload --sim-link-mib-s $link --concurrency $q --queries $n --repeat ${REP:-5} --policies separate,lance_rule,object_store_rule,warp --json > /tmp/tr/ab-$tag-$idx-$link-$q-$b.json 2>/dev/null
    python3 - /tmp/tr/ab-$tag-$idx-$link-$q-$b.json "$cell $b" <<'P'
import json,sys
rows=json.load(open(sys.argv[1]))
best=max((r for r in rows if r['policy']!='warp'), key=lambda r:r['qps'])
w=[r for r in rows if r['policy']=='warp'][0]
print(f"{sys.argv[2]:28} warp {w['qps']:7.1f} ({w['qps_min']:.0f}-{w['qps_max']:.0f}) {w['gets_per_query']:.2f} GETs {w['bytes_per_query']/1024:.0f} KiB C={w['load']['capacity_mib_s'] and round(w['load']['capacity_mib_s'])} fb={w['load']['first_byte_ms']:.1f} | best {best['policy']} {best['qps']:.1f} ({best['qps_min']:.0f}-{best['qps_max']:.0f}) {best['gets_per_query']:.2f} {best['bytes_per_query']/1024:.0f} KiB | ratio {w['qps']/best['qps']:.3f}")
P
  done
done
echo "end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
