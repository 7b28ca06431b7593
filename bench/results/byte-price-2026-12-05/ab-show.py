import json,glob,sys,collections
d=sys.argv[1]
acc=collections.defaultdict(list)
for f in sorted(glob.glob(d+'/*.json')):
    cell,bin_,rnd=f.split('/')[-1][:-5].split('-')
    rows={r['policy']:r for r in json.load(open(f))}
    w=rows['warp']; o=rows['object_store_rule']
    l=w.get('load') or {}
    c=l.get('capacity_mib_s')
    print(f"{cell:7} {bin_:5} {rnd} warp {w['qps']:7.1f} ({w['qps_min']:.0f}-{w['qps_max']:.0f}) {w['bytes_per_query']/1024:6.0f}KiB {w['gets_per_query']:.2f}G  osr {o['qps']:7.1f} {o['bytes_per_query']/1024:6.0f}KiB {o['gets_per_query']:.2f}G  ratio {w['qps']/o['qps']:.3f}  C {c and round(c)} used {(l.get('cpu_cores_used') or 0):.2f} avail {(l.get('cpu_cores_available') or 0):.2f}")
    acc[(cell,bin_)].append(w['qps']/o['qps'])
for k,v in sorted(acc.items()): print(k, ' '.join(f'{x:.3f}' for x in v))
