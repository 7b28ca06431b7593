#!/usr/bin/env python3
"""The paired gain of one binary over another from pair.sh logs: per cell the difference of the
`warp ÷ rule` means and its standard error (Welch), then the mean gain over the cells and its
standard error. Usage: gain.py LOG BASE NEW (BASE, NEW: the binaries' tags, e.g. q2 q15)."""
import collections
import math
import re
import statistics as st
import sys

runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    m = re.match(r'(\S+)-warp-(\S+)-(\d+)\.json (\S+) .*: ([\d.]+)', line)
    if m:
        runs[(m.group(1), m.group(2))].append(float(m.group(5)))
base, new = sys.argv[2], sys.argv[3]
gains, variances = [], []
for cell in sorted({c for c, _ in runs}):
    a, b = runs[(cell, base)], runs[(cell, new)]
    g = st.mean(b) - st.mean(a)
    v = st.variance(a) / len(a) + st.variance(b) / len(b)
    gains.append(g)
    variances.append(v)
    print(f'{cell:12} gain {g:+.3f} ± {math.sqrt(v):.3f}')
mean = st.mean(gains)
se = math.sqrt(sum(variances)) / len(gains)
print(f'mean gain {mean:+.3f} ± {se:.3f} ({mean / se:.1f} standard errors)')
