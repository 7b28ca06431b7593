#!/usr/bin/env python3
"""How far apart a layout leaves the lists a query probes: for a local
`warp build` index (a directory) and each nprobe, the runs per query (maximal
byte-contiguous stretches of probed lists in the payload: the fewest GETs that
read no gap byte) and the gap bytes a plan of at most K requests must read
(all gaps but the K − 1 largest), averaged over the index's own queries.

    ~/.cache/warp/peer-venv/bin/python bench/peer/layout_runs.py INDEX_DIR \
        [--nprobe 8,16,18] [--k 4,6]

The probes are the nprobe nearest centroids by squared L2 (the index's
metric must be l2, as `warp build` makes for the sets of bench/). Bounded:
at most 100 000 queries and 65 536 lists are read; a larger index is refused.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from common import flat_l2_index, sq_dists

MAX_QUERIES = 100_000
MAX_LISTS = 65_536


def ints(s: str) -> list[int]:
    return [int(x) for x in s.split(",") if x]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("index", type=Path)
    ap.add_argument("--nprobe", type=ints, default=ints("8,16,18"))
    ap.add_argument("--k", type=ints, default=ints("4,6"), help="request budgets K")
    a = ap.parse_args()
    m, cents, queries = flat_l2_index(a.index, "layout_runs", MAX_LISTS, MAX_QUERIES)
    nlist = m["nlist"]
    if not all(1 <= p <= nlist for p in a.nprobe) or not all(k >= 1 for k in a.k):
        sys.exit(f"layout_runs: --nprobe in 1..={nlist}, --k >= 1")
    off = np.array([x["offset"] for x in m["lists"]], dtype=np.int64)
    ln = np.array([x["len"] for x in m["lists"]], dtype=np.int64)
    order = np.argsort(sq_dists(queries, cents), axis=1, kind="stable")
    print(f"{a.index}: layout {m['reorder']}, {nlist} lists, {len(queries)} queries")
    print("| nprobe | runs (mean) | runs (median) | lists MiB | " + " | ".join(f"gap MiB at K = {k}" for k in a.k) + " |")
    print("|---:|---:|---:|---:|" + "---:|" * len(a.k))
    for nprobe in a.nprobe:
        runs, extra = [], {k: [] for k in a.k}
        for probes in order[:, :nprobe]:
            o = off[probes]
            s = np.argsort(o)
            o, n = o[s], ln[probes][s]
            gaps = np.sort(o[1:] - (o[:-1] + n[:-1]))
            gaps = gaps[gaps > 0]
            runs.append(1 + len(gaps))
            for k in a.k:
                extra[k].append(int(gaps[: max(0, len(gaps) - (k - 1))].sum()))
        mib = ln[order[:, :nprobe]].sum(1).mean() / 2**20
        cols = " | ".join(f"{np.mean(extra[k]) / 2**20:.2f}" for k in a.k)
        print(f"| {nprobe} | {np.mean(runs):.2f} | {np.median(runs):.0f} | {mib:.2f} | {cols} |")


if __name__ == "__main__":
    main()
