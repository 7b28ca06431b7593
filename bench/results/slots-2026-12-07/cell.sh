#!/usr/bin/env bash
# usage (repo root): bench/results/slots-2026-12-07/cell.sh INDEXDIR LINK HOGS -- warp bench flags...
# One cell over warp-s3 (WARP=, WARP_S3= binaries), as bench/results/s3-grid-2026-12-04/s3cell.sh,
# and on stderr at the end the share of its runnable time warp-s3's threads spent waiting for
# a core over the run (/proc/PID/task/*/schedstat: run ns, wait ns).
set -euo pipefail
idx=$1 link=$2 hogs=$3; shift 4
warp=${WARP:-target/release/warp}
work=$(mktemp -d); pids=()
"${WARP_S3:-target/release/warp-s3}" --bind 127.0.0.1:0 --port-file $work/port --access-key g --secret-key g --bucket cell --max-connections 4096 > $work/s3.log 2>&1 &
srv=$!
trap 'kill ${pids[@]} $srv 2>/dev/null; rm -rf $work' EXIT
for _ in $(seq 1 100); do [ -s $work/port ] && break; sleep 0.1; done
export AWS_ENDPOINT_URL=http://127.0.0.1:$(cat $work/port) AWS_ACCESS_KEY_ID=g AWS_SECRET_ACCESS_KEY=g AWS_REGION=us-east-1
curl -sf -X PUT $AWS_ENDPOINT_URL/__warp/settings -d '{"model":{"first_byte_ms":0,"per_mib_ms":0,"tail_probability":0}}' >/dev/null
for f in $idx/*; do curl -sf --aws-sigv4 "aws:amz:us-east-1:s3" --user g:g -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" -T $f $AWS_ENDPOINT_URL/cell/x/$(basename $f) >/dev/null; done
curl -sf -X PUT $AWS_ENDPOINT_URL/__warp/settings -d "{\"model\":{\"first_byte_ms\":25,\"per_mib_ms\":5,\"tail_probability\":0.02,\"link_mib_per_s\":$link}}" >/dev/null
for _ in $(seq 1 $hogs); do python3 -c 'while True: pass' & pids+=($!); done
sched() { cat /proc/$srv/task/*/schedstat | awk '{r += $1; w += $2} END {printf "%.0f %.0f\n", r, w}'; }
read -r r0 w0 < <(sched)
"$warp" bench --url s3://cell/x "$@"
read -r r1 w1 < <(sched)
awk -v r=$((r1 - r0)) -v w=$((w1 - w0)) 'BEGIN { printf "cell: warp-s3 ran %.2f s, waited %.2f s for a core (%.0f %% of its runnable time)\n", r / 1e9, w / 1e9, 100 * w / (r + w) }' >&2
