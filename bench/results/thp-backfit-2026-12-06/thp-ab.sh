#!/usr/bin/env bash
# A/B of mimalloc's transparent huge pages in `warp bench` over warp-s3, quiet: real MiniLM
# identity index, 1 GiB/s link, Q = 128, 20 000 queries of `warp` alone, ROUNDS pairs.
# The binary turns THP off itself; MIMALLOC_ALLOW_THP=1 turns it back on.
# HOGS=6 POLICIES=separate,lance_rule,object_store_rule,warp QUERIES=1000 REPEAT=3 is the
# pair beside six CPU-bound loops quoted in the README.
# usage (repo root): WARP=target/release/warp bench/results/thp-backfit-2026-12-06/thp-ab.sh /tmp/real-id [ROUNDS]
set -euo pipefail
idx=$1 rounds=${2:-2}
hogs=${HOGS:-0} policies=${POLICIES:-warp} queries=${QUERIES:-20000} repeat=${REPEAT:-1}
for _ in $(seq "$rounds"); do
  for env in "THP=off" "MIMALLOC_ALLOW_THP=1"; do
    env $env bench/results/s3-grid-2026-12-04/s3cell.sh "$idx" 1024 "$hogs" -- --nprobe 16 --concurrency 128 \
      --queries "$queries" --warmup 0 --repeat "$repeat" --policies "$policies" --json 2> /tmp/thp-ab.err > /tmp/thp-ab.json
    echo "$env $(grep -o 'CPU.*' /tmp/thp-ab.err | tr '\n' ' ') $(python3 -c "
import json
print('; '.join('%s %d QPS %d KiB/q' % (r['policy'], r['qps'], r['bytes_per_query'] / 1024) for r in json.load(open('/tmp/thp-ab.json'))))")"
  done
done
