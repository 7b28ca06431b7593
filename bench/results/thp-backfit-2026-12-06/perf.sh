#!/usr/bin/env bash
# `perf record` of one `warp bench` over warp-s3, quiet (real MiniLM identity index, 1 GiB/s,
# Q = 128), then the kernel's page zeroing and the scan kernel's share of the samples.
# usage (repo root): [MIMALLOC_ALLOW_THP=1] bench/results/thp-backfit-2026-12-06/perf.sh IDX POLICY [QUERIES]
# (added 2026-12-07) WARP= the binary (default target/release/warp), NPROBE= (default 16),
# CHILDREN=1 to report with children (time in callees counted), SHOW= the regex of the report
# lines printed (default the page zeroing, the scan kernel and memmove).
set -euo pipefail
idx=$1 pol=$2 nq=${3:-8000}
work=$(mktemp -d)
target/release/warp-s3 --bind 127.0.0.1:0 --port-file "$work/port" --access-key g --secret-key g \
  --bucket cell --max-connections 4096 > "$work/s3.log" 2>&1 &
srv=$!
trap 'kill $srv 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do [ -s "$work/port" ] && break; sleep 0.1; done
export AWS_ENDPOINT_URL=http://127.0.0.1:$(cat "$work/port") AWS_ACCESS_KEY_ID=g AWS_SECRET_ACCESS_KEY=g AWS_REGION=us-east-1
settings=$AWS_ENDPOINT_URL/__warp/settings
curl -sf -X PUT "$settings" -d '{"model":{"first_byte_ms":0,"per_mib_ms":0,"tail_probability":0}}' > /dev/null
for f in "$idx"/*; do
  curl -sf --aws-sigv4 "aws:amz:us-east-1:s3" --user g:g -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" \
    -T "$f" "$AWS_ENDPOINT_URL/cell/x/$(basename "$f")" > /dev/null
done
curl -sf -X PUT "$settings" -d '{"model":{"first_byte_ms":25,"per_mib_ms":5,"tail_probability":0.02,"link_mib_per_s":1024}}' > /dev/null
perf record -q -F 999 -g -o "$work/perf.data" "${WARP:-target/release/warp}" bench --url s3://cell/x \
  --nprobe "${NPROBE:-16}" --concurrency 128 --queries "$nq" --warmup 0 --policies "$pol" --json \
  > /dev/null 2> "$work/err"
children=--no-children
[ "${CHILDREN:-0}" = 1 ] && children=--children
perf report -i "$work/perf.data" $children --sort symbol --stdio -g none 2> /dev/null |
  grep -E "${SHOW:-clear_page|sq_dist_f32|memmove}" | awk '{$1 = $1; print}' | cut -c1-80
