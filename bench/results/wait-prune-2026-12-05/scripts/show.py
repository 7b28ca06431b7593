import json,glob,sys,collections
acc=collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1]+'/*.json')):
    n=f.split('/')[-1][:-5]
    try: rows={r['policy']:r for r in json.load(open(f))}
    except Exception as e: print(n,'bad',e); continue
    w=rows['warp']; o=rows['object_store_rule']; la=rows['lance_rule']
    best=max(o['qps'],la['qps'])
    l=w.get('load') or {}; c=l.get('capacity_mib_s')
    print(f"{n:14} warp {w['qps']:7.1f} {w['bytes_per_query']/1024:5.0f}KiB {w['gets_per_query']:.2f}G plan {w['plan_us']:.1f}us | osr {o['qps']:7.1f} {o['bytes_per_query']/1024:5.0f}KiB {o['gets_per_query']:.2f}G | lance {la['qps']:7.1f} | ratio {w['qps']/best:.3f} C {c and round(c)} used {(l.get('cpu_cores_used') or 0):.2f}")
    acc[n.rsplit('-',1)[0]].append(w['qps']/best)
for k,v in sorted(acc.items()): print(k, ' '.join(f'{x:.3f}' for x in v))
