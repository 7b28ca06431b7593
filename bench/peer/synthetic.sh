# Sourced by bench/peer/run.sh and concurrency.sh: the synthetic vector set both
# systems index.
#
#   peer_synthetic WARP PY WORK N DIM   → prints the directory of base.fvecs,
#                                          queries.fvecs and groundtruth.ivecs
#
# `warp build --synthetic N` generates the vectors (a one-iteration flat index of
# 16 lists in WORK/syn-index, 1,000 queries, 200 below 20,000 vectors), and
# export_index.py writes them out in the original row order (WORK/syn), so a peer
# indexes exactly what warp indexes.
peer_synthetic() {
  local warp="$1" py="$2" work="$3" n="$4" dim="$5" nq=1000
  [ "$n" -lt 20000 ] && nq=200
  "$warp" build --url "$work/syn-index" --synthetic "$n" --synthetic-queries "$nq" --dim "$dim" \
    --nlist 16 --niter 1 --reorder identity >/dev/null
  "$py" bench/peer/export_index.py "$work/syn-index" "$work/syn" >&2
  echo "$work/syn"
}
