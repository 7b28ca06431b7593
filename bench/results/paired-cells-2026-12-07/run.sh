#!/usr/bin/env bash
# usage (any directory): bench/results/paired-cells-2026-12-07/run.sh OUT ROUNDS BIN...
# Paired runs of `warp` against `object_store_rule` beside six busy loops over warp-s3, on two
# cells of the grid where the I/O slots and the cores bind together (Q = 128, 4 GiB/s link):
# synthetic identity (/tmp/syn-id, nprobe 10, 4 000 queries) and real MiniLM pca_zorder
# (/tmp/real-pz, nprobe 16, 3 000 queries), both after 200 warm-up queries. Each round runs,
# for each cell, every BIN's `warp bench --policies warp,object_store_rule` (odd rounds) or
# `object_store_rule,warp` (even rounds) in its own process (s3cell.sh: its own warp-s3 and
# loops), so the two policies share their moment and the order is balanced over the rounds.
# One line per run: warp's QPS, GETs and KiB a query | the rule's : warp / rule. show.py OUT
# summarises (median and order-balanced geometric mean of warp / rule per cell and binary).
# (added 08:05) RULE= the fixed rule set against warp (default object_store_rule); CELLS= the
# cells, ';'-separated "INDEX NPROBE QUERIES LINK" with INDEX under /tmp (default
# "syn-id 10 4000 4096;real-pz 16 3000 4096"; one cell an index: rows are named by it).
set -uo pipefail
rule=${RULE:-object_store_rule}
IFS=';' read -r -a cells <<< "${CELLS:-syn-id 10 4000 4096;real-pz 16 3000 4096}"
out=$(realpath -m "$1") reps=$2; shift 2; BINS=("$@")
cd "$(dirname "$0")/../../.."
mkdir -p $out
for i in $(seq 1 $reps); do
  if [ $((i % 2)) = 1 ]; then pol=warp,$rule; else pol=$rule,warp; fi
  for cell in "${cells[@]}"; do
    set -- $cell; idx=$1 np=$2 nq=$3 link=$4
    for bin in "${BINS[@]}"; do
      tag=$(basename $bin)
      WARP=$bin bench/results/s3-grid-2026-12-04/s3cell.sh /tmp/$idx $link 6 -- --nprobe $np --concurrency 128 \
        --queries $nq --warmup 200 --policies $pol --json > $out/$idx-$tag-$i.json 2>/dev/null
      python3 -c "
import json,sys
q={r['policy']:r for r in json.load(open(sys.argv[1]))}
w,o=q['warp'],q['$rule']
print(sys.argv[1].split('/')[-1], '$pol'.split(',')[0], '%.1f %.2f %.0f | %.1f %.2f %.0f : %.3f'%(w['qps'],w['gets_per_query'],w['bytes_per_query']/1024,o['qps'],o['gets_per_query'],o['bytes_per_query']/1024,w['qps']/o['qps']))" $out/$idx-$tag-$i.json
    done
  done
done
