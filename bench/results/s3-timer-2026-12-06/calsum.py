import json,sys
d=json.load(open(sys.argv[1]))
for f in d['fits']:
    a=[x for x in f['fits'] if x['kind']=='affine'][0]['surrogate']['affine']
    pts=dict((int(k),v) for k,v in f['points'])
    print(f"c={f['concurrency']}: fixed {a['fixed_ms']:.2f} ms ({(a['fixed_ms']/25-1)*100:+.1f}%), slope {a['per_mib_ms']:.3f}, 4KiB median {pts[4096]:.2f}, 64MiB {pts.get(67108864,0):.1f}")
print({k:v for k,v in d.items() if k not in ('fits',)})
