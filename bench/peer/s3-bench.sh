#!/usr/bin/env bash
# `warp bench` over the S3 protocol: warp-s3 on 127.0.0.1 (real HTTP and SigV4, every
# GET's body streamed through the latency model), an index built into it from a vector
# set, then `warp bench --url s3://…` with object_store's own S3 client — the policies
# compared through real sockets, not the in-process simulator (BENCHMARKS, "Over the S3
# protocol"):
#
#   bench/peer/s3-bench.sh --data DIR --nlist N [--layout L (default greedy_tour)] [-- warp bench flags…]
#
# DIR holds base.fvecs, queries.fvecs and groundtruth.ivecs
# (bench/realdata/make_embeddings.py). The build runs with the latency model off; warp-s3's
# default `s3` profile applies from the first query. Default bench flags: --nprobe 16
# --concurrency 32 --queries 500 --policies object_store_rule,warp. WARP and WARP_S3 pick
# the executables (default: scripts/artifact); the peer venv (scripts/setup.d/70-peer)
# reads warp-s3's settings. warp-s3 listens on an ephemeral loopback port and stops on exit.
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/peer/lib.sh
data= nlist= layout=greedy_tour
bench=(--nprobe 16 --concurrency 32 --queries 500 --policies object_store_rule,warp)
while [ $# -gt 0 ]; do
  case "$1" in
    --data) data="${2:?--data needs a directory}"; shift 2 ;;
    --nlist) nlist="${2:?--nlist needs a count}"; shift 2 ;;
    --layout) layout="${2:?--layout needs a layout}"; shift 2 ;;
    --) shift; [ $# -eq 0 ] || bench=("$@"); break ;;
    *) echo "error: bench/peer/s3-bench.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -n "$data" ] && [ -n "$nlist" ] || { echo "error: bench/peer/s3-bench.sh: --data DIR and --nlist N are required" >&2; exit 2; }
for f in base.fvecs queries.fvecs groundtruth.ivecs; do
  [ -f "$data/$f" ] || { echo "error: bench/peer/s3-bench.sh: no $data/$f" >&2; exit 2; }
done
peer_tools s3-bench.sh
work="$(mktemp -d)"
cleanup() {
  peer_stop_s3
  rm -rf "$work"
}
trap cleanup EXIT
peer_start_s3 "$work" --max-connections 4096
peer_build_on_s3 s3://peer-bench/idx --input "$data/base.fvecs" --queries "$data/queries.fvecs" \
  --groundtruth "$data/groundtruth.ivecs" --nlist "$nlist" --layout "$layout"
"$warp" bench --url s3://peer-bench/idx "${bench[@]}"
