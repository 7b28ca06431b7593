#!/bin/bash
# A/B of the PRICES early exit (68c7344): A = a warp binary before it, B = one after;
# indexes built as in bench/load-grid.sh's usage. A=BIN B=BIN bench/results/serve-load-2026-12-05/abexit.sh
A=${A:-/tmp/warp-load-bin} B=${B:-/tmp/warp-exit-bin}
for round in 1 2; do
  for bin in A B; do
    b=$A; [ $bin = B ] && b=$B
    for cell in "/tmp/syn-pz 10 1000 128" "/tmp/syn-id 10 1000 32" "/tmp/real-pz 16 500 128" "/tmp/real-id 16 500 32"; do
      set -- $cell
      $b bench --url $1 --simulate s3 --preload --sim-link-mib-s 4096 --nprobe $2 --concurrency $4 --queries $3 --repeat 1 --policies warp --json 2>/dev/null \
       | python3 -c "
import json,sys
d=json.load(sys.stdin); rows=d if isinstance(d,list) else d['rows']
for r in rows: print('$round $bin $(basename $1) Q=$4', round(r['qps'],1), 'plan_us', round(r['plan_us'],1), 'gets', r['gets_per_query'], 'KiB', round(r['bytes_per_query']/1024))"
    done
  done
done
