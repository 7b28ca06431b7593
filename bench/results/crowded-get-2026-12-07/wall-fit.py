#!/usr/bin/env python3
"""Between-run fit of a query's wall time at throughput level, 1000 / QPS = a*G + b*M + c,
over the gap rules' runs of one cell (same queries, plans differing in GETs G and MiB M a
query): r = a / b is what a GET costs in MiB of bytes. Usage: wall-fit.py SWEEP.json [POLICY...]"""
import json, sys

rows = json.load(open(sys.argv[1]))
keep = set(sys.argv[2:])
pts = [(r['gets_per_query'], r['bytes_per_query'] / 2**20, 1000.0 / r['qps'], r['policy'])
       for r in rows if (not keep and r['policy'].startswith(('coalesce', 'object_store')))
       or r['policy'] in keep]
# Ordinary least squares on 3 unknowns by the normal equations (no numpy needed).
X = [(g, m, 1.0) for g, m, _, _ in pts]
y = [t for _, _, t, _ in pts]
A = [[sum(x[i] * x[j] for x in X) for j in range(3)] for i in range(3)]
v = [sum(x[i] * t for x, t in zip(X, y)) for i in range(3)]
def solve(A, v):
    n = len(v); M = [row[:] + [v[i]] for i, row in enumerate(A)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(M[r][c])); M[c], M[p] = M[p], M[c]
        for r in range(n):
            if r != c:
                f = M[r][c] / M[c][c]
                M[r] = [a - f * b for a, b in zip(M[r], M[c])]
    return [M[i][n] / M[i][i] for i in range(n)]
a, b, c = solve(A, v)
for g, m, t, p in pts:
    print(f"{p:>18} G {g:5.2f} MiB {m:6.3f} ms/q {t:6.3f} fit {a*g+b*m+c:6.3f}")
print(f"a = {a:.3f} ms a GET, b = {b:.3f} ms a MiB, c = {c:.3f}: a GET costs r = {a/b:.2f} MiB")
