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
# once, on warp-s3 (what both sides read), with no injected latency; its manifest
# and stored queries are then fetched (SigV4-signed GETs) into a local directory,
# where load.sh reads the request bodies from. The model (default: warp-s3's `s3`
# profile; flags after `--`) applies from the first query on. Environment: WARP and WARP_S3 (default:
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
peer_build_on_s3 s3://peer-bench/serve "${build[@]}"
# The request bodies come from the index's stored queries: fetch the manifest and
# the object it names (curl signs with SigV4; the names are the index's own).
get() { curl -sf -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" --aws-sigv4 "aws:amz:$AWS_REGION:s3" \
  --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" "$AWS_ENDPOINT_URL/peer-bench/serve/$1" -o "$work/index/$1"; }
mkdir -p "$work/index"
get manifest.json
queries=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["queries"]["name"])' "$work/index/manifest.json")
case "$queries" in '' | */* | .*) echo "error: bench/serve/s3.sh: unexpected queries object name '$queries' in the manifest" >&2; exit 1 ;; esac
get "$queries"
echo "bench/serve/s3.sh: warp-s3 at $AWS_ENDPOINT_URL, $(curl -sf "$AWS_ENDPOINT_URL/__warp/settings")" >&2
bench/serve/load.sh "$work/index" "$out" --store-url s3://peer-bench/serve --warp "$warp" "${pass[@]}"
