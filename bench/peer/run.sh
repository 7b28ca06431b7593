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
source bench/peer/lib.sh
peer_tools run.sh
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
cleanup() {
  peer_stop_s3
  rm -rf "$work"
}
trap cleanup EXIT
peer_data run.sh "$work"
# No tail and no shared-link limit: compare.py sets the first byte and the
# per-MiB cost (as the proxy it replaces injected them).
peer_start_s3 "$work" --latency none --max-seconds 7200
endpoint="$AWS_ENDPOINT_URL"
json=()
[ -n "${PEER_OUT:-}" ] && mkdir -p "$PEER_OUT" && json=(--json-out "$PEER_OUT/$name.json")
"$py" bench/peer/compare.py --data "$data" --bucket peer-bench --meter "$endpoint" --warp "$warp" "${pass[@]}" "${json[@]}"
