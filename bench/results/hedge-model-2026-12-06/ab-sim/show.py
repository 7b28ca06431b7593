#!/usr/bin/env python3
"""warp against the best fixed rule, and the hedges each makes, in ab.sh's runs.

usage: python3 show.py FILE.json...
"""
import json
import sys

for f in sorted(sys.argv[1:]):
    rows = json.load(open(f))
    for q in sorted({r["concurrency"] for r in rows}):
        rs = {r["policy"]: r for r in rows if r["concurrency"] == q}
        rules = [p for p in rs if p != "warp"]
        best = max(rs[p]["qps"] for p in rules)
        w = rs["warp"]
        per_get = lambda r: r["hedges_per_query"] / r["gets_per_query"]
        print(
            f"{f.split('/')[-1]:<18} Q={q:<4} warp {w['qps']:7.1f} ({w['qps_min']:.0f}-{w['qps_max']:.0f}) "
            f"best rule {best:7.1f}  ratio {w['qps'] / best:.3f}  "
            f"hedges/GET warp {per_get(w):.3f} rules ≤ {max(per_get(rs[p]) for p in rules):.3f}"
        )
