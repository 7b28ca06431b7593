#!/usr/bin/env python3
"""Summary of run.sh rows: per cell and binary, warp / the rule (median, order-balanced
geometric mean: odd rounds ran warp first) and the range of warp's GETs and KiB a query.

usage: python3 bench/results/paired-cells-2026-12-07/show.py OUT
"""
import json, glob, math, statistics as st, sys, collections
d = sys.argv[1]
res = collections.defaultdict(list)
for f in sorted(glob.glob(d + '/*.json')):
    name = f.split('/')[-1][:-5]
    cell, rnd = name.rsplit('-', 1)
    idx = '-'.join(cell.split('-')[:2]); binn = '-'.join(cell.split('-')[2:])
    try:
        q = {r['policy']: r for r in json.load(open(f))}
    except Exception:
        continue
    rule = next(p for p in q if p != 'warp')
    res[(idx, binn)].append((int(rnd), q['warp']['qps'] / q[rule]['qps'], q['warp']['gets_per_query'], q['warp']['bytes_per_query'] / 1024))
for (idx, b), v in sorted(res.items()):
    first = [r for i, r, *_ in v if i % 2 == 1]; second = [r for i, r, *_ in v if i % 2 == 0]
    gm = lambda xs: math.exp(st.mean(map(math.log, xs)))
    print(f"{idx:8} {b:11} n={len(v)} median {st.median(r for _, r, *_ in v):.3f} order-balanced gmean {math.sqrt(gm(first) * gm(second)):.3f} "
          f"GETs {min(g for *_, g, _ in v):.2f}-{max(g for *_, g, _ in v):.2f} KiB {min(k for *_, k in v):.0f}-{max(k for *_, k in v):.0f}")
