import sys, bisect
import numpy as np
def load(p):
    a=np.loadtxt(p)
    done,fb,lat,ln=a[:,0],a[:,1],a[:,2],a[:,3]/1048576
    o=np.argsort(done); done,fb,lat,ln=done[o],fb[o],lat[o],ln[o]
    h=done-(lat-fb)
    return h,done,ln,fb,lat
def overlap_rate(h,d,ln,lo,hi):
    # bytes delivered in [lo,hi] assuming uniform rate per body
    b=np.maximum(d-h,1e-3)
    ov=np.clip(np.minimum(d,hi)-np.maximum(h,lo),0,None)
    return (ln*ov/b).sum()/(hi-lo)*1000
def union_len(h,d):
    o=np.argsort(h); tot=0; cs=ce=None
    for s,e in zip(h[o],d[o]):
        if cs is None: cs,ce=s,e
        elif s>ce: tot+=ce-cs; cs,ce=s,e
        else: ce=max(ce,e)
    if cs is not None: tot+=ce-cs
    return tot
p=sys.argv[1]; e=float(sys.argv[2]) if len(sys.argv)>2 else 5.0
h,d,ln,fb,lat=load(p)
n=len(d); print(p, n, 'GETs', 'mean MiB', ln.mean(), 'span s', (d[-1]-d[0])/1000, 'overall MiB/s', ln.sum()/((d[-1]-d[0])/1000))
b=d-h
print('body ms median', np.median(b), 'fb median', np.median(fb), 'ratio b/(eL) median', np.median(b/(e*ln)))
E0=[];E1=[];E2=[];E3=[];P=[]
for end in range(64+1000, n, 16):
    w=slice(end-64,end)
    hh,dd,ll=h[w],d[w],ln[w]
    span=dd[-1]-dd[0]
    E0.append(ll[1:].sum()/span*1000)
    E1.append(ll.sum()/union_len(hh,dd)*1000)
    # n_i
    ni=[]; 
    lo=bisect.bisect_left(d, hh.min()-1)
    Hs,Ds=h[lo:end+200],d[lo:end+200]
    for s,t in zip(hh,dd):
        ov=np.clip(np.minimum(Ds,t)-np.maximum(Hs,s),0,None).sum()
        ni.append(ov/max(t-s,1e-3))
    ni=np.array(ni); bb=dd-hh
    E2.append((ni*ll).sum()/bb.sum()*1000)
    sl=bb>1.1*e*ll
    if sl.sum()>=4:
        r=[overlap_rate(h[lo:end+200],d[lo:end+200],ln[lo:end+200],s,t) for s,t in zip(hh[sl],dd[sl])]
        E3.append(np.median(r))
    P.append(np.median((25+bb)/(25+e*ll))-1)
for name,v in [('E0 window',E0),('E1 union',E1),('E2 n*L/b',E2),('E3 slowed-agg',E3),('pressure',P)]:
    v=np.array(v); print(f'{name:14s} n={len(v):4d} p10 {np.percentile(v,10):8.1f} median {np.median(v):8.1f} p90 {np.percentile(v,90):8.1f}')
