#!/usr/bin/env bash
# `warp serve` under wrk beside `warp bench` in process, both reading one index
# over s3:// from warp-s3 (host/s3-server: real HTTP and SigV4, every GET's body
# streamed through the latency model; the meter of bench/peer), so the serving
# row is measured against a real S3-protocol server, not the in-process
# simulator (issue 20, item 4):
#
#   bench/serve/s3.sh --data DIR --nlist N [OUT.jsonl] [load.sh flags…] [-- warp-s3 flags…]
#
# DIR holds base.fvecs, queries.fvecs and groundtruth.ivecs. The index is built
# twice with the same flags: on warp-s3 (what both sides read) and in a local
# directory (only the request bodies come from it). Builds run with no injected
# latency; the model (default: warp-s3's `s3` profile; flags after `--`) applies
# from the first query on. Environment: WARP and WARP_S3 (default:
# scripts/artifact), WARP_PEER_VENV. warp-s3 listens on an ephemeral loopback
# port and stops on exit.
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/peer/lib.sh
peer_tools s3.sh
data= nlist= out=/dev/stdout
pass=() server=()
while [ $# -gt 0 ]; do
  case "$1" in
    --data) data="$2"; shift 2 ;;
    --nlist) nlist="$2"; shift 2 ;;
    --) shift; server=("$@"); break ;;
    --overload) pass+=("$1"); shift ;;
    --*) pass+=("$1" "$2"); shift 2 ;;
    *) out="$1"; shift ;;
  esac
done
[ -n "$data" ] && [ -n "$nlist" ] || { echo "error: bench/serve/s3.sh: --data DIR and --nlist N are required" >&2; exit 2; }
work="$(mktemp -d)"
cleanup() {
  peer_stop_s3
  rm -rf "$work"
}
trap cleanup EXIT
peer_start_s3 "$work" --max-seconds 7200 "${server[@]}"
build=(--input "$data/base.fvecs" --queries "$data/queries.fvecs" --groundtruth "$data/groundtruth.ivecs" --nlist "$nlist")
"$warp" build --url "$work/index" "${build[@]}" >/dev/null
peer_build_on_s3 s3://peer-bench/serve "${build[@]}"
echo "bench/serve/s3.sh: warp-s3 at $AWS_ENDPOINT_URL, $(curl -sf "$AWS_ENDPOINT_URL/__warp/settings")" >&2
bench/serve/load.sh "$work/index" "$out" --store-url s3://peer-bench/serve --warp "$warp" "${pass[@]}"
