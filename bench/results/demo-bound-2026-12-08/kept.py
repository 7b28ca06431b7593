#!/usr/bin/env python3
"""The plans `warp` kept, from a `WARP_LOG=trace` run among CPU-bound neighbours (every call
logs "a crowded GET's price", then its candidates; the kept one is the cheapest, ties to
the first). Prints the kept GETs' and MiB's distribution and the queued share's.
Usage: kept.py TRACE.err"""
import collections
import re
import statistics as st
import sys

calls, cur = [], None
for line in open(sys.argv[1]):
    if "a crowded GET's price" in line:
        if cur is not None:
            calls.append(cur)
        cur = {'q': float(re.search(r'queued=(\S+)', line).group(1)), 'c': [], 'eps': False}
    elif ' candidate ' in line and cur is not None:
        f = {k: float(re.search(k + r'=(\S+)', line).group(1)) for k in ('cost', 'gets', 'bytes')}
        f['price'] = float(re.search(r'price=(\S+)', line).group(1))
        cur['c'].append((f['cost'], f['gets'], f['bytes'] / 2**20, f['price']))
    elif 'within epsilon' in line and cur is not None:
        cur['eps'] = True
if cur is not None:
    calls.append(cur)
kept = [min(c['c'], key=lambda x: x[0]) for c in calls if c['c']]
pct = lambda v, ps: [round(sorted(v)[int(p * (len(v) - 1))], 3) for p in ps]
g, m = [k[1] for k in kept], [k[2] for k in kept]
print(f'{len(calls)} crowded calls, {len(kept)} with candidates')
print(f'kept GETs: mean {st.mean(g):.2f}; count by GETs {sorted(collections.Counter(g).items())}')
print(f'kept MiB: mean {st.mean(m):.2f}; p0 p10 p25 p50 p75 p90 p99 p100 {pct(m, (0, .1, .25, .5, .75, .9, .99, 1))}')
print(f'queued share: p0 p10 p50 p90 p100 {pct([c["q"] for c in calls], (0, .1, .5, .9, 1))}')
print('candidates a call:', sorted(collections.Counter(len(c['c']) for c in calls).items()))
print(f'ended at the epsilon prune (the byte price\'s plan, one candidate): {sum(c["eps"] for c in calls)}')
# The others: is the kept plan the byte price's (price != 1, the first candidate made)?
rest = [c['c'] for c in calls if not c['eps'] and len(c['c']) > 1]
at_price = sum(1 for c in rest if min(c, key=lambda x: x[0])[3] != 1.0)
mib = [min(c, key=lambda x: x[0])[2] for c in rest]
print(f'the others: {len(rest)}, keeping a plan at the byte price in {at_price}; kept MiB mean '
      f'{st.mean(mib) if mib else 0:.2f}')
