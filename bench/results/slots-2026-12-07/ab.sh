#!/usr/bin/env bash
# usage (repo root): bench/results/slots-2026-12-07/ab.sh OUT REPS BINARY...
# Paired A/B beside six busy loops over warp-s3: synthetic identity (/tmp/syn-id, or IDX=),
# 4 GiB/s, Q = 128, 4 000 queries; each round runs every BINARY's `warp bench --policies
# warp,object_store_rule` in turn (one process each, so the two policies share the moment);
# the ratio warp / object_store_rule of each run is what is compared.
set -euo pipefail
out=${1:?out dir}; reps=${2:?rounds}; shift 2
here=$(dirname "$0")
mkdir -p "$out"
for i in $(seq 1 "$reps"); do
  for bin in "$@"; do
    tag=$(basename "$bin")
    WARP=$bin "$here/../s3-grid-2026-12-04/s3cell.sh" "${IDX:-/tmp/syn-id}" 4096 6 -- --nprobe 10 --concurrency 128 \
      --queries 4000 --warmup 200 --policies warp,object_store_rule --json > "$out/$tag-$i.json" 2> /dev/null
    python3 -c "
import json
q = {r['policy']: r for r in json.load(open('$out/$tag-$i.json'))}
w, o = q['warp'], q['object_store_rule']
print('$tag round $i: warp %.1f (%.2f GETs, %.0f KiB), object_store_rule %.1f: %.3f' % (
    w['qps'], w['gets_per_query'], w['bytes_per_query'] / 1024, o['qps'], w['qps'] / o['qps']))"
  done
done
