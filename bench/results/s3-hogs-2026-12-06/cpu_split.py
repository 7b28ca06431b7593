"""The CPU a query costs each process, from `cpu-split/`: per policy run, GETs and MiB a
query, the client's CPU (bash `time` in the .err, system time apart) and warp-s3's; then
the least-squares fit `CPU = c + a * GETs + b * MiB` over the runs, for each.

usage: python3 cpu_split.py [DIR]   (default: cpu-split next to this script)
"""
import json
import os
import re
import sys


def solve3(m, v):
    """Solves the 3 x 3 system m x = v by Cramer's rule."""
    def det(a):
        return (a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1])
                - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
                + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]))
    d = det(m)
    out = []
    for k in range(3):
        mk = [row[:k] + [v[i]] + row[k + 1:] for i, row in enumerate(m)]
        out.append(det(mk) / d)
    return out


def fit(xs, ys):
    """Least squares of ys on (1, g, m) for xs = [(g, m)]."""
    rows = [[1.0, g, m] for g, m in xs]
    ata = [[sum(r[i] * r[j] for r in rows) for j in range(3)] for i in range(3)]
    aty = [sum(r[i] * y for r, y in zip(rows, ys)) for i in range(3)]
    return solve3(ata, aty)


here = os.path.dirname(os.path.abspath(__file__))
d = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, 'cpu-split')
runs = []
for name in ('separate', 'lance_rule', 'object_store_rule', 'warp', 'warp-arrive'):
    r = json.load(open(f'{d}/{name}.json'))[0]
    err = open(f'{d}/{name}.err').read()
    user, system, _ = map(float, re.search(r'CPU ([\d.]+) s user \+ ([\d.]+) s system over ([\d.]+)', err).groups())
    server = float(re.search(r'warp-s3 CPU ([\d.]+)', err).group(1))
    n = r['warmup'] + r['queries']
    g, m = r['gets_per_query'], r['bytes_per_query'] / 2**20
    runs.append(((g, m), (user + system) / n * 1e3, system / n * 1e3, server / n * 1e3))
    print(f'{name:18} GETs {g:.2f}  MiB {m:.3f}  client {runs[-1][1]:.3f} ms (system {runs[-1][2]:.3f})'
          f'  warp-s3 {runs[-1][3]:.3f} ms  QPS {r["qps"]:.1f}')
xs = [x for x, *_ in runs]
for k, label in ((1, 'client'), (2, 'client system'), (3, 'warp-s3')):
    c, a, b = fit(xs, [row[k] for row in runs])
    print(f'{label:14} per query {c:.3f} ms + {a:.3f} ms a GET + {b:.3f} ms a MiB')
