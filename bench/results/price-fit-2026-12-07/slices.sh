#!/usr/bin/env bash
# usage (any directory): bench/results/price-fit-2026-12-07/slices.sh OUT INDEX NPROBE QUERIES LINK Q HOGS POLICY...
# Each POLICY's `warp bench` in its own process over warp-s3 (s3cell.sh: its own server and HOGS
# busy loops), 200 warm-up queries, with WARP_LOG=trace; keeps the CPU meter's slices ("cpu slice
# closed": each slice's GETs, calls, arrived and completed MiB, client, server and consumer CPU,
# wall time, run-queue share) and its last refit ("cpu price refit") in OUT/POLICY.slices, and the
# bench row in OUT/POLICY.json. WARP= the binary (it must log the slices: from 2026-12-07).
# between.py OUT fits the prices across the policies' runs; replay.py OUT/*.slices replays the
# estimators on each run's slices.
set -euo pipefail
out=$(realpath -m "$1") idx=$2 np=$3 nq=$4 link=$5 q=$6 hogs=$7; shift 7
cd "$(dirname "$0")/../../.."
mkdir -p "$out"
for pol in "$@"; do
  f=$(echo "$pol" | tr ':' '-')
  WARP_LOG=trace bench/results/s3-grid-2026-12-04/s3cell.sh "$idx" "$link" "$hogs" -- --nprobe "$np" \
    --concurrency "$q" --queries "$nq" --warmup 200 --policies "$pol" --json > "$out/$f.json" 2> "$out/$f.log"
  { grep "cpu slice closed" "$out/$f.log"; grep "cpu price refit" "$out/$f.log" | tail -1; } |
    sed 's/^[^ ]* *[A-Z]* *//' > "$out/$f.slices"
  grep "^s3cell:" "$out/$f.log" >> "$out/$f.slices" || true
  rm "$out/$f.log"
  python3 -c "import json,sys; r=json.load(open(sys.argv[1]))[0]; print(sys.argv[2], '%.1f QPS %.3f GETs %.0f KiB a query' % (r['qps'], r['gets_per_query'], r['bytes_per_query'] / 1024))" "$out/$f.json" "$pol"
done
