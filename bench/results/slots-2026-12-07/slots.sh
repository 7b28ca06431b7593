#!/usr/bin/env bash
# usage (repo root): bench/results/slots-2026-12-07/slots.sh OUT [REPS]
# Beside six busy loops, synthetic identity (/tmp/syn-id), 4 GiB/s, Q = 128: the fixed rule and
# warp at 64 and at 256 I/O slots, REPS rounds (default 3); one JSON row per run in OUT.
set -euo pipefail
out=${1:?out dir}; reps=${2:-3}
here=$(dirname "$0")
mkdir -p "$out"
for i in $(seq 1 "$reps"); do
  for s in 64 256; do
    for p in object_store_rule warp; do
      "$here/../s3-grid-2026-12-04/s3cell.sh" "${IDX:-/tmp/syn-id}" 4096 6 -- --nprobe 10 --concurrency 128 --queries 4000 \
        --warmup 200 --policies $p --io-slots $s --json > "$out/$s-$p-$i.json" 2> "$out/$s-$p-$i.err"
      python3 -c "
import json, sys
r = json.load(open('$out/$s-$p-$i.json'))[0]
print('slots $s $p round $i: %.1f QPS, %.2f GETs, %.0f KiB a query' % (r['qps'], r['gets_per_query'], r['bytes_per_query'] / 1024))"
      tail -n 1 "$out/$s-$p-$i.err"
    done
  done
done
