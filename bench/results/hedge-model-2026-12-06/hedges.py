#!/usr/bin/env python3
"""Hedged GETs per planned GET, warp against the fixed rules, over the cells of load grids.

usage: python3 hedges.py GRID_DIR...   (directories of bench/load-grid.sh rows)
"""
import glob
import json
import sys

for grid in sys.argv[1:]:
    warp, rules = [], []
    for f in glob.glob(grid.rstrip("/") + "/*.json"):
        for r in json.load(open(f)):
            h = r["hedges_per_query"] / r["gets_per_query"]
            (warp if r["policy"] == "warp" else rules).append(h)
    warp.sort()
    rules.sort()
    print(
        f"{grid}: warp hedges/GET median {warp[len(warp) // 2]:.4f} max {warp[-1]:.4f} "
        f"({len(warp)} cells) | rules median {rules[len(rules) // 2]:.4f} max {rules[-1]:.4f}"
    )
