#!/usr/bin/env bash
# usage: cal.sh WARP_S3_BIN OUT.json
set -euo pipefail
work=$(mktemp -d)
$1 --bind 127.0.0.1:0 --port-file $work/P --access-key test --secret-key test --bucket bench --first-byte-ms 25 --per-mib-ms 5 --link-mib-s 1024 --sim-tail 0 > $work/log 2>&1 &
srv=$!
trap 'kill $srv 2>/dev/null; rm -rf $work' EXIT
for _ in $(seq 1 100); do [ -s $work/P ] && break; sleep 0.1; done
AWS_ENDPOINT_URL=http://127.0.0.1:$(cat $work/P) AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_REGION=us-east-1 AWS_ALLOW_HTTP=true /work/main/target/release/warp calibrate --url s3://bench/cal --concurrency 1,8,32 --json > $2
