#!/usr/bin/env python3
"""Which candidate plan each call kept, from a `WARP_LOG=trace` log of `warp bench`.

usage: candidates.py TRACE_LOG

The `warp::plan` "candidate" events of one call share the mix they were priced at (`cycle_ms`,
`mix_delay_ms`, `mix_station_ms`), so they are grouped by those; the kept one is the first of
least `cost` (as `PlannedStore::plan` keeps it). A call pruned to the byte price's plan alone
logs one candidate and a "within epsilon" line. Prints how many calls kept which candidate
(`m*`: a price other than the prior's; `P=…`: the prior's price at that parallelism;
`fixed=…`: the measured first byte), the kept plans' GETs and KiB against the `m*` plan's in
calls that had both, and the deciles of `m*`."""
import re, sys, collections, statistics
kv = re.compile(r'(\w+)=(\[[^\]]*\]|\S+)')
calls = collections.OrderedDict()
pruned = 0
for line in open(sys.argv[1], errors='replace'):
    if 'warp::plan' not in line:
        continue
    if 'within epsilon' in line:
        pruned += 1
        continue
    if 'candidate' not in line:
        continue
    f = dict(kv.findall(line.split('candidate', 1)[1]))
    key = (f.get('cycle_ms'), f.get('mix_delay_ms'), f.get('mix_station_ms'))
    calls.setdefault(key, []).append(f)
kinds = collections.Counter()
kept_b, mstar_b, kept_g, mstar_g = [], [], [], []
n = 0
for key, cs in calls.items():
    n += 1
    costs = [float(c['cost']) for c in cs]
    k = costs.index(min(costs))
    c = cs[k]
    price = float(c['price']); par = c['parallelism']; fx = float(c['fixed_ms'])
    if price != 1.0:
        kind = 'm*'
    elif fx != 25.0:
        kind = f'fixed={fx:.0f}'
    else:
        kind = f'P={par}'
    kinds[kind] += 1
    ms = [x for x in cs if float(x['price']) != 1.0]
    if ms and len(cs) > 1:
        kept_b.append(int(c['bytes'])); kept_g.append(int(c['gets']))
        mstar_b.append(int(ms[-1]['bytes'])); mstar_g.append(int(ms[-1]['gets']))
print(f'calls grouped {n}, pruned to m* {pruned}')
for k, v in kinds.most_common():
    print(f'  kept {k}: {v}')
if kept_b:
    print(f'unpruned calls with an m* candidate: {len(kept_b)}; kept mean GETs {statistics.mean(kept_g):.2f} KiB {statistics.mean(kept_b)/1024:.0f}; '
          f'm* mean GETs {statistics.mean(mstar_g):.2f} KiB {statistics.mean(mstar_b)/1024:.0f}')
prices = [float(cs[-1]['price']) for cs in calls.values() if float(cs[-1]['price']) != 1.0]
if prices:
    q = statistics.quantiles(prices, n=10)
    print(f'm* price deciles: {[round(x,2) for x in q]}')
