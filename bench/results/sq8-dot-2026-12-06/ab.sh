#!/usr/bin/env bash
# Alternating A/B of two `warp` binaries on a warm scan: `warp bench` over a local index with
# every list cached (so every probed list is scanned through its 8-bit screen), Q = 32.
#   ab.sh BEFORE AFTER INDEX NPROBE ROUNDS
# Each round runs both, in alternating order (ABBA…); prints one line a run: binary, nprobe,
# QPS, recall@10. Run it alone on the machine (no build beside it).
set -euo pipefail
before=$1 after=$2 index=$3 np=$4 rounds=$5
for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) = 1 ]; then order="before after"; else order="after before"; fi
  for v in $order; do
    bin=$before; [ "$v" = after ] && bin=$after
    "$bin" bench --url "$index" --nprobe "$np" --k 10 --policies warp --concurrency 32 \
      --queries 1000 --warmup 200 --repeat 1 --cache-mib all --native --io-slots 64 --json 2>/dev/null |
      python3 -c 'import json,sys; d=json.load(sys.stdin); d=d["rows"] if isinstance(d,dict) else d; print(sys.argv[1], sys.argv[2], round(d[0]["qps"],1), d[0]["recall_at_10"])' "$v" "$np"
  done
done
