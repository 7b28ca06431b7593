#!/usr/bin/env bash
# `perf record` (with call graphs) of one quiet `warp bench --policies warp` over warp-s3,
# synthetic identity (/tmp/syn-id, or IDX=), 1 GiB/s, Q = 128, then the process's share of
# samples in do_sys_openat2 (file opens, children included) and its total samples.
# usage (repo root): WARP=BINARY bench/results/slots-2026-12-07/proc-open.sh [QUERIES]
set -euo pipefail
nq=${1:-12000}
warp=${WARP:-target/release/warp}
work=$(mktemp -d)
target/release/warp-s3 --bind 127.0.0.1:0 --port-file "$work/port" --access-key g --secret-key g \
  --bucket cell --max-connections 4096 > "$work/s3.log" 2>&1 &
srv=$!
trap 'kill $srv 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do [ -s "$work/port" ] && break; sleep 0.1; done
export AWS_ENDPOINT_URL=http://127.0.0.1:$(cat "$work/port") AWS_ACCESS_KEY_ID=g AWS_SECRET_ACCESS_KEY=g AWS_REGION=us-east-1
settings=$AWS_ENDPOINT_URL/__warp/settings
curl -sf -X PUT "$settings" -d '{"model":{"first_byte_ms":0,"per_mib_ms":0,"tail_probability":0}}' > /dev/null
for f in "${IDX:-/tmp/syn-id}"/*; do
  curl -sf --aws-sigv4 "aws:amz:us-east-1:s3" --user g:g -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" \
    -T "$f" "$AWS_ENDPOINT_URL/cell/x/$(basename "$f")" > /dev/null
done
curl -sf -X PUT "$settings" -d '{"model":{"first_byte_ms":25,"per_mib_ms":5,"tail_probability":0.02,"link_mib_per_s":1024}}' > /dev/null
perf record -q -F 999 -g -o "$work/perf.data" "$warp" bench --url s3://cell/x --nprobe 10 \
  --concurrency 128 --queries "$nq" --warmup 0 --policies warp --json > /dev/null 2> "$work/err"
perf report -i "$work/perf.data" --children --sort symbol --stdio -g none 2> /dev/null > "$work/report"
grep -E 'Event count' "$work/report" | sed 's/^# //'
grep -E '\] do_sys_openat2 ' "$work/report" | awk '{print "do_sys_openat2 (children): " $1}'
