#!/usr/bin/env python3
"""Three levers on the runs a query's probed lists form, checked offline on a
local `warp build` IVF_FLAT index (l2) and the vector set it was built from:

1. a co-probe path: the greedy max-weight path over how often two lists are
   probed together by the base vectors taken as queries (at --train-nprobe).
   A query's runs are nprobe minus its probed pairs adjacent in the order, so
   E[runs] = nprobe - sum over adjacent pairs of P(both probed): this path
   maximises the sum directly, where `greedy_tour` uses centroid distances;
2. two stored orders: the index's own and the best co-probe path that avoids
   its adjacencies, each query reading from the one with fewer runs;
3. probing by distance ratio (every list within r x the nearest centroid's
   distance, at most --cap) instead of a fixed nprobe, at equal recall@10.

    ~/.cache/warp/peer-venv/bin/python bench/peer/run_levers.py INDEX_DIR DATA_DIR \
        [--nprobe 14,16,18] [--train-nprobe 8,16] [--ratios 1.16,1.18,1.2] [--cap 48]

DATA_DIR holds base.fvecs and groundtruth.ivecs (bench/realdata/make_embeddings.py);
the queries are the index's own. Bounded: at most 100 000 queries and base
vectors and 4 096 lists (the co-probe matrix is nlist x nlist).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from common import flat_l2_index, read_vecs, sq_dists

MAX_ROWS = 100_000
MAX_LISTS = 4_096


def nums(kind):
    return lambda s: [kind(x) for x in s.split(",") if x]


def runs_of(order: np.ndarray, probe_sets) -> np.ndarray:
    pos = np.empty(len(order), dtype=np.int64)
    pos[order] = np.arange(len(order))
    return np.array([1 + np.count_nonzero(np.diff(np.sort(pos[s])) > 1) for s in probe_sets])


def greedy_path(weights: np.ndarray) -> np.ndarray:
    """Max-weight Hamiltonian path by the greedy-edge rule (heaviest edge
    first, no vertex of degree 3, no cycle), fragments joined by the next
    heaviest admissible edges, zero-weight ones included. O(n² log n)."""
    n = len(weights)
    iu, ju = np.triu_indices(n, 1)
    parent = list(range(n))
    deg = np.zeros(n, dtype=np.int64)
    adj: list[list[int]] = [[] for _ in range(n)]

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    added = 0
    for e in np.argsort(-weights[iu, ju], kind="stable"):
        a, b = int(iu[e]), int(ju[e])
        if deg[a] >= 2 or deg[b] >= 2 or find(a) == find(b):
            continue
        parent[find(a)] = find(b)
        deg[a] += 1
        deg[b] += 1
        adj[a].append(b)
        adj[b].append(a)
        added += 1
        if added == n - 1:
            break
    start = int(np.flatnonzero(deg < 2)[0])
    order, prev = [start], -1
    while len(order) < n:
        nxt = [x for x in adj[order[-1]] if x != prev]
        prev = order[-1]
        order.append(nxt[0])
    return np.array(order)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("index", type=Path)
    ap.add_argument("data", type=Path)
    ap.add_argument("--nprobe", type=nums(int), default=[14, 16, 18])
    ap.add_argument("--train-nprobe", type=nums(int), default=[8, 16])
    ap.add_argument("--ratios", type=nums(float), default=[1.16, 1.18, 1.2, 1.22])
    ap.add_argument("--cap", type=int, default=48)
    a = ap.parse_args()
    m, cents, queries = flat_l2_index(a.index, "run_levers", MAX_LISTS, MAX_ROWS)
    nlist = m["nlist"]
    if not all(1 <= p <= nlist for p in a.nprobe + a.train_nprobe + [a.cap]):
        sys.exit(f"run_levers: every nprobe and --cap in 1..={nlist}")
    base = read_vecs(a.data / "base.fvecs", np.float32).astype(np.float64)
    if base.shape[1] != m["dim"] or len(base) > MAX_ROWS:
        sys.exit(f"run_levers: {a.data}/base.fvecs is not of dimension {m['dim']}, or holds more than {MAX_ROWS} rows")
    gt = read_vecs(a.data / "groundtruth.ivecs")[: len(queries), :10]
    base_rank = np.concatenate(
        [np.argsort(sq_dists(base[i : i + 8192], cents), 1) for i in range(0, len(base), 8192)]
    )
    # Each base vector sits in the list of its nearest centroid (the build's assignment).
    lists_of_truth = base_rank[:, 0][gt]
    own = np.argsort(np.array([x["offset"] for x in m["lists"]]))
    dist = np.sqrt(sq_dists(queries, cents))
    rank = np.argsort(dist, axis=1, kind="stable")

    def recall(sets) -> float:
        return float(np.mean([np.isin(lists_of_truth[i], s).mean() for i, s in enumerate(sets)]))

    print(f"{a.index}: layout {m['reorder']}, {nlist} lists, {len(queries)} queries, {len(base)} base vectors")
    print("\n| order | " + " | ".join(f"runs at nprobe {p}" for p in a.nprobe) + " |")
    print("|---|" + "---:|" * len(a.nprobe))
    fixed = {p: [rank[i, :p] for i in range(len(queries))] for p in a.nprobe}
    print(f"| index's own ({m['reorder']}) | " + " | ".join(f"{runs_of(own, fixed[p]).mean():.2f}" for p in a.nprobe) + " |")
    for t in a.train_nprobe:
        w = np.zeros((nlist, nlist))
        for s in base_rank[:, :t]:
            w[np.ix_(s, s)] += 1
        np.fill_diagonal(w, 0)
        path = greedy_path(w)
        print(f"| co-probe path (base at nprobe {t}) | " + " | ".join(f"{runs_of(path, fixed[p]).mean():.2f}" for p in a.nprobe) + " |")
        if t == a.train_nprobe[-1]:
            w2 = w.copy()
            w2[own[:-1], own[1:]] = w2[own[1:], own[:-1]] = 0
            second = greedy_path(w2)
            best = [np.minimum(runs_of(own, fixed[p]), runs_of(second, fixed[p])).mean() for p in a.nprobe]
            print(f"| two orders (own + co-probe path avoiding its edges) | " + " | ".join(f"{b:.2f}" for b in best) + " |")
    print("\n| probing | recall@10 | lists (mean) | runs in the index's order |\n|---|---:|---:|---:|")
    for p in a.nprobe:
        print(f"| fixed nprobe {p} | {recall(fixed[p]):.3f} | {p} | {runs_of(own, fixed[p]).mean():.2f} |")
    for r in a.ratios:
        sets = [rank[i, : a.cap][dist[i, rank[i, : a.cap]] <= r * dist[i, rank[i, 0]]] for i in range(len(queries))]
        print(f"| ratio {r} (cap {a.cap}) | {recall(sets):.3f} | {np.mean([len(s) for s in sets]):.1f} | {runs_of(own, sets).mean():.2f} |")


if __name__ == "__main__":
    main()
