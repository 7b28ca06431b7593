# Sourced by bench/peer/run.sh, concurrency.sh, quality.sh, s3-bench.sh and
# bench/serve/s3.sh: what the drivers share.
#
#   peer_tools WHO                     → sets py (the peer venv's python), warp
#                                          and warp_s3 (the executables), or exits
#   peer_start_s3 WORK ARGS…           → starts warp-s3 on 127.0.0.1 (log and port
#                                          file in WORK, bucket peer-bench, the
#                                          test keys, ARGS on top), waits for it,
#                                          sets peer_s3_pid and exports
#                                          AWS_ENDPOINT_URL and the keys
#   peer_stop_s3                       → stops it (for the caller's EXIT trap)
#   peer_build_on_s3 URL FLAGS…        → `warp build --url URL FLAGS…` on the running
#                                          warp-s3 with its latency model off, then
#                                          the model it had back
#   peer_data WHO WORK                 → resolves the set from the caller's `data`
#                                          (--data DIR) or `synthetic`/`dim`
#                                          (--synthetic N --dim D) into `data`
#
#   peer_synthetic WARP PY WORK N DIM   → prints the directory of base.fvecs,
#                                          queries.fvecs and groundtruth.ivecs
#
# `warp build --synthetic N` generates the vectors (a one-iteration flat index of
# 16 lists in WORK/syn-index, 1,000 queries, 200 below 20,000 vectors), and
# export_index.py writes them out in the original row order (WORK/syn), so a peer
# indexes exactly what warp indexes.
peer_tools() {
  local who="$1" venv="${WARP_PEER_VENV:-$HOME/.cache/warp/peer-venv}"
  py="$venv/bin/python"
  [ -x "$py" ] || { echo "$who: no venv at $venv (run scripts/setup.d/70-peer)" >&2; exit 2; }
  warp="${WARP:-$(scripts/artifact warp bin)}"
  warp_s3="${WARP_S3:-$(scripts/artifact warp-s3 bin)}"
}

peer_s3_pid=
peer_start_s3() {
  local work="$1"; shift
  "$warp_s3" --bind 127.0.0.1:0 --port-file "$work/port" --access-key test --secret-key test \
    --bucket peer-bench "$@" >"$work/s3.log" 2>&1 &
  peer_s3_pid=$!
  for _ in $(seq 1 100); do [ -s "$work/port" ] && break; sleep 0.1; done
  [ -s "$work/port" ] || { echo "warp-s3 did not start: $(cat "$work/s3.log")" >&2; exit 1; }
  export AWS_ENDPOINT_URL="http://127.0.0.1:$(cat "$work/port")" AWS_ACCESS_KEY_ID=test \
    AWS_SECRET_ACCESS_KEY=test AWS_REGION=us-east-1
}

peer_stop_s3() {
  [ -z "$peer_s3_pid" ] || { kill "$peer_s3_pid" 2>/dev/null || true; wait "$peer_s3_pid" 2>/dev/null || true; }
}

peer_build_on_s3() {
  local url="$1"; shift
  local settings="$AWS_ENDPOINT_URL/__warp/settings" model
  model=$(curl -sf "$settings" | "$py" -c 'import json,sys; print(json.dumps({"model": json.load(sys.stdin)["model"]}))')
  curl -sf -X PUT "$settings" \
    -d '{"model":{"first_byte_ms":0,"per_mib_ms":0,"tail_probability":0,"first_byte_sigma":0}}' >/dev/null
  "$warp" build --url "$url" "$@" >/dev/null
  curl -sf -X PUT "$settings" -d "$model" >/dev/null
}

peer_data() {
  local who="$1" work="$2"
  if [ -n "$synthetic" ]; then
    [ -z "$data" ] || { echo "$who: --data and --synthetic exclude each other" >&2; exit 2; }
    data="$(peer_synthetic "$warp" "$py" "$work" "$synthetic" "$dim")"
  fi
  [ -n "$data" ] || { echo "$who: give --data DIR or --synthetic N" >&2; exit 2; }
}

peer_synthetic() {
  local warp="$1" py="$2" work="$3" n="$4" dim="$5" nq=1000
  [ "$n" -lt 20000 ] && nq=200
  "$warp" build --url "$work/syn-index" --synthetic "$n" --synthetic-queries "$nq" --dim "$dim" \
    --nlist 16 --niter 1 --reorder identity >/dev/null
  "$py" bench/peer/export_index.py "$work/syn-index" "$work/syn" >&2
  echo "$work/syn"
}
