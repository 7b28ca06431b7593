import re, datetime
def stamp_ms(line):
    # the subscriber's timestamp: when the GET completed
    ts = line.split()[0].rstrip('Z')
    return datetime.datetime.fromisoformat(ts).timestamp() * 1000.0
import re,sys,statistics as st
def load(f):
    g=[]
    for l in open(f):
        if 'GET observed' not in l: continue
        d=dict(re.findall(r'(\w+)=([\d.e+-]+)',l.split('GET observed')[1]))
        L=int(d['len'])/1048576; fb=float(d['first_byte_ms']); lat=float(d['latency_ms']); done=stamp_ms(l)
        g.append((L,fb,lat,done))
    return g[5:]
def analyze(f):
    g=load(f)
    n=len(g)
    bodies=[(done-(lat-fb),done,L) for L,fb,lat,done in g]
    issues=[(done-lat,done,L) for L,fb,lat,done in g]
    T=max(b[1] for b in bodies)-min(i[0] for i in issues)
    tot=sum(b[2] for b in bodies)
    # union of body intervals
    ev=sorted([(a,1) for a,b,L in bodies]+[(b,-1) for a,b,L in bodies])
    U=0;c=0;last=None
    for t,d in ev:
        if c>0: U+=t-last
        c+=d; last=t
    # aggregate rate function piecewise, uniform rate per body
    ev2=sorted([(a,L/max(b-a,1e-3)) for a,b,L in bodies]+[(b,-L/max(b-a,1e-3)) for a,b,L in bodies])
    segs=[];r=0;last=None
    for t,d in ev2:
        if last is not None and t>last: segs.append((r*1000,t-last))
        r+=d; last=t
    segs.sort()
    tw=sum(w for _,w in segs)
    def q(p):
        acc=0
        for v,w in segs:
            acc+=w
            if acc>=p*tw: return v
    bodyms=[b-a for a,b,L in bodies]
    print(f"{f}: n={n} mean MiB/GET={tot/n:.3f} overall={tot/T*1000:.0f} MiB/s  union-body={tot/U*1000:.0f} MiB/s  (union {U/T:.2f} of time)  aggregate q50={q(.5):.0f} q90={q(.9):.0f} q99={q(.99):.0f}; body ms median {st.median(bodyms):.2f}, unloaded {st.median([5*L for _,_,L in bodies]):.2f}; fb median {st.median([x[1] for x in g]):.1f}")
for f in sys.argv[1:]: analyze(f)
