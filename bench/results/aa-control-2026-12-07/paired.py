#!/usr/bin/env python3
"""The paired figures of this directory's README, from the rows kept here.

usage (repo root): python3 bench/results/aa-control-2026-12-07/paired.py

Per set of paired runs (ab.sh with PAIR=A,B; A runs first in its process): the median of
A / B, the order-balanced geometric mean of `warp ÷ object_store_rule` (the geometric mean of
the warp-first and the warp-second runs' geometric means), the least-squares slope of that
ratio on `warp`'s GETs a query (runs under 1 MB a query), and the runs whose link estimate `C`
ended below 200 MiB/s.
"""
import glob
import json
import math
import pathlib
import statistics as st

here = pathlib.Path(__file__).resolve().parent


def rows(d):
    for f in sorted((here / d).glob("*.json")):
        yield {r["policy"]: r for r in json.load(open(f))}


def gmean(xs):
    return math.exp(st.mean(math.log(x) for x in xs))


def ratio(q, a, b):
    return q[a]["qps"] / q[b]["qps"]


for d, a, b in (("ab-aa", "coalesce:1MiB", "object_store_rule"),
                ("ab-aa-rev", "object_store_rule", "coalesce:1MiB")):
    print(f"{d}: {a} / {b} (first / second) median {st.median(ratio(q, a, b) for q in rows(d)):.3f}")

sets = {"HEAD": (["ab-head", "ab-head-2"], ["ab-rev", "ab-rev-2"]),
        "fixed (1b85e0e)": (["srv-first"], ["srv-second"])}
for name, (first, second) in sets.items():
    w = {k: [ratio(q, "warp", "object_store_rule") for d in ds for q in rows(d)]
         for k, ds in (("first", first), ("second", second))}
    meds = [f"{d} {st.median(ratio(q, 'warp', 'object_store_rule') for q in rows(d)):.3f}"
            for d in first + second]
    print(f"{name}: warp / rule medians {', '.join(meds)}; order-balanced geometric mean "
          f"{math.sqrt(gmean(w['first']) * gmean(w['second'])):.3f}")
    runs = [q["warp"] for d in first + second for q in rows(d)]
    gets = [r["gets_per_query"] for r in runs]
    known = [r["load"]["capacity_mib_s"] for r in runs if r["load"]["capacity_mib_s"] is not None]
    print(f"  GETs a query {min(gets):.2f}-{max(gets):.2f}; C known at the end of "
          f"{len(known)} of {len(runs)}" + (f" ({min(known):.0f}-{max(known):.0f} MiB/s)" if known else ""))

pts = [(q["warp"]["gets_per_query"], ratio(q, "warp", "object_store_rule"))
       for d in ("ab-head", "ab-head-2", "ab-rev", "ab-rev-2") for q in rows(d)
       if q["warp"]["bytes_per_query"] < 1 << 20]
fit = st.linear_regression([g for g, _ in pts], [r for _, r in pts])
print(f"HEAD: warp / rule per tenth of a GET a query {fit.slope / 10:+.3f} "
      f"(correlation {st.correlation([g for g, _ in pts], [r for _, r in pts]):.2f}, {len(pts)} runs under 1 MiB a query)")

low = [(d, q["warp"]) for d in ("ab-head", "ab-head-2", "ab-rev", "ab-rev-2", "single")
       for q in rows(d) if (q["warp"]["load"]["capacity_mib_s"] or 1e9) < 200]
n = sum(1 for d in ("ab-head", "ab-head-2", "ab-rev", "ab-rev-2", "single") for _ in rows(d))
print(f"HEAD: C below 200 MiB/s at the end of {len(low)} of {n} runs: "
      f"{min(r['load']['capacity_mib_s'] for _, r in low):.0f}-{max(r['load']['capacity_mib_s'] for _, r in low):.0f} MiB/s, "
      f"{min(r['gets_per_query'] for _, r in low):.2f}-{max(r['gets_per_query'] for _, r in low):.2f} GETs, "
      f"{min(r['bytes_per_query'] for _, r in low) / 1024:.0f}-{max(r['bytes_per_query'] for _, r in low) / 1024:.0f} KiB a query")
