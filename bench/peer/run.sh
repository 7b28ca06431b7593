#!/usr/bin/env bash
# The peer benchmark: real Lance (pylance, bench/peer/requirements.txt) beside
# `warp` on one S3-protocol server, warp-s3 on 127.0.0.1 (host/s3-server: the
# latency model of `--simulate s3` and one meter for both systems). Prints one
# table per run.
#
#   bench/peer/run.sh --data DIR --name NAME --nlist N --pq-m M --nprobe P [--cold C --warm W]
#   bench/peer/run.sh --synthetic N --dim D --name NAME --nlist … (vectors of `warp build --synthetic`)
#
# DIR holds base.fvecs, queries.fvecs, groundtruth.ivecs (bench/realdata/make_embeddings.py
# writes them). Environment: WARP (the warp executable; default: scripts/artifact warp bin),
# WARP_S3 (the warp-s3 executable; default: scripts/artifact warp-s3 bin),
# WARP_PEER_VENV (default $HOME/.cache/warp/peer-venv, made by scripts/setup.d/70-peer),
# PEER_OUT (a directory for the JSON rows; default: none). The server stops on exit.
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/peer/synthetic.sh
venv="${WARP_PEER_VENV:-$HOME/.cache/warp/peer-venv}"
py="$venv/bin/python"
[ -x "$py" ] || { echo "run.sh: no venv at $venv (run scripts/setup.d/70-peer)" >&2; exit 2; }
warp="${WARP:-$(scripts/artifact warp bin)}"
warp_s3="${WARP_S3:-$(scripts/artifact warp-s3 bin)}"
data= synthetic= dim=128 name=
pass=()
while [ $# -gt 0 ]; do
  case "$1" in
    --data) data="$2"; shift 2 ;;
    --synthetic) synthetic="$2"; shift 2 ;;
    --dim) dim="$2"; shift 2 ;;
    --name) name="$2"; pass+=(--name "$2"); shift 2 ;;
    *) pass+=("$1"); shift ;;
  esac
done
[ -n "$name" ] || { echo "run.sh: --name is required" >&2; exit 2; }
work="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
if [ -n "$synthetic" ]; then
  [ -z "$data" ] || { echo "run.sh: --data and --synthetic exclude each other" >&2; exit 2; }
  data="$(peer_synthetic "$warp" "$py" "$work" "$synthetic" "$dim")"
fi
[ -n "$data" ] || { echo "run.sh: give --data DIR or --synthetic N" >&2; exit 2; }
# No tail and no shared-link limit: compare.py sets the first byte and the
# per-MiB cost (as the proxy it replaces injected them).
"$warp_s3" --bind 127.0.0.1:0 --port-file "$work/port" --access-key test --secret-key test \
  --bucket peer-bench --latency none --max-seconds 7200 >"$work/s3.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do [ -s "$work/port" ] && break; sleep 0.1; done
[ -s "$work/port" ] || { echo "run.sh: warp-s3 did not start: $(cat "$work/s3.log")" >&2; exit 1; }
endpoint="http://127.0.0.1:$(cat "$work/port")"
export AWS_ENDPOINT_URL="$endpoint" AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_REGION=us-east-1
json=()
[ -n "${PEER_OUT:-}" ] && mkdir -p "$PEER_OUT" && json=(--json-out "$PEER_OUT/$name.json")
"$py" bench/peer/compare.py --data "$data" --bucket peer-bench --meter "$endpoint" --warp "$warp" "${pass[@]}" "${json[@]}"
