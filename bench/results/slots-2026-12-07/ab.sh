#!/usr/bin/env bash
# usage (repo root): bench/results/slots-2026-12-07/ab.sh OUT REPS BINARY...
# Paired A/B beside six busy loops over warp-s3: synthetic identity (/tmp/syn-id, or IDX=),
# 4 GiB/s, Q = 128, 4 000 queries; each round runs every BINARY's `warp bench --policies
# warp,object_store_rule` in turn (one process each, so the two policies share the moment);
# the ratio warp / object_store_rule of each run is what is compared.
# (added 2026-12-07 04:00) PAIR=A,B runs policies A then B in each process and prints A / B:
# PAIR=coalesce:1MiB,object_store_rule is the paired A/A control (the rule against itself
# spelt another way), PAIR=object_store_rule,warp the pair in the other order.
set -euo pipefail
out=${1:?out dir}; reps=${2:?rounds}; shift 2
pair=${PAIR:-warp,object_store_rule}
a=${pair%%,*} b=${pair#*,}
here=$(dirname "$0")
mkdir -p "$out"
for i in $(seq 1 "$reps"); do
  for bin in "$@"; do
    tag=$(basename "$bin")
    WARP=$bin "$here/../s3-grid-2026-12-04/s3cell.sh" "${IDX:-/tmp/syn-id}" 4096 6 -- --nprobe 10 --concurrency 128 \
      --queries 4000 --warmup 200 --policies "$a,$b" --json > "$out/$tag-$i.json" 2> /dev/null
    python3 -c "
import json, sys
a, b = sys.argv[1:3]
q = {r['policy']: r for r in json.load(open('$out/$tag-$i.json'))}
w, o = q[a], q[b]
print('$tag round $i: %s %.1f (%.2f GETs, %.0f KiB), %s %.1f: %.3f' % (
    a, w['qps'], w['gets_per_query'], w['bytes_per_query'] / 1024, b, o['qps'], w['qps'] / o['qps']))" "$a" "$b"
  done
done
