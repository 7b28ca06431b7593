#!/usr/bin/env python3
"""usage: between.py OUT [SKIP]

The CPU a call costs across the policies' runs in OUT (slices.sh): for each run, from its
slices after the first SKIP (default 0.2) of them (the warm-up), the CPU per finished call of
the client and the server less the consumer's (the scan), with the run's GETs and MiB a call;
then the least-squares fit of own CPU a call = alpha * GETs + beta * MiB + c across the runs
(each run one point: plans that differ in their gaps, the same queries). Beside each run, the
meter's own last alpha and beta (its last refit in that run)."""
import glob, json, os, re, sys

def slices(path):
    rows, refit = [], None
    for line in open(path):
        if 'cpu slice closed' in line:
            rows.append({k: float(v) for k, v in re.findall(r'(\w+)=([-\d.e]+)', line)})
        elif 'cpu price refit' in line:
            refit = line
    return rows, refit

def lstsq(xs, ys):
    # Normal equations by Gaussian elimination: no numpy needed.
    k = len(xs[0])
    a = [[sum(x[i] * x[j] for x in xs) for j in range(k)] + [sum(x[i] * y for x, y in zip(xs, ys))] for i in range(k)]
    for c in range(k):
        p = max(range(c, k), key=lambda r: abs(a[r][c]))
        a[c], a[p] = a[p], a[c]
        for r in range(k):
            if r != c:
                f = a[r][c] / a[c][c]
                a[r] = [u - f * v for u, v in zip(a[r], a[c])]
    return [a[i][k] / a[i][i] for i in range(k)]

out = sys.argv[1]
skip = float(sys.argv[2]) if len(sys.argv) > 2 else 0.2
pts = []
for path in sorted(glob.glob(os.path.join(out, '*.slices'))):
    name = os.path.basename(path)[:-len('.slices')]
    row = json.load(open(os.path.join(out, name + '.json')))[0]
    rows, refit = slices(path)
    rows = rows[int(len(rows) * skip):]
    calls = sum(d['calls'] for d in rows)
    own = sum(d['client_ms'] + d['server_ms'] - d['consumer_ms'] for d in rows) / calls
    gets = sum(d['gets'] for d in rows) / calls
    mib = sum(d['mib'] for d in rows) / calls
    meter = ''
    if refit:
        f = dict(re.findall(r'(per_mib_ms|per_get_ms)=([-\d.e]+)', refit))
        meter = 'meter beta %.2f alpha %.3f' % (float(f['per_mib_ms']), float(f['per_get_ms']))
    print('%-18s %7.1f QPS | a call: own CPU %.3f ms, %.3f GETs, %.3f MiB | %s' % (row['policy'], row['qps'], own, gets, mib, meter))
    pts.append(([gets, mib, 1.0], own))
if len(pts) >= 4:
    a, b, c = lstsq([p[0] for p in pts], [p[1] for p in pts])
    print('across the %d runs: alpha %.3f ms a GET, beta %.3f ms a MiB, c %.3f ms a call (alpha / beta %.3f MiB)' % (len(pts), a, b, c, a / b))
