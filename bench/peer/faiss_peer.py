#!/usr/bin/env python3
"""FAISS beside `warp build`: the index-quality peer (recall@10 at equal nprobe,
build time and peak memory) on the same .fvecs/.ivecs files `warp build` reads.

For IVF-Flat it builds `faiss.IndexIVFFlat` with FAISS's defaults (its coarse
k-means runs with the index's own `ClusteringParameters`, printed in each row:
`niter`, `max_points_per_centroid`, `seed`); for IVF-PQ `faiss.IndexIVFPQ` with residual
codes of `m` sub-quantizers of `nbits` bits, searched without and with an exact
rerank of `k * rerank` candidates (`IndexRefineFlat`, k_factor = rerank). The
metric is l2, ip (inner product) or cosine (vectors normalised, then ip).

Every figure is printed as one JSON object on stdout (one per index kind), so
scripts can put it beside `warp bench --json` rows:

    python bench/peer/faiss_peer.py --data bench/data/real384 --nlist 256 \
        --nprobe 4,8,16,32,64 [--pq-m 48] [--metric l2] [--threads 2] [--seed S]

`scanned_fraction` is the mean fraction of the base in the probed lists at each
nprobe (what an IVF scan reads), to put recall beside its cost.

`--data DIR` holds base.fvecs, queries.fvecs and groundtruth.ivecs (as written
by bench/realdata/make_embeddings.py); the ground truth must be of the chosen
metric (`--groundtruth FILE` overrides it, `--exact-gt` recomputes it with a
flat FAISS index of that metric).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

import numpy as np


def read_fvecs(path: Path) -> np.ndarray:
    raw = np.fromfile(path, dtype=np.int32)
    if raw.size == 0:
        sys.exit(f"{path}: empty")
    dim = int(raw[0])
    rows = raw.reshape(-1, dim + 1)
    if not (rows[:, 0] == dim).all():
        sys.exit(f"{path}: rows of differing dimension")
    return rows[:, 1:].copy().view(np.float32)


def read_ivecs(path: Path) -> np.ndarray:
    raw = np.fromfile(path, dtype=np.int32)
    k = int(raw[0])
    return raw.reshape(-1, k + 1)[:, 1:].copy()


def recall_at(found: np.ndarray, truth: np.ndarray, k: int) -> float:
    hits = 0
    for f, t in zip(found[:, :k], truth[:, :k]):
        hits += len(set(f.tolist()) & set(t.tolist()))
    return hits / (k * len(found))


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--groundtruth", type=Path)
    ap.add_argument("--exact-gt", action="store_true")
    ap.add_argument("--nlist", type=int, required=True)
    ap.add_argument("--nprobe", default="4,8,16,32,64")
    ap.add_argument("--pq-m", type=int)
    ap.add_argument("--nbits", type=int, default=8)
    ap.add_argument("--rerank", type=int, default=4)
    ap.add_argument("--metric", choices=["l2", "ip", "cosine"], default="l2")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--seed", type=int, help="seed of the coarse k-means (default: FAISS's own, 1234)")
    ap.add_argument("--niter", type=int, help="coarse k-means iterations (default: FAISS's own, 10)")
    args = ap.parse_args()

    import faiss

    faiss.omp_set_num_threads(args.threads)
    base = read_fvecs(args.data / "base.fvecs")
    queries = read_fvecs(args.data / "queries.fvecs")
    if args.metric == "cosine":
        faiss.normalize_L2(base)
        faiss.normalize_L2(queries)
    metric = faiss.METRIC_L2 if args.metric == "l2" else faiss.METRIC_INNER_PRODUCT
    dim = base.shape[1]
    if args.exact_gt:
        flat = faiss.IndexFlat(dim, metric)
        flat.add(base)
        _, truth = flat.search(queries, args.k)
    else:
        truth = read_ivecs(args.groundtruth or args.data / "groundtruth.ivecs")
    nprobes = [int(x) for x in args.nprobe.split(",")]

    kinds = [("ivf_flat", None)] + ([("ivf_pq", args.pq_m)] if args.pq_m else [])
    for kind, m in kinds:
        quantizer = faiss.IndexFlat(dim, metric)
        if m is None:
            index = faiss.IndexIVFFlat(quantizer, dim, args.nlist, metric)
        else:
            index = faiss.IndexIVFPQ(quantizer, dim, args.nlist, m, args.nbits, metric)
        if args.seed is not None:
            index.cp.seed = args.seed
        if args.niter is not None:
            index.cp.niter = args.niter
        t0 = time.perf_counter()
        index.train(base)
        t_train = time.perf_counter() - t0
        index.add(base)
        t_build = time.perf_counter() - t0
        row = {
            "system": f"faiss {faiss.__version__}",
            "kind": kind,
            "metric": args.metric,
            "n": int(base.shape[0]),
            "dim": dim,
            "nlist": args.nlist,
            "pq_m": m,
            "nbits": args.nbits if m else None,
            "threads": args.threads,
            "faiss_cp": {
                "niter": index.cp.niter,
                "max_points_per_centroid": index.cp.max_points_per_centroid,
                "seed": index.cp.seed,
            },
            "train_s": round(t_train, 3),
            "build_s": round(t_build, 3),
            "peak_rss_mib": round(peak_rss_mib(), 1),
            "recall": {},
            "scanned_fraction": {},
        }
        refine = None
        if m is not None:
            refine = faiss.IndexRefineFlat(index, faiss.swig_ptr(base))
            refine.k_factor = float(args.rerank)
            row["recall_rerank"] = {}
        sizes = np.array([index.invlists.list_size(i) for i in range(args.nlist)])
        for nprobe in nprobes:
            index.nprobe = nprobe
            _, found = index.search(queries, args.k)
            row["recall"][str(nprobe)] = round(recall_at(found, truth, args.k), 4)
            _, probed = index.quantizer.search(queries, nprobe)
            row["scanned_fraction"][str(nprobe)] = round(float(sizes[probed].sum(axis=1).mean()) / len(base), 5)
            if refine is not None:
                _, found = refine.search(queries, args.k)
                row["recall_rerank"][str(nprobe)] = round(recall_at(found, truth, args.k), 4)
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
