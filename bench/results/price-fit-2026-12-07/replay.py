#!/usr/bin/env python3
"""usage: replay.py SLICES... [--memory N]

Replays two estimators of the CPU meter's prices on the slices a run logged (slices.sh): main's
until 2026-12-07 (the Theil-Sen slope of CPU on MiB over the last 32 slices, backfitted with the
per-call slope, each fit folded in with weight 0.1; alpha the median residual a GET) and the
least-squares fit tried (price_fit.rs in least-squares-fit.patch: every slice's CPU on its MiB,
calls and GETs, fading by 1 - 1/N a slice, Huber-weighted from the 4th slice at the window's
median absolute residual, prices pinned at 0 when negative). Prints each estimator's beta (ms a
MiB) and alpha (ms a GET) from the 25th slice on: 10th, 50th and 90th percentiles and the last.
The replay feeds both the slices of one run, whose plans followed the run's own prices."""
import itertools, re, statistics, sys

def load(path):
    rows = []
    for line in open(path):
        if 'cpu slice closed' in line:
            d = {k: float(v) for k, v in re.findall(r'(\w+)=([-\d.e]+)', line)}
            d['own'] = max(0.0, d['client_ms'] + d['server_ms'] - d['consumer_ms'])
            rows.append(d)
    return rows

def sen(points):
    s = [(b[1] - a[1]) / (b[0] - a[0]) for a, b in itertools.combinations(points, 2) if abs(b[0] - a[0]) >= 1 / 64]
    return statistics.median(s) if len(s) >= 16 else None

def main_estimator(rows):
    out, beta, alpha = [], None, None
    for n in range(1, len(rows) + 1):
        w = rows[max(0, n - 32):n]
        if len(w) < 8:
            out.append(None)
            continue
        fit, call = None, 0.0
        for _ in range(32):
            was = fit
            fit = sen([(s['mib'], s['own'] - call * s['calls']) for s in w])
            if fit is None or (was is not None and abs(was - fit) < 1e-4):
                break
            call = max(0.0, sen([(s['calls'], s['own'] - max(fit, 0) * s['mib']) for s in w]) or 0.0)
        if fit is not None:
            beta = max(fit, 0) if beta is None else beta + 0.1 * (max(fit, 0) - beta)
        b = beta or 0.0
        pc = max(0.0, sen([(s['calls'], s['own'] - b * s['mib']) for s in w]) or 0.0)
        a = max(0.0, statistics.median((s['own'] - b * s['mib'] - pc * s['calls']) / max(s['gets'], 1) for s in w))
        alpha = a if alpha is None else alpha + 0.1 * (a - alpha)
        out.append((b, alpha))
    return out

def solve(xx, xy, pinned):
    k = 3
    tr = sum(xx[i][i] for i in range(k))
    if tr <= 0:
        return None
    a = [[xx[i][j] + (1e-9 * tr if i == j else 0.0) for j in range(k)] + [xy[i]] for i in range(k)]
    for i in range(k):
        if pinned[i]:
            for j in range(k):
                a[i][j] = a[j][i] = 0.0
            a[i][i], a[i][k] = 1.0, 0.0
    for c in range(k):
        if a[c][c] <= 0:
            return None
        for r in range(k):
            if r != c:
                f = a[r][c] / a[c][c]
                a[r] = [u - f * v for u, v in zip(a[r], a[c])]
    return [a[i][k] / a[i][i] for i in range(k)]

def least_squares(rows, memory):
    keep = 1 - 1 / memory
    xx = [[0.0] * 3 for _ in range(3)]
    xy = [0.0] * 3
    theta, out = None, []
    for n, s in enumerate(rows, 1):
        x = [s['mib'], s['calls'], s['gets']]
        w = 1.0
        window = rows[max(0, n - 32):n]
        if theta and len(window) > 3:
            res = lambda t: t['own'] - sum(c * v for c, v in zip(theta, [t['mib'], t['calls'], t['gets']]))
            scale = sorted(abs(res(t)) for t in window)[(len(window) - 1) // 2]
            r = abs(res(s))
            if scale > 0 and r > 2 * scale:
                w = 2 * scale / r
        for i in range(3):
            for j in range(3):
                xx[i][j] = keep * xx[i][j] + w * x[i] * x[j]
            xy[i] = keep * xy[i] + w * s['own'] * x[i]
        pinned = [False] * 3
        while True:
            t = solve(xx, xy, pinned)
            if t is None:
                break
            neg = [i for i in range(3) if not pinned[i] and t[i] < 0]
            if not neg:
                theta = t
                break
            pinned[min(neg, key=lambda i: t[i])] = True
        out.append((max(theta[0], 0), max(theta[2], 0)) if theta and n >= 8 else None)
    return out

def summary(values):
    v = sorted(x for x in values[24:] if x is not None)
    if not v:
        return 'none'
    q = lambda p: v[min(len(v) - 1, int(p * (len(v) - 1)))]
    last = [x for x in values if x is not None][-1]
    return 'p10 %.2f p50 %.2f p90 %.2f last %.2f' % (q(0.1), q(0.5), q(0.9), last)

args = sys.argv[1:]
memory = 256.0
if '--memory' in args:
    i = args.index('--memory')
    memory = float(args[i + 1])
    del args[i:i + 2]
for path in args:
    rows = load(path)
    print('%s (%d slices)' % (path, len(rows)))
    for name, est in (('main', main_estimator(rows)), ('least squares N=%g' % memory, least_squares(rows, memory))):
        print('  %-22s beta %s | alpha %s' % (name, summary([e and e[0] for e in est]), summary([e and e[1] for e in est])))
