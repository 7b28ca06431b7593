#!/usr/bin/env bash
# usage: CELLS="INDEX NPROBE QUERIES LINK Q RULE;..." pair.sh OUT ROUNDS BIN...
# Paired runs of `warp` against RULE beside six busy loops over warp-s3 (s3cell.sh: its own
# warp-s3 and loops per run), INDEX under /tmp, 200 warm-up queries; each round runs every
# BIN's `warp bench --policies warp,RULE` (odd rounds) or `RULE,warp` (even) in its own process.
# One line per run: warp's QPS, GETs and KiB a query | the rule's : warp / rule, and warp's
# learnt price of a MiB (surrogate_per_mib_ms).
set -uo pipefail
IFS=';' read -r -a cells <<< "${CELLS}"
out=$1 reps=$2; shift 2; BINS=("$@")
out=$(realpath -m "$out"); cd "$(dirname "$0")/../../../.."; mkdir -p $out
for i in $(seq 1 $reps); do
  for cell in "${cells[@]}"; do
    set -- $cell; idx=$1 np=$2 nq=$3 link=$4 q=$5 rule=$6
    if [ $((i % 2)) = 1 ]; then pol=warp,$rule; else pol=$rule,warp; fi
    for bin in "${BINS[@]}"; do
      tag=$(basename $bin)
      WARP=$bin bench/results/s3-grid-2026-12-04/s3cell.sh /tmp/$idx $link 6 -- --nprobe $np --concurrency $q \
        --queries $nq --warmup 200 --policies $pol --json > $out/$idx-$q-$tag-$i.json 2>/dev/null
      python3 -c "
import json,sys
q={r['policy']:r for r in json.load(open(sys.argv[1]))}
w,o=q['warp'],q['$rule']
print(sys.argv[1].split('/')[-1], '$pol'.split(',')[0], '%.1f %.2f %.0f | %.1f %.2f %.0f : %.3f'%(w['qps'],w['gets_per_query'],w['bytes_per_query']/1024,o['qps'],o['gets_per_query'],o['bytes_per_query']/1024,w['qps']/o['qps']), 'm/MiB %.1f'%w['surrogate_per_mib_ms'])" $out/$idx-$q-$tag-$i.json
    done
  done
done
