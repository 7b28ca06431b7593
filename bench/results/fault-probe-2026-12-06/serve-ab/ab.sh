#!/usr/bin/env bash
# usage: ab.sh SERVE_BIN INDEX Q COUNT OUT  (load generator: /tmp/warp-s5)
set -euo pipefail
bin=$1 idx=$2 q=$3 count=$4 out=$5
tmp=$(mktemp -d)
"$bin" serve --url "$idx" --simulate s3 --preload --bind 127.0.0.1:0 --insecure-no-auth --max-in-flight "$q" --cache-mib 0 --nprobe 10 > $tmp/out 2> $tmp/err &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf $tmp' EXIT
for _ in $(seq 1 300); do grep -q listening $tmp/out 2>/dev/null && break; sleep 0.1; done
addr=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["listening"])' $tmp/out)
s0=$(awk '{print $14+$15}' /proc/$pid/stat)
/tmp/warp-s5 load --url http://$addr --queries $idx/queries-*.fvecs --concurrency $q --warmup 200 --count $count --nprobe 10 --json > $out
s1=$(awk '{print $14+$15}' /proc/$pid/stat)
echo "server_cpu_s $(( (s1-s0) ))" >> $out.cpu
