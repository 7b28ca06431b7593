#!/usr/bin/env bash
# Real Lance against warp under concurrent queries at equal recall, both on one
# warp-s3 server (one latency model, one meter): starts warp-s3 on 127.0.0.1,
# runs bench/peer/concurrency.py (its docstring has the protocol), stops it.
#
#   bench/peer/concurrency.sh --data DIR --name NAME --nlist N [--pq-m M] [concurrency.py flags…]
#   bench/peer/concurrency.sh --synthetic N --dim D --name NAME --nlist … (vectors of `warp build --synthetic`)
#
# Latency model flags go to warp-s3 after `--`: e.g. `-- --first-byte-ms 25 --per-mib-ms 5
# --link-mib-s 1024` (default: its `s3` profile). Environment: WARP and WARP_S3 (the
# executables; default: scripts/artifact), WARP_PEER_VENV (default
# $HOME/.cache/warp/peer-venv, made by scripts/setup.d/70-peer), PEER_OUT (a directory for
# the JSON rows and SVG charts; default: none). The server stops on exit.
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/peer/lib.sh
peer_tools concurrency.sh
data= synthetic= dim=128 name=
pass=() server=()
while [ $# -gt 0 ]; do
  case "$1" in
    --data) data="$2"; shift 2 ;;
    --synthetic) synthetic="$2"; shift 2 ;;
    --dim) dim="$2"; shift 2 ;;
    --name) name="$2"; pass+=(--name "$2"); shift 2 ;;
    --) shift; server=("$@"); break ;;
    *) pass+=("$1"); shift ;;
  esac
done
[ -n "$name" ] || { echo "concurrency.sh: --name is required" >&2; exit 2; }
work="$(mktemp -d)"
cleanup() {
  peer_stop_s3
  rm -rf "$work"
}
trap cleanup EXIT
peer_data concurrency.sh "$work"
# pylance with 128 query threads keeps more than warp-s3's default 256 connections open.
conns=(--max-connections 4096)
for f in "${server[@]}"; do [ "$f" = --max-connections ] && conns=(); done
peer_start_s3 "$work" --max-seconds 14400 "${conns[@]}" "${server[@]}"
endpoint="$AWS_ENDPOINT_URL"
out=()
[ -n "${PEER_OUT:-}" ] && mkdir -p "$PEER_OUT" && out=(--json-out "$PEER_OUT/$name-concurrency.json" --svg-dir "$PEER_OUT")
"$py" bench/peer/concurrency.py --data "$data" --endpoint "$endpoint" --bucket peer-bench --warp "$warp" "${pass[@]}" "${out[@]}"
