#!/usr/bin/env bash
# warp-s3's own CPU per GET (BENCHMARKS, "Against warp-s3", *Its own overhead*): an index of
# 20 000 x 64 (nlist 256) built on a warp-s3 with its `s3` profile and no tail, then 3 000
# queries of `separate` at Q = 32; prints GETs, seconds, GETs/s and the server's CPU.
# usage: overhead.sh WARP_S3 [WARP]     (run from anywhere; both on the same machine)
set -euo pipefail
s3=$1 warp=${2:-target/release/warp}
work=$(mktemp -d)
"$s3" --bind 127.0.0.1:0 --port-file $work/P --access-key test --secret-key test --bucket bench --latency s3 --sim-tail 0 > $work/log 2>&1 &
srv=$!
trap 'kill $srv 2>/dev/null; rm -rf $work' EXIT
for _ in $(seq 1 100); do [ -s $work/P ] && break; sleep 0.1; done
export AWS_ENDPOINT_URL=http://127.0.0.1:$(cat $work/P) AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_REGION=us-east-1 AWS_ALLOW_HTTP=true
"$warp" build --url s3://bench/idx --synthetic 20000 --dim 64 --nlist 256 > /dev/null
ticks() { awk '{print $14 + $15}' /proc/$srv/stat; }
t0=$(ticks); s=$(date +%s.%N)
"$warp" bench --url s3://bench/idx --nprobe 16 --policies separate --concurrency 32 --queries 3000 --warmup 0 --native --cache-mib 0 --io-slots 64 --json > $work/r.json
e=$(date +%s.%N); t1=$(ticks)
python3 - "$work/r.json" "$s" "$e" "$t0" "$t1" "$(getconf CLK_TCK)" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))[0]
s, e, t0, t1, hz = map(float, sys.argv[2:7])
gets = r['gets_per_query'] * r['queries']
wall, cpu = e - s, (t1 - t0) / hz
print(f"{gets:.0f} GETs in {wall:.1f} s = {gets / wall:.0f} GETs/s; warp-s3 CPU {cpu:.2f} s = "
      f"{100 * cpu / wall:.0f} % of one core, {1e6 * cpu / gets:.0f} us a GET; QPS {r['qps']:.1f}")
PY
