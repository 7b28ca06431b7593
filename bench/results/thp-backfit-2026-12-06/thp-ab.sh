#!/usr/bin/env bash
# A/B of mimalloc's transparent huge pages in `warp bench` over warp-s3, quiet: real MiniLM
# identity index, 1 GiB/s link, Q = 128, 20 000 queries of `warp` alone, ROUNDS pairs.
# The binary turns THP off itself; MIMALLOC_ALLOW_THP=1 turns it back on.
# usage (repo root): WARP=target/release/warp bench/results/thp-backfit-2026-12-06/thp-ab.sh /tmp/real-id [ROUNDS]
set -euo pipefail
idx=$1 rounds=${2:-2}
for _ in $(seq "$rounds"); do
  for env in "THP=off" "MIMALLOC_ALLOW_THP=1"; do
    env $env bench/results/s3-grid-2026-12-04/s3cell.sh "$idx" 1024 0 -- --nprobe 16 --concurrency 128 \
      --queries 20000 --warmup 0 --policies warp --json 2> /tmp/thp-ab.err > /tmp/thp-ab.json
    echo "$env $(grep -o 'CPU.*' /tmp/thp-ab.err | tr '\n' ' ') $(python3 -c "
import json; r = json.load(open('/tmp/thp-ab.json'))[0]; print(round(r['qps']), 'QPS', round(r['bytes_per_query'] / 1024), 'KiB/q')")"
  done
done
