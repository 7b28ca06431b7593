#!/usr/bin/env bash
# Index quality beside FAISS: recall@10 of IVF-Flat at equal nprobe and build
# time, FAISS (`faiss_peer.py`, IndexIVFFlat with its defaults) and `warp build`
# + `warp bench` run back to back for each seed, so both see the same machine
# load. A benchmark, not a test. Prints one JSON object per (system, seed) on
# stdout and, at the end, the mean and minimum recall over the seeds.
#
#   bench/peer/quality.sh --data DIR [--nlist 256] [--metric l2] [--seeds 1,2,3,4,5]
#                         [--nprobe 4,8,16,32,64] [--pq-m M] [-- warp build flags…]
#   bench/peer/quality.sh --synthetic N [--dim 128] … (the vectors of `warp build
#                         --synthetic N`, exported as bench/peer/lib.sh does for the
#                         Lance runs; e.g. --synthetic 1000000 --nlist 4096)
#
# DIR holds base.fvecs, queries.fvecs and groundtruth.ivecs of the metric
# (bench/realdata/make_embeddings.py writes them; its ground truth is L2 on unit
# vectors, the same order as cosine). Flags after `--` go to `warp build`
# (e.g. `--clustering euclidean`). With `--pq-m M` both sides also build IVF-PQ
# (residuals, M 8-bit sub-quantizers; faiss.IndexIVFPQ) and report recall without
# and with an exact rerank of 4k candidates (`recall`, `recall_rerank`). `warp
# bench` runs with the whole payload cached (`--cache-mib all`): recall does not
# depend on the cache, and it bounds the run time. Environment: WARP (the warp executable;
# default: scripts/artifact warp bin), FAISS_VENV (default
# $HOME/.cache/warp/faiss-venv, with faiss-cpu), THREADS (default 2, both sides).
# warp's build times are its `seconds` (train = k-means + assignment, total =
# read + train + layout + write); FAISS's `train_s` and `build_s` (train + add).
# Peak memory: `peak_rss_mib` of each side's process (warp build's from
# /usr/bin/time, FAISS's from getrusage; FAISS's includes its ground-truth
# and query arrays and the Python runtime).
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/peer/lib.sh
command -v /usr/bin/time >/dev/null || { echo "quality.sh: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }
venv="${FAISS_VENV:-$HOME/.cache/warp/faiss-venv}"
py="$venv/bin/python"
[ -x "$py" ] || { echo "quality.sh: no python at $py (pip install faiss-cpu numpy there)" >&2; exit 2; }
warp="${WARP:-$(scripts/artifact warp bin)}"
threads="${THREADS:-2}"
data= synthetic= dim=128 nlist=256 metric=l2 seeds=1,2,3,4,5 nprobe=4,8,16,32,64 pqm=
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --data) data="$2"; shift 2 ;;
    --synthetic) synthetic="$2"; shift 2 ;;
    --dim) dim="$2"; shift 2 ;;
    --nlist) nlist="$2"; shift 2 ;;
    --metric) metric="$2"; shift 2 ;;
    --seeds) seeds="$2"; shift 2 ;;
    --nprobe) nprobe="$2"; shift 2 ;;
    --pq-m) pqm="$2"; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "quality.sh: unknown flag $1" >&2; exit 2 ;;
  esac
done
case "$metric" in l2|cosine|dot) ;; *) echo "quality.sh: --metric is l2, cosine or dot" >&2; exit 2 ;; esac
faiss_metric="$metric"; [ "$metric" = dot ] && faiss_metric=ip
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
peer_data quality.sh "$work"
out="$work/rows.jsonl"
for seed in ${seeds//,/ }; do
  "$py" bench/peer/faiss_peer.py --data "$data" --nlist "$nlist" --nprobe "$nprobe" \
    --metric "$faiss_metric" --threads "$threads" --seed "$seed" ${pqm:+--pq-m "$pqm"} --rerank 4 | tee -a "$out"
  for kind in flat ${pqm:+pq}; do
    rm -rf "$work/idx"
    pq=(); [ "$kind" = pq ] && pq=(--pq-m "$pqm")
    RAYON_NUM_THREADS="$threads" /usr/bin/time -f %M -o "$work/rss" "$warp" build --input "$data/base.fvecs" --queries "$data/queries.fvecs" \
      --groundtruth "$data/groundtruth.ivecs" --nlist "$nlist" --metric "$metric" --seed "$seed" \
      "${pq[@]}" --url "$work/idx" "${extra[@]}" >"$work/build.json" 2>/dev/null
    for rerank in 0 4; do
      "$warp" bench --url "$work/idx" --nprobe "$nprobe" --policies warp --queries 1000 --warmup 0 \
        --cache-mib all --rerank "$rerank" --native --json 2>/dev/null >"$work/bench-$rerank.json"
      [ "$kind" = pq ] || break
    done
    python3 - "$work" "$seed" "$threads" <<'EOF' | tee -a "$out"
import json, os, sys
work = sys.argv[1]
b = json.load(open(f"{work}/build.json"))
row = {
    "system": "warp", "kind": b["kind"], "metric": b["metric"], "n": b["n"], "dim": b["dim"],
    "nlist": b["nlist"], "pq_m": b["pq_m"], "seed": int(sys.argv[2]), "threads": int(sys.argv[3]),
    "kmeans": b["kmeans"], "seconds": b["seconds"],
    "peak_rss_mib": round(int(open(f"{work}/rss").read().split()[-1]) / 1024.0, 1),
}
for rerank, key in ((0, "recall"), (4, "recall_rerank")):
    if os.path.exists(f"{work}/bench-{rerank}.json"):
        rows = json.load(open(f"{work}/bench-{rerank}.json"))
        row[key] = {str(r["nprobe"]): r["recall_at_10"] for r in rows}
print(json.dumps(row))
EOF
    rm -f "$work"/bench-*.json
  done
done
python3 - "$out" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
for kind in ("ivf_flat", "ivf_pq"):
    for system in ("faiss", "warp"):
        rs = [r for r in rows if r["system"].startswith(system) and r["kind"] == kind]
        if not rs:
            continue
        out = {"summary": system, "kind": kind, "runs": len(rs)}
        for key in ("recall", "recall_rerank"):
            if key in rs[0]:
                ks = list(rs[0][key])
                out[f"mean_{key}"] = {k: round(sum(r[key][k] for r in rs) / len(rs), 4) for k in ks}
                out[f"min_{key}"] = {k: min(r[key][k] for r in rs) for k in ks}
        if system == "faiss":
            out["mean_seconds"] = {p: round(sum(r[p] for r in rs) / len(rs), 3) for p in ("train_s", "build_s")}
        else:
            out["mean_seconds"] = {p: round(sum(r["seconds"][p] for r in rs) / len(rs), 3) for p in ("train", "total")}
        out["max_peak_rss_mib"] = max(r.get("peak_rss_mib", 0) for r in rs)
        print(json.dumps(out))
EOF
