#!/usr/bin/env bash
# `warp serve` against warp-s3 on a fixed loopback port; warp-s3 is killed and started again on
# the same port (the data uploaded again but the manifest, so the index is not reopened) while
# the server keeps serving. Prints the GETs counted and the server processes the CPU meter
# reads (/metrics), and the `warp::cpu` lines naming the processes found. WITH_MANIFEST=1 uploads
# the manifest again too: `warp serve` then reopens the index (same build id, a fresh store),
# the case whose GETs /metrics left uncounted before c8e4949.
# usage (repo root): bench/results/thp-backfit-2026-12-06/restart.sh /tmp/syn-pz
set -u
idx=$1
W=target/release/warp S3=target/release/warp-s3
work=$(mktemp -d)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
start_s3() {
  $S3 --bind 127.0.0.1:$port --access-key g --secret-key g --bucket bkt --latency none > "$work/s3.log" 2>&1 &
  echo $! > "$work/s3.pid"
  sleep 0.5
  for f in "$idx"/*; do
    [ "${1:-}" = no-manifest ] && [ "$(basename "$f")" = manifest.json ] && continue
    curl -sf --aws-sigv4 "aws:amz:us-east-1:s3" --user g:g -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" \
      -T "$f" "http://127.0.0.1:$port/bkt/x/$(basename "$f")" > /dev/null
  done
  echo "warp-s3 pid $(cat "$work/s3.pid")"
}
start_s3
export AWS_ENDPOINT_URL=http://127.0.0.1:$port AWS_ACCESS_KEY_ID=g AWS_SECRET_ACCESS_KEY=g AWS_REGION=us-east-1 AWS_ALLOW_HTTP=true
WARP_LOG=debug $W serve --url s3://bkt/x --cache-mib 0 --bind 127.0.0.1:0 > "$work/serve.out" 2> "$work/serve.log" &
sp=$!
trap 'kill $sp $(cat "$work/s3.pid") 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 50); do grep -q listening "$work/serve.out" 2> /dev/null && break; sleep 0.2; done
addr=$(python3 -c "import json; print(json.loads(open('$work/serve.out').readline())['listening'])")
dim=$(curl -sf "http://$addr/v1/index" | python3 -c 'import json, sys; print(json.load(sys.stdin)["dim"])')
python3 -c "import json, random; print(json.dumps({'vectors': [[random.random() for _ in range($dim)] for _ in range(64)]}))" > "$work/body.json"
load() {
  for _ in $(seq "$1"); do
    curl -s -o /dev/null -w '%{http_code} ' -X POST "http://$addr/v1/search" -H 'content-type: application/json' -d @"$work/body.json"
  done
  echo
  curl -sf "http://$addr/metrics" | grep -E "^warp_cpu_server_processes|^warp_store_gets_total"
}
load 20
kill "$(cat "$work/s3.pid")"; wait "$(cat "$work/s3.pid")" 2> /dev/null; echo "warp-s3 killed"
load 3
if [ "${WITH_MANIFEST:-0}" = 1 ]; then start_s3; else start_s3 no-manifest; fi
sleep 2
load 20
grep -h "server processes" "$work/serve.log" | sed 's/^.*DEBUG //'
