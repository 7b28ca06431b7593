#!/usr/bin/env bash
# usage: bench/results/fixed-meter-2026-12-07/demo-s3/run.sh OUT ROUNDS   (WARP=, WARP_S3= binaries)
# Item 3's demo goal over warp-s3 instead of the in-process simulator: the demo's two rows
# (synthetic 100k x 128, nlist 1024, seed 42, nprobe 10, Q = 32, 64 I/O slots, the server's s3
# profile on a 4 GiB/s link) from indexes built with `warp build --synthetic 100000 --nlist 1024
# --seed 42 --layout identity|pca_zorder:5` into /tmp/syn-id and /tmp/syn-pz. Identity runs the
# demo's four policies, pca_zorder:5 its two (lance_rule, warp); 200 warm-up and 3 000 measured
# queries, 3 repeats a process. Each round runs both indexes quiet, then beside six busy loops
# (s3cell.sh: its own warp-s3 and loops per process).
set -euo pipefail
out=$(realpath -m "$1") rounds=$2
cd "$(dirname "$0")/../../../.."
mkdir -p "$out"
for i in $(seq 1 "$rounds"); do
  for hogs in 0 6; do
    bench/results/s3-grid-2026-12-04/s3cell.sh /tmp/syn-id 4096 $hogs -- --nprobe 10 --concurrency 32 \
      --queries 3000 --warmup 200 --repeat 3 --policies separate,lance_rule,object_store_rule,warp \
      --json > "$out/identity-hogs$hogs-$i.json" 2> "$out/identity-hogs$hogs-$i.err"
    bench/results/s3-grid-2026-12-04/s3cell.sh /tmp/syn-pz 4096 $hogs -- --nprobe 10 --concurrency 32 \
      --queries 3000 --warmup 200 --repeat 3 --policies lance_rule,warp \
      --json > "$out/pz-hogs$hogs-$i.json" 2> "$out/pz-hogs$hogs-$i.err"
  done
done
