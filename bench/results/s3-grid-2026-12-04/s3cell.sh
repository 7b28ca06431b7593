#!/usr/bin/env bash
# usage: s3cell.sh INDEXDIR LINK HOGS -- warp bench flags...   (WARP= binary)
set -euo pipefail
# One cell of bench/load-grid.sh, for A/B of two binaries (WARP=…); run from the repo root.
# On stderr at the end: the CPU time `warp bench` and warp-s3 spent over the run (bash's
# `time`; warp-s3's utime + stime from /proc/PID/stat, counted from after the upload).
# PERF_STAT=FILE also counts the server's context switches over the run (`perf stat`, into FILE).
# Last on stderr (added 2026-12-07): how long warp-s3's threads ran and waited for a core over the
# run (/proc/PID/task/*/schedstat). Before them (added 2026-12-07 15:30): the server's own count of the
# run's requests, GETs and bytes (`/__warp/stats` totals, reset after the upload).
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
server_ticks() { awk '{print $14 + $15}' /proc/$srv/stat; }
sched() { cat /proc/$srv/task/*/schedstat | awk '{r += $1; w += $2} END {printf "%.0f %.0f\n", r, w}'; }
s0=$(server_ticks)
read -r r0 w0 < <(sched)
TIMEFORMAT='s3cell: warp bench CPU %U s user + %S s system over %R s'
if [ -n "${PERF_STAT:-}" ]; then
  perf stat -e context-switches,cpu-migrations,task-clock -p $srv -o "$PERF_STAT" & pids+=($!)
  sleep 0.2
fi
curl -sf -X POST $AWS_ENDPOINT_URL/__warp/reset >/dev/null
time "$warp" bench --url s3://cell/x "$@"
[ -z "${PERF_STAT:-}" ] || { kill -INT ${pids[-1]}; wait ${pids[-1]} || true; }
curl -sf $AWS_ENDPOINT_URL/__warp/stats | python3 -c "import json,sys; d=json.load(sys.stdin); t=d[\"total\"]; print(\"s3cell: stats\", {k: t.get(k) for k in [\"requests\",\"gets\",\"get_bytes\",\"bytes\",\"methods\",\"statuses\",\"max_concurrency\",\"mean_concurrency\"]})" >&2
echo "s3cell: warp-s3 CPU $(awk -v t=$(( $(server_ticks) - s0 )) -v hz=$(getconf CLK_TCK) 'BEGIN { printf "%.2f", t / hz }') s" >&2
read -r r1 w1 < <(sched)
awk -v r=$((r1 - r0)) -v w=$((w1 - w0)) 'BEGIN { printf "s3cell: warp-s3 ran %.2f s, waited %.2f s for a core (%.0f %% of its runnable time)\n", r / 1e9, w / 1e9, 100 * w / (r + w) }' >&2
