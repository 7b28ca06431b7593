#!/usr/bin/env python3
"""Medians of `warp` / rule per cell and binary over pair.sh logs (bench/results/
fixed-meter-2026-12-07/smoothness/pair.sh). Usage: summarize.py LOG..."""
import collections
import re
import statistics as st
import sys

runs = collections.defaultdict(list)
for path in sys.argv[1:]:
    for line in open(path):
        m = re.match(r'(\S+)-warp-(\S+)-(\d+)\.json (\S+) .*: ([\d.]+)', line)
        if m:
            runs[(m.group(1), m.group(2))].append(float(m.group(5)))
for (cell, binary), v in sorted(runs.items()):
    print(f"{cell:12} {binary:6} {len(v):2} rounds: median {st.median(v):.3f} mean {st.mean(v):.3f} "
          f"min {min(v):.3f} | " + ' '.join(f'{x:.3f}' for x in v))
